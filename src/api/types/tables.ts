/** Wire types of the table endpoints (`/table/*`): lists of rows addressed by digest. */
import type { JsonObject, SortBy } from "./common.js";

/** `/table/create`: rows are JSON objects; the table's digest is derived from their digests. */
export interface TableCreateReq {
  table: { project_id: string; rows: JsonObject[]; expected_digest?: string };
}
export interface TableCreateRes {
  digest: string;
  row_digests?: string[];
}

/** `/table/create_from_digests`: a table made of rows that already exist. */
export interface TableCreateFromDigestsReq {
  project_id: string;
  row_digests: string[];
  expected_digest?: string;
}
export interface TableCreateFromDigestsRes {
  digest: string;
}

/** One edit of `/table/update`, applied in order. */
export type TableUpdateSpec =
  | { append: { row: JsonObject } }
  | { pop: { index: number } }
  | { insert: { index: number; row: JsonObject } };
export interface TableUpdateReq {
  project_id: string;
  base_digest: string;
  updates: TableUpdateSpec[];
}
export interface TableUpdateRes {
  digest: string;
  updated_row_digests?: string[];
}

/** Rows of one table; `/table/query` and `/table/query_stream` take the same request. */
export interface TableQueryReq {
  project_id: string;
  digest: string;
  filter?: { row_digests?: string[] };
  limit?: number;
  offset?: number;
  sort_by?: SortBy[];
}
export interface TableRowSchema {
  digest: string;
  val: unknown;
  original_index?: number | null;
  [key: string]: unknown;
}
export interface TableQueryRes {
  rows: TableRowSchema[];
}

export interface TableQueryStatsReq {
  project_id: string;
  digest: string;
}
export interface TableQueryStatsRes {
  count: number;
  [key: string]: unknown;
}

export interface TableQueryStatsBatchReq {
  project_id: string;
  digests?: string[];
  /** Adds `storage_size_bytes` to each row. */
  include_storage_size?: boolean;
}
export interface TableStatsRow {
  digest: string;
  count: number;
  storage_size_bytes?: number | null;
}
export interface TableQueryStatsBatchRes {
  tables: TableStatsRow[];
}
