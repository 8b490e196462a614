/**
 * Usage rolled up the call tree, as the hosted service computes it: `POST /trace/usage` answers, for every call a
 * filter and query select, its own `summary.usage` plus that of its selected descendants; `POST /calls/usage` answers
 * it for the asked calls over their whole traces. Per model, prompt and input tokens count together (so do completion
 * and output tokens), and a total of 0 is their sum. The local service keeps no prices, so with `include_costs` the
 * cost fields are 0.
 */
import type { CallSchema, CallsUsageReq, TraceUsageReq } from "../../api/types/calls.js";
import { queryCalls } from "../call-query.js";
import { HttpError } from "../http.js";
import type { Router } from "../router.js";
import { CALLS_USAGE_REQ, TRACE_USAGE_REQ } from "../schemas.js";
import { validateBody } from "../validate.js";
import { checkProject } from "./calls.js";

/** The service's `LLMAggregatedUsage`. */
interface AggregatedUsage {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  prompt_tokens_total_cost: number | null;
  completion_tokens_total_cost: number | null;
  cache_read_input_tokens_total_cost: number | null;
  cache_creation_input_tokens_total_cost: number | null;
}
type ModelUsage = Record<string, AggregatedUsage>;

const COUNTS = [
  "requests",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
] as const;
const COSTS = [
  "prompt_tokens_total_cost",
  "completion_tokens_total_cost",
  "cache_read_input_tokens_total_cost",
  "cache_creation_input_tokens_total_cost",
] as const;

/** The service's default `limit`: at most this many calls are read. */
const DEFAULT_LIMIT = 10_000;

/** Python's `int(value)`, 0 for what it cannot read. */
function safeInt(value: unknown): number {
  if (typeof value === "number") return Number.isFinite(value) ? Math.trunc(value) : 0;
  if (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)) return Number(value);
  return 0;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A call's own usage per model; models with nothing counted are left out. */
function ownUsage(call: CallSchema, includeCosts: boolean): ModelUsage {
  const usage = call.summary?.usage;
  if (!isObject(usage)) return {};
  const out: ModelUsage = {};
  for (const [model, u] of Object.entries(usage)) {
    if (!isObject(u)) continue;
    const prompt = safeInt(u.prompt_tokens) + safeInt(u.input_tokens);
    const completion = safeInt(u.completion_tokens) + safeInt(u.output_tokens);
    const entry: AggregatedUsage = {
      requests: safeInt(u.requests),
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: safeInt(u.total_tokens) || prompt + completion,
      cache_read_input_tokens: safeInt(u.cache_read_input_tokens),
      cache_creation_input_tokens: safeInt(u.cache_creation_input_tokens),
      prompt_tokens_total_cost: includeCosts ? 0 : null,
      completion_tokens_total_cost: includeCosts ? 0 : null,
      cache_read_input_tokens_total_cost: includeCosts ? 0 : null,
      cache_creation_input_tokens_total_cost: includeCosts ? 0 : null,
    };
    if (COUNTS.some((k) => entry[k] !== 0)) out[model] = entry;
  }
  return out;
}

function merge(target: ModelUsage, source: ModelUsage): void {
  for (const [model, usage] of Object.entries(source)) {
    const existing = target[model];
    if (!existing) {
      target[model] = { ...usage };
      continue;
    }
    for (const k of COUNTS) existing[k] += usage[k];
    for (const k of COSTS)
      if (existing[k] !== null || usage[k] !== null) existing[k] = (existing[k] ?? 0) + (usage[k] ?? 0);
  }
}

/** Each call's usage plus that of its descendants among `calls`, merged bottom-up (no recursion). */
export function rollUp(calls: CallSchema[], includeCosts: boolean): Record<string, ModelUsage> {
  const usage: Record<string, ModelUsage> = {};
  const pending = new Map<string, number>();
  const parentOf = new Map<string, string>();
  for (const call of calls) {
    usage[call.id] = ownUsage(call, includeCosts);
    pending.set(call.id, 0);
  }
  for (const call of calls) {
    if (call.parent_id && pending.has(call.parent_id) && call.parent_id !== call.id) {
      pending.set(call.parent_id, pending.get(call.parent_id)! + 1);
      parentOf.set(call.id, call.parent_id);
    }
  }
  const ready = [...pending].filter(([, n]) => n === 0).map(([id]) => id);
  while (ready.length) {
    const id = ready.pop()!;
    const parent = parentOf.get(id);
    if (parent === undefined) continue;
    merge(usage[parent]!, usage[id]!);
    const left = pending.get(parent)! - 1;
    pending.set(parent, left);
    if (left === 0) ready.push(parent);
  }
  return usage;
}

export function usageRoutes(router: Router): void {
  router.on("POST", "/trace/usage", async (req, { store }) => {
    const body = validateBody<TraceUsageReq>(await req.json(), TRACE_USAGE_REQ);
    const calls = queryCalls(store, {
      project_id: checkProject(body.project_id),
      ...(body.filter ? { filter: body.filter } : {}),
      ...(body.query ? { query: body.query } : {}),
      limit: body.limit ?? DEFAULT_LIMIT,
    });
    return {
      json: {
        call_usage: rollUp(calls, body.include_costs === true),
        unfinished_call_ids: calls.filter((c) => c.ended_at === null).map((c) => c.id),
      },
    };
  });

  router.on("POST", "/calls/usage", async (req, { store }) => {
    const body = validateBody<CallsUsageReq>(await req.json(), CALLS_USAGE_REQ);
    const project = checkProject(body.project_id);
    const limit = Math.min(body.limit ?? DEFAULT_LIMIT, Number.MAX_SAFE_INTEGER - 1);
    if (limit < 1) throw new HttpError(400, "Usage aggregation limit must be positive");
    const callUsage: Record<string, ModelUsage> = Object.fromEntries(body.call_ids.map((id) => [id, {}]));
    const roots = body.call_ids.length
      ? queryCalls(store, { project_id: project, filter: { call_ids: body.call_ids } })
      : [];
    const unfinished: string[] = [];
    for (const traceId of [...new Set(roots.map((c) => c.trace_id))].sort()) {
      // Whole traces, as the service reads them: one beyond the limit cannot be summed completely.
      const calls = queryCalls(store, { project_id: project, filter: { trace_ids: [traceId] }, limit: limit + 1 });
      if (calls.length > limit) {
        throw new HttpError(
          413,
          `Cannot compute complete usage: a single trace exceeds the ${limit}-call aggregation limit. Increase limit and retry.`,
        );
      }
      const usage = rollUp(calls, body.include_costs === true);
      for (const id of body.call_ids) if (usage[id]) callUsage[id] = usage[id];
      unfinished.push(...calls.filter((c) => c.ended_at === null).map((c) => c.id));
    }
    return { json: { call_usage: callUsage, unfinished_call_ids: unfinished.sort() } };
  });
}
