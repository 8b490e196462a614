/**
 * Calls as the service returns them, and `/calls/stream_query` / `/calls/query_stats` over a {@link Store}. The
 * store filters, sorts, pages and counts with its indexes, and answers as much of the query language as it can
 * decide (store/query-sql.ts); what it cannot (dotted paths into inputs, `$convert`, sorts on computed fields, …)
 * runs here over the calls the rest of the request lets through, read in bounded batches. Reads add
 * `summary.weave` (status — `descendant_error` when a call below failed —, latency, the trace name and, with
 * `include_feedback`, the call's feedback), as the service does.
 */
import { callRef, REF_PREFIX } from "../api/refs.js";
import type { CallSchema, CallsFilter, CallsQueryReq, CallsQueryStatsReq } from "../api/types/calls.js";
import type { JsonObject } from "../api/types/common.js";
import { checkQuery, compareBy, matches } from "./query-dsl.js";
import { summaryFailed, traceName } from "./store/call-fields.js";
import { CALL_COLUMNS, type Store, type StoredCall, type StoredFeedback } from "./store/types.js";

export { traceName };

type TraceStatus = "success" | "error" | "running" | "descendant_error";

/** `summary.weave.status`: the service's `TraceStatus`. */
function status(call: StoredCall): TraceStatus {
  if (call.exception !== null) return "error";
  if (call.ended_at === null) return "running";
  return call.descendant_failed || summaryFailed(call.summary) ? "descendant_error" : "success";
}

/** The call as `/call/read` and `/calls/stream_query` return it. */
export function toCallSchema(call: StoredCall, feedback?: StoredFeedback[]): CallSchema {
  const weave: JsonObject = {
    status: status(call),
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
    const list = byRef.get(row.weave_ref);
    if (list) list.push(row);
    else byRef.set(row.weave_ref, [row]);
  }
  return new Map(calls.map((c) => [c.id, byRef.get(callRef(project, c.id)) ?? []]));
}

/** The columns the service returns whatever `columns` asks for (its `REQUIRED_CALL_COLUMNS`). */
const REQUIRED_COLUMNS = ["id", "project_id", "trace_id", "op_name", "started_at"];

/** Only the requested top-level columns (plus those every row keeps). */
function project(call: CallSchema, columns: string[] | undefined): CallSchema {
  if (!columns?.length) return call;
  const keep = new Set([...REQUIRED_COLUMNS, ...columns.map((c) => c.split(".")[0]!)]);
  return Object.fromEntries(Object.entries(call).filter(([k]) => keep.has(k))) as CallSchema;
}

/** Calls are turned into `CallSchema`s and checked against the query this many at a time. */
const BATCH = 256;

