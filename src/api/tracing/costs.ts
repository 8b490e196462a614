import type { CallOptions, WithProject } from "../base.js";
import type { EmptyResponse } from "../types/common.js";
import type { CostCreateReq, CostCreateRes, CostPurgeReq, CostQueryReq, CostQueryRes } from "../types/costs.js";
import { EndpointFamily } from "./family.js";

/** Costs: per-model token prices the service joins on `summary.usage`. */
export class CostsApi extends EndpointFamily {
  /** `POST /cost/create`: adds prices for models (keyed by the model name used in usage). */
  create(req: WithProject<CostCreateReq>, options?: CallOptions): Promise<CostCreateRes> {
    return this.createJson("/cost/create", this.fillProject(req, "costs.create"), options);
  }

  /** `POST /cost/purge`: deletes the price rows matching `query`. */
  purge(req: WithProject<CostPurgeReq>, options?: CallOptions): Promise<EmptyResponse> {
    return this.writeJson("/cost/purge", this.fillProject(req, "costs.purge"), options);
  }

  /** `POST /cost/query`: reads price rows. */
  query(req: WithProject<CostQueryReq>, options?: CallOptions): Promise<CostQueryRes> {
    return this.readJson("/cost/query", this.fillProject(req, "costs.query"), options);
  }
}
