import { describe, expect, it } from "vitest";
import { collect } from "../support/collect.js";
import { ndjsonReply } from "../support/server.js";
import { expectRequest, type MethodCase, runCases, setupTracingServer } from "./tracing-support.js";

const ctx = setupTracingServer();

/** Entity and project with characters that must be percent-encoded in the path. */
const scope = () => ctx.client.project("acme co", "demo#1");
const BASE = "/v2/acme%20co/demo%231";

describe("TracingClient.project(entity, project): evaluation records", () => {
  it("scores: list, create, delete, read", async () => {
    const s = scope().scores;
    const score = { score_id: "s1", scorer: "weave:///acme/demo/object/acc:abc", value: 0.9 };
    const cases: MethodCase[] = [
      {
        name: "scores.create",
        method: "POST",
        path: `${BASE}/scores`,
        run: () =>
          s.create({ prediction_id: "p1", scorer: score.scorer, value: { correct: true }, evaluation_run_id: "r1" }),
        json: { prediction_id: "p1", scorer: score.scorer, value: { correct: true }, evaluation_run_id: "r1" },
        reply: { score_id: "s1" },
        retriesOn500: false,
      },
      {
        name: "scores.delete",
        method: "DELETE",
        path: `${BASE}/scores`,
        query: { score_ids: ["s1", "s2"] },
        run: () => s.delete(["s1", "s2"]),
        reply: { num_deleted: 2 },
        retriesOn500: true,
      },
      {
        name: "scores.read",
        method: "GET",
        path: `${BASE}/scores/s1`,
        run: () => s.read("s1"),
        reply: score,
        retriesOn500: true,
      },
    ];
    await runCases(ctx.server, cases);
    ctx.server.reset();
    ctx.server.on("GET", `${BASE}/scores`, ndjsonReply([score, { ...score, score_id: "s2" }]));
    expect(await collect(s.list({ evaluation_run_id: "r1" }))).toEqual([score, { ...score, score_id: "s2" }]);
    expectRequest(
      ctx.server.only(),
      { method: "GET", path: `${BASE}/scores`, query: { evaluation_run_id: ["r1"] } },
      "scores.list",
    );
    expect(() => s.delete([])).toThrow(/score_ids must be a non-empty array/);
  });

  it("evaluationRuns: list, create, delete, read, finish", async () => {
    const r = scope().evaluationRuns;
    const run = {
      evaluation_run_id: "r1",
      evaluation: "weave:///acme/demo/object/ev:1",
      model: "weave:///acme/demo/object/m:1",
    };
    const cases: MethodCase[] = [
      {
        name: "evaluationRuns.create",
        method: "POST",
        path: `${BASE}/evaluation_runs`,
        run: () => r.create({ evaluation: run.evaluation, model: run.model }),
        json: { evaluation: run.evaluation, model: run.model },
        reply: { evaluation_run_id: "r1" },
        retriesOn500: false,
      },
      {
        name: "evaluationRuns.delete",
        method: "DELETE",
        path: `${BASE}/evaluation_runs`,
        query: { evaluation_run_ids: ["r1"] },
        run: () => r.delete(["r1"]),
        reply: { num_deleted: 1 },
        retriesOn500: true,
      },
      {
        name: "evaluationRuns.read",
        method: "GET",
        path: `${BASE}/evaluation_runs/r1`,
        run: () => r.read("r1"),
        reply: { ...run, status: "running" },
        retriesOn500: true,
      },
      {
        name: "evaluationRuns.finish (summary)",
        method: "POST",
        path: `${BASE}/evaluation_runs/r1/finish`,
        run: () => r.finish("r1", { summary: { accuracy: 0.8 } }),
        json: { summary: { accuracy: 0.8 } },
        reply: { success: true },
        retriesOn500: false,
      },
      {
        name: "evaluationRuns.finish (no summary)",
        method: "POST",
        path: `${BASE}/evaluation_runs/r2/finish`,
        run: () => r.finish("r2"),
        json: {},
        reply: { success: true },
        retriesOn500: false,
      },
    ];
    await runCases(ctx.server, cases);
    ctx.server.reset();
    ctx.server.on("GET", `${BASE}/evaluation_runs`, ndjsonReply([run]));
    expect(await collect(r.list())).toEqual([run]);
    expectRequest(ctx.server.only(), { method: "GET", path: `${BASE}/evaluation_runs` }, "evaluationRuns.list");
  });

  it("predictions: list, create, delete, read, finish", async () => {
    const p = scope().predictions;
    const prediction = {
      prediction_id: "p1",
      model: "weave:///acme/demo/object/m:1",
      inputs: { q: "1+1" },
      output: "2",
    };
    const cases: MethodCase[] = [
      {
        name: "predictions.create",
        method: "POST",
        path: `${BASE}/predictions`,
        run: () => p.create({ model: prediction.model, inputs: { q: "1+1" }, output: "2", evaluation_run_id: "r1" }),
        json: { model: prediction.model, inputs: { q: "1+1" }, output: "2", evaluation_run_id: "r1" },
        reply: { prediction_id: "p1" },
        retriesOn500: false,
      },
      {
        name: "predictions.delete",
        method: "DELETE",
        path: `${BASE}/predictions`,
        query: { prediction_ids: ["p1", "p2"] },
        run: () => p.delete(["p1", "p2"]),
        reply: { num_deleted: 2 },
        retriesOn500: true,
      },
      {
        name: "predictions.read",
        method: "GET",
        path: `${BASE}/predictions/p1`,
        run: () => p.read("p1"),
        reply: prediction,
        retriesOn500: true,
      },
      {
        name: "predictions.finish",
        method: "POST",
        path: `${BASE}/predictions/p1/finish`,
        run: () => p.finish("p1"),
        reply: { success: true },
        retriesOn500: false,
      },
    ];
    await runCases(ctx.server, cases);
    ctx.server.reset();
    ctx.server.on("GET", `${BASE}/predictions`, ndjsonReply([prediction, { ...prediction, prediction_id: "p2" }]));
    expect(await collect(p.list({ evaluation_run_id: "r1", limit: 10 }))).toEqual([
      prediction,
      { ...prediction, prediction_id: "p2" },
    ]);
    expectRequest(
      ctx.server.only(),
      { method: "GET", path: `${BASE}/predictions`, query: { evaluation_run_id: ["r1"], limit: ["10"] } },
      "predictions.list",
    );
    expect(() => p.read("")).toThrow(/prediction_id/);
  });

  it("evalResults.query posts the body without project_id and is retried as a read", async () => {
    const body = { evaluation_run_ids: ["r1", "r2"], include_summary: true, limit: 20 };
    await runCases(ctx.server, [
      {
        name: "evalResults.query",
        method: "POST",
        path: `${BASE}/eval_results/query`,
        run: () => scope().evalResults.query(body),
        json: body,
        reply: { rows: [], total_rows: 0, warnings: [] },
        retriesOn500: true,
      },
    ]);
  });
});
