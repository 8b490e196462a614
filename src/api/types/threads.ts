/** Wire types of `/threads/stream_query`: conversations (threads) and their turn statistics. */
import type { SortBy, Timestamp } from "./common.js";

/** Which threads `POST /threads/stream_query` returns: a time range and/or thread ids. */
export interface ThreadsQueryFilter {
  after_datetime?: Timestamp;
  before_datetime?: Timestamp;
  thread_ids?: string[];
}
/** Sortable fields: `thread_id`, `turn_count`, `start_time`, `last_updated`, `p50_turn_duration_ms`, `p99_turn_duration_ms`. */
export interface ThreadsQueryReq {
  project_id: string;
  filter?: ThreadsQueryFilter;
  limit?: number;
  offset?: number;
  sort_by?: SortBy[];
}
/** One thread; statistics count only turn calls (calls whose `id` equals their `turn_id`). */
export interface ThreadSchema {
  thread_id: string;
  turn_count: number;
  start_time: Timestamp;
  last_updated: Timestamp;
  first_turn_id?: string | null;
  last_turn_id?: string | null;
  p50_turn_duration_ms?: number | null;
  p99_turn_duration_ms?: number | null;
  [key: string]: unknown;
}
