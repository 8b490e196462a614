/**
 * Wire types of the project-scoped v2 resources under `/v2/{entity}/{project}/…`. Their bodies carry no
 * `project_id`: the project is in the path.
 */
import type { QueryValue } from "../../http/transport.js";
import type { JsonObject, Query, SortBy, Timestamp } from "./common.js";

/** Query of a v2 list (`?limit=&offset=`, plus per-resource filters). Arrays repeat the key. */
export interface V2ListQuery {
  limit?: number;
  offset?: number;
  [key: string]: QueryValue;
}

/**
 * Body of `POST …/{ops|datasets|scorers|models|evaluations}`: `name` plus the resource's own fields (an op's
 * `source_code`, a dataset's `rows`, …), passed through as given.
 */
export interface V2ObjectCreateBody {
  name: string;
  description?: string | null;
  [key: string]: unknown;
}
/** The new version of a v2 object. */
export interface V2ObjectCreateRes {
  object_id: string;
  digest: string;
  version_index: number;
  [key: string]: unknown;
}
/** One version of a v2 object as read or listed; the value's fields depend on the resource. */
export interface V2ObjectVersion {
  object_id: string;
  digest: string;
  version_index: number;
  created_at?: Timestamp;
  [key: string]: unknown;
}
/** Answer of the project-scoped deletes (`DELETE …/scores`, `…/predictions`, …): how many were deleted. */
export interface V2DeleteRes {
  num_deleted: number;
  [key: string]: unknown;
}

/** `POST …/scores`: `value` is the scorer's raw output. */
export interface ScoreCreateBody {
  prediction_id: string;
  /** Ref of the scorer. */
  scorer: string;
  value: unknown;
  evaluation_run_id?: string;
}
/** Answer of `POST …/scores`: the new score's id. */
export interface ScoreCreateRes {
  score_id: string;
}
/** One score, as `GET …/scores` yields it. */
export interface ScoreReadRes {
  score_id: string;
  scorer: string;
  value: unknown;
  prediction_id?: string;
  evaluation_run_id?: string | null;
  wb_user_id?: string | null;
  [key: string]: unknown;
}

/** `POST …/evaluation_runs`: `evaluation` and `model` are `weave:///` refs. */
export interface EvaluationRunCreateBody {
  evaluation: string;
  model: string;
  source_evaluation_run_id?: string;
}
/** Answer of `POST …/evaluation_runs`: the new run's id. */
export interface EvaluationRunCreateRes {
  evaluation_run_id: string;
}
/** One evaluation run, as `GET …/evaluation_runs` yields it. */
export interface EvaluationRunReadRes {
  evaluation_run_id: string;
  evaluation: string;
  model: string;
  status?: string | null;
  started_at?: Timestamp | null;
  finished_at?: Timestamp | null;
  summary?: JsonObject | null;
  source_evaluation_run_id?: string | null;
  [key: string]: unknown;
}
/** Body of `POST …/evaluation_runs/{evaluation_run_id}/finish`: an optional summary. */
export interface EvaluationRunFinishBody {
  summary?: JsonObject;
}
/** Answer of the `…/finish` endpoints. */
export interface FinishRes {
  success: boolean;
  [key: string]: unknown;
}

/** `POST …/predictions`: one model output, optionally inside an evaluation run. */
export interface PredictionCreateBody {
  /** Ref of the model. */
  model: string;
  inputs: JsonObject;
  output: unknown;
  evaluation_run_id?: string;
}
/** Answer of `POST …/predictions`: the new prediction's id. */
export interface PredictionCreateRes {
  prediction_id: string;
}
/** One prediction, as `GET …/predictions` yields it. */
export interface PredictionReadRes {
  prediction_id: string;
  model: string;
  inputs: JsonObject;
  output: unknown;
  evaluation_run_id?: string | null;
  wb_user_id?: string | null;
  [key: string]: unknown;
}

/** Sort key of `…/eval_results/query`; `mode: "difference"` sorts by the gap between evaluations. */
export interface EvalResultsSortBy extends SortBy {
  evaluation_call_id?: string;
  mode?: "value" | "difference";
}
/** `POST …/eval_results/query`: per-row results of one or more evaluations, side by side. */
export interface EvalResultsQueryBody {
  evaluation_call_ids?: string[];
  evaluation_run_ids?: string[];
  require_intersection?: boolean;
  include_raw_data_rows?: boolean;
  resolve_row_refs?: boolean;
  include_rows?: boolean;
  include_summary?: boolean;
  summary_require_intersection?: boolean;
  include_predict_and_score_children?: boolean;
  include_costs?: boolean;
  sort_by?: EvalResultsSortBy[];
  filters?: { evaluation_call_id?: string; query: Query }[];
  filter_logic_operator?: "and" | "or";
  limit?: number;
  offset?: number;
}
/** Answer of `POST …/eval_results/query`: per-row results and, when asked for, summaries. */
export interface EvalResultsQueryRes {
  rows: JsonObject[];
  total_rows: number;
  summary?: JsonObject | null;
  warnings?: string[];
  [key: string]: unknown;
}
