/**
 * Usage rolled up the call tree by the local service, as the hosted service does it (`/trace/usage`,
 * `/calls/usage`): each call's usage is its own plus its descendants', per model, with prompt and input tokens (and
 * completion and output tokens) counted together, through tracewire's own `TracingClient`, with each store.
 */
import { describe, expect, it } from "vitest";
import type { CallStart } from "../../src/api/types/calls.js";
import { ApiError } from "../../src/errors.js";
import { atSecond, callId, PROJECT, send, setupSeededService } from "./helpers.js";

const TRACE = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const OTHER = "cccccccccccccccccccccccccccccccc";
const id = callId;
const at = atSecond;

const start = (n: number, parent?: number, trace = TRACE): CallStart => ({
  project_id: PROJECT,
  id: id(n),
  trace_id: trace,
  ...(parent ? { parent_id: id(parent) } : {}),
  op_name: `op${n}`,
  started_at: at(n),
  attributes: {},
  inputs: {},
});
const end = (n: number, usage?: Record<string, Record<string, number>>) => ({
  project_id: PROJECT,
  id: id(n),
  ended_at: at(n + 1),
  summary: usage ? { usage } : {},
});
/** The service's `LLMAggregatedUsage`, without costs. */
const aggregated = (u: Partial<Record<string, number>>) => ({
  requests: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
  prompt_tokens_total_cost: null,
  completion_tokens_total_cost: null,
  cache_read_input_tokens_total_cost: null,
  cache_creation_input_tokens_total_cost: null,
  ...u,
});

/** What call 4 reports (call 3 has no usage of its own, so its subtree's is the same), as the service aggregates it. */
const CALL_4_USAGE = {
  gpt: aggregated({
    requests: 1,
    prompt_tokens: 7,
    completion_tokens: 3,
    total_tokens: 10,
    cache_read_input_tokens: 2,
  }),
  claude: aggregated({ total_tokens: 9 }),
};

describe.each(["sqlite", "memory"] as const)("%s store", (storage) => {
  const ctx = setupSeededService(storage, async (service, client) => {
    // 1 ─┬─ 2 (gpt: 10 + 5, openai names)
    //    └─ 3 ─── 4 (gpt: 7 in + 3 out, anthropic names, 2 cached; claude: total 9) ; 5 in another trace; 4 runs
    const batch = [
      ...[start(1), start(2, 1), start(3, 1), start(4, 3), start(5, undefined, OTHER)].map((s) => ({
        mode: "start",
        req: { start: s },
      })),
      ...[
        end(1),
        end(2, { gpt: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, requests: 1 } }),
        end(3),
        end(5, { gpt: { prompt_tokens: 100, requests: 1 } }),
      ].map((e) => ({ mode: "end", req: { end: e } })),
    ];
    expect((await send(service.url, "/call/upsert_batch", { batch })).status).toBe(200);
    // 4 ends with usage in a second request: until then it is unfinished.
    await client.calls.end({
      end: end(4, {
        gpt: { input_tokens: 7, output_tokens: 3, requests: 1, cache_read_input_tokens: 2 },
        claude: { total_tokens: 9 },
      }),
    });
  });

  it("/trace/usage: every selected call's own usage plus its descendants'", async () => {
    const res = await ctx.client.calls.traceUsage({ filter: { trace_ids: [TRACE] } });
    expect(res.call_usage).toEqual({
      [id(1)]: {
        gpt: aggregated({
          requests: 2,
          prompt_tokens: 17,
          completion_tokens: 8,
          total_tokens: 25,
          cache_read_input_tokens: 2,
        }),
        claude: CALL_4_USAGE.claude,
      },
      [id(2)]: { gpt: aggregated({ requests: 1, prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }) },
      [id(3)]: CALL_4_USAGE,
      [id(4)]: CALL_4_USAGE,
    });
    // Only the calls selected count: a parent outside the selection gets nothing from them.
    const partial = await ctx.client.calls.traceUsage({ filter: { call_ids: [id(1), id(3)] } });
    expect(partial.call_usage).toEqual({ [id(1)]: {}, [id(3)]: {} });
  });

  it("/calls/usage: each asked call with its whole subtree, {} for an unknown id", async () => {
    const res = await ctx.client.calls.usage({ call_ids: [id(3), id(5), "nope"] });
    expect(res.call_usage).toEqual({
      [id(3)]: CALL_4_USAGE,
      [id(5)]: { gpt: aggregated({ requests: 1, prompt_tokens: 100, total_tokens: 100 }) },
      nope: {},
    });
    expect(res.unfinished_call_ids).toEqual([]);
    const costs = await ctx.client.calls.usage({ call_ids: [id(2)], include_costs: true });
    expect(costs.call_usage[id(2)]?.gpt).toMatchObject({
      prompt_tokens_total_cost: 0,
      completion_tokens_total_cost: 0,
    });
  });

  it("/calls/usage: lists unfinished calls, refuses a limit below 1 and a trace beyond the limit", async () => {
    await send(ctx.service.url, "/call/start", { start: start(6, 5, OTHER) });
    const res = await ctx.client.calls.usage({ call_ids: [id(5)] });
    expect(res.unfinished_call_ids).toEqual([id(6)]);
    const zero = await send(ctx.service.url, "/calls/usage", { project_id: PROJECT, call_ids: [id(5)], limit: 0 });
    expect(zero).toMatchObject({ status: 400, json: { reason: "Usage aggregation limit must be positive" } });
    const tooMany = await ctx.client.calls.usage({ call_ids: [id(1)], limit: 3 }).catch((err: unknown) => err);
    expect(tooMany).toBeInstanceOf(ApiError);
    expect((tooMany as ApiError).status).toBe(413);
    expect(await ctx.client.calls.usage({ call_ids: [id(1)], limit: 4 })).toMatchObject({
      call_usage: { [id(1)]: {} },
    });
  });
});
