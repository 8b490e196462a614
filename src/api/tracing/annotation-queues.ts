import { encodePath } from "../../http/transport.js";
import { type CallOptions, requireString, type WithProject } from "../base.js";
import type {
  AnnotationQueueAddCallsBody,
  AnnotationQueueAddCallsRes,
  AnnotationQueueCreateReq,
  AnnotationQueueCreateRes,
  AnnotationQueueItemProgressBody,
  AnnotationQueueItemProgressRes,
  AnnotationQueueItemsQueryBody,
  AnnotationQueueItemsQueryRes,
  AnnotationQueueRes,
  AnnotationQueueSchema,
  AnnotationQueuesQueryReq,
  AnnotationQueuesStatsReq,
  AnnotationQueuesStatsRes,
  AnnotationQueueUpdateBody,
} from "../types/annotation-queues.js";
import { EndpointFamily } from "./family.js";

/** Annotation queues: calls queued for human review against annotation specs. */
export class AnnotationQueuesApi extends EndpointFamily {
  /** `POST /annotation_queues`: creates a queue. */
  create(req: WithProject<AnnotationQueueCreateReq>, options?: CallOptions): Promise<AnnotationQueueCreateRes> {
    return this.createJson("/annotation_queues", this.fillProject(req, "annotationQueues.create"), options);
  }

  /** `POST /annotation_queues/query`: queues yielded one by one as the NDJSON lines arrive. */
  query(req: WithProject<AnnotationQueuesQueryReq>, options?: CallOptions): AsyncGenerator<AnnotationQueueSchema> {
    const json = this.fillProject(req, "annotationQueues.query");
    return this.ndjson({ method: "POST", path: "/annotation_queues/query", json }, options);
  }

  /** `POST /annotation_queues/stats`: item counts (total, completed) per queue. */
  stats(req: WithProject<AnnotationQueuesStatsReq>, options?: CallOptions): Promise<AnnotationQueuesStatsRes> {
    return this.readJson("/annotation_queues/stats", this.fillProject(req, "annotationQueues.stats"), options);
  }

  /** `GET /annotation_queues/{queue_id}?project_id=`: one queue. */
  read(queueId: string, req: { project_id?: string } = {}, options?: CallOptions): Promise<AnnotationQueueRes> {
    const { project_id } = this.fillProject(req, "annotationQueues.read");
    return this.send(
      { method: "GET", path: this.queuePath(queueId, "annotationQueues.read"), query: { project_id } },
      options,
    );
  }

  /** `PUT /annotation_queues/{queue_id}`: renames or re-describes a queue, or changes its specs. */
  update(
    queueId: string,
    req: WithProject<AnnotationQueueUpdateBody>,
    options?: CallOptions,
  ): Promise<AnnotationQueueRes> {
    const json = this.fillProject(req, "annotationQueues.update");
    return this.send({ method: "PUT", path: this.queuePath(queueId, "annotationQueues.update"), json }, options);
  }

  /** `DELETE /annotation_queues/{queue_id}?project_id=`: deletes a queue. */
  delete(queueId: string, req: { project_id?: string } = {}, options?: CallOptions): Promise<AnnotationQueueRes> {
    const { project_id } = this.fillProject(req, "annotationQueues.delete");
    const path = this.queuePath(queueId, "annotationQueues.delete");
    return this.send({ method: "DELETE", path, query: { project_id } }, options);
  }

  /** `POST /annotation_queues/{queue_id}/items`: queues calls for review (duplicates are counted, not added). */
  addCalls(
    queueId: string,
    req: WithProject<AnnotationQueueAddCallsBody>,
    options?: CallOptions,
  ): Promise<AnnotationQueueAddCallsRes> {
    const json = this.fillProject(req, "annotationQueues.addCalls");
    return this.writeJson(`${this.queuePath(queueId, "annotationQueues.addCalls")}/items`, json, options);
  }

  /** `POST /annotation_queues/{queue_id}/items/query`: the queue's items matching a filter. */
  queryItems(
    queueId: string,
    req: WithProject<AnnotationQueueItemsQueryBody>,
    options?: CallOptions,
  ): Promise<AnnotationQueueItemsQueryRes> {
    const json = this.fillProject(req, "annotationQueues.queryItems");
    return this.readJson(`${this.queuePath(queueId, "annotationQueues.queryItems")}/items/query`, json, options);
  }

  /** `POST /annotation_queues/{queue_id}/items/{item_id}/progress`: marks an item in progress, completed or skipped. */
  updateItemProgress(
    queueId: string,
    itemId: string,
    req: WithProject<AnnotationQueueItemProgressBody>,
    options?: CallOptions,
  ): Promise<AnnotationQueueItemProgressRes> {
    const method = "annotationQueues.updateItemProgress";
    const json = this.fillProject(req, method);
    const item = encodePath(requireString(itemId, "item_id", method));
    return this.writeJson(`${this.queuePath(queueId, method)}/items/${item}/progress`, json, options);
  }

  private queuePath(queueId: string, method: string): string {
    return `/annotation_queues/${encodePath(requireString(queueId, "queue_id", method))}`;
  }
}
