import { describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { ValidationError } from "../../src/errors.js";
import { type MethodCase, runCases, setupTracingServer } from "./tracing-support.js";

const ctx = setupTracingServer();

const P = "acme/demo";
const callRef = "weave:///acme/demo/call/00f067aa0ba902b7";
const query = { $expr: { $eq: [{ $getField: "feedback_type" }, { $literal: "wandb.note.1" }] } };
const start = "2026-01-05T10:00:00.000Z";

describe("TracingClient.costs", () => {
  it("create, purge and query send their documented bodies and return the answer", async () => {
    const costs = { "gpt-4o-mini": { prompt_token_cost: 0.15, completion_token_cost: 0.6 } };
    const cases: MethodCase[] = [
      {
        name: "costs.create",
        method: "POST",
        path: "/cost/create",
        run: () => ctx.client.costs.create({ costs }),
        json: { project_id: P, costs },
        reply: { ids: [["gpt-4o-mini", "cost-1"]] },
        retriesOn500: false,
      },
      {
        name: "costs.purge",
        method: "POST",
        path: "/cost/purge",
        run: () => ctx.client.costs.purge({ query }),
        json: { project_id: P, query },
        reply: {},
        retriesOn500: false,
      },
      {
        name: "costs.query",
        method: "POST",
        path: "/cost/query",
        run: () => ctx.client.costs.query({ fields: ["id", "llm_id"], limit: 10, project_id: "other/proj" }),
        json: { project_id: "other/proj", fields: ["id", "llm_id"], limit: 10 },
        reply: { results: [{ id: "cost-1", llm_id: "gpt-4o-mini" }] },
        retriesOn500: true,
      },
    ];
    await runCases(ctx.server, cases);
  });
});

describe("TracingClient.feedback", () => {
  const note = { weave_ref: callRef, feedback_type: "wandb.note.1", payload: { note: "good" } };
  const created = { id: "fb-1", created_at: start, wb_user_id: "u1", payload: { note: "good" } };

  it("every method sends its documented body and returns the answer", async () => {
    const cases: MethodCase[] = [
      {
        name: "feedback.create",
        method: "POST",
        path: "/feedback/create",
        run: () => ctx.client.feedback.create(note),
        json: { project_id: P, ...note },
        reply: created,
        retriesOn500: false,
      },
      {
        name: "feedback.createBatch",
        method: "POST",
        path: "/feedback/batch/create",
        run: () =>
          ctx.client.feedback.createBatch({
            batch: [
              note,
              { ...note, project_id: "other/proj", feedback_type: "wandb.reaction.1", payload: { emoji: "👍" } },
            ],
          }),
        json: {
          batch: [
            { project_id: P, ...note },
            { ...note, project_id: "other/proj", feedback_type: "wandb.reaction.1", payload: { emoji: "👍" } },
          ],
        },
        reply: { res: [created, created] },
        retriesOn500: false,
      },
      {
        name: "feedback.payloadSchema",
        method: "POST",
        path: "/feedback/payload_schema",
        run: () => ctx.client.feedback.payloadSchema({ start, feedback_type: "wandb.runnable.acc", sample_limit: 50 }),
        json: { project_id: P, start, feedback_type: "wandb.runnable.acc", sample_limit: 50 },
        reply: { paths: [{ json_path: "output", value_type: "numeric" }] },
        retriesOn500: true,
      },
      {
        name: "feedback.purge",
        method: "POST",
        path: "/feedback/purge",
        run: () => ctx.client.feedback.purge({ query }),
        json: { project_id: P, query },
        reply: {},
        retriesOn500: false,
      },
      {
        name: "feedback.query",
        method: "POST",
        path: "/feedback/query",
        run: () =>
          ctx.client.feedback.query({
            fields: ["id", "payload.note"],
            query,
            sort_by: [{ field: "created_at", direction: "desc" }],
          }),
        json: {
          project_id: P,
          fields: ["id", "payload.note"],
          query,
          sort_by: [{ field: "created_at", direction: "desc" }],
        },
        reply: { result: [{ id: "fb-1", "payload.note": "good" }] },
        retriesOn500: true,
      },
      {
        name: "feedback.replace",
        method: "POST",
        path: "/feedback/replace",
        run: () => ctx.client.feedback.replace({ ...note, feedback_id: "fb-1", payload: { note: "better" } }),
        json: { project_id: P, ...note, feedback_id: "fb-1", payload: { note: "better" } },
        reply: { ...created, id: "fb-2", payload: { note: "better" } },
        retriesOn500: false,
      },
      {
        name: "feedback.stats",
        method: "POST",
        path: "/feedback/stats",
        run: () =>
          ctx.client.feedback.stats({
            start,
            granularity: 3600,
            metrics: [{ json_path: "output.score", value_type: "numeric", percentiles: [50, 95] }],
          }),
        json: {
          project_id: P,
          start,
          granularity: 3600,
          metrics: [{ json_path: "output.score", value_type: "numeric", percentiles: [50, 95] }],
        },
        reply: { buckets: [], window_stats: {} },
        retriesOn500: true,
      },
    ];
    await runCases(ctx.server, cases);
  });

  it("a batch item without a project and no default is refused before sending, naming the item", async () => {
    const bare = new TracingClient({ baseUrl: ctx.server.url, env: {} });
    ctx.server.reset();
    expect(() => bare.feedback.createBatch({ batch: [{ ...note, project_id: P }, note] })).toThrow(/item 1/);
    expect(() => bare.feedback.create(note)).toThrow(ValidationError);
    expect(ctx.server.requests).toHaveLength(0);
    await bare.close();
  });
});
