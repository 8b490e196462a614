/** Wire types of the cost endpoints (`/cost/*`): per-model token prices the service joins on usage. */
import type { ProjectQueryReq, Query, Timestamp } from "./common.js";

/** The price of one model's tokens, as created. Units default to `"USD"` on the service. */
export interface CostCreateInput {
  prompt_token_cost: number;
  completion_token_cost: number;
  prompt_token_cost_unit?: string;
  completion_token_cost_unit?: string;
  /** From when this price applies; the service uses "now" when left out. */
  effective_date?: Timestamp | null;
  provider_id?: string | null;
}

/** `/cost/create`: prices keyed by model name (the `summary.usage` key). */
export interface CostCreateReq {
  project_id: string;
  costs: Record<string, CostCreateInput>;
}
/** `ids` pairs each model name with the id of its new cost row. */
export interface CostCreateRes {
  ids: [llm_id: string, cost_id: string][];
}

/** A query; `fields` lists the columns to return, e.g. `["id", "llm_id", "prompt_token_cost"]`. */
export type CostQueryReq = ProjectQueryReq;
/** One stored price. Only the requested `fields` are present. */
export interface CostQueryOutput {
  id?: string;
  llm_id?: string;
  prompt_token_cost?: number;
  completion_token_cost?: number;
  prompt_token_cost_unit?: string;
  completion_token_cost_unit?: string;
  effective_date?: Timestamp;
  provider_id?: string;
  [key: string]: unknown;
}
/** Answer of `POST /cost/query`: the matching price rows. */
export interface CostQueryRes {
  results: CostQueryOutput[];
}

/** `/cost/purge`: deletes the cost rows matching `query`. */
export interface CostPurgeReq {
  project_id: string;
  query: Query;
}
