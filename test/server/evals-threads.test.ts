/**
 * The local service's evaluation records (v2 evaluation runs, predictions, scores: create, read, list, finish) and
 * `/threads/stream_query`, through `TracingClient`. Evaluation records are stored as calls, as on the service, so
 * a run is also a trace with its predictions and scores inside, and a score is feedback on its prediction.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { init, op, withThread } from "../../src/index.js";
import { collect, PROJECT, send, startService, type TestService } from "./helpers.js";

let service: TestService;
let client: TracingClient;
beforeAll(async () => {
  service = await startService({ storage: "sqlite" });
  client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
});
afterAll(async () => {
  await client.close();
  await service.close();
});

describe("evaluation runs, predictions and scores", () => {
  const EVAL = "weave:///acme/demo/object/qa-eval:v1";
  const MODEL = "weave:///acme/demo/object/SupportBot:v3";
  const SCORER = "weave:///acme/demo/object/Exactness:v1";

  it("creates, reads, lists and finishes them, as a trace with feedback", async () => {
    const scope = client.project("acme", "demo");
    const { evaluation_run_id: runId } = await scope.evaluationRuns.create({ evaluation: EVAL, model: MODEL });
    expect(await scope.evaluationRuns.read(runId)).toMatchObject({
      evaluation_run_id: runId,
      evaluation: EVAL,
      model: MODEL,
      status: "running",
    });

    const { prediction_id: predictionId } = await scope.predictions.create({
      model: MODEL,
      inputs: { question: "2+2?" },
      output: "4",
      evaluation_run_id: runId,
    });
    expect(await scope.predictions.read(predictionId)).toMatchObject({
      prediction_id: predictionId,
      model: MODEL,
      inputs: { question: "2+2?" },
      output: "4",
      evaluation_run_id: runId,
    });
    const { score_id: scoreId } = await scope.scores.create({ prediction_id: predictionId, scorer: SCORER, value: 1 });
    expect(await scope.scores.read(scoreId)).toMatchObject({
      score_id: scoreId,
      scorer: SCORER,
      value: 1,
      prediction_id: predictionId,
      evaluation_run_id: runId,
    });
    expect(await scope.predictions.finish(predictionId)).toEqual({ success: true });
    expect(await scope.evaluationRuns.finish(runId, { summary: { accuracy: 1 } })).toEqual({ success: true });
    expect(await scope.evaluationRuns.read(runId)).toMatchObject({ status: "finished", summary: { accuracy: 1 } });

    const { prediction_id: loose } = await scope.predictions.create({ model: MODEL, inputs: {}, output: null });
    expect((await scope.predictions.read(loose)).evaluation_run_id).toBeNull();
    expect((await collect(scope.predictions.list({ evaluation_run_id: runId }))).map((p) => p.prediction_id)).toEqual([
      predictionId,
    ]);
    expect((await collect(scope.predictions.list())).map((p) => p.prediction_id)).toEqual([predictionId, loose]);
    expect((await collect(scope.scores.list({ evaluation_run_id: runId }))).map((s) => s.score_id)).toEqual([scoreId]);
    expect((await collect(scope.evaluationRuns.list({ models: [MODEL] }))).map((r) => r.evaluation_run_id)).toEqual([
      runId,
    ]);
    expect(await collect(scope.evaluationRuns.list({ models: ["weave:///acme/demo/object/Other:v1"] }))).toEqual([]);

    // The run as a trace: Evaluation.evaluate → predict_and_score → (SupportBot.predict, Exactness.score).
    const calls = await collect(client.calls.streamQuery({ filter: { trace_ids: [runId] }, include_feedback: true }));
    const byOp = Object.fromEntries(calls.map((c) => [c.op_name, c]));
    expect(Object.keys(byOp).sort()).toEqual([
      "Evaluation.evaluate",
      "Evaluation.predict_and_score",
      "Exactness.score",
      "SupportBot.predict",
    ]);
    const pas = byOp["Evaluation.predict_and_score"]!;
    expect(pas).toMatchObject({ parent_id: runId, output: { output: "4", scores: { Exactness: 1 } } });
    expect(byOp["SupportBot.predict"]).toMatchObject({ id: predictionId, parent_id: pas.id });
    expect(byOp["Exactness.score"]).toMatchObject({ id: scoreId, parent_id: pas.id, output: 1 });
    const feedback = (byOp["SupportBot.predict"]!.summary as { weave: { feedback: object[] } }).weave.feedback;
    expect(feedback).toMatchObject([
      { feedback_type: "wandb.runnable.Exactness", payload: { output: 1 }, runnable_ref: SCORER },
    ]);
  });

  it("answers 404 for unknown records and 422 for bad bodies and query parameters", async () => {
    expect((await send(service.url, "/v2/acme/demo/predictions/nope")).status).toBe(404);
    const score = await send(service.url, "/v2/acme/demo/scores", { prediction_id: "nope", scorer: "s", value: 1 });
    expect(score.status).toBe(404);
    const extra = await send(service.url, "/v2/acme/demo/evaluation_runs", {
      evaluation: "e",
      model: "m",
      project_id: PROJECT,
    });
    expect(extra.json).toMatchObject({ detail: [{ type: "extra_forbidden", loc: ["body", "project_id"] }] });
    const limit = await send(service.url, "/v2/acme/demo/scores?limit=ten");
    expect(limit).toMatchObject({ status: 422, json: { detail: [{ type: "int_parsing", loc: ["query", "limit"] }] } });
  });
});

describe("threads", () => {
  it("lists conversations with their turn statistics", async () => {
    const tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
    const inner = op(async function inner() {
      return 1;
    });
    const turn = op(async function turn(n: number) {
      await inner();
      return n;
    });
    for (const n of [1, 2]) await withThread("thread-a", () => turn(n));
    await withThread("thread-b", () => turn(3));
    await tracing.flush();
    await tracing.shutdown();

    const threads = await collect(client.threads.streamQuery({ sort_by: [{ field: "thread_id", direction: "asc" }] }));
    expect(threads.map((t) => [t.thread_id, t.turn_count])).toEqual([
      ["thread-a", 2],
      ["thread-b", 1],
    ]);
    const turns = await collect(client.calls.streamQuery({ filter: { thread_ids: ["thread-a"], op_names: ["turn"] } }));
    expect(threads[0]).toMatchObject({
      first_turn_id: turns[0]!.id,
      last_turn_id: turns[1]!.id,
      p50_turn_duration_ms: expect.any(Number),
    });
    const only = await collect(client.threads.streamQuery({ filter: { thread_ids: ["thread-b"] } }));
    expect(only.map((t) => t.thread_id)).toEqual(["thread-b"]);
    const bad = await send(service.url, "/threads/stream_query", {
      project_id: PROJECT,
      sort_by: [{ field: "nope", direction: "asc" }],
    });
    expect(bad.status).toBe(400);
  });
});
