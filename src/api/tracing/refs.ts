import { type CallOptions, requireArray, requireBody } from "../base.js";
import type { RefsReadBatchReq, RefsReadBatchRes } from "../types/refs.js";
import { EndpointFamily } from "./family.js";

/** Refs: read the values behind `weave:///` refs (build and parse refs with `api/refs.ts`). */
export class RefsApi extends EndpointFamily {
  /** `POST /refs/read_batch`: the value of each ref, in order. Refs carry their project, so no `project_id`. */
  readBatch(req: RefsReadBatchReq, options?: CallOptions): Promise<RefsReadBatchRes> {
    requireArray(requireBody(req, "refs.readBatch").refs, "refs", "refs.readBatch");
    return this.readJson("/refs/read_batch", req, options);
  }
}
