/**
 * The call and feedback endpoints of the local service through tracewire's own `TracingClient`: queries (filters,
 * sort, limit/offset, the query language, columns), stats, renames, deletes, scoring requests, feedback create /
 * batch / query / replace / purge, and service info — with each store (SQLite and memory).
 */
import { describe, expect, it } from "vitest";
import type { TracingClient } from "../../src/api/index.js";
import { callRef } from "../../src/api/refs.js";
import type { CallStart } from "../../src/api/types/calls.js";
import { atSecond, callId, collect, PROJECT, send, setupSeededService } from "./helpers.js";

const TRACE = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const id = callId;
const at = atSecond;

function call(n: number, parent: number | undefined, op: string, extra: Partial<CallStart> = {}): CallStart {
  return {
    project_id: PROJECT,
    id: id(n),
    trace_id: TRACE,
    ...(parent ? { parent_id: id(parent) } : {}),
    op_name: op,
    started_at: at(n),
    attributes: {},
    inputs: { n },
    ...extra,
  };
}

describe.each(["sqlite", "memory"] as const)("%s store", (storage) => {
  const ctx = setupSeededService(storage, async (_service, client) => {
    const starts = [
      call(1, undefined, "root"),
      call(2, 1, "step", { thread_id: "t1", turn_id: id(2) }),
      call(3, 1, "step", { thread_id: "t1", turn_id: id(3) }),
      call(4, 3, "leaf"),
    ];
    await client.calls.upsertBatch({
      batch: [
        ...starts.map((start) => ({ mode: "start" as const, req: { start } })),
        ...[2, 3, 4].map((n) => ({
          mode: "end" as const,
          req: {
            end: {
              project_id: PROJECT,
              id: id(n),
              ended_at: at(n + 1),
              output: n * 10,
              summary: { usage: { m: { total_tokens: n } } },
              ...(n === 4 ? { exception: "ValueError: bad" } : {}),
            },
          },
        })),
      ],
    });
  });

  const ops = async (req: Parameters<TracingClient["calls"]["streamQuery"]>[0]) =>
    (await collect(ctx.client.calls.streamQuery(req))).map((c) => `${c.op_name}:${Number.parseInt(c.id, 16)}`);

  describe("calls", () => {
    it("filters on the refs a call's inputs or output hold, and on users (none here)", async () => {
      const dataset = `weave:///${PROJECT}/object/rows:v1`;
      const model = `weave:///${PROJECT}/object/model:abc`;
      const refCall = (n: number, inputs: Record<string, unknown>, output?: unknown) => [
        { mode: "start" as const, req: { start: { ...call(n, undefined, "refs"), trace_id: "r".repeat(32), inputs } } },
        {
          mode: "end" as const,
          req: {
            end: {
              project_id: PROJECT,
              id: id(n),
              ended_at: at(n),
              summary: {},
              ...(output === undefined ? {} : { output }),
            },
          },
        },
      ];
      await ctx.client.calls.upsertBatch({
        batch: [
          ...refCall(20, { row: dataset, nested: [{ model }] }),
          ...refCall(21, { row: "not a ref" }, { made_by: model }),
        ],
      });
      try {
        const inTrace = { trace_ids: ["r".repeat(32)] };
        expect(await ops({ filter: { ...inTrace, input_refs: [dataset] } })).toEqual(["refs:20"]);
        expect(await ops({ filter: { ...inTrace, input_refs: [model] } })).toEqual(["refs:20"]);
        expect(await ops({ filter: { ...inTrace, input_refs: [`weave:///${PROJECT}/object/rows:*`] } })).toEqual([
          "refs:20",
        ]);
        expect(await ops({ filter: { ...inTrace, output_refs: [model] } })).toEqual(["refs:21"]);
        expect(await ops({ filter: { ...inTrace, output_refs: [dataset] } })).toEqual([]);
        expect(await ops({ filter: { ...inTrace, wb_user_ids: ["someone"] } })).toEqual([]);
        expect(await ops({ filter: { ...inTrace, input_refs: [] } })).toEqual(["refs:20", "refs:21"]);
        expect(await ctx.client.calls.queryStats({ filter: { input_refs: [model] } })).toEqual({ count: 1 });
      } finally {
        await ctx.client.calls.delete({ call_ids: [id(20), id(21)] });
      }
    });

    it("filters, sorts, pages and runs the query language", async () => {
      expect(await ops({})).toEqual(["root:1", "step:2", "step:3", "leaf:4"]);
      expect(
        await ops({ filter: { op_names: ["step"] }, sort_by: [{ field: "started_at", direction: "desc" }] }),
      ).toEqual(["step:3", "step:2"]);
      expect(await ops({ filter: { parent_ids: [id(1)] } })).toEqual(["step:2", "step:3"]);
      expect(await ops({ filter: { trace_roots_only: true } })).toEqual(["root:1"]);
      expect(await ops({ filter: { thread_ids: ["t1"], turn_ids: [id(3)] } })).toEqual(["step:3"]);
      expect(await ops({ limit: 2, offset: 1 })).toEqual(["step:2", "step:3"]);
      // Dotted sorts and queries run over the whole call, computed summary fields included.
      expect(await ops({ sort_by: [{ field: "output", direction: "desc" }], limit: 2 })).toEqual(["leaf:4", "step:3"]);
      const gt = { $gt: [{ $convert: { input: { $getField: "inputs.n" }, to: "double" } }, { $literal: 2 }] };
      expect(await ops({ query: { $expr: gt } })).toEqual(["step:3", "leaf:4"]);
      const status = { $eq: [{ $getField: "summary.weave.status" }, { $literal: "error" }] };
      expect(await ops({ query: { $expr: status } })).toEqual(["leaf:4"]);
      const contains = {
        $contains: { input: { $getField: "exception" }, substr: { $literal: "valueerror" }, case_insensitive: true },
      };
      expect(await ops({ query: { $expr: contains } })).toEqual(["leaf:4"]);
      // The columns asked for, and those the service always returns (id, project_id, trace_id, op_name, started_at).
      const [slim] = await collect(
        ctx.client.calls.streamQuery({ filter: { call_ids: [id(2)] }, columns: ["output"] }),
      );
      expect(slim).toEqual({
        id: id(2),
        project_id: PROJECT,
        trace_id: TRACE,
        op_name: "step",
        started_at: at(2),
        output: 20,
      });
      const bad = await send(ctx.service.url, "/calls/stream_query", {
        project_id: PROJECT,
        query: { $expr: { $nope: [] } },
      });
      expect(bad).toMatchObject({ status: 400, json: { reason: "Invalid query: unknown operator $nope" } });
    });

    it("returns summary.weave with status and latency, and counts with query_stats", async () => {
      const { call: leaf } = await ctx.client.calls.read({ id: id(4) });
      expect(leaf?.summary).toEqual({
        usage: { m: { total_tokens: 4 } },
        weave: { status: "error", trace_name: "leaf", latency_ms: 1000 },
      });
      const { call: root } = await ctx.client.calls.read({ id: id(1) });
      expect(root).toMatchObject({ ended_at: null, output: null, summary: { weave: { status: "running" } } });
      expect(await ctx.client.calls.queryStats({ filter: { op_names: ["step"] } })).toEqual({ count: 2 });
      expect(await ctx.client.calls.queryStats({ limit: 3 })).toEqual({ count: 3, has_more: true });
    });

    it("renames, records scoring requests, and deletes a call with its descendants", async () => {
      await ctx.client.calls.update({ call_id: id(2), display_name: "renamed" });
      expect((await ctx.client.calls.read({ id: id(2) })).call).toMatchObject({ display_name: "renamed" });
      expect(
        await ctx.client.calls.score({ call_ids: [id(2)], scorer_refs: ["weave:///acme/demo/op/judge:latest"] }),
      ).toEqual({});
      expect(await ctx.client.calls.delete({ call_ids: [id(3)] })).toEqual({ num_deleted: 2 });
      expect(await ops({})).toEqual(["root:1", "step:2"]);
    });

    it("reports the service's identity", async () => {
      expect(await ctx.client.service.health()).toEqual({ status: "ok" });
      expect(await ctx.client.service.serverInfo()).toMatchObject({
        trace_server_version: expect.stringMatching(/^tracewire-dev\//),
      });
      expect(await ctx.client.service.version()).toMatch(/^tracewire-dev\//);
    });
  });

  describe("feedback", () => {
    const ref = callRef(PROJECT, id(2));

    it("creates, batches, queries, replaces and purges", async () => {
      const first = await ctx.client.feedback.create({
        weave_ref: ref,
        feedback_type: "wandb.reaction.1",
        payload: { emoji: "🎉" },
      });
      expect(first).toMatchObject({ id: expect.any(String), wb_user_id: "local-user", payload: { emoji: "🎉" } });
      const batch = await ctx.client.feedback.createBatch({
        batch: [
          { id: "fb-note", weave_ref: ref, feedback_type: "wandb.note.1", payload: { note: "ok" } },
          {
            weave_ref: ref,
            feedback_type: "wandb.runnable.judge",
            payload: { output: 0.9 },
            runnable_ref: "weave:///acme/demo/op/judge:v1",
            call_ref: callRef(PROJECT, id(1)),
          },
        ],
      });
      expect(batch.res.map((r) => r.payload)).toEqual([{ note: "ok" }, { output: 0.9 }]);

      const notes = await ctx.client.feedback.query({
        fields: ["id", "payload.note"],
        query: { $expr: { $eq: [{ $getField: "feedback_type" }, { $literal: "wandb.note.1" }] } },
      });
      expect(notes.result).toEqual([{ id: "fb-note", "payload.note": "ok" }]);

      const replaced = await ctx.client.feedback.replace({
        feedback_id: "fb-note",
        weave_ref: ref,
        feedback_type: "wandb.note.1",
        payload: { note: "better" },
      });
      // As the service does it: the old record is purged and a new one created, under a new id.
      expect(replaced).toMatchObject({ id: expect.any(String), payload: { note: "better" } });
      expect(replaced.id).not.toBe("fb-note");
      const [withFeedback] = await collect(
        ctx.client.calls.streamQuery({ filter: { call_ids: [id(2)] }, include_feedback: true }),
      );
      const types = (withFeedback!.summary as { weave: { feedback: { id: string; feedback_type: string }[] } }).weave
        .feedback;
      expect(types.map((f) => f.feedback_type)).toEqual(["wandb.reaction.1", "wandb.runnable.judge", "wandb.note.1"]);
      expect(types.map((f) => f.id)).not.toContain("fb-note");

      await ctx.client.feedback.purge({ query: { $expr: { $eq: [{ $getField: "id" }, { $literal: first.id }] } } });
      const left = await ctx.client.feedback.query({
        fields: ["feedback_type"],
        sort_by: [{ field: "feedback_type", direction: "asc" }],
      });
      expect(left.result).toEqual([{ feedback_type: "wandb.note.1" }, { feedback_type: "wandb.runnable.judge" }]);
    });

    it("checks what the service checks", async () => {
      const post = (body: object) =>
        send(ctx.service.url, "/feedback/create", { project_id: PROJECT, weave_ref: ref, ...body });
      expect((await post({ feedback_type: "wandb.reaction.1", payload: {} })).status).toBe(400);
      expect((await post({ feedback_type: "wandb.note.1", payload: { note: "x".repeat(1025) } })).status).toBe(400);
      const other = await send(ctx.service.url, "/feedback/create", {
        project_id: PROJECT,
        weave_ref: "weave:///other/project/call/x",
        feedback_type: "custom",
        payload: {},
      });
      expect(other).toMatchObject({ status: 400, json: { reason: expect.stringContaining("not in project") } });
      expect((await post({ id: "fb-dup", feedback_type: "custom", payload: {} })).status).toBe(200);
      expect((await post({ id: "fb-dup", feedback_type: "custom", payload: {} })).status).toBe(400);
      await ctx.client.feedback.purge({ query: { $expr: { $eq: [{ $getField: "id" }, { $literal: "fb-dup" }] } } });
      // Replacing feedback that is not there creates it, as on the ctx.service.
      const missing = await send(ctx.service.url, "/feedback/replace", {
        project_id: PROJECT,
        feedback_id: "nope",
        id: "fb-new",
        weave_ref: ref,
        feedback_type: "custom",
        payload: {},
      });
      expect(missing).toMatchObject({ status: 200, json: { id: "fb-new" } });
      await ctx.client.feedback.purge({ query: { $expr: { $eq: [{ $getField: "id" }, { $literal: "fb-new" }] } } });
    });

    it("stores a reaction with its alias and detoned forms, and refuses one that is not exactly one emoji", async () => {
      const ref = callRef(PROJECT, "reactions");
      const forms = async (emoji: string) => {
        const res = await send(ctx.service.url, "/feedback/create", {
          project_id: PROJECT,
          weave_ref: ref,
          feedback_type: "wandb.reaction.1",
          payload: { emoji },
        });
        expect(res.status).toBe(200);
        return (res.json as { payload: unknown }).payload;
      };
      expect(await forms("👍🏽")).toEqual({
        emoji: "👍🏽",
        alias: ":thumbs_up_medium_skin_tone:",
        detoned: "👍",
        detoned_alias: ":thumbs_up:",
      });
      expect(await forms("❤")).toMatchObject({ alias: ":red_heart:", detoned_alias: ":red_heart:" });
      const stored = await send(ctx.service.url, "/feedback/query", {
        project_id: PROJECT,
        fields: ["payload.alias"],
        query: { $expr: { $eq: [{ $getField: "payload.emoji" }, { $literal: "👍🏽" }] } },
      });
      expect(stored.json).toMatchObject({ result: [{ "payload.alias": ":thumbs_up_medium_skin_tone:" }] });
      for (const emoji of ["👍👍", "ok", ""]) {
        const res = await send(ctx.service.url, "/feedback/create", {
          project_id: PROJECT,
          weave_ref: ref,
          feedback_type: "wandb.reaction.1",
          payload: { emoji },
        });
        expect(res.status, emoji).toBe(400);
      }
    });
  });
});
