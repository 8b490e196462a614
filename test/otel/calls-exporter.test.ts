/**
 * The calls sender on its own, against the strict double: a record JSON cannot encode is refused when it is made
 * into a queue item (so it can never block the queue), and the items around it still go, in order.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CallEnd, CallStart } from "../../src/api/types/calls.js";
import type { HttpTransport } from "../../src/http/transport.js";
import { CallsExporter } from "../../src/otel/calls-exporter.js";
import type { CallItem } from "../../src/otel/calls-route.js";
import { CallRecordEncoder } from "../../src/wire/call-encode.js";
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

const startRecord = (id: string, inputs: Record<string, unknown> = {}): CallStart =>
  ({
    project_id: "acme/demo",
    id,
    trace_id: "t".repeat(32),
    op_name: "op",
    started_at: "2026-01-01T00:00:00.000Z",
    attributes: {},
    inputs,
  }) as CallStart;
const endRecord = (id: string): CallEnd =>
  ({ project_id: "acme/demo", id, ended_at: "2026-01-01T00:00:01.000Z", summary: {} }) as CallEnd;

function item(made: CallItem | Error): CallItem {
  if (made instanceof Error) throw made;
  return made;
}

const records = new CallRecordEncoder("acme/demo");

it("refuses an unencodable record alone; its neighbours go in order", async () => {
  const bad = records.record("start", startRecord("bad", { budget: 10n }));
  expect(bad).toBeInstanceOf(TypeError);
  expect((bad as Error).message).toMatch(/BigInt/);

  let sent = 0;
  const exporter = new CallsExporter(
    transport,
    1 << 20,
    {
      sent: (n) => {
        sent += n;
      },
      rejected: () => {
        throw new Error("nothing in this batch is invalid");
      },
      unauthorized: () => {
        throw new Error("the key is fine");
      },
      failed: () => {},
      completeMode: () => {
        throw new Error("the service takes v1 writes");
      },
    },
    "acme/demo",
  );
  const batch = [
    item(records.record("start", startRecord("a"))),
    item(records.record("end", endRecord("a"))),
    item(records.record("start", startRecord("b"))),
    item(records.record("end", endRecord("b"))),
  ];
  await expect(exporter.export(batch, AbortSignal.timeout(5000))).resolves.toEqual({ done: 4, retry: false });
  expect(sent).toBe(4);
  expect(double.call("a").starts).toBe(1);
  expect(double.call("a").ends).toBe(1);
  expect(double.call("b").ends).toBe(1);
  expect(double.calls.has("bad")).toBe(false);
  expect(double.call("a").startSeq).toBeLessThan(double.call("a").endSeq!);
});
