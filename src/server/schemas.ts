/**
 * Request models of the endpoints the local service implements, after the service's own (`trace_server_interface`):
 * request wrappers are strict, the inner call records (`StartedCallSchemaForInsert`, `EndedCallSchemaForInsert`)
 * ignore extra keys.
 */
import { type FieldType, type Model, req, type TaggedModel } from "./validate.js";

const strList: FieldType = { list: "str" };
/** `limit`/`offset`: `Optional[int] = Field(ge=0)`. */
const nonNegative: FieldType = "uint";
const strict = (fields: Model["fields"]): Model => ({ strict: true, fields });

const callStart: Model = {
  strict: false,
  fields: {
    project_id: req("str"),
    id: "str",
    trace_id: "str",
    parent_id: "str",
    op_name: req("str"),
    display_name: "str",
    thread_id: "str",
    turn_id: "str",
    started_at: req("datetime"),
    attributes: req("dict"),
    inputs: req("dict"),
    otel_dump: "dict",
    wb_user_id: "str",
    wb_run_id: "str",
    wb_run_step: "int",
  },
};

/** `LLMUsageSchema`: token counts are integers (lax: `"12"` is 12); other keys are kept as sent. */
const usage: Model = {
  strict: false,
  fields: Object.fromEntries(
    [
      "prompt_tokens",
      "input_tokens",
      "completion_tokens",
      "output_tokens",
      "requests",
      "total_tokens",
      "cache_creation_input_tokens",
      "cache_read_input_tokens",
    ].map((name) => [name, "int" as FieldType]),
  ),
};
/** `SummaryInsertMap`: `usage` keyed by model name; any other key. */
const summary: Model = { strict: false, fields: { usage: { dictOf: usage } } };

const callEnd: Model = {
  strict: false,
  fields: {
    project_id: req("str"),
    id: req("str"),
    trace_id: "str",
    is_eval: "bool",
    started_at: "datetime",
    ended_at: req("datetime"),
    exception: "str",
    output: "any",
    summary: req(summary),
    wb_run_step_end: "int",
  },
};

export const CALL_START_REQ = strict({ start: req(callStart) });
export const CALL_END_REQ = strict({ end: req(callEnd) });

const batchStart: TaggedModel = { tag: "start", ...strict({ mode: "str", req: req(CALL_START_REQ) }) };
const batchEnd: TaggedModel = { tag: "end", ...strict({ mode: "str", req: req(CALL_END_REQ) }) };
/**
 * `CompletedCallSchemaForInsert` (`POST /v2/{entity}/{project}/calls/complete`): a call's start and end in one record,
 * as a client that buffers both sends it.
 */
const completedCall: Model = {
  strict: false,
  fields: {
    ...callStart.fields,
    ...callEnd.fields,
    trace_id: req("str"),
    started_at: req("datetime"),
  },
};
export const CALLS_COMPLETE_REQ = strict({ batch: req({ list: completedCall }) });

export const CALL_UPSERT_BATCH_REQ = strict({
  batch: req({ list: { union: [batchStart, batchEnd], discriminator: "mode", defaultTag: "start" } }),
});

export const CALL_READ_REQ = strict({
  project_id: req("str"),
  id: req("str"),
  include_costs: "bool",
  include_storage_size: "bool",
  include_total_storage_size: "bool",
});

export const CALL_UPDATE_REQ = strict({
  project_id: req("str"),
  call_id: req("str"),
  display_name: "str",
  wb_user_id: "str",
});

export const CALLS_DELETE_REQ = strict({ project_id: req("str"), call_ids: req(strList), wb_user_id: "str" });

const callsFilter = strict({
  op_names: strList,
  input_refs: strList,
  output_refs: strList,
  parent_ids: strList,
  trace_ids: strList,
  call_ids: strList,
  thread_ids: strList,
  turn_ids: strList,
  trace_roots_only: "bool",
  wb_user_ids: strList,
  wb_run_ids: strList,
});
const query = strict({ $expr: req("dict") });
const sortBy: FieldType = { list: strict({ field: req("str"), direction: req({ literal: ["asc", "desc"] }) }) };

