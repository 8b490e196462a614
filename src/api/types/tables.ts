/** Wire types of the table endpoints (`/table/*`): lists of rows addressed by digest. */
import type { JsonObject, SortBy } from "./common.js";

/** `/table/create`: rows are JSON objects; the table's digest is derived from their digests. */
export interface TableCreateReq {
  table: { project_id: string; rows: JsonObject[]; expected_digest?: string };
}
/** Answer of `POST /table/create`: the table's digest and each row's. */
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
/** Answer of `POST /table/create_from_digests`: the new table's digest. */
export interface TableCreateFromDigestsRes {
  digest: string;
}

/** One edit of `/table/update`, applied in order. */
export type TableUpdateSpec =
  | { append: { row: JsonObject } }
  | { pop: { index: number } }
  | { insert: { index: number; row: JsonObject } };
/** Body of `POST /table/update`: the table to start from and the updates to apply in order. */
export interface TableUpdateReq {
  project_id: string;
  base_digest: string;
  updates: TableUpdateSpec[];
}
/** Answer of `POST /table/update`: the new table's digest (and the digests of the rows it changed). */
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
/** One table row, as `POST /table/query_stream` yields it: its digest and value. */
export interface TableRowSchema {
  digest: string;
  val: unknown;
  original_index?: number | null;
  [key: string]: unknown;
}
/** Answer of `POST /table/query`: the rows. */
export interface TableQueryRes {
  rows: TableRowSchema[];
}

/** Body of `POST /table/query_stats`: the table to count. */
export interface TableQueryStatsReq {
  project_id: string;
  digest: string;
}
/** Answer of `POST /table/query_stats`: the table's row count. */
export interface TableQueryStatsRes {
  count: number;
  [key: string]: unknown;
}

/** Body of `POST /table/query_stats_batch`: the tables to count (and whether to size them). */
export interface TableQueryStatsBatchReq {
  project_id: string;
  digests?: string[];
  /** Adds `storage_size_bytes` to each row. */
  include_storage_size?: boolean;
}
/** One table's row count (and storage size, when asked for). */
export interface TableStatsRow {
  digest: string;
  count: number;
  storage_size_bytes?: number | null;
}
/** Answer of `POST /table/query_stats_batch`: one row per table. */
export interface TableQueryStatsBatchRes {
  tables: TableStatsRow[];
}
