/**
 * init() registers the W3C trace-context and baggage propagators when the app has none, so instrumentation that
 * injects context into outgoing requests (HTTP, fetch, Next.js) sends `traceparent` and `baggage` for tracewire's
 * calls; an app's own propagator is kept, and shutdown() unregisters only what init() registered.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import { context, propagation } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { getCurrentCall, init, op, type TracewireHandle } from "../../src/index.js";
import { TracingDouble } from "../support/tracing-double.js";

let double: TracingDouble | undefined;
let tracing: TracewireHandle | undefined;

afterEach(async () => {
  await tracing?.shutdown();
  await double?.close();
  propagation.disable();
  tracing = double = undefined;
});

/** A loopback server that keeps the headers of the one request it gets. */
async function headersOfOneRequest(send: (url: string) => Promise<unknown>): Promise<IncomingHttpHeaders> {
  let seen: IncomingHttpHeaders = {};
  const server = createServer((req, res) => {
    seen = req.headers;
    res.end("ok");
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  try {
    await send(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
  } finally {
    await new Promise((done) => server.close(done));
  }
  return seen;
}

/** An outgoing request made the way instrumentation makes it: context injected into its headers. */
const outgoing = op(async function outgoing(url: string) {
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  await (await fetch(url, { headers })).text();
  return getCurrentCall()!;
});

describe("propagation", () => {
  it("outgoing requests from inside a call carry traceparent (and baggage) after init()", async () => {
    double = await TracingDouble.start();
    tracing = init({ baseUrl: double.url, project: "acme/demo", env: {} });
    const bag = propagation.createBaggage({ tenant: { value: "acme" } });
    let call: Awaited<ReturnType<typeof outgoing>> | undefined;
    const headers = await headersOfOneRequest(async (url) => {
      call = await context.with(propagation.setBaggage(context.active(), bag), () => outgoing(url));
    });
    expect(headers.traceparent).toBe(`00-${call!.traceId}-${call!.id}-01`);
    expect(headers.baggage).toBe("tenant=acme");
  });

  it("an app's own propagator is kept; shutdown() leaves it registered", async () => {
    const own = {
      inject: (_ctx: unknown, carrier: Record<string, string>) => {
        carrier["x-own"] = "1";
      },
      extract: (ctx: unknown) => ctx,
      fields: () => ["x-own"],
    };
    expect(propagation.setGlobalPropagator(own as never)).toBe(true);
    double = await TracingDouble.start();
    tracing = init({ baseUrl: double.url, project: "acme/demo", env: {} });
    const headers = await headersOfOneRequest((url) => outgoing(url));
    expect(headers["x-own"]).toBe("1");
    expect(headers.traceparent).toBeUndefined();
    await tracing.shutdown();
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    expect(carrier).toEqual({ "x-own": "1" });
  });
});