export const CALLS_QUERY_REQ = strict({
  project_id: req("str"),
  filter: callsFilter,
  limit: nonNegative,
  offset: nonNegative,
  sort_by: sortBy,
  query,
  include_costs: "bool",
  include_feedback: "bool",
  include_storage_size: "bool",
  include_total_storage_size: "bool",
  include_usernames: "bool",
  columns: strList,
  expand_columns: strList,
  return_expanded_column_values: "bool",
});

export const CALLS_QUERY_STATS_REQ = strict({
  project_id: req("str"),
  filter: callsFilter,
  query,
  limit: nonNegative,
  include_total_storage_size: "bool",
  expand_columns: strList,
});

/** `TraceUsageReq` (`POST /trace/usage`). */
export const TRACE_USAGE_REQ = strict({
  project_id: req("str"),
  filter: callsFilter,
  query,
  include_costs: "bool",
  limit: nonNegative,
});

/** The aggregations of a `/calls/stats` metric (the service's `AggregationType`). */
export const STATS_AGGREGATIONS = ["sum", "avg", "min", "max", "count", "count_true", "count_false"] as const;
/** `UsageMetricSpec.metric`: token counts per model, and their costs. */
export const USAGE_METRICS = [
  "input_tokens",
  "output_tokens",
  "total_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
  "input_cost",
  "output_cost",
  "total_cost",
] as const;
/** `CallMetricSpec.metric`: per call, whatever the model. */
export const CALL_METRICS = ["latency_ms", "call_count", "error_count"] as const;
const metricSpec = (metrics: readonly string[]): Model => ({
  strict: false,
  fields: {
    metric: req({ literal: [...metrics] }),
    aggregations: { list: { literal: [...STATS_AGGREGATIONS] } },
    percentiles: { list: "float" },
  },
});

/** `CallStatsReq` (`POST /calls/stats`); ranges the types cannot say (granularity > 0, …) are the route's to check. */
export const CALL_STATS_REQ = strict({
  project_id: req("str"),
  start: req("datetime"),
  end: "datetime",
  granularity: "int",
  usage_metrics: { list: metricSpec(USAGE_METRICS) },
  call_metrics: { list: metricSpec(CALL_METRICS) },
  filter: callsFilter,
  timezone: "str",
});

/** `CallsUsageReq` (`POST /calls/usage`). */
export const CALLS_USAGE_REQ = strict({
  project_id: req("str"),
  call_ids: req(strList),
  include_costs: "bool",
  limit: "int",
});

export const CALLS_SCORE_REQ = strict({
  project_id: req("str"),
  call_ids: req(strList),
  scorer_refs: req(strList),
  wb_user_id: "str",
});

const feedbackCreateFields: Model["fields"] = {
  id: "str",
  project_id: req("str"),
  weave_ref: req("str"),
  creator: "str",
  feedback_type: req("str"),
  payload: req("dict"),
  annotation_ref: "str",
  runnable_ref: "str",
  call_ref: "str",
  trigger_ref: "str",
  queue_id: "str",
  wb_user_id: "str",
  scorer_tags: strList,
  scorer_tag_reasons: "dict",
  scorer_tag_confidences: "dict",
  scorer_ratings: "dict",
  scorer_rating_reasons: "dict",
  scorer_rating_confidences: "dict",
  span_agent_name: "str",
  span_agent_version: "str",
  span_status_code: "str",
  span_conversation_id: "str",
  span_trace_id: "str",
  scorer_trace_id: "str",
};
export const FEEDBACK_CREATE_REQ = strict(feedbackCreateFields);
export const FEEDBACK_BATCH_REQ = strict({ batch: req({ list: FEEDBACK_CREATE_REQ }) });
export const FEEDBACK_REPLACE_REQ = strict({ ...feedbackCreateFields, feedback_id: req("str") });
export const FEEDBACK_QUERY_REQ = strict({
  project_id: req("str"),
  fields: strList,
  query,
  sort_by: sortBy,
  limit: nonNegative,
  offset: nonNegative,
});
export const FEEDBACK_PURGE_REQ = strict({ project_id: req("str"), query: req(query) });

