/**
 * `EvaluationLogger`: a loop of your own, recorded as `evaluate()` records — the same objects, call tree and
 * summary rules, with each logged input as a dataset row referenced by digest — whether the dataset is given up
 * front (predictions recorded as they finish) or made of the logged inputs (recorded when the summary is logged).
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { EvaluationLogger } from "../../src/eval/index.js";
import { childrenOf, opName, setupEval } from "./support.js";

const setup = setupEval("acme/logger");
const ROWS = [
  { q: "2+2", expected: "4" },
  { q: "3+3", expected: "6" },
  { q: "4+4", expected: "8" },
];
const answers: Record<string, string> = { "2+2": "4", "3+3": "7", "4+4": "8" };

async function treeOf(callId: string) {
  const root = (await setup.client.calls.read({ id: callId })).call!;
  const calls = await setup.trace(root.trace_id);
  return { root, calls, rows: childrenOf(calls, root).filter((c) => opName(c) === "Evaluation.predict_and_score") };
}

describe("EvaluationLogger", () => {
  it("records the logged inputs as the dataset, with the evaluate() call tree and summary rules", async () => {
    const logger = new EvaluationLogger({ name: "arith-loop", model: { name: "Calculator", version: 2 } });
    for (const row of ROWS) {
      const prediction = logger.logPrediction(row, answers[row.q]);
      prediction.logScore("correct", answers[row.q] === row.expected);
      prediction.logScore("closeness", 1 / (1 + Math.abs(Number(answers[row.q]) - Number(row.expected))));
      prediction.finish();
    }
    const logged = await logger.logSummary({ note: "hand-rolled loop" });
    expect(logged.summary).toEqual({
      correct: { true_count: 2, true_fraction: 2 / 3 },
      closeness: { mean: (1 + 0.5 + 1) / 3 },
      output: { note: "hand-rolled loop" },
    });
    expect(logged.url).toContain(`eval=${logged.callId}`);
    const { root, calls, rows } = await treeOf(logged.callId);
    expect(root.output).toEqual(logged.summary);
    expect(opName(root)).toBe("Evaluation.evaluate");
    expect(root.attributes).toMatchObject({ _weave_eval_meta: { imperative: true } });
    const [evaluation, model] = (
      await setup.client.refs.readBatch({ refs: [root.inputs.self as string, root.inputs.model as string] })
    ).vals as Record<string, unknown>[];
    expect(evaluation).toMatchObject({ _type: "Evaluation", name: "arith-loop", trials: 1 });
    expect(model).toMatchObject({ _type: "Calculator", name: "Calculator", version: 2 });
    // The logged inputs became the dataset: each prediction's example is a row ref that reads back as the input.
    expect(rows).toHaveLength(3);
    const examples = rows.map((r) => r.inputs.example as string);
    expect(examples.every((e) => /\/object\/arith-loop-dataset:\w+\/attr\/rows\/id\/\w+$/.test(e))).toBe(true);
    expect((await setup.client.refs.readBatch({ refs: examples })).vals).toEqual(
      expect.arrayContaining(ROWS.map((r) => expect.objectContaining(r))),
    );
    const three = rows.find((r) => r.output && (r.output as { output: string }).output === "7")!;
    expect(three.output).toEqual({ output: "7", scores: { correct: false, closeness: 0.5 }, model_latency: null });
    const below = childrenOf(calls, three);
    expect(below.map(opName).sort()).toEqual(["Calculator.predict", "closeness", "correct"]);
    expect(below.find((c) => opName(c) === "correct")!.attributes).toMatchObject({
      _weave_eval_meta: { imperative: true, score: true },
    });
    expect(childrenOf(calls, root).filter((c) => opName(c) === "Evaluation.summarize")).toHaveLength(1);
  });

  it("with the dataset given, records each prediction as it finishes, its example the matching row's ref", async () => {
    const logger = new EvaluationLogger({ name: "arith-live", model: "Calculator", dataset: ROWS });
    const first = logger.logPrediction({ expected: "4", q: "2+2" }, "4"); // key order does not matter
    first.logScore("correct", true).finish();
    // The first prediction reaches the service before the summary is logged.
    let seen = false;
    for (let i = 0; i < 100 && !seen; i++) {
      await setup.tracing.flush();
      for await (const call of setup.client.calls.streamQuery({
        filter: { op_names: ["weave:///acme/logger/op/Evaluation.predict_and_score:*"] },
      }))
        if (call.ended_at) seen = true;
      if (!seen) await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toBe(true);
    logger.logExample(ROWS[1]!, "7", { correct: false });
    logger.logPrediction({ q: "not in the dataset" }, "?").logScore("correct", false); // finished by logSummary
    const logged = await logger.logSummary();
    expect(logged.summary).toEqual({ correct: { true_count: 1, true_fraction: 1 / 3 } });
    const { rows } = await treeOf(logged.callId);
    const examples = rows.map((r) => r.inputs.example);
    expect(examples.filter((e) => typeof e === "string" && e.includes("/attr/rows/id/"))).toHaveLength(2);
    // An input that is not a dataset row is kept inline, as the vendor's logger does.
    expect(examples).toContainEqual({ q: "not in the dataset" });
  });

  it("refuses scores after finish and predictions after the summary", async () => {
    const logger = new EvaluationLogger({ name: "strict" });
    const p = logger.logPrediction({ q: "x" }, "y");
    p.finish();
    expect(() => p.logScore("late", 1)).toThrow(/after finish/);
    await logger.logSummary();
    expect(() => logger.logPrediction({ q: "z" }, "w")).toThrow(/after logSummary/);
  });

  it("refuses a score JSON cannot hold (a BigInt) at logScore, saying how to fix it; the other scores are kept", async () => {
    const logger = new EvaluationLogger({ name: "bigint-logged" });
    const p = logger.logPrediction({ q: "x" }, "y");
    expect(() => p.logScore("tokens", 12n as never)).toThrow(ValidationError);
    expect(() => p.logScore("usage", { total: 3n } as never)).toThrow(
      /logScore\("usage", value\): value is a bigint at total; a score is a number.*Number\(value\)/,
    );
    p.logScore("ok", true);
    p.finish();
    const { summary } = await logger.logSummary();
    expect(summary).toMatchObject({ ok: { true_count: 1, true_fraction: 1 } });
    expect(summary).not.toHaveProperty("tokens");
  });
});
