import type { CallOptions, WithProject } from "../base.js";
import type { ThreadSchema, ThreadsQueryReq } from "../types/threads.js";
import { EndpointFamily } from "./family.js";

/** Threads: conversations grouped by `thread_id`, with turn statistics. */
export class ThreadsApi extends EndpointFamily {
  /** `POST /threads/stream_query`: threads yielded one by one as the NDJSON lines arrive. */
  streamQuery(req: WithProject<ThreadsQueryReq>, options?: CallOptions): AsyncGenerator<ThreadSchema> {
    const json = this.fillProject(req, "threads.streamQuery");
    return this.ndjson({ method: "POST", path: "/threads/stream_query", json }, options);
  }
}
