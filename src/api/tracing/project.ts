import { ValidationError } from "../../errors.js";
import { encodePath } from "../../http/transport.js";
import { describeAs } from "../../own-objects.js";
import type { ServiceContext } from "../base.js";
import {
  CallsV2Resource,
  EvalResultsResource,
  EvaluationRunsResource,
  PredictionsResource,
  ScoresResource,
  V2ObjectResource,
} from "./v2-resources.js";

function requireName(value: unknown, name: "entity" | "project"): string {
  if (typeof value !== "string" || value.trim() === "" || value.includes("/")) {
    throw new ValidationError(
      `TracingClient.project: ${name} must be a non-empty string without "/", got ${JSON.stringify(value)}.`,
      name,
    );
  }
  return value;
}

/**
 * The project-scoped v2 resources under `/v2/{entity}/{project}/…`, from `client.project("acme", "demo")`. Bodies
 * carry no `project_id`; lists are async iterables that read the service's NDJSON answer line by line.
 */
export class ProjectScope {
  /** The entity (team or user) that owns the project. */
  readonly entity: string;
  /** The project's name within the entity. */
  readonly project: string;
  /** `entity/project`, as RPC bodies spell `project_id`. */
  readonly projectId: string;
  /** Evaluation definitions (versioned objects). */
  readonly evaluations: V2ObjectResource;
  /** Ops: versioned functions. */
  readonly ops: V2ObjectResource;
  /** Datasets: versioned row lists. */
  readonly datasets: V2ObjectResource;
  /** Scorers: versioned scoring functions. */
  readonly scorers: V2ObjectResource;
  /** Models: versioned model definitions. */
  readonly models: V2ObjectResource;
  /** Scores of predictions. */
  readonly scores: ScoresResource;
  /** Evaluation runs: one evaluation of one model. */
  readonly evaluationRuns: EvaluationRunsResource;
  /** Predictions: model outputs, usually inside an evaluation run. */
  readonly predictions: PredictionsResource;
  /** Evaluation results, row by row. */
  readonly evalResults: EvalResultsResource;
  /** Calls written as complete records (and their eager start and end): what a complete-only project takes. */
  readonly calls: CallsV2Resource;

  constructor(context: ServiceContext, entity: string, project: string) {
    this.entity = requireName(entity, "entity");
    this.project = requireName(project, "project");
    this.projectId = `${entity}/${project}`;
    const base = `/v2/${encodePath(entity)}/${encodePath(project)}`;
    const objects = (collection: string, label: string) =>
      new V2ObjectResource(context, `${base}/${collection}`, `project.${label}`);
    this.evaluations = objects("evaluations", "evaluations");
    this.ops = objects("ops", "ops");
    this.datasets = objects("datasets", "datasets");
    this.scorers = objects("scorers", "scorers");
    this.models = objects("models", "models");
    this.scores = new ScoresResource(context, `${base}/scores`, "project.scores");
    this.evaluationRuns = new EvaluationRunsResource(context, `${base}/evaluation_runs`, "project.evaluationRuns");
    this.predictions = new PredictionsResource(context, `${base}/predictions`, "project.predictions");
    this.evalResults = new EvalResultsResource(context, `${base}/eval_results/query`, "project.evalResults");
    this.calls = new CallsV2Resource(context, base, "project.calls", this.projectId);
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(ProjectScope, "ProjectScope");
