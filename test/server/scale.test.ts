/**
 * The local service at a size where statements built from the data used to break: 40,000 calls in 34,000 traces
 * (more than SQLite's 32,766 parameters per statement), written through `/call/upsert_batch`. The viewer's text
 * filter, a trace-id filter as long as the data, feedback on every call and a delete of every trace answer 200 with
 * the right rows, with each store.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { callRef } from "../../src/api/refs.js";
import { ndjson, PROJECT, send, startService, type TestService } from "./helpers.js";

const CALLS = 40_000;
const TRACES = 34_000;
const id = (n: number) => n.toString(16).padStart(16, "0");
const traceOf = (n: number) => `t${(n % TRACES).toString(16).padStart(31, "0")}`;
const at = (n: number) => new Date(Date.UTC(2026, 0, 5) + n * 10).toISOString();
/** Calls 0..TRACES-1 are roots; the rest are children of the root of their trace. */
const parentOf = (n: number) => (n < TRACES ? undefined : id(n % TRACES));
/** Every 1000th call mentions a needle in its inputs; every 997th fails. */
const mentions = (n: number) => n % 1000 === 7;
const fails = (n: number) => n % 997 === 3;

function items(from: number, to: number) {
  const batch: unknown[] = [];
  for (let n = from; n < to; n++) {
    batch.push({
      mode: "start",
      req: {
        start: {
          project_id: PROJECT,
          id: id(n),
          trace_id: traceOf(n),
          ...(parentOf(n) ? { parent_id: parentOf(n) } : {}),
          op_name: n < TRACES ? "agent" : "llm",
          started_at: at(n),
          attributes: {},
          inputs: {
            messages: [{ role: "user", content: `${mentions(n) ? "Needle" : "hay"} number ${n}` }],
          },
        },
      },
    });
    batch.push({
      mode: "end",
      req: {
        end: {
          project_id: PROJECT,
          id: id(n),
          ended_at: at(n + 1),
          output: `done ${n}`,
          summary: {},
          ...(fails(n) ? { exception: "RuntimeError: boom" } : {}),
        },
      },
    });
  }
  return { batch };
}

// Each request moves every call (tens of MB of JSON): on a loaded machine one takes longer than the default 20 s.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 });

describe.each(["sqlite", "memory"] as const)("%s store with 40,000 calls in 34,000 traces", (storage) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService({ storage });
    for (let from = 0; from < CALLS; from += 8_000) {
      const res = await send(service.url, "/call/upsert_batch", items(from, from + 8_000));
      expect(res.status).toBe(200);
    }
  });
  afterAll(() => service?.close());

  const query = (body: Record<string, unknown>) =>
    send(service.url, "/calls/stream_query", { project_id: PROJECT, ...body });

  it("answers the viewer's text filter over every call (any case) with the traces that mention it", async () => {
    const contains = (field: string) => ({
      $contains: { input: { $getField: field }, substr: { $literal: "needle" }, case_insensitive: true },
    });
    const res = await query({
      columns: ["trace_id"],
      query: { $expr: { $or: ["op_name", "display_name", "inputs", "output", "exception"].map(contains) } },
    });
    expect(res.status, res.text).toBe(200);
    const expected = Array.from({ length: CALLS }, (_, n) => n).filter(mentions);
    expect(ndjson(res.text).map((c) => c.id)).toEqual(expected.map(id));
    expect(ndjson(res.text).map((c) => c.trace_id)).toEqual(expected.map(traceOf));
  });

  it("filters on 34,000 trace ids at once and counts with the same filter", async () => {
    const traceIds = Array.from({ length: TRACES }, (_, n) => traceOf(n));
    const res = await query({ filter: { trace_ids: traceIds, trace_roots_only: true }, columns: ["id"] });
    expect(res.status, res.text).toBe(200);
    expect(ndjson(res.text)).toHaveLength(TRACES);
    const stats = await send(service.url, "/calls/query_stats", {
      project_id: PROJECT,
      filter: { trace_ids: traceIds },
    });
    expect(stats.status, stats.text).toBe(200);
    expect(stats.json).toEqual({ count: CALLS });
  });

  it("marks roots whose children failed, for every trace at once", async () => {
    const res = await query({
      filter: { trace_roots_only: true },
      query: { $expr: { $eq: [{ $getField: "summary.weave.status" }, { $literal: "descendant_error" }] } },
      columns: ["id"],
    });
    expect(res.status, res.text).toBe(200);
    const expected = new Set<number>();
    for (let n = TRACES; n < CALLS; n++) if (fails(n) && !fails(n % TRACES)) expected.add(n % TRACES);
    expect(ndjson(res.text).map((c) => c.id)).toEqual([...expected].sort((a, b) => a - b).map(id));
  });

  it("returns feedback with every call", async () => {
    const feedback = await send(service.url, "/feedback/create", {
      project_id: PROJECT,
      weave_ref: callRef(PROJECT, id(CALLS - 1)),
      feedback_type: "wandb.note.1",
      payload: { note: "last one" },
    });
    expect(feedback.status, feedback.text).toBe(200);
    const res = await query({ include_feedback: true, columns: ["summary"] });
    expect(res.status, res.text).toBe(200);
    const rows = ndjson(res.text) as { summary: { weave: { feedback: { payload: unknown }[] } } }[];
    expect(rows).toHaveLength(CALLS);
    expect(rows.at(-1)!.summary.weave.feedback.map((f) => f.payload)).toEqual([{ note: "last one" }]);
  });

  it("deletes 34,000 traces by their roots in one request", async () => {
    const res = await send(service.url, "/calls/delete", {
      project_id: PROJECT,
      call_ids: Array.from({ length: TRACES }, (_, n) => id(n)),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ num_deleted: CALLS });
    const stats = await send(service.url, "/calls/query_stats", { project_id: PROJECT });
    expect(stats.json).toEqual({ count: 0 });
  });
});
