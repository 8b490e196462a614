/** Wire types of the annotation queue endpoints (`/annotation_queues*`): calls queued for human review. */
import type { SortBy, Timestamp } from "./common.js";

export interface AnnotationQueueCreateReq {
  project_id: string;
  name: string;
  description?: string;
  /** Refs of the annotation specs reviewers fill in. */
  scorer_refs: string[];
}
export interface AnnotationQueueCreateRes {
  id: string;
}

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

export interface AnnotationQueuesStatsReq {
  project_id: string;
  queue_ids: string[];
}
export interface AnnotationQueueStats {
  queue_id: string;
  total_items: number;
  completed_items: number;
  [key: string]: unknown;
}
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
export interface AnnotationQueueAddCallsRes {
  added_count: number;
  duplicates: number;
  [key: string]: unknown;
}

/** Review state of one queued call. */
export type AnnotationState = "unstarted" | "in_progress" | "completed" | "skipped";

export interface AnnotationQueueItemsFilter {
  id?: string;
  call_id?: string;
  call_op_name?: string;
  call_trace_id?: string;
  added_by?: string;
  annotation_states?: AnnotationState[];
}
export interface AnnotationQueueItemsQueryBody {
  project_id: string;
  filter?: AnnotationQueueItemsFilter;
  sort_by?: SortBy[];
  limit?: number;
  offset?: number;
  /** Adds `position_in_queue` to each item. */
  include_position?: boolean;
}
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
export interface AnnotationQueueItemsQueryRes {
  items: AnnotationQueueItemSchema[];
}

/** `POST …/items/{item_id}/progress`: the caller becomes the item's annotator. */
export interface AnnotationQueueItemProgressBody {
  project_id: string;
  annotation_state: Exclude<AnnotationState, "unstarted">;
}
export interface AnnotationQueueItemProgressRes {
  item: AnnotationQueueItemSchema;
  [key: string]: unknown;
}
