import { ValidationError } from "../../errors.js";
import { encodePath, type HttpTransport } from "../../http/transport.js";
import { describeAs } from "../../own-objects.js";
import { type CallOptions, checkKnownKeys, requireString, withCall } from "../base.js";
import type { JsonObject } from "../types/common.js";
import type {
  Checkpoint,
  CreateModelParams,
  DeleteCheckpointsParams,
  DeleteCheckpointsResponse,
  DeleteModelResponse,
  ListCheckpointsParams,
  ListPage,
  LogTrajectoriesParams,
  TrainingModel,
} from "../types/training.js";
import { checkCursor, checkLimit, requireObject } from "./args.js";
import { paginate } from "./paging.js";

const BASE = "/v1/preview/models";

/** Trainable models and their checkpoints (`/v1/preview/models`). */
export class TrainingModels {
  constructor(private readonly transport: HttpTransport) {}

  /**
   * `POST /v1/preview/models`: registers a model to train. With `return_existing: true` an existing model of the
   * same name is returned instead of an error, which makes a retry by the caller safe.
   */
  create(params: CreateModelParams, options?: CallOptions): Promise<TrainingModel> {
    requireObject(params, "models.create");
    for (const key of ["project", "name", "base_model"] as const) requireString(params[key], key, "models.create");
    return this.transport.json(withCall({ method: "POST", path: BASE, json: params }, options));
  }

  /** `DELETE /v1/preview/models/{model_id}`: deletes the model, its checkpoints, artifacts and W&B run. */
  delete(modelId: string, options?: CallOptions): Promise<DeleteModelResponse> {
    const path = `${BASE}/${encodePath(requireString(modelId, "modelId", "models.delete"))}`;
    return this.transport.json(withCall({ method: "DELETE", path }, options));
  }

  /**
   * `GET /v1/preview/models/{model_id}/checkpoints`, as an async iterator over **all** checkpoints: pages are
   * fetched as the loop needs them (`after = last_id`) until `has_more` is false. `limit` (1..100, default 20) is
   * the page size. Bad arguments throw here, before anything is sent; nothing is sent until iteration starts.
   * The latest checkpoint: `for await (const c of models.checkpoints(id, {order: "desc", limit: 1})) { …; break }`.
   */
  checkpoints(modelId: string, params: ListCheckpointsParams = {}, options?: CallOptions): AsyncGenerator<Checkpoint> {
    const method = "models.checkpoints";
    requireObject(params, method);
    checkKnownKeys(params, ["after", "limit", "order"], method);
    const path = `${BASE}/${encodePath(requireString(modelId, "modelId", method))}/checkpoints`;
    const limit = checkLimit(params.limit, method);
    const start = checkCursor(params.after, method);
    if (params.order !== undefined && params.order !== "asc" && params.order !== "desc") {
      throw new ValidationError(
        `${method}: order must be "asc" or "desc", got ${JSON.stringify(params.order)}.`,
        "order",
      );
    }
    withCall({ method: "GET", path }, options); // checks the call options now, not at the first page
    const fetchPage = (after: string | undefined) =>
      this.transport.json<ListPage<Checkpoint>>(
        withCall({ method: "GET", path, query: { after, limit, order: params.order } }, options),
      );
    return paginate(fetchPage, start, { method: "GET", path });
  }

  /** `DELETE /v1/preview/models/{model_id}/checkpoints` with body `{steps}`: deletes checkpoints by step. */
  deleteCheckpoints(
    modelId: string,
    params: DeleteCheckpointsParams,
    options?: CallOptions,
  ): Promise<DeleteCheckpointsResponse> {
    const method = "models.deleteCheckpoints";
    const path = `${BASE}/${encodePath(requireString(modelId, "modelId", method))}/checkpoints`;
    requireObject(params, method);
    if (!Array.isArray(params.steps) || !params.steps.every((step) => Number.isInteger(step))) {
      throw new ValidationError(`${method}: steps must be an array of integer steps.`, "steps");
    }
    return this.transport.json(withCall({ method: "DELETE", path, json: { steps: params.steps } }, options));
  }

  /** `POST /v1/preview/models/{model_id}/log`: logs trajectory groups (e.g. validation rollouts) to the model's run. */
  log(modelId: string, params: LogTrajectoriesParams, options?: CallOptions): Promise<JsonObject> {
    const method = "models.log";
    const path = `${BASE}/${encodePath(requireString(modelId, "modelId", method))}/log`;
    requireObject(params, method);
    requireString(params.split, "split", method);
    if (!Array.isArray(params.trajectory_groups)) {
      throw new ValidationError(`${method}: trajectory_groups must be an array.`, "trajectory_groups");
    }
    return this.transport
      .json<JsonObject | undefined>(withCall({ method: "POST", path, json: params }, options))
      .then((body) => body ?? {});
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(TrainingModels, "TrainingModels");
