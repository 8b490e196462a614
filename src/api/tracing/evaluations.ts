import type { CallOptions, WithProject } from "../base.js";
import type {
  EvaluateModelReq,
  EvaluateModelRes,
  EvaluationStatusReq,
  EvaluationStatusRes,
} from "../types/evaluations.js";
import { EndpointFamily } from "./family.js";

/** Evaluations run by the service itself (client-side evaluation records live under `client.project(…)`). */
export class EvaluationsApi extends EndpointFamily {
  /** `POST /evaluations/evaluate_model`: starts a saved evaluation of a saved model; answers the root call id. */
  evaluateModel(req: WithProject<EvaluateModelReq>, options?: CallOptions): Promise<EvaluateModelRes> {
    return this.createJson("/evaluations/evaluate_model", this.fillProject(req, "evaluations.evaluateModel"), options);
  }

  /** `POST /evaluations/status`: where a server-run evaluation stands (running, failed, complete…). */
  status(req: WithProject<EvaluationStatusReq>, options?: CallOptions): Promise<EvaluationStatusRes> {
    return this.readJson("/evaluations/status", this.fillProject(req, "evaluations.status"), options);
  }
}
