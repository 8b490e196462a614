/**
 * Calls as the service returns them, and `/calls/stream_query` / `/calls/query_stats` over a {@link Store}:
 * the store filters on indexed columns (and sorts and pages on them when it can); the query language, sorting on
 * dotted fields and column selection run here. Reads add `summary.weave` (status — `descendant_error` when a call below failed —, latency, the trace name and, with
 * `include_feedback`, the call's feedback), as the service does.
 */
import { callRef, parseRef, REF_PREFIX } from "../api/refs.js";
import type { CallSchema, CallsFilter, CallsQueryReq, CallsQueryStatsReq } from "../api/types/calls.js";
import type { JsonObject } from "../api/types/common.js";
import { compareBy, matches } from "./query-dsl.js";

type TraceStatus = "success" | "error" | "running" | "descendant_error";

import { CALL_COLUMNS, type Store, type StoredCall, type StoredFeedback } from "./store/types.js";

/** `summary.weave.status`: the service's `TraceStatus`. */
function status(call: StoredCall, descendantFailed: boolean): TraceStatus {
  if (call.exception !== null) return "error";
  if (call.ended_at === null) return "running";
  const counts = call.summary?.status_counts as { error?: unknown } | undefined;
  return descendantFailed || Number(counts?.error ?? 0) > 0 ? "descendant_error" : "success";
}

/** `summary.weave.trace_name`: the display name, else the op's name (the name in a `weave:///…/op/name:digest`). */
export function traceName(call: Pick<StoredCall, "display_name" | "op_name">): string | null {
  if (call.display_name) return call.display_name;
  const op = call.op_name;
  if (op?.startsWith(REF_PREFIX)) {
    try {
      return parseRef(op).name ?? op;
    } catch {
      return op;
    }
  }
  return op;
}

/** Ids of the calls (among `calls`) with a failed call below them, read from their traces in the store. */
export function withFailedDescendants(store: Store, project: string, calls: StoredCall[]): Set<string> {
  const traceIds = [...new Set(calls.map((c) => c.trace_id).filter((t): t is string => t !== null))];
  const marked = new Set<string>();
  if (traceIds.length === 0) return marked;
  const family = store.selectCalls({ project, filter: { trace_ids: traceIds } });
  const parentOf = new Map(family.map((c) => [c.id, c.parent_id]));
  for (const failed of family.filter((c) => c.exception !== null)) {
    for (let up = parentOf.get(failed.id); up && !marked.has(up); up = parentOf.get(up)) marked.add(up);
  }
  return marked;
}

/** The call as `/call/read` and `/calls/stream_query` return it. */
export function toCallSchema(call: StoredCall, feedback?: StoredFeedback[], descendantFailed = false): CallSchema {
  const weave: JsonObject = {
    status: status(call, descendantFailed),
    trace_name: traceName(call),
    latency_ms: call.ended_at && call.started_at ? Date.parse(call.ended_at) - Date.parse(call.started_at) : null,
  };
  if (feedback) weave.feedback = feedback;
  const schema: CallSchema = {
    id: call.id,
    project_id: call.project_id,
    op_name: call.op_name ?? "",
    display_name: call.display_name,
    trace_id: call.trace_id ?? "",
    parent_id: call.parent_id,
    thread_id: call.thread_id,
    turn_id: call.turn_id,
    started_at: call.started_at ?? "",
    ended_at: call.ended_at,
    attributes: call.attributes ?? {},
    inputs: call.inputs ?? {},
    output: call.has_output ? call.output : null,
    exception: call.exception,
    summary: { ...(call.summary ?? {}), weave },
    wb_user_id: null,
    wb_run_id: call.wb_run_id,
    wb_run_step: call.wb_run_step,
    wb_run_step_end: call.wb_run_step_end,
    deleted_at: null,
  };
  return schema;
}

/** Feedback rows per call id, for `include_feedback`. */
function feedbackByCall(store: Store, project: string, calls: StoredCall[]): Map<string, StoredFeedback[]> {
  const refs = calls.map((c) => callRef(project, c.id));
  const byRef = new Map<string, StoredFeedback[]>();
  for (const row of store.selectFeedback(project, refs)) {
    byRef.set(row.weave_ref, [...(byRef.get(row.weave_ref) ?? []), row]);
  }
  return new Map(calls.map((c) => [c.id, byRef.get(callRef(project, c.id)) ?? []]));
}

