import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { ndjsonReply } from "../support/server.js";
import { expectRequest, type MethodCase, runCases, setupTracingServer } from "./tracing-support.js";

const ctx = setupTracingServer();

const P = "acme/demo";
const queue = {
  id: "q 1",
  project_id: P,
  name: "Review",
  description: "",
  scorer_refs: ["weave:///acme/demo/object/quality:abc"],
  created_at: "2026-01-05T10:00:00Z",
  created_by: "u1",
  updated_at: "2026-01-05T10:00:00Z",
};

describe("TracingClient.annotationQueues", () => {
  it("every buffered method sends its documented request and returns the answer", async () => {
    const cases: MethodCase[] = [
      {
        name: "annotationQueues.create",
        method: "POST",
        path: "/annotation_queues",
        run: () => ctx.client.annotationQueues.create({ name: "Review", scorer_refs: queue.scorer_refs }),
        json: { project_id: P, name: "Review", scorer_refs: queue.scorer_refs },
        reply: { id: "q 1" },
        retriesOn500: false,
      },
      {
        name: "annotationQueues.stats",
        method: "POST",
        path: "/annotation_queues/stats",
        run: () => ctx.client.annotationQueues.stats({ queue_ids: ["q 1"] }),
        json: { project_id: P, queue_ids: ["q 1"] },
        reply: { stats: [{ queue_id: "q 1", total_items: 4, completed_items: 1 }] },
        retriesOn500: true,
      },
      {
        name: "annotationQueues.read",
        method: "GET",
        path: "/annotation_queues/q%201",
        query: { project_id: [P] },
        run: () => ctx.client.annotationQueues.read("q 1"),
        reply: { queue },
        retriesOn500: true,
      },
      {
        name: "annotationQueues.update",
        method: "PUT",
        path: "/annotation_queues/q%201",
        run: () => ctx.client.annotationQueues.update("q 1", { description: "second pass" }),
        json: { project_id: P, description: "second pass" },
        reply: { queue: { ...queue, description: "second pass" } },
        retriesOn500: true,
      },
      {
        name: "annotationQueues.delete",
        method: "DELETE",
        path: "/annotation_queues/q%201",
        query: { project_id: ["other/proj"] },
        run: () => ctx.client.annotationQueues.delete("q 1", { project_id: "other/proj" }),
        reply: { queue: { ...queue, deleted_at: "2026-01-06T00:00:00Z" } },
        retriesOn500: true,
      },
      {
        name: "annotationQueues.addCalls",
        method: "POST",
        path: "/annotation_queues/q%201/items",
        run: () =>
          ctx.client.annotationQueues.addCalls("q 1", { call_ids: ["c1", "c2"], display_fields: ["inputs.question"] }),
        json: { project_id: P, call_ids: ["c1", "c2"], display_fields: ["inputs.question"] },
        reply: { added_count: 2, duplicates: 0 },
        retriesOn500: false,
      },
      {
        name: "annotationQueues.queryItems",
        method: "POST",
        path: "/annotation_queues/q%201/items/query",
        run: () =>
          ctx.client.annotationQueues.queryItems("q 1", {
            filter: { annotation_states: ["unstarted"] },
            include_position: true,
          }),
        json: { project_id: P, filter: { annotation_states: ["unstarted"] }, include_position: true },
        reply: { items: [] },
        retriesOn500: true,
      },
      {
        name: "annotationQueues.updateItemProgress",
        method: "POST",
        path: "/annotation_queues/q%201/items/item%2F7/progress",
        run: () => ctx.client.annotationQueues.updateItemProgress("q 1", "item/7", { annotation_state: "completed" }),
        json: { project_id: P, annotation_state: "completed" },
        reply: { item: { id: "item/7", annotation_state: "completed" } },
        retriesOn500: false,
      },
    ];
    await runCases(ctx.server, cases);
  });

  it("query yields queues in order as NDJSON lines arrive", async () => {
    const queues = [queue, { ...queue, id: "q2", name: "Review 2" }, { ...queue, id: "q3", name: "Review 3" }];
    ctx.server.reset();
    ctx.server.on("POST", "/annotation_queues/query", ndjsonReply(queues, { chunkBytes: 11 }));
    const seen: unknown[] = [];
    for await (const q of ctx.client.annotationQueues.query({ name: "review", limit: 3 })) seen.push(q);
    expect(seen).toEqual(queues);
    expectRequest(
      ctx.server.only(),
      { method: "POST", path: "/annotation_queues/query", json: { project_id: P, name: "review", limit: 3 } },
      "annotationQueues.query",
    );
  });

  it("queue and item ids are required before anything is sent", () => {
    ctx.server.reset();
    expect(() => ctx.client.annotationQueues.read("")).toThrow(ValidationError);
    expect(() => ctx.client.annotationQueues.updateItemProgress("q", "", { annotation_state: "skipped" })).toThrow(
      /item_id/,
    );
    expect(ctx.server.requests).toHaveLength(0);
  });
});
