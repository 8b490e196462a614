/** The resources of a {@link ProjectScope}: REST-style endpoints under `/v2/{entity}/{project}/…`. */
import { ValidationError } from "../../errors.js";
import { encodePath } from "../../http/transport.js";
import {
  type CallOptions,
  checkPaging,
  requireArray,
  requireBody,
  requireString,
  type ServiceContext,
  type WithProject,
} from "../base.js";
import type { CallEnd, CallStart, CallStartRes, CompletedCall } from "../types/calls.js";
import type { JsonObject } from "../types/common.js";
import type {
  EvalResultsQueryBody,
  EvalResultsQueryRes,
  EvaluationRunCreateBody,
  EvaluationRunCreateRes,
  EvaluationRunFinishBody,
  EvaluationRunReadRes,
  FinishRes,
  PredictionCreateBody,
  PredictionCreateRes,
  PredictionReadRes,
  ScoreCreateBody,
  ScoreCreateRes,
  ScoreReadRes,
  V2DeleteRes,
  V2ListQuery,
  V2ObjectCreateBody,
  V2ObjectCreateRes,
  V2ObjectVersion,
} from "../types/project.js";
import { EndpointFamily } from "./family.js";

function requireIds(ids: unknown, name: string, method: string): string[] {
  if (!Array.isArray(ids) || ids.length === 0) {
    throw new ValidationError(`${method}: ${name} must be a non-empty array of ids.`, name);
  }
  return ids.map((id) => requireString(id, name, method));
}

/** What every v2 resource shares: its collection path and its name in error messages. */
abstract class V2Resource extends EndpointFamily {
  constructor(
    context: ServiceContext,
    /** `/v2/{entity}/{project}/{collection}`, already encoded. */
    protected readonly path: string,
    /** `project.ops`, `project.scores`, … */
    protected readonly label: string,
  ) {
    super(context);
  }

  protected item(id: string, name: string, method: string): string {
    return `${this.path}/${encodePath(requireString(id, name, `${this.label}.${method}`))}`;
  }

  protected listItems<T>(query: V2ListQuery | undefined, options: CallOptions | undefined): AsyncGenerator<T> {
    if (query !== undefined)
      checkPaging(requireBody(query, `${this.label}.list`) as Record<string, unknown>, `${this.label}.list`);
    return this.ndjson<T>({ method: "GET", path: this.path, ...(query ? { query } : {}) }, options);
  }

  protected createItem<T>(body: unknown, options: CallOptions | undefined): Promise<T> {
    // Server-assigned ids: a replay after a lost answer would create a second record.
    return this.createJson<T>(this.path, requireBody(body, `${this.label}.create`), options);
  }

  protected deleteItems(param: string, ids: string[], options: CallOptions | undefined): Promise<V2DeleteRes> {
    const query = { [param]: requireIds(ids, param, `${this.label}.delete`) };
    return this.send({ method: "DELETE", path: this.path, query }, options);
  }
}

/** Versioned objects (`ops`, `datasets`, `scorers`, `models`, `evaluations`): list, create, delete, read a version. */
export class V2ObjectResource extends V2Resource {
  /** `GET …/{collection}?limit=&offset=`: versions yielded one by one as the NDJSON lines arrive. */
  list(query?: V2ListQuery, options?: CallOptions): AsyncGenerator<V2ObjectVersion> {
    return this.listItems(query, options);
  }

  /** `POST …/{collection}`: stores a new version (the body carries no `project_id`). */
  create(body: V2ObjectCreateBody, options?: CallOptions): Promise<V2ObjectCreateRes> {
    return this.createItem(body, options);
  }

  /** `DELETE …/{collection}/{object_id}?digests=`: deletes every version, or only `digests`. */
  delete(objectId: string, req: { digests?: string[] } = {}, options?: CallOptions): Promise<V2DeleteRes> {
    const path = this.item(objectId, "object_id", "delete");
    requireBody(req, `${this.label}.delete`);
    if (req.digests !== undefined && !Array.isArray(req.digests)) {
      throw new ValidationError(`${this.label}.delete: digests must be an array of digests.`, "digests");
    }
    const digests = req.digests?.map((d) => requireString(d, "digests", `${this.label}.delete`));
    return this.send({ method: "DELETE", path, ...(digests?.length ? { query: { digests } } : {}) }, options);
  }