/** Only the requested top-level columns (plus the ids every row keeps). */
function project(call: CallSchema, columns: string[] | undefined): CallSchema {
  if (!columns?.length) return call;
  const keep = new Set(["id", "project_id", "trace_id", ...columns.map((c) => c.split(".")[0]!)]);
  return Object.fromEntries(Object.entries(call).filter(([k]) => keep.has(k))) as CallSchema;
}

/**
 * `op_names` may hold the service's version wildcards, `weave:///e/p/op/<name>:*` (any version of an op): those the
 * store cannot match are taken out of its filter and matched here.
 */
function opNameFilter(filter: CallsFilter | undefined): {
  filter: CallsFilter | undefined;
  keep: ((call: StoredCall) => boolean) | undefined;
} {
  const names = filter?.op_names;
  if (!names?.some((n) => n.endsWith(":*"))) return { filter, keep: undefined };
  const exact = new Set(names.filter((n) => !n.endsWith(":*")));
  const prefixes = names.filter((n) => n.endsWith(":*")).map((n) => n.slice(0, -1));
  const { op_names: _wildcards, ...rest } = filter!;
  return {
    filter: rest,
    keep: (call) =>
      call.op_name !== null && (exact.has(call.op_name) || prefixes.some((p) => call.op_name!.startsWith(p))),
  };
}

/**
 * The calls matching a `stream_query` request, in order. Throws `InvalidQueryError` for a query it cannot run.
 */
export function queryCalls(store: Store, req: CallsQueryReq): CallSchema[] {
  const sortBy = req.sort_by?.length ? req.sort_by : [{ field: "started_at", direction: "asc" as const }];
  const offset = Math.max(0, req.offset ?? 0);
  const limit = req.limit === undefined || req.limit === null ? undefined : Math.max(0, req.limit);
  const ops = opNameFilter(req.filter);
  // Feedback selectors and computed fields need the full call, so only plain column sorts go to the store.
  const pushDown = !req.query && !ops.keep && sortBy.every((s) => CALL_COLUMNS.has(s.field));
  const selection = { project: req.project_id, ...(ops.filter ? { filter: ops.filter } : {}) };
  let rows = store.selectCalls(
    pushDown ? { ...selection, page: { sortBy, offset, ...(limit !== undefined && { limit }) } } : selection,
  );
  if (ops.keep) rows = rows.filter(ops.keep);

  const feedback = req.include_feedback ? feedbackByCall(store, req.project_id, rows) : undefined;
  const failedBelow = withFailedDescendants(store, req.project_id, rows);
  let calls = rows.map((row) => toCallSchema(row, feedback?.get(row.id), failedBelow.has(row.id)));
  if (!pushDown) {
    const seq = new Map(rows.map((r) => [r.id, r.seq]));
    const order = compareBy(sortBy);
    calls = calls
      .filter((call) => matches(req.query, call))
      .sort((a, b) => order(a, b) || (seq.get(a.id) ?? 0) - (seq.get(b.id) ?? 0))
      .slice(offset, limit === undefined ? undefined : offset + limit);
  }
  return calls.map((call) => project(call, req.columns));
}

/** `/calls/query_stats`: how many calls match (at most `limit`, with `has_more` when there were more). */
export function countCalls(store: Store, req: CallsQueryStatsReq): { count: number; has_more?: boolean } {
  const ops = opNameFilter(req.filter);
  let rows = store.selectCalls({ project: req.project_id, ...(ops.filter ? { filter: ops.filter } : {}) });
  if (ops.keep) rows = rows.filter(ops.keep);
  const failedBelow = req.query ? withFailedDescendants(store, req.project_id, rows) : new Set<string>();
  const count = req.query
    ? rows.filter((row) => matches(req.query, toCallSchema(row, undefined, failedBelow.has(row.id)))).length
    : rows.length;
  if (req.limit !== undefined && req.limit !== null && count > req.limit) return { count: req.limit, has_more: true };
  return { count };
}
