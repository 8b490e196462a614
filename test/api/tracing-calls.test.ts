import { afterEach, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { ProtocolError, ValidationError } from "../../src/errors.js";
import { ndjsonReply } from "../support/server.js";
import { setupTracingServer } from "./tracing-support.js";

const ctx = setupTracingServer(
  (server) => new TracingClient({ baseUrl: server.url, apiKey: "tw-secret-key-0001", project: "acme/demo", env: {} }),
);
afterEach(() => ctx.server.reset());

const started_at = "2026-01-05T10:00:00.123Z";

describe("TracingClient.calls", () => {
  it("start fills project_id and sends exactly the documented body", async () => {
    ctx.server.on("POST", "/call/start", {
      json: { id: "00f067aa0ba902b7", trace_id: "4bf92f3577b34da6a3ce929d0e0e4736" },
    });
    const res = await ctx.client.calls.start({
      start: {
        id: "00f067aa0ba902b7",
        trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
        op_name: "summarize",
        started_at,
        attributes: {},
        inputs: { text: "hi" },
      },
    });
    expect(res).toEqual({ id: "00f067aa0ba902b7", trace_id: "4bf92f3577b34da6a3ce929d0e0e4736" });
    const req = ctx.server.only();
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/call/start");
    expect(req.headers.authorization).toBe("Bearer tw-secret-key-0001");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["user-agent"]).toMatch(/^tracewire\/\d+\.\d+\.\d+ /);
    expect(req.json).toEqual({
      start: {
        project_id: "acme/demo",
        id: "00f067aa0ba902b7",
        trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
        op_name: "summarize",
        started_at,
        attributes: {},
        inputs: { text: "hi" },
      },
    });
  });

  it("end, upsertBatch, read, update, delete, queryStats, stats, usage, traceUsage and score hit their paths", async () => {
    const cases: [string, () => Promise<unknown>, unknown][] = [
      [
        "/call/end",
        () => ctx.client.calls.end({ end: { id: "a", ended_at: started_at, summary: {} } }),
        { end: { project_id: "acme/demo", id: "a", ended_at: started_at, summary: {} } },
      ],
      [
        "/call/upsert_batch",
        () =>
          ctx.client.calls.upsertBatch({
            batch: [{ mode: "end", req: { end: { project_id: "e/p", id: "a", ended_at: started_at, summary: {} } } }],
          }),
        { batch: [{ mode: "end", req: { end: { project_id: "e/p", id: "a", ended_at: started_at, summary: {} } } }] },
      ],
      ["/call/read", () => ctx.client.calls.read({ id: "a" }), { project_id: "acme/demo", id: "a" }],
      [
        "/call/update",
        () => ctx.client.calls.update({ call_id: "a", display_name: "n" }),
        { project_id: "acme/demo", call_id: "a", display_name: "n" },
      ],
      [
        "/calls/delete",
        () => ctx.client.calls.delete({ call_ids: ["a"] }),
        { project_id: "acme/demo", call_ids: ["a"] },
      ],
      [
        "/calls/query_stats",
        () => ctx.client.calls.queryStats({ filter: { trace_roots_only: true } }),
        { project_id: "acme/demo", filter: { trace_roots_only: true } },
      ],
      [
        "/calls/stats",
        () => ctx.client.calls.stats({ start: started_at }),
        { project_id: "acme/demo", start: started_at },
      ],
      ["/calls/usage", () => ctx.client.calls.usage({ call_ids: ["a"] }), { project_id: "acme/demo", call_ids: ["a"] }],
      ["/trace/usage", () => ctx.client.calls.traceUsage({ limit: 5 }), { project_id: "acme/demo", limit: 5 }],
      [
        "/calls/score",
        () => ctx.client.calls.score({ call_ids: ["a"], scorer_refs: ["weave:///acme/demo/object/s:latest"] }),
        { project_id: "acme/demo", call_ids: ["a"], scorer_refs: ["weave:///acme/demo/object/s:latest"] },
      ],
    ];
    for (const [path, call, body] of cases) {
      ctx.server.on("POST", path, { json: { ok: path } });
      await expect(call()).resolves.toEqual({ ok: path });
      const req = ctx.server.received("POST", path);
      expect(req, path).toHaveLength(1);
      expect(req[0]!.json, path).toEqual(body);
    }
    expect(ctx.server.requests).toHaveLength(cases.length);
  });

  it("streamQuery yields calls in order as NDJSON lines arrive", async () => {
    const calls = Array.from({ length: 3 }, (_, i) => ({ id: `c${i}`, op_name: "op", trace_id: "t" }));
    ctx.server.on("POST", "/calls/stream_query", ndjsonReply(calls, { chunkBytes: 5 }));
    const seen: unknown[] = [];
    for await (const call of ctx.client.calls.streamQuery({ filter: { trace_ids: ["t"] }, limit: 3 })) seen.push(call);
    expect(seen).toEqual(calls);
    expect(ctx.server.only().json).toEqual({ project_id: "acme/demo", filter: { trace_ids: ["t"] }, limit: 3 });
  });

  it("streamQuery 10,000 lines arrive in order, consumed while the server is still sending; a malformed line names its number", async () => {
    // Bounded memory, shown structurally: the server holds back the second half until the client has consumed the
    // first, so a client that buffered the whole body would never finish.
    let release: () => void = () => {};
    const consumedHalf = new Promise<void>((resolve) => {
      release = resolve;
    });
    let serverDone = false;
    ctx.server.on("POST", "/calls/stream_query", async (_req, res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      const half = (from: number) =>
        Array.from({ length: 5000 }, (_, i) => JSON.stringify({ id: `c${from + i}`, n: from + i })).join("\n");
      res.write(`${half(0)}\n`);
      await consumedHalf;
      res.end(half(5000)); // the last line has no trailing newline
      serverDone = true;
    });
    let expected = 0;
    for await (const call of ctx.client.calls.streamQuery({})) {
      expect(call.n).toBe(expected);
      expected++;
      if (expected === 5000) {
        expect(serverDone).toBe(false);
        release();
      }
    }
    expect(expected).toBe(10_000);

    ctx.server.on("POST", "/calls/stream_query", ndjsonReply([{ id: "ok" }, "{not json", { id: "never" }]));
    const seen: unknown[] = [];
    const err = await (async () => {
      for await (const call of ctx.client.calls.streamQuery({})) seen.push(call);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ id: "ok" }]);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).line).toBe(2);
    expect((err as ProtocolError).message).toContain("line 2");
  });

  it("refuses a request without a project before sending anything", async () => {
    const bare = new TracingClient({ baseUrl: ctx.server.url, env: {} });
    expect(() => bare.calls.read({ id: "a" })).toThrow(ValidationError);
    expect(() => bare.calls.read({ id: "a", project_id: "no-slash" })).toThrow(/entity\/project/);
    expect(ctx.server.requests).toHaveLength(0);
    await bare.close();
  });
});