  /** `GET …/{collection}/{object_id}/versions/{digest}`: one version (`digest` may be an alias such as `latest`). */
  readVersion(objectId: string, digest: string, options?: CallOptions): Promise<V2ObjectVersion> {
    const version = encodePath(requireString(digest, "digest", `${this.label}.readVersion`));
    const path = `${this.item(objectId, "object_id", "readVersion")}/versions/${version}`;
    return this.send({ method: "GET", path }, options);
  }
}

/** Scores of predictions: list, create, delete, read. */
export class ScoresResource extends V2Resource {
  /** `GET …/scores?evaluation_run_id=&limit=&offset=`: scores yielded as the NDJSON lines arrive. */
  list(query?: V2ListQuery & { evaluation_run_id?: string }, options?: CallOptions): AsyncGenerator<ScoreReadRes> {
    return this.listItems(query, options);
  }

  /** `POST …/scores`: records a scorer's output for a prediction. */
  create(body: ScoreCreateBody, options?: CallOptions): Promise<ScoreCreateRes> {
    return this.createItem(body, options);
  }

  /** `DELETE …/scores?score_ids=`. */
  delete(scoreIds: string[], options?: CallOptions): Promise<V2DeleteRes> {
    return this.deleteItems("score_ids", scoreIds, options);
  }

  /** `GET …/scores/{score_id}`. */
  read(scoreId: string, options?: CallOptions): Promise<ScoreReadRes> {
    return this.send({ method: "GET", path: this.item(scoreId, "score_id", "read") }, options);
  }
}

/** Evaluation runs: list, create, delete, read, finish. */
export class EvaluationRunsResource extends V2Resource {
  /** `GET …/evaluation_runs?limit=&offset=…`: runs yielded as the NDJSON lines arrive. */
  list(query?: V2ListQuery, options?: CallOptions): AsyncGenerator<EvaluationRunReadRes> {
    return this.listItems(query, options);
  }

  /** `POST …/evaluation_runs`: starts a run of `evaluation` against `model` (both refs). */
  create(body: EvaluationRunCreateBody, options?: CallOptions): Promise<EvaluationRunCreateRes> {
    return this.createItem(body, options);
  }

  /** `DELETE …/evaluation_runs?evaluation_run_ids=`. */
  delete(evaluationRunIds: string[], options?: CallOptions): Promise<V2DeleteRes> {
    return this.deleteItems("evaluation_run_ids", evaluationRunIds, options);
  }

  /** `GET …/evaluation_runs/{evaluation_run_id}`. */
  read(evaluationRunId: string, options?: CallOptions): Promise<EvaluationRunReadRes> {
    return this.send({ method: "GET", path: this.item(evaluationRunId, "evaluation_run_id", "read") }, options);
  }

  /** `POST …/evaluation_runs/{evaluation_run_id}/finish`: ends the run, with an optional `summary`. */
  finish(evaluationRunId: string, body: EvaluationRunFinishBody = {}, options?: CallOptions): Promise<FinishRes> {
    const path = `${this.item(evaluationRunId, "evaluation_run_id", "finish")}/finish`;
    return this.writeJson(path, requireBody(body, `${this.label}.finish`), options);
  }
}

/** Predictions (model outputs): list, create, delete, read, finish. */
export class PredictionsResource extends V2Resource {
  /** `GET …/predictions?evaluation_run_id=&limit=&offset=`: predictions yielded as the NDJSON lines arrive. */
  list(query?: V2ListQuery & { evaluation_run_id?: string }, options?: CallOptions): AsyncGenerator<PredictionReadRes> {
    return this.listItems(query, options);
  }

  /** `POST …/predictions`: records one model output, optionally inside an evaluation run. */
  create(body: PredictionCreateBody, options?: CallOptions): Promise<PredictionCreateRes> {
    return this.createItem(body, options);
  }

