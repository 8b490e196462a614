/** Wire types of the call endpoints (`/call/*`, `/calls/*`, `/trace/usage`). */
import type { JsonObject, LlmUsage, Query, SortBy, Timestamp } from "./common.js";

/** `summary` of a call end. `usage` is keyed by model name; other keys are open. */
export interface CallSummary {
  usage?: Record<string, LlmUsage>;
  [key: string]: unknown;
}

/** The start half of a call (`StartedCallSchemaForInsert`). */
export interface CallStart {
  project_id: string;
  /** Call id; tracewire uses the 16-hex span id. */
  id?: string;
  /** Trace id; tracewire uses the 32-hex trace id. */
  trace_id?: string;
  parent_id?: string | null;
  op_name: string;
  display_name?: string | null;
  thread_id?: string | null;
  turn_id?: string | null;
  started_at: Timestamp;
  attributes: JsonObject;
  inputs: JsonObject;
  wb_run_id?: string | null;
  wb_run_step?: number | null;
}

/** The end half of a call (`EndedCallSchemaForInsert`). */
export interface CallEnd {
  project_id: string;
  id: string;
  ended_at: Timestamp;
  output?: unknown;
  /** Error text when the call failed. */
  exception?: string | null;
  /** Required by the service; may be `{}`. */
  summary: CallSummary;
  wb_run_step_end?: number | null;
}

/** Body of `POST /call/start`: the start of one call. */
export interface CallStartReq {
  start: CallStart;
}
/** Answer of `POST /call/start`: the call's id and trace id. */
export interface CallStartRes {
  id: string;
  trace_id: string;
}
/** Body of `POST /call/end`: the end of one call (output, exception, summary). */
export interface CallEndReq {
  end: CallEnd;
}

/** One item of `/call/upsert_batch`. */
export type CallBatchItem = { mode: "start"; req: CallStartReq } | { mode: "end"; req: CallEndReq };
/** Body of `POST /call/upsert_batch`: starts and ends, sent in order in one request. */
export interface CallUpsertBatchReq {
  batch: CallBatchItem[];
}
/** Answer of `POST /call/upsert_batch`: one result per item, in order. */
export interface CallUpsertBatchRes {
  res: (CallStartRes | JsonObject)[];
}

/**
 * A call's start and end in one record (`CompletedCallSchemaForInsert`), for `POST /v2/{entity}/{project}/calls/complete`:
 * what a client that buffers both halves sends.
 */
export interface CompletedCall extends Omit<CallStart, "id" | "trace_id">, Omit<CallEnd, "project_id" | "id"> {
  id: string;
  trace_id: string;
}
/** Body of `POST /v2/{entity}/{project}/calls/complete`: completed calls of that project. Answer: `{}`. */
export interface CallsCompleteReq {
  batch: CompletedCall[];
}

/** A stored call as the service returns it. */
export interface CallSchema {
  id: string;
  project_id: string;
  op_name: string;
  display_name?: string | null;
  trace_id: string;
  parent_id?: string | null;
  thread_id?: string | null;
  turn_id?: string | null;
  started_at: Timestamp;
  ended_at?: Timestamp | null;
  attributes: JsonObject;
  inputs: JsonObject;
  output?: unknown;
  exception?: string | null;
  summary?: JsonObject | null;
  wb_user_id?: string | null;
  wb_run_id?: string | null;
  wb_run_step?: number | null;
  wb_run_step_end?: number | null;
  deleted_at?: Timestamp | null;
  [key: string]: unknown;
}

/** Body of `POST /call/read`: the id of the call to read. */
export interface CallReadReq {
  project_id: string;
  id: string;
  include_costs?: boolean;
  include_storage_size?: boolean;
  include_total_storage_size?: boolean;
}
/** Answer of `POST /call/read`: the call, or `null` when the service does not know it. */
export interface CallReadRes {
  call: CallSchema | null;
}

/** Body of `POST /call/update`: the call to rename and its new display name. */
export interface CallUpdateReq {
  project_id: string;
  call_id: string;
  display_name?: string;
}

/** Body of `POST /calls/delete`: the ids of the calls to delete. */
export interface CallsDeleteReq {
  project_id: string;
  call_ids: string[];
}
/** Answer of `POST /calls/delete`: how many calls were deleted. */
export interface CallsDeleteRes {
  num_deleted?: number;
  [key: string]: unknown;
}

