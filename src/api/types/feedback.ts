/** Wire types of the feedback endpoints (`/feedback/*`). Type names live in `api/refs.ts`. */
import type { JsonObject, ProjectQueryReq, Query, Timestamp } from "./common.js";

/** `/feedback/create`: one piece of feedback on the object or call named by `weave_ref`. */
export interface FeedbackCreateReq {
  project_id: string;
  /** Client-chosen id (a UUID); the service generates one when left out. */
  id?: string;
  /** What the feedback is about, e.g. `weave:///acme/demo/call/{call_id}`. */
  weave_ref: string;
  creator?: string | null;
  /** `wandb.reaction.1`, `wandb.note.1`, `wandb.annotation.<name>`, `wandb.runnable.<scorer>`, … */
  feedback_type: string;
  payload: JsonObject;
  /** Ref of the annotation spec (`wandb.annotation.*`). */
  annotation_ref?: string | null;
  /** Ref of the scorer that produced a score (`wandb.runnable.*`). */
  runnable_ref?: string | null;
  /** Ref of the scorer's own call. */
  call_ref?: string | null;
  trigger_ref?: string | null;
  /** Annotation queue the feedback came from. */
  queue_id?: string | null;
}
/** Answer of `POST /feedback/create`: the stored feedback's id, creation time and author. */
export interface FeedbackCreateRes {
  id: string;
  created_at: Timestamp;
  wb_user_id: string;
  /** The payload as stored (the service may normalise it). */
  payload: JsonObject;
}

/** `/feedback/batch/create`: items carry their own `project_id`. */
export interface FeedbackCreateBatchReq {
  batch: FeedbackCreateReq[];
}
/** Answer of `POST /feedback/batch/create`: one result per item, in order. */
export interface FeedbackCreateBatchRes {
  res: FeedbackCreateRes[];
}

/** A query; `fields` lists the columns to return, dotted into the payload allowed: `["id", "feedback_type", "payload.note"]`. */
export type FeedbackQueryReq = ProjectQueryReq;
/** Rows hold the requested `fields` only, so they are open records. */
export interface FeedbackQueryRes {
  result: JsonObject[];
  total_count?: number;
}

/** `/feedback/purge`: deletes the feedback matching `query`. */
export interface FeedbackPurgeReq {
  project_id: string;
  query: Query;
}

/** `/feedback/replace`: the create fields plus the id of the feedback to replace. */
export interface FeedbackReplaceReq extends FeedbackCreateReq {
  feedback_id: string;
}
/** Answer of `POST /feedback/replace`: the replacement, as `create` answers. */
export type FeedbackReplaceRes = FeedbackCreateRes;

/** One payload value to aggregate in `/feedback/stats`. */
export interface FeedbackMetricSpec {
  /** Dot path into the payload, e.g. `output` or `output.score`. */
  json_path: string;
  /** `numeric` (avg/min/max, the default) or `boolean` (count_true/count_false). */
  value_type?: string;
  aggregations?: string[];
  /** Percentiles (0–100) for numeric values, e.g. `[5, 50, 95]`. */
  percentiles?: number[];
}

/** `/feedback/stats`: feedback metrics in time buckets. */
export interface FeedbackStatsReq {
  project_id: string;
  /** Inclusive start. */
  start: Timestamp;
  /** Exclusive end; the service uses "now" when left out. */
  end?: Timestamp;
  feedback_type?: string;
  /** Exact ref, or a `…:*` prefix for all versions. */
  trigger_ref?: string;
  /** Bucket size in seconds; chosen from the range when left out. */
  granularity?: number;
  /** IANA time zone for bucket alignment (service default `UTC`). */
  timezone?: string;
  metrics?: FeedbackMetricSpec[];
}
/** Buckets and window aggregates; the service's shape is left open. */
export type FeedbackStatsRes = JsonObject;

/** `/feedback/payload_schema`: discovers which payload paths feedback in a time range carries. */
export interface FeedbackPayloadSchemaReq {
  project_id: string;
  start: Timestamp;
  end?: Timestamp;
  feedback_type?: string;
  trigger_ref?: string;
  /** How many distinct trigger refs to sample (service default 2000, cap 5000). */
  sample_limit?: number;
}
/** Answer of `POST /feedback/payload_schema`: the payload paths found, as the service sends them. */
export type FeedbackPayloadSchemaRes = JsonObject;
