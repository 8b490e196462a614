/** Wire types of the server-run evaluation endpoints (`/evaluations/*`). */

/** `/evaluations/evaluate_model`: runs a saved evaluation against a saved model, on the service. */
export interface EvaluateModelReq {
  project_id: string;
  evaluation_ref: string;
  model_ref: string;
}
/** `call_id` is the evaluation's root call; poll it with `/evaluations/status`. */
export interface EvaluateModelRes {
  call_id: string;
}

/** Body of `POST /evaluations/status`: the evaluation call to ask about. */
export interface EvaluationStatusReq {
  project_id: string;
  call_id: string;
}
/** Where a server-run evaluation stands. */
export type EvaluationStatus =
  | { code: "not_found" }
  | { code: "running"; completed_rows: number; total_rows: number }
  | { code: "failed"; error?: string | null }
  | { code: "complete"; output: unknown };
/** Answer of `POST /evaluations/status`: where the evaluation stands. */
export interface EvaluationStatusRes {
  status: EvaluationStatus;
}
