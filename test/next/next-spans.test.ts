/**
 * Next's own spans, made by Next's real tracer (`next/dist/server/lib/trace/tracer`) as its server makes them for a
 * request (`BaseServer.handleRequest` → `AppRouteRouteHandlers.runHandler`), with a `withTracing` route handler inside:
 * the call tree at the local tracing service, and no credential from the request's URL in it.
 */
import { createRequire } from "node:module";
import { afterEach, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { init, type TracewireHandle } from "../../src/index.js";
import { withTracing } from "../../src/next/index.js";
import { collect, PROJECT, startService, type TestService } from "../server/helpers.js";

const load = createRequire(import.meta.url);
type NextTracer = {
  trace<T>(type: string, options: { spanName: string; attributes?: Record<string, string> }, fn: () => T): T;
};
const { getTracer } = load("next/dist/server/lib/trace/tracer.js") as { getTracer(): NextTracer };
const { BaseServerSpan, AppRouteRouteHandlersSpan } = load("next/dist/server/lib/trace/constants.js") as {
  BaseServerSpan: { handleRequest: string };
  AppRouteRouteHandlersSpan: { runHandler: string };
};

let service: TestService | undefined;
let handle: TracewireHandle | undefined;

afterEach(async () => {
  await handle?.shutdown();
  await service?.close();
  handle = service = undefined;
});

it("a request URL's credential query parameters (Next's http.target) never reach the service; the tree holds", async () => {
  service = await startService({ storage: "memory" });
  handle = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
  const target = "/api/items/7?api_key=sk-live-abcdef123456&token=t0k3n-secret&q=shoes";
  const GET = withTracing(async (_request: Request) => new Response(null, { status: 204 }));
  // As Next's server does: the request span, the route handler span, then the handler.
  await getTracer().trace(
    BaseServerSpan.handleRequest,
    { spanName: "GET /api/items/[id]", attributes: { "http.method": "GET", "http.target": target } },
    () =>
      getTracer().trace(
        AppRouteRouteHandlersSpan.runHandler,
        { spanName: "executing api route (app) /api/items/[id]", attributes: { "next.route": "/api/items/[id]" } },
        () => GET(new Request(`http://localhost${target}`)),
      ),
  );
  await handle.flush();
  const client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
  const calls = await collect(client.calls.streamQuery({})).finally(() => client.close());
  const root = calls.find((c) => c.parent_id === null)!;
  const route = calls.find((c) => c.parent_id === root.id)!;
  const request = calls.find((c) => c.parent_id === route.id)!;
  expect(root.op_name).toBe("GET /api/items/[id]");
  expect(route.op_name).toBe("executing api route (app) /api/items/[id]");
  expect(request).toMatchObject({
    op_name: "GET /api/items/[id]",
    inputs: { request: { method: "GET", path: "/api/items/7", route: "/api/items/[id]" } },
    output: { status: 204 },
  });
  expect((root.attributes as { http: { target: string } }).http.target).toBe(
    "/api/items/7?api_key=REDACTED&token=REDACTED&q=shoes",
  );
  const sent = JSON.stringify(calls);
  expect(sent).not.toContain("sk-live-abcdef123456");
  expect(sent).not.toContain("t0k3n-secret");
});
