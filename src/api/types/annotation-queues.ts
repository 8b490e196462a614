/** Wire types of the annotation queue endpoints (`/annotation_queues*`): calls queued for human review. */
import type { SortBy, Timestamp } from "./common.js";

/** Body of `POST /annotation_queues`: the new queue's name, description and the annotation specs reviewers fill in. */
export interface AnnotationQueueCreateReq {
  project_id: string;
  name: string;
  description?: string;
  /** Refs of the annotation specs reviewers fill in. */
  scorer_refs: string[];
}
/** Answer of `POST /annotation_queues`: the new queue's id. */
export interface AnnotationQueueCreateRes {
  id: string;
}

/** One annotation queue, as `POST /annotation_queues/query` yields it. */
export interface AnnotationQueueSchema {
  id: string;
  project_id: string;
  name: string;
  description: string;
  scorer_refs: string[];
  created_at: Timestamp;
  created_by: string;
  updated_at: Timestamp;
  deleted_at?: Timestamp | null;
  [key: string]: unknown;
}
/** Answer of read, update and delete. */
export interface AnnotationQueueRes {
  queue: AnnotationQueueSchema;
}

/** `/annotation_queues/query` (NDJSON of {@link AnnotationQueueSchema}). `name` matches case-insensitively, in part. */
export interface AnnotationQueuesQueryReq {
  project_id: string;
  name?: string;
  sort_by?: SortBy[];
  limit?: number;
  offset?: number;
}

/** Body of `POST /annotation_queues/stats`: the queues to count. */
export interface AnnotationQueuesStatsReq {
  project_id: string;
  queue_ids: string[];
}
/** Item counts of one queue: total and completed. */
export interface AnnotationQueueStats {
  queue_id: string;
  total_items: number;
  completed_items: number;
  [key: string]: unknown;
}
/** Answer of `POST /annotation_queues/stats`: counts per queue. */
export interface AnnotationQueuesStatsRes {
  stats: AnnotationQueueStats[];
}

/** `PUT /annotation_queues/{queue_id}`: fields left out stay as they are. */
export interface AnnotationQueueUpdateBody {
  project_id: string;
  name?: string;
  description?: string;
  scorer_refs?: string[];
}

/** `POST /annotation_queues/{queue_id}/items`: queues calls; `display_fields` are JSON paths shown to reviewers. */
export interface AnnotationQueueAddCallsBody {
  project_id: string;
  call_ids: string[];
  display_fields: string[];
}
/** Answer of `POST /annotation_queues/{queue_id}/items`: how many calls were added and how many were already queued. */
export interface AnnotationQueueAddCallsRes {
  added_count: number;
  duplicates: number;
  [key: string]: unknown;
}

/** Review state of one queued call. */
export type AnnotationState = "unstarted" | "in_progress" | "completed" | "skipped";

/** Which items of a queue `queryItems` returns; every field given must match. */
export interface AnnotationQueueItemsFilter {
  id?: string;
  call_id?: string;
  call_op_name?: string;
  call_trace_id?: string;
  added_by?: string;
  annotation_states?: AnnotationState[];
}
/** Body of `POST /annotation_queues/{queue_id}/items/query`. */
export interface AnnotationQueueItemsQueryBody {
  project_id: string;
  filter?: AnnotationQueueItemsFilter;
  sort_by?: SortBy[];
  limit?: number;
  offset?: number;
  /** Adds `position_in_queue` to each item. */
  include_position?: boolean;
}
/** One item of an annotation queue: the queued call and where its review stands. */
export interface AnnotationQueueItemSchema {
  id: string;
  project_id: string;
  queue_id: string;
  call_id: string;
  call_started_at: Timestamp;
  call_ended_at?: Timestamp | null;
  call_op_name: string;
  call_trace_id: string;
  display_fields: string[];
  added_by?: string | null;
  annotation_state: AnnotationState;
  annotator_user_id?: string | null;
  created_at: Timestamp;
  created_by: string;
  updated_at: Timestamp;
  deleted_at?: Timestamp | null;
  position_in_queue?: number | null;
  [key: string]: unknown;
}
/** Answer of `POST /annotation_queues/{queue_id}/items/query`: the matching items. */
export interface AnnotationQueueItemsQueryRes {
  items: AnnotationQueueItemSchema[];
}

/** `POST …/items/{item_id}/progress`: the caller becomes the item's annotator. */
export interface AnnotationQueueItemProgressBody {
  project_id: string;
  annotation_state: Exclude<AnnotationState, "unstarted">;
}
/** Answer of `POST /annotation_queues/{queue_id}/items/{item_id}/progress`: the updated item. */
export interface AnnotationQueueItemProgressRes {
  item: AnnotationQueueItemSchema;
  [key: string]: unknown;
}
