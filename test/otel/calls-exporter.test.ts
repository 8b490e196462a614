/**
 * The calls sender on its own, against the strict double: an item JSON cannot encode is dropped alone and the
 * items around it still go, in order (no record built by the public API is unencodable today; this guards the
 * queue against one ever blocking it).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CallEnd, CallStart } from "../../src/api/types/calls.js";
import type { HttpTransport } from "../../src/http/transport.js";
import { type CallItem, CallsExporter } from "../../src/otel/calls-exporter.js";
import { TracingDouble } from "../support/tracing-double.js";
import { plainTransport } from "../support/transport.js";

let double: TracingDouble;
let transport: HttpTransport;
beforeAll(async () => {
  double = await TracingDouble.start();
  transport = plainTransport(double.url);
});
afterAll(async () => {
  await transport.close();
  await double.close();
});

const start = (id: string, inputs: Record<string, unknown> = {}): CallItem => ({
  kind: "start",
  record: {
    project_id: "acme/demo",
    id,
    trace_id: "t".repeat(32),
    op_name: "op",
    started_at: "2026-01-01T00:00:00.000Z",
    attributes: {},
    inputs,
  } as CallStart,
});
const end = (id: string): CallItem => ({
  kind: "end",
  record: { project_id: "acme/demo", id, ended_at: "2026-01-01T00:00:01.000Z", summary: {} } as CallEnd,
});

it("drops an unencodable item alone and sends its neighbours in order", async () => {
  const rejected: string[] = [];
  let sent = 0;
  const exporter = new CallsExporter(transport, 1 << 20, {
    sent: (n) => {
      sent += n;
    },
    rejected: (items, error) => rejected.push(`${(items[0] as { record: { id: string } }).record.id}: ${error.name}`),
    failed: () => {},
  });
  const batch = [start("a"), start("bad", { budget: 10n }), end("a"), start("b"), end("b")];
  await expect(exporter.export(batch, AbortSignal.timeout(5000))).resolves.toEqual({ done: 5, retry: false });
  expect(rejected).toEqual(["bad: TypeError"]);
  expect(sent).toBe(4);
  expect(double.call("a").starts).toBe(1);
  expect(double.call("a").ends).toBe(1);
  expect(double.call("b").ends).toBe(1);
  expect(double.calls.has("bad")).toBe(false);
  expect(double.call("a").startSeq).toBeLessThan(double.call("a").endSeq!);
});