/** Filters of `/calls/stream_query` and friends. */
export interface CallsFilter {
  op_names?: string[];
  input_refs?: string[];
  output_refs?: string[];
  parent_ids?: string[];
  trace_ids?: string[];
  call_ids?: string[];
  thread_ids?: string[];
  turn_ids?: string[];
  trace_roots_only?: boolean;
  wb_user_ids?: string[];
  wb_run_ids?: string[];
}

/** Body of `POST /calls/stream_query`: which calls to read (filter, query, sort, page) and which extras to join. */
export interface CallsQueryReq {
  project_id: string;
  filter?: CallsFilter;
  query?: Query;
  sort_by?: SortBy[];
  limit?: number;
  offset?: number;
  columns?: string[];
  expand_columns?: string[];
  include_feedback?: boolean;
  include_costs?: boolean;
  include_storage_size?: boolean;
  include_total_storage_size?: boolean;
}

/** Body of `POST /calls/query_stats`: the calls to count. */
export interface CallsQueryStatsReq {
  project_id: string;
  filter?: CallsFilter;
  query?: Query;
  limit?: number;
  expand_columns?: string[];
  include_total_storage_size?: boolean;
}
/** Answer of `POST /calls/query_stats`: how many calls match. */
export interface CallsQueryStatsRes {
  count: number;
  has_more?: boolean;
  total_storage_size_bytes?: number | null;
}

/**
 * A metric of `/calls/stats`: `metric` is a usage metric (`input_tokens`, `output_tokens`, `total_tokens`,
 * `cache_read_input_tokens`, `cache_creation_input_tokens`, `input_cost`, `output_cost`, `total_cost`) or a call
 * metric (`latency_ms`, `call_count`, `error_count`); `aggregations` are `sum` (the default), `avg`, `min`, `max`,
 * `count`, `count_true`, `count_false`; `percentiles` are 0–100.
 */
export interface CallStatsMetric {
  metric: string;
  aggregations?: string[];
  percentiles?: number[];
}

/** `/calls/stats`: time-bucketed usage and call metrics. */
export interface CallStatsReq {
  project_id: string;
  /** Inclusive. */
  start: Timestamp;
  /** Exclusive; now when left out. */
  end?: Timestamp;
  /** Bucket size in seconds; chosen from the range when left out (5 minutes up to 2 hours, … 1 day). */
  granularity?: number;
  /** Per bucket and model (the key of `summary.usage`). */
  usage_metrics?: CallStatsMetric[];
  /** Per bucket, over all calls. */
  call_metrics?: CallStatsMetric[];
  filter?: CallsFilter;
  /** IANA time zone the buckets are aligned in (`UTC` by default). */
  timezone?: string;
}

/**
 * One bucket of `/calls/stats`: its start `timestamp` (ISO, with the time zone's offset), `model` for usage buckets,
 * one column per aggregation (`sum_input_tokens`, `avg_latency_ms`, `p95_latency_ms`, …: 0 for sums, averages and
 * counts of an empty bucket, null for its minimum, maximum and percentiles) and `count`, the rows that fell in it.
 */
export interface CallStatsBucket {
  timestamp: Timestamp;
  model?: string;
  count: number;
  [column: string]: number | string | null | undefined;
}
/** Answer of `POST /calls/stats`: the resolved range and granularity, and every bucket of the range. */
export interface CallStatsRes {
  start: Timestamp;
  end: Timestamp;
  /** Bucket size used, in seconds. */
  granularity: number;
  timezone: string;
  usage_buckets: CallStatsBucket[];
  call_buckets: CallStatsBucket[];
  [key: string]: unknown;
}

/** Body of `POST /calls/usage`: the calls whose usage to read. */
export interface CallsUsageReq {
  project_id: string;
  call_ids: string[];
  include_costs?: boolean;
  limit?: number;
}
/** Answer of `POST /calls/usage`: usage per call, keyed by model. */
export interface CallsUsageRes {
  call_usage: Record<string, Record<string, LlmUsage>>;
  unfinished_call_ids?: string[];
  [key: string]: unknown;
}

/** Body of `POST /trace/usage`: the calls whose usage to roll up over their descendants. */
export interface TraceUsageReq {
  project_id: string;
  filter?: CallsFilter;
  query?: Query;
  include_costs?: boolean;
  limit?: number;
}
/** Answer of `POST /trace/usage`: usage per call including its descendants, keyed by model. */
export type TraceUsageRes = CallsUsageRes;

/** `/calls/score`: asks the service to run saved scorers on calls. */
export interface CallsScoreReq {
  project_id: string;
  call_ids: string[];
  scorer_refs: string[];
}