  /** `DELETE …/predictions?prediction_ids=`. */
  delete(predictionIds: string[], options?: CallOptions): Promise<V2DeleteRes> {
    return this.deleteItems("prediction_ids", predictionIds, options);
  }

  /** `GET …/predictions/{prediction_id}`. */
  read(predictionId: string, options?: CallOptions): Promise<PredictionReadRes> {
    return this.send({ method: "GET", path: this.item(predictionId, "prediction_id", "read") }, options);
  }

  /** `POST …/predictions/{prediction_id}/finish` (no body): closes the prediction once its scores are in. */
  finish(predictionId: string, options?: CallOptions): Promise<FinishRes> {
    const path = `${this.item(predictionId, "prediction_id", "finish")}/finish`;
    return this.send({ method: "POST", path }, options);
  }
}

/** Evaluation results, row by row across evaluations. */
export class EvalResultsResource extends V2Resource {
  /** `POST …/eval_results/query`: per-row results (and optional summaries) of one or more evaluations. */
  query(body: EvalResultsQueryBody, options?: CallOptions): Promise<EvalResultsQueryRes> {
    const method = `${this.label}.query`;
    checkPaging(requireBody(body, method) as Record<string, unknown>, method);
    return this.readJson(this.path, body, options);
  }
}

/** `record` with `projectId` as its `project_id` (one naming another project is refused: the service would too). */
function ownRecord<T extends { project_id?: string }>(
  record: T,
  projectId: string,
  method: string,
): T & { project_id: string } {
  requireBody(record, method);
  const given = record.project_id;
  if (given !== undefined && given !== projectId) {
    throw new ValidationError(
      `${method}: project_id ${JSON.stringify(given)} is not this scope's project (${projectId}); leave it out, or use client.project() for that project.`,
      "project_id",
    );
  }
  return { ...record, project_id: projectId };
}

/** The body of `…/call/start` or `…/call/end`: `{ [kind]: record }`, the record checked as this project's. */
function eagerBody<K extends "start" | "end">(
  req: { [key in K]: { project_id?: string } },
  kind: K,
  projectId: string,
  label: string,
): JsonObject {
  const method = `${label}.${kind}`;
  return { [kind]: ownRecord(requireBody(req, method)[kind], projectId, method) } as JsonObject;
}

/**
 * Calls written the v2 way: complete records (`…/calls/complete`: a finished call's start and end in one record, what
 * the vendor's SDKs send by default), and `…/call/start` / `…/call/end` for a call that must show while it runs. A
 * project that holds calls written so refuses the v1 writes (`calls.start`, `calls.end`, `calls.upsertBatch`) with a
 * 400 `CALLS_COMPLETE_MODE_REQUIRED`. A record's `project_id` defaults to this project.
 */
export class CallsV2Resource extends V2Resource {
  constructor(
    context: ServiceContext,
    /** `/v2/{entity}/{project}`, already encoded. */
    base: string,
    label: string,
    private readonly projectId: string,
  ) {
    super(context, base, label);
  }

  /** `POST …/calls/complete`: finished calls, one record each, in one request. Answers `{}`. */
  complete(req: { batch: WithProject<CompletedCall>[] }, options?: CallOptions): Promise<JsonObject> {
    const method = `${this.label}.complete`;
    const batch = requireArray(requireBody(req, method).batch, "batch", method).map((call) =>
      ownRecord(call, this.projectId, method),
    );
    return this.writeJson(`${this.path}/calls/complete`, { batch }, options);
  }

  /** `POST …/call/start`: the start of a call that is still running. */
  start(req: { start: WithProject<CallStart> }, options?: CallOptions): Promise<CallStartRes> {
    return this.writeJson(`${this.path}/call/start`, eagerBody(req, "start", this.projectId, this.label), options);
  }

  /** `POST …/call/end`: the end of a call started with {@link start} (`summary` is required; `{}` is fine). */
  end(req: { end: WithProject<CallEnd> }, options?: CallOptions): Promise<JsonObject> {
    return this.writeJson(`${this.path}/call/end`, eagerBody(req, "end", this.projectId, this.label), options);
  }
}
