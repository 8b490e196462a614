import { type CallOptions, requireArray, requireBody, type WithProject } from "../base.js";
import type { EmptyResponse } from "../types/common.js";
import type {
  FeedbackCreateBatchReq,
  FeedbackCreateBatchRes,
  FeedbackCreateReq,
  FeedbackCreateRes,
  FeedbackPayloadSchemaReq,
  FeedbackPayloadSchemaRes,
  FeedbackPurgeReq,
  FeedbackQueryReq,
  FeedbackQueryRes,
  FeedbackReplaceReq,
  FeedbackReplaceRes,
  FeedbackStatsReq,
  FeedbackStatsRes,
} from "../types/feedback.js";
import { EndpointFamily } from "./family.js";

/** Feedback: reactions, notes, annotations and scores attached to calls and objects by ref. */
export class FeedbackApi extends EndpointFamily {
  /** `POST /feedback/create`: attaches one piece of feedback to `weave_ref`. */
  create(req: WithProject<FeedbackCreateReq>, options?: CallOptions): Promise<FeedbackCreateRes> {
    const body = this.fillProject(req, "feedback.create");
    // With a client-chosen `id` a replay is harmless; without one it would add the feedback twice.
    return body.id
      ? this.writeJson("/feedback/create", body, options)
      : this.createJson("/feedback/create", body, options);
  }

  /** `POST /feedback/batch/create`: several in one request; each item's `project_id` defaults to the client's. */
  createBatch(
    req: { batch: WithProject<FeedbackCreateBatchReq["batch"][number]>[] },
    options?: CallOptions,
  ): Promise<FeedbackCreateBatchRes> {
    const items = requireArray(requireBody(req, "feedback.createBatch").batch, "batch", "feedback.createBatch");
    const batch = items.map((item, i) => this.fillProject(item, `feedback.createBatch (item ${i})`));
    // Replaying is harmless only when every item carries its own id.
    const send = batch.every((item) => item.id) ? this.writeJson.bind(this) : this.createJson.bind(this);
    return send("/feedback/batch/create", { batch }, options);
  }

  /** `POST /feedback/payload_schema`: which payload paths the feedback in a time range carries. */
  payloadSchema(req: WithProject<FeedbackPayloadSchemaReq>, options?: CallOptions): Promise<FeedbackPayloadSchemaRes> {
    return this.readJson("/feedback/payload_schema", this.fillProject(req, "feedback.payloadSchema"), options);
  }

  /** `POST /feedback/purge`: deletes the feedback matching `query`. */
  purge(req: WithProject<FeedbackPurgeReq>, options?: CallOptions): Promise<EmptyResponse> {
    return this.writeJson("/feedback/purge", this.fillProject(req, "feedback.purge"), options);
  }

  /** `POST /feedback/query`: reads feedback rows (only the requested `fields`). */
  query(req: WithProject<FeedbackQueryReq>, options?: CallOptions): Promise<FeedbackQueryRes> {
    return this.readJson("/feedback/query", this.fillProject(req, "feedback.query"), options);
  }

  /** `POST /feedback/replace`: purges the feedback `feedback_id` and creates the new content, under the id answered. */
  replace(req: WithProject<FeedbackReplaceReq>, options?: CallOptions): Promise<FeedbackReplaceRes> {
    return this.writeJson("/feedback/replace", this.fillProject(req, "feedback.replace"), options);
  }

  /** `POST /feedback/stats`: feedback metrics aggregated in time buckets. */
  stats(req: WithProject<FeedbackStatsReq>, options?: CallOptions): Promise<FeedbackStatsRes> {
    return this.readJson("/feedback/stats", this.fillProject(req, "feedback.stats"), options);
  }
}
