import { describe, expect, it } from "vitest";
import { ndjsonReply } from "../support/server.js";
import { expectRequest, type MethodCase, runCases, setupTracingServer } from "./tracing-support.js";

const ctx = setupTracingServer();

const P = "acme/demo";

describe("TracingClient.tables", () => {
  it("every buffered method sends its documented body and returns the answer", async () => {
    const rows = [
      { q: "1+1", a: "2" },
      { q: "2+2", a: "4" },
    ];
    const cases: MethodCase[] = [
      {
        name: "tables.create",
        method: "POST",
        path: "/table/create",
        run: () => ctx.client.tables.create({ table: { rows } }),
        json: { table: { project_id: P, rows } },
        reply: { digest: "t1", row_digests: ["r1", "r2"] },
        retriesOn500: false,
      },
      {
        name: "tables.createFromDigests",
        method: "POST",
        path: "/table/create_from_digests",
        run: () => ctx.client.tables.createFromDigests({ row_digests: ["r1", "r2"] }),
        json: { project_id: P, row_digests: ["r1", "r2"] },
        reply: { digest: "t1" },
        retriesOn500: false,
      },
      {
        name: "tables.update",
        method: "POST",
        path: "/table/update",
        run: () =>
          ctx.client.tables.update({
            base_digest: "t1",
            updates: [
              { append: { row: { q: "3+3", a: "6" } } },
              { pop: { index: 0 } },
              { insert: { index: 0, row: {} } },
            ],
          }),
        json: {
          project_id: P,
          base_digest: "t1",
          updates: [
            { append: { row: { q: "3+3", a: "6" } } },
            { pop: { index: 0 } },
            { insert: { index: 0, row: {} } },
          ],
        },
        reply: { digest: "t2", updated_row_digests: ["r3"] },
        retriesOn500: false,
      },
      {
        name: "tables.query",
        method: "POST",
        path: "/table/query",
        run: () => ctx.client.tables.query({ digest: "t1", filter: { row_digests: ["r1"] }, limit: 1 }),
        json: { project_id: P, digest: "t1", filter: { row_digests: ["r1"] }, limit: 1 },
        reply: { rows: [{ digest: "r1", val: rows[0] }] },
        retriesOn500: true,
      },
      {
        name: "tables.queryStats",
        method: "POST",
        path: "/table/query_stats",
        run: () => ctx.client.tables.queryStats({ digest: "t1" }),
        json: { project_id: P, digest: "t1" },
        reply: { count: 2 },
        retriesOn500: true,
      },
      {
        name: "tables.queryStatsBatch",
        method: "POST",
        path: "/table/query_stats_batch",
        run: () => ctx.client.tables.queryStatsBatch({ digests: ["t1", "t2"], include_storage_size: true }),
        json: { project_id: P, digests: ["t1", "t2"], include_storage_size: true },
        reply: { tables: [{ digest: "t1", count: 2, storage_size_bytes: 120 }] },
        retriesOn500: true,
      },
    ];
    await runCases(ctx.server, cases);
  });

  it("queryStream yields rows in order as NDJSON lines arrive, and retries a 500 before the stream opens", async () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ digest: `r${i}`, val: { i }, original_index: i }));
    ctx.server.reset();
    ctx.server.on(
      "POST",
      "/table/query_stream",
      { status: 500, json: { reason: "x" } },
      ndjsonReply(rows, { chunkBytes: 9 }),
    );
    const seen: unknown[] = [];
    for await (const row of ctx.client.tables.queryStream({ digest: "t1", offset: 0 })) seen.push(row);
    expect(seen).toEqual(rows);
    expect(ctx.server.requests).toHaveLength(2);
    expectRequest(
      ctx.server.requests[1]!,
      { method: "POST", path: "/table/query_stream", json: { project_id: P, digest: "t1", offset: 0 } },
      "tables.queryStream",
    );
    expect(ctx.server.requests[1]!.headers.accept).toBe("application/jsonl");
  });

  it("queryStream sends nothing until iteration starts", async () => {
    ctx.server.reset();
    ctx.server.on("POST", "/table/query_stream", ndjsonReply([]));
    const stream = ctx.client.tables.queryStream({ digest: "t1" });
    await new Promise((r) => setTimeout(r, 20));
    expect(ctx.server.requests).toHaveLength(0);
    const seen: unknown[] = [];
    for await (const row of stream) seen.push(row);
    expect(seen).toEqual([]);
    expect(ctx.server.requests).toHaveLength(1);
  });
});

describe("TracingClient.threads", () => {
  it("streamQuery yields threads in order and sends the documented body", async () => {
    const threads = [
      { thread_id: "th-1", turn_count: 3, start_time: "2026-01-05T10:00:00Z", last_updated: "2026-01-05T10:05:00Z" },
      { thread_id: "th-2", turn_count: 1, start_time: "2026-01-05T11:00:00Z", last_updated: "2026-01-05T11:00:01Z" },
    ];
    ctx.server.reset();
    ctx.server.on("POST", "/threads/stream_query", ndjsonReply(threads, { chunkBytes: 5 }));
    const seen: unknown[] = [];
    const sort_by = [{ field: "last_updated", direction: "desc" as const }];
    for await (const thread of ctx.client.threads.streamQuery({ filter: { thread_ids: ["th-1", "th-2"] }, sort_by })) {
      seen.push(thread);
    }
    expect(seen).toEqual(threads);
    expectRequest(
      ctx.server.only(),
      {
        method: "POST",
        path: "/threads/stream_query",
        json: { project_id: P, filter: { thread_ids: ["th-1", "th-2"] }, sort_by },
      },
      "threads.streamQuery",
    );
  });
});
