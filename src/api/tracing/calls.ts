import { describeAs } from "../../own-objects.js";
import {
  type CallOptions,
  ndjsonRequest,
  requireArray,
  requireBody,
  type ServiceContext,
  type WithProject,
  withCall,
  withProject,
} from "../base.js";
import type {
  CallEndReq,
  CallReadReq,
  CallReadRes,
  CallSchema,
  CallStartReq,
  CallStartRes,
  CallStatsReq,
  CallStatsRes,
  CallsDeleteReq,
  CallsDeleteRes,
  CallsQueryReq,
  CallsQueryStatsReq,
  CallsQueryStatsRes,
  CallsScoreReq,
  CallsUsageReq,
  CallsUsageRes,
  CallUpdateReq,
  CallUpsertBatchReq,
  CallUpsertBatchRes,
  TraceUsageReq,
  TraceUsageRes,
} from "../types/calls.js";
import type { JsonObject } from "../types/common.js";

/** Calls: the write path (`start`, `end`, `upsertBatch`), reads, queries and usage. */
export class CallsApi {
  constructor(private readonly context: ServiceContext) {}

  private post<T>(path: string, json: unknown, options?: CallOptions, idempotent = false): Promise<T> {
    return this.context.transport.json<T>(withCall({ method: "POST", path, json, idempotent }, options));
  }

  /** `POST /call/start`: records the start of a call. `start.project_id` defaults to the client's project. */
  start(req: { start: WithProject<CallStartReq["start"]> }, options?: CallOptions): Promise<CallStartRes> {
    const start = withProject(this.context, requireBody(req, "calls.start").start, "calls.start (start)");
    return this.post("/call/start", { start }, options);
  }

  /** `POST /call/end`: records the end of a call (`summary` is required; `{}` is fine). */
  end(req: { end: WithProject<CallEndReq["end"]> }, options?: CallOptions): Promise<JsonObject> {
    return this.post(
      "/call/end",
      { end: withProject(this.context, requireBody(req, "calls.end").end, "calls.end (end)") },
      options,
    );
  }

  /** `POST /call/upsert_batch`: starts and ends in one request, in order. Items must carry their `project_id`. */
  upsertBatch(req: CallUpsertBatchReq, options?: CallOptions): Promise<CallUpsertBatchRes> {
    requireArray(requireBody(req, "calls.upsertBatch").batch, "batch", "calls.upsertBatch");
    return this.post("/call/upsert_batch", req, options);
  }

  /** `POST /call/read`: one call by id (`call` is null when unknown). */
  read(req: WithProject<CallReadReq>, options?: CallOptions): Promise<CallReadRes> {
    return this.post("/call/read", withProject(this.context, req, "calls.read"), options, true);
  }

  /** `POST /call/update`: renames a call (only `display_name` is updatable). */
  update(req: WithProject<CallUpdateReq>, options?: CallOptions): Promise<JsonObject> {
    return this.post("/call/update", withProject(this.context, req, "calls.update"), options);
  }

  /** `POST /calls/delete`. */
  delete(req: WithProject<CallsDeleteReq>, options?: CallOptions): Promise<CallsDeleteRes> {
    return this.post("/calls/delete", withProject(this.context, req, "calls.delete"), options);
  }

  /**
   * `POST /calls/stream_query`: calls matching a filter, yielded one by one as the NDJSON lines arrive (the body
   * is never buffered whole). The request is sent when iteration starts.
   */
  streamQuery(req: WithProject<CallsQueryReq>, options?: CallOptions): AsyncGenerator<CallSchema> {
    const json = withProject(this.context, req, "calls.streamQuery");
    return ndjsonRequest<CallSchema>(
      this.context.transport,
      withCall({ method: "POST", path: "/calls/stream_query", json, idempotent: true }, options),
    );
  }

  /** `POST /calls/query_stats`: how many calls match. */
  queryStats(req: WithProject<CallsQueryStatsReq>, options?: CallOptions): Promise<CallsQueryStatsRes> {
    return this.post("/calls/query_stats", withProject(this.context, req, "calls.queryStats"), options, true);
  }

  /** `POST /calls/stats`: time-bucketed usage and latency metrics. */
  stats(req: WithProject<CallStatsReq>, options?: CallOptions): Promise<CallStatsRes> {
    return this.post("/calls/stats", withProject(this.context, req, "calls.stats"), options, true);
  }

  /** `POST /calls/usage`: usage per call and model. */
  usage(req: WithProject<CallsUsageReq>, options?: CallOptions): Promise<CallsUsageRes> {
    return this.post("/calls/usage", withProject(this.context, req, "calls.usage"), options, true);
  }

  /** `POST /trace/usage`: usage rolled up over each call's descendants. */
  traceUsage(req: WithProject<TraceUsageReq>, options?: CallOptions): Promise<TraceUsageRes> {
    return this.post("/trace/usage", withProject(this.context, req, "calls.traceUsage"), options, true);
  }

  /** `POST /calls/score`: asks the service to run saved scorers (`scorer_refs`) on calls. */
  score(req: WithProject<CallsScoreReq>, options?: CallOptions): Promise<JsonObject> {
    return this.post("/calls/score", withProject(this.context, req, "calls.score"), options);
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(CallsApi, "CallsApi");