export const THREADS_QUERY_REQ = strict({
  project_id: req("str"),
  filter: strict({ after_datetime: "datetime", before_datetime: "datetime", thread_ids: strList }),
  limit: nonNegative,
  offset: nonNegative,
  sort_by: sortBy,
});

export const EVALUATION_RUN_CREATE = strict({
  evaluation: req("str"),
  model: req("str"),
  source_evaluation_run_id: "str",
});
export const EVALUATION_RUN_FINISH = strict({ summary: "dict" });
export const PREDICTION_CREATE = strict({
  model: req("str"),
  inputs: req("dict"),
  output: req("any"),
  evaluation_run_id: "str",
  genai_span_ref: "list",
});
export const SCORE_CREATE = strict({
  prediction_id: req("str"),
  scorer: req("str"),
  value: req("any"),
  evaluation_run_id: "str",
});

/** `EvalResultsQueryBody` (`POST /v2/{entity}/{project}/eval_results/query`). */
export const EVAL_RESULTS_QUERY = strict({
  evaluation_call_ids: strList,
  evaluation_run_ids: strList,
  require_intersection: "bool",
  include_raw_data_rows: "bool",
  resolve_row_refs: "bool",
  include_rows: "bool",
  include_summary: "bool",
  summary_require_intersection: "bool",
  include_predict_and_score_children: "bool",
  include_costs: "bool",
  sort_by: {
    list: strict({
      field: req("str"),
      direction: req({ literal: ["asc", "desc"] }),
      evaluation_call_id: "str",
      mode: { literal: ["value", "difference"] },
    }),
  },
  filters: { list: strict({ evaluation_call_id: "str", query: req("dict") }) },
  filter_logic_operator: { literal: ["and", "or"] },
  limit: nonNegative,
  offset: nonNegative,
});

export const FILE_CONTENT_REQ = strict({ project_id: req("str"), digest: req("str") });

export const OBJ_CREATE_REQ = strict({
  obj: req({
    strict: false,
    fields: {
      project_id: req("str"),
      object_id: req("str"),
      val: req("any"),
      builtin_object_class: "str",
      expected_digest: "str",
      wb_user_id: "str",
    },
  }),
});
export const OBJ_READ_REQ = strict({
  project_id: req("str"),
  object_id: req("str"),
  digest: req("str"),
  metadata_only: "bool",
  include_tags_and_aliases: "bool",
});
export const OBJ_QUERY_REQ = strict({
  project_id: req("str"),
  filter: strict({
    base_object_classes: strList,
    exclude_base_object_classes: strList,
    leaf_object_classes: strList,
    object_ids: strList,
    is_op: "bool",
    latest_only: "bool",
    tags: strList,
    aliases: strList,
  }),
  limit: nonNegative,
  offset: nonNegative,
  sort_by: sortBy,
  metadata_only: "bool",
  include_storage_size: "bool",
  include_tags_and_aliases: "bool",
});

export const TABLE_CREATE_REQ = strict({
  table: req({
    strict: false,
    fields: { project_id: req("str"), rows: req({ list: "dict" }), expected_digest: "str" },
  }),
});
export const TABLE_UPDATE_REQ = strict({
  project_id: req("str"),
  base_digest: req("str"),
  updates: req({ list: "dict" }),
});
export const TABLE_QUERY_REQ = strict({
  project_id: req("str"),
  digest: req("str"),
  filter: strict({ row_digests: strList }),
  limit: nonNegative,
  offset: nonNegative,
  sort_by: sortBy,
});
export const TABLE_QUERY_STATS_REQ = strict({ project_id: req("str"), digest: req("str") });
export const TABLE_QUERY_STATS_BATCH_REQ = strict({
  project_id: req("str"),
  digests: strList,
  include_storage_size: "bool",
});
export const REFS_READ_BATCH_REQ = strict({ refs: req(strList) });