function* batches<T>(rows: Iterable<T>): Generator<T[]> {
  let batch: T[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/** The `weave:///` refs anywhere in a value (dict values and list items, at any depth), as the service indexes them. */
function refsIn(value: unknown, into: string[] = [], depth = 0): string[] {
  if (typeof value === "string") {
    if (value.startsWith(REF_PREFIX)) into.push(value);
  } else if (typeof value === "object" && value !== null && depth < 1000) {
    for (const v of Array.isArray(value) ? value : Object.values(value)) refsIn(v, into, depth + 1);
  }
  return into;
}

/** Matches a value against a list of names or refs, where `…:*` stands for every version. */
function matcher(wanted: string[]): (value: string) => boolean {
  const exact = new Set(wanted.filter((n) => !n.endsWith(":*")));
  const prefixes = wanted.filter((n) => n.endsWith(":*")).map((n) => n.slice(0, -1));
  return (value) => exact.has(value) || prefixes.some((p) => value.startsWith(p));
}

/**
 * The list filters matched here rather than by the store: `op_names` with the service's version wildcards
 * (`weave:///e/p/op/<name>:*`, any version of an op), `input_refs` / `output_refs` (calls whose inputs / output hold
 * one of these refs anywhere, wildcards too) and `wb_user_ids` (the local service has no users: no call has one).
 * They are taken out of the store's filter; the store then cannot page, only filter and sort.
 */
function splitFilter(filter: CallsFilter | undefined): {
  filter: CallsFilter | undefined;
  keep: ((call: StoredCall) => boolean) | undefined;
} {
  if (!filter) return { filter, keep: undefined };
  const { op_names, input_refs, output_refs, wb_user_ids, ...rest } = filter;
  const checks: ((call: StoredCall) => boolean)[] = [];
  const store: CallsFilter = { ...rest };
  if (op_names?.some((n) => n.endsWith(":*"))) {
    const match = matcher(op_names);
    checks.push((call) => call.op_name !== null && match(call.op_name));
  } else if (op_names) store.op_names = op_names;
  if (input_refs?.length) {
    const match = matcher(input_refs);
    checks.push((call) => refsIn(call.inputs).some(match));
  }
  if (output_refs?.length) {
    const match = matcher(output_refs);
    checks.push((call) => call.has_output && refsIn(call.output).some(match));
  }
  if (wb_user_ids?.length) checks.push(() => false);
  if (!checks.length) return { filter, keep: undefined };
  return { filter: store, keep: (call) => checks.every((check) => check(call)) };
}

/**
 * The calls matching a `stream_query` request, in order. Throws `InvalidQueryError` for a query it cannot run.
 */
export function queryCalls(store: Store, req: CallsQueryReq): CallSchema[] {
  checkQuery(req.query);
  const sortBy = req.sort_by?.length ? req.sort_by : [{ field: "started_at", direction: "asc" as const }];
  const offset = Math.max(0, req.offset ?? 0);
  const limit = req.limit === undefined || req.limit === null ? undefined : Math.max(0, req.limit);
  const ops = splitFilter(req.filter);
  // Feedback selectors and computed fields need the full call, so only plain column sorts go to the store.
  // Filters the store cannot match are matched here (ops.keep): the store then cannot page, only filter and sort.
  const columnSort = sortBy.every((s) => CALL_COLUMNS.has(s.field));
  const pushPage = columnSort && !ops.keep;
  const found = store.findCalls({
    project: req.project_id,
    ...(ops.filter ? { filter: ops.filter } : {}),
    ...(req.query ? { query: req.query } : {}),
    ...(pushPage ? { sortBy, offset, ...(limit !== undefined && { limit }) } : columnSort ? { sortBy } : {}),
  });
  const withFeedback = (rows: StoredCall[]) => {
    const feedback = req.include_feedback ? feedbackByCall(store, req.project_id, rows) : undefined;
    return rows.map((row) => ({ seq: row.seq, call: toCallSchema(row, feedback?.get(row.id)) }));
  };
  let calls: CallSchema[];
  if (found.exact && pushPage) {
    calls = withFeedback([...found.rows]).map((c) => c.call);
  } else {
    // The store left the query, the paging (and maybe the order) to us: check each call, stop once the page is full.
    const wanted = columnSort && limit !== undefined ? offset + limit : Number.POSITIVE_INFINITY;
    const kept: { seq: number; call: CallSchema }[] = [];
    for (const rows of batches(found.rows)) {
      const batch = ops.keep ? rows.filter(ops.keep) : rows;
      for (const c of withFeedback(batch)) if (found.exact || matches(req.query, c.call)) kept.push(c);
      if (kept.length >= wanted) break;
    }
    if (!columnSort) {
      const order = compareBy(sortBy);
      kept.sort((a, b) => order(a.call, b.call) || a.seq - b.seq);
    }
    calls = kept.slice(offset, limit === undefined ? undefined : offset + limit).map((c) => c.call);
  }
  return calls.map((call) => project(call, req.columns));
}

/** `/calls/query_stats`: how many calls match (at most `limit`, with `has_more` when there were more). */
export function countCalls(store: Store, req: CallsQueryStatsReq): { count: number; has_more?: boolean } {
  checkQuery(req.query);
  const cap = req.limit === undefined || req.limit === null ? undefined : Math.max(0, req.limit);
  const ops = splitFilter(req.filter);
  const search = {
    project: req.project_id,
    ...(ops.filter ? { filter: ops.filter } : {}),
    ...(req.query ? { query: req.query } : {}),
  };
  let count = ops.keep ? undefined : store.countCalls(search, cap);
  if (count === undefined) {
    count = 0;
    const found = store.findCalls(search);
    for (const row of found.rows) {
      if (ops.keep && !ops.keep(row)) continue;
      if (found.exact || matches(req.query, toCallSchema(row))) count++;
      if (cap !== undefined && count > cap) break;
    }
  }
  if (cap !== undefined && count > cap) return { count: cap, has_more: true };
  return { count };
}
