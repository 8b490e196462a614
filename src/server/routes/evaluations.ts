/**
 * Project-scoped evaluation records under `/v2/{entity}/{project}`: evaluation runs, predictions and scores
 * (create, read, list, finish). As on the service, they are stored as ordinary calls, so they show up as traces:
 * a run is an `Evaluation.evaluate` call; a prediction in a run is an `Evaluation.predict_and_score` call with a
 * `<Model>.predict` child (outside a run, the predict call alone); a score is a `<Scorer>.score` call plus
 * `wandb.runnable.<Scorer>` feedback on the prediction. Markers live under `attributes.weave`.
 */
import { randomUUID } from "node:crypto";
import { callRef, parseRef, runnableFeedbackType } from "../../api/refs.js";
import type { CallStart } from "../../api/types/calls.js";
import type { JsonObject } from "../../api/types/common.js";
import type {
  EvaluationRunCreateBody,
  EvaluationRunFinishBody,
  PredictionCreateBody,
  ScoreCreateBody,
} from "../../api/types/project.js";
import { HttpError, type Request } from "../http.js";
import type { Router } from "../router.js";
import { EVALUATION_RUN_CREATE, EVALUATION_RUN_FINISH, PREDICTION_CREATE, SCORE_CREATE } from "../schemas.js";
import type { Store, StoredCall } from "../store/types.js";
import { RequestValidationError, validateBody } from "../validate.js";
import { checkProject } from "./calls.js";
import { feedbackRow, LOCAL_USER } from "./feedback.js";

const BASE = "/v2/:entity/:project";
const marker = (call: StoredCall | undefined): JsonObject => (call?.attributes?.weave as JsonObject | undefined) ?? {};
/** `weave:///e/p/object/Name:digest` → `Name`; anything else is used as is. */
function nameOf(ref: string): string {
  try {
    return parseRef(ref).name ?? ref;
  } catch {
    return ref;
  }
}

function projectOf(req: Request): string {
  return checkProject(`${req.params.entity}/${req.params.project}`);
}

function queryInt(req: Request, name: string): number | undefined {
  const raw = req.query.get(name);
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw)) {
    throw new RequestValidationError([
      {
        type: "int_parsing",
        loc: ["query", name],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: raw,
      },
    ]);
  }
  return Number(raw);
}

/** The `kind` record with this id (a 404 when there is none). */
function find(store: Store, project: string, id: string, kind: string): StoredCall {
  const call = store.readCall(project, id);
  if (!call || marker(call)[kind] !== "true") throw new HttpError(404, `${kind.replace("_", " ")} ${id} not found`);
  return call;
}

function list(store: Store, req: Request, kind: string, keep: (call: StoredCall) => boolean = () => true) {
  const offset = queryInt(req, "offset") ?? 0;
  const limit = queryInt(req, "limit");
  const runId = req.query.get("evaluation_run_id");
  const calls = store
    .selectCalls({ project: projectOf(req), page: { sortBy: [{ field: "started_at", direction: "asc" }] } })
    .filter((c) => marker(c)[kind] === "true" && (!runId || marker(c).evaluation_run_id === runId) && keep(c));
  return calls.slice(offset, limit === undefined ? undefined : offset + limit);
}

/** Writes a call that starts and ends now. */
function completeCall(store: Store, start: Omit<CallStart, "started_at">, output: unknown): void {
  const now = new Date().toISOString();
  const { project_id, id } = start as { project_id: string; id: string };
  store.writeCalls([
    { kind: "start", start: { ...start, started_at: now } as CallStart & { id: string; trace_id: string } },
    { kind: "end", end: { project_id, id, ended_at: now, output, summary: {} } },
  ]);
}

const runView = (c: StoredCall) => ({
  evaluation_run_id: c.id,
  evaluation: marker(c).evaluation,
  model: marker(c).model,
  status: c.ended_at ? "finished" : "running",
  started_at: c.started_at,
  finished_at: c.ended_at,
  summary: c.has_output && typeof c.output === "object" ? c.output : null,
});
const predictionView = (c: StoredCall) => ({
  prediction_id: c.id,
  model: marker(c).model,
  inputs: c.inputs?.inputs ?? {},
  output: c.output,
  evaluation_run_id: marker(c).evaluation_run_id ?? null,
  wb_user_id: LOCAL_USER,
});
const scoreView = (c: StoredCall) => ({
  score_id: c.id,
  scorer: marker(c).scorer,
  value: c.output,
  prediction_id: marker(c).prediction_id,
  evaluation_run_id: marker(c).evaluation_run_id ?? null,
  wb_user_id: LOCAL_USER,
});

function runRoutes(router: Router): void {
  router.on("POST", `${BASE}/evaluation_runs`, async (req, { store }) => {
    const body = validateBody<EvaluationRunCreateBody>(await req.json(), EVALUATION_RUN_CREATE);
    const project = projectOf(req);
    const id = randomUUID();
    const weave = { evaluation_run: "true", evaluation: body.evaluation, model: body.model };
    store.writeCalls([
      {
        kind: "start",
        start: {
          project_id: project,
          id,
          trace_id: id,
          op_name: "Evaluation.evaluate",
          started_at: new Date().toISOString(),
          attributes: { weave },
          inputs: { self: body.evaluation, model: body.model },
        },
      },
    ]);
    return { json: { evaluation_run_id: id } };
  });
  router.on("GET", `${BASE}/evaluation_runs`, (req, { store }) => {
    const evaluations = req.query.getAll("evaluations");
    const models = req.query.getAll("models");
    const ids = req.query.getAll("evaluation_run_ids");
    const keep = (c: StoredCall) =>
      (!evaluations.length || evaluations.includes(String(marker(c).evaluation))) &&
      (!models.length || models.includes(String(marker(c).model))) &&
      (!ids.length || ids.includes(c.id));
    return { ndjson: list(store, req, "evaluation_run", keep).map(runView) };
  });
  router.on("GET", `${BASE}/evaluation_runs/:id`, (req, { store }) => ({
    json: runView(find(store, projectOf(req), req.params.id!, "evaluation_run")),
  }));
  router.on("POST", `${BASE}/evaluation_runs/:id/finish`, async (req, { store }) => {
    const raw = (await req.body()).length ? await req.json() : {};
    const body = validateBody<EvaluationRunFinishBody>(raw, EVALUATION_RUN_FINISH);
    const project = projectOf(req);
    const run = find(store, project, req.params.id!, "evaluation_run");
    const ended_at = new Date().toISOString();
    store.writeCalls([
      { kind: "end", end: { project_id: project, id: run.id, ended_at, output: body.summary ?? {}, summary: {} } },
    ]);
    return { json: { success: true } };
  });
}

