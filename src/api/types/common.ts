/** Wire types shared by several endpoint families. Field names are the service's own (snake_case). */

/** A JSON object whose shape the service leaves open. */
export type JsonObject = { [key: string]: unknown };

/** A value `JSON.stringify` renders as-is and can never throw on: what tracewire records as inputs and outputs. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** ISO-8601 timestamp string, e.g. `2026-01-05T10:00:00.123Z`. */
export type Timestamp = string;

/** A sort key: `field` may be dotted into `attributes`, `inputs`, `output`, `summary`. */
export interface SortBy {
  field: string;
  direction: "asc" | "desc";
}

/**
 * A query in the service's Mongo-like expression language, e.g.
 * `{ $expr: { $gt: [{ $getField: "summary.usage.total_tokens" }, { $literal: 100 }] } }`.
 */
export interface Query {
  /** The expression (`$gt`, `$eq`, `$and`, `$contains`, `$getField`, `$literal`, …), as the service's `$expr`. */
  $expr: JsonObject;
}

/** Token usage for one model, as the service joins costs on it (DESIGN §2.1). */
export interface LlmUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  total_tokens?: number | null;
  requests?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  [key: string]: unknown;
}

/** The usual `{}` answer of write endpoints. */
export type EmptyResponse = JsonObject;

/** The shape of the service's row queries (`/cost/query`, `/feedback/query`): columns, filter, order, page. */
export interface ProjectQueryReq {
  project_id: string;
  /** Columns to return; rows then hold only these. */
  fields?: string[];
  query?: Query;
  sort_by?: SortBy[];
  limit?: number;
  offset?: number;
}