function predictionRoutes(router: Router): void {
  router.on("POST", `${BASE}/predictions`, async (req, { store }) => {
    const body = validateBody<PredictionCreateBody>(await req.json(), PREDICTION_CREATE);
    const project = projectOf(req);
    const runId = body.evaluation_run_id;
    const id = randomUUID();
    store.transaction(() => {
      const run = runId ? find(store, project, runId, "evaluation_run") : undefined;
      const weave = { prediction: "true", model: body.model, ...(runId ? { evaluation_run_id: runId } : {}) };
      let parent: { id: string; trace_id: string } | undefined;
      if (run) {
        parent = { id: randomUUID(), trace_id: run.trace_id ?? run.id };
        store.writeCalls([
          {
            kind: "start",
            start: {
              project_id: project,
              ...parent,
              parent_id: run.id,
              op_name: "Evaluation.predict_and_score",
              started_at: new Date().toISOString(),
              attributes: { weave: { predict_and_score: "true", predict_call_id: id, evaluation_run_id: run.id } },
              inputs: { self: marker(run).evaluation, model: body.model, example: body.inputs },
            },
          },
        ]);
      }
      completeCall(
        store,
        {
          project_id: project,
          id,
          trace_id: parent?.trace_id ?? randomUUID(),
          ...(parent ? { parent_id: parent.id } : {}),
          op_name: `${nameOf(body.model)}.predict`,
          attributes: { weave },
          inputs: { self: body.model, inputs: body.inputs },
        },
        body.output,
      );
    });
    return { json: { prediction_id: id } };
  });
  router.on("GET", `${BASE}/predictions`, (req, { store }) => ({
    ndjson: list(store, req, "prediction").map(predictionView),
  }));
  router.on("GET", `${BASE}/predictions/:id`, (req, { store }) => ({
    json: predictionView(find(store, projectOf(req), req.params.id!, "prediction")),
  }));
  router.on("POST", `${BASE}/predictions/:id/finish`, (req, { store }) => {
    const project = projectOf(req);
    const prediction = find(store, project, req.params.id!, "prediction");
    const parent = prediction.parent_id ? store.readCall(project, prediction.parent_id) : undefined;
    if (parent && marker(parent).predict_and_score === "true" && !parent.ended_at) {
      const scores = Object.fromEntries(
        list(store, req, "score", (c) => marker(c).prediction_id === prediction.id).map((c) => [
          nameOf(String(marker(c).scorer)),
          c.output,
        ]),
      );
      const latency = (Date.parse(prediction.ended_at ?? "") - Date.parse(prediction.started_at ?? "")) / 1000;
      const output = { output: prediction.output, scores, model_latency: { mean: latency } };
      const ended_at = new Date().toISOString();
      store.writeCalls([{ kind: "end", end: { project_id: project, id: parent.id, ended_at, output, summary: {} } }]);
    }
    return { json: { success: true } };
  });
}

function scoreRoutes(router: Router): void {
  router.on("POST", `${BASE}/scores`, async (req, { store }) => {
    const body = validateBody<ScoreCreateBody>(await req.json(), SCORE_CREATE);
    const project = projectOf(req);
    const id = randomUUID();
    store.transaction(() => {
      const prediction = find(store, project, body.prediction_id, "prediction");
      const runId = body.evaluation_run_id ?? (marker(prediction).evaluation_run_id as string | undefined);
      const scorer = nameOf(body.scorer);
      const weave = {
        score: "true",
        prediction_id: prediction.id,
        scorer: body.scorer,
        ...(runId ? { evaluation_run_id: runId } : {}),
      };
      completeCall(
        store,
        {
          project_id: project,
          id,
          trace_id: prediction.trace_id ?? prediction.id,
          parent_id: prediction.parent_id ?? prediction.id,
          op_name: `${scorer}.score`,
          attributes: { weave },
          inputs: { self: body.scorer, inputs: prediction.inputs?.inputs ?? {}, output: prediction.output },
        },
        body.value,
      );
      store.insertFeedback([
        feedbackRow({
          project_id: project,
          weave_ref: callRef(project, prediction.id),
          feedback_type: runnableFeedbackType(scorer.replace(/[\s/]/g, "_")),
          payload: { output: body.value },
          runnable_ref: body.scorer,
          call_ref: callRef(project, id),
        }),
      ]);
    });
    return { json: { score_id: id } };
  });
  router.on("GET", `${BASE}/scores`, (req, { store }) => ({ ndjson: list(store, req, "score").map(scoreView) }));
  router.on("GET", `${BASE}/scores/:id`, (req, { store }) => ({
    json: scoreView(find(store, projectOf(req), req.params.id!, "score")),
  }));
}

export function evaluationRoutes(router: Router): void {
  runRoutes(router);
  predictionRoutes(router);
  scoreRoutes(router);
}
