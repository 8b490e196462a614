/**
 * `evaluate()` against the local tracing service: the objects and the call tree the service's UI reads (reference
 * evaluations.md), the summary by the service's rules, scores as runnable feedback, and the result's statistics.
 * The task calls a wrapped `openai` client against the stand-in, so each row's model call holds a real LLM call.
 */
import { describe, expect, it } from "vitest";
import type { CallSchema } from "../../src/api/types/calls.js";
import { contains, evaluate, exactMatch } from "../../src/eval/index.js";
import { childrenOf, opName, setupEval } from "./support.js";

const setup = setupEval("acme/record");

const ROWS = [
  { question: "Paris", expected: "Paris" },
  { question: "Lyon", expected: "Nice" },
  { question: "Rome", expected: "Rome" },
  { question: "Oslo", expected: "oslo" },
];

describe("evaluate(): what the service stores", () => {
  let result: Awaited<ReturnType<typeof run>>;
  let calls: CallSchema[];
  const run = () =>
    evaluate({
      name: "capitals",
      dataset: ROWS,
      task: async function answer(row) {
        const completion = await setup.openai.chat.completions.create({
          model: "m-echo",
          messages: [{ role: "user", content: row.question }],
        });
        return completion.choices[0]!.message.content ?? "";
      },
      scorers: [
        exactMatch(),
        contains({ name: "mentions" }),
        function length({ output }) {
          return output.length;
        },
        // Null on one row: left out of its summary, not counted as 0.
        function verdict({ output, row }) {
          if (row.question === "Rome") return null;
          return { correct: output === row.expected, chars: output.length };
        },
        function flaky({ row }) {
          if (row.question === "Lyon") throw new Error("flaky scorer broke");
          return true;
        },
      ],
      trials: 2,
      progress: false,
    });

  it("runs and resolves to the summary, rows and statistics", async () => {
    result = await run();
    calls = await setup.trace(result.traceId);
    expect(result.counts).toEqual({ rows: 4, trials: 2, total: 8, ok: 8, failed: 0, cancelled: 0, resumed: 0 });
    expect(result.summary).toMatchObject({
      exact_match: { true_count: 4, true_fraction: 0.5 },
      mentions: { true_count: 6, true_fraction: 0.75 },
      length: { mean: 4.25 },
      verdict: { correct: { true_count: 2, true_fraction: 2 / 6 }, chars: { mean: 13 / 3 } },
      flaky: { true_count: 6, true_fraction: 1 },
      model_latency: { mean: expect.any(Number) },
    });
    expect(Object.keys(result.summary)).toEqual([
      "exact_match",
      "mentions",
      "length",
      "verdict",
      "flaky",
      "model_latency",
    ]);
    expect(result.scorerErrors).toEqual({ flaky: "Error: flaky scorer broke" });
    expect(result.rows.map((r) => [r.index, r.trial, r.output])).toEqual([
      [0, 0, "Paris"],
      [0, 1, "Paris"],
      [1, 0, "Lyon"],
      [1, 1, "Lyon"],
      [2, 0, "Rome"],
      [2, 1, "Rome"],
      [3, 0, "Oslo"],
      [3, 1, "Oslo"],
    ]);
    const exact = result.stats.find((s) => s.key === "exact_match")!;
    expect(exact).toMatchObject({ kind: "boolean", rows: 4, mean: 0.5, passAtK: 0.5, passAllK: 0.5 });
    // Row means 1, 0, 1, 0: sample std √(1/3), stderr √(1/3)/2.
    expect(exact.stderr).toBeCloseTo(Math.sqrt(1 / 3) / 2, 10);
    expect(result.spread[1]!.scores.exact_match).toMatchObject({ mean: 0, min: 0, max: 0, std: 0, n: 2, pass: false });
    expect(result.url).toBe(`${setup.service.url}/#project=acme%2Frecord&view=evals&eval=${result.callId}`);
  });

  it("publishes the dataset as a table and a Dataset object, rows referenced by digest", async () => {
    const { vals } = await setup.client.refs.readBatch({ refs: [result.refs.dataset] });
    const dataset = vals[0] as Record<string, unknown>;
    expect(dataset).toMatchObject({
      _type: "Dataset",
      _class_name: "Dataset",
      _bases: ["Object", "BaseModel"],
      name: "capitals-dataset",
      description: null,
    });
    const table = (dataset.rows as string).split("/table/")[1]!;
    const { rows } = await setup.client.tables.query({ digest: table });
    expect(rows.map((r) => r.val)).toEqual(ROWS);
    expect(result.rows.filter((r) => r.trial === 0).map((r) => r.rowDigest)).toEqual(rows.map((r) => r.digest));
    for (const row of result.rows) expect(row.rowRef).toBe(`${result.refs.dataset}/attr/rows/id/${row.rowDigest}`);
    // A row ref reads back as the row.
    const back = await setup.client.refs.readBatch({ refs: [result.rows[2]!.rowRef] });
    expect(back.vals).toEqual([ROWS[1]]);
  });

  it("publishes the Evaluation, Model and scorer objects the UI recognises", async () => {
    const { vals } = await setup.client.refs.readBatch({ refs: [result.refs.evaluation, result.refs.model] });
    const [evaluation, model] = vals as Record<string, unknown>[];
    expect(evaluation).toEqual({
      _type: "Evaluation",
      _class_name: "Evaluation",
      _bases: ["Object", "BaseModel"],
      name: "capitals",
      description: null,
      dataset: result.refs.dataset,
      scorers: Object.values(result.refs.scorers),
      trials: 2,
      evaluation_name: null,
      metadata: null,
      preprocess_model_input: null,
      evaluate: expect.stringMatching(/^weave:\/\/\/acme\/record\/op\/Evaluation\.evaluate:\w+$/),
      predict_and_score: expect.stringMatching(/\/op\/Evaluation\.predict_and_score:\w+$/),
      summarize: expect.stringMatching(/\/op\/Evaluation\.summarize:\w+$/),
    });
    expect(model).toMatchObject({
      _type: "answer",
      _class_name: "answer",
      _bases: ["Model", "Object", "BaseModel"],
      name: "answer",
      predict: expect.stringMatching(/\/op\/answer\.predict:\w+$/),
    });
    expect(result.refs.scorers["length"]).toMatch(/\/op\/length:\w+$/);
    const exact = (await setup.client.refs.readBatch({ refs: [result.refs.scorers.exact_match!] })).vals[0];
    expect(exact).toMatchObject({
      _type: "exact_match",
      _bases: ["Scorer", "Object", "BaseModel"],
      name: "exact_match",
      score: expect.stringMatching(/\/op\/exact_match\.score:\w+$/),
    });
    // An op is an object of type Op with its source as a file.
    const { objs } = await setup.client.objects.query({ filter: { object_ids: ["length"] } });
    const files = (objs[0]!.val as { files: Record<string, string> }).files;
    const source = await setup.client.files.content({ digest: files["obj.py"]! });
    expect(source.toString("utf8")).toContain("return output.length");
  });

  it("records the call tree: root, predict_and_score per row × trial, model and scorer calls, summarize", async () => {
    const root = calls.find((c) => c.id === result.callId)!;
    expect(root).toMatchObject({
      parent_id: null,
      inputs: { self: result.refs.evaluation, model: result.refs.model },
      output: result.summary,
    });
    expect(opName(root)).toBe("Evaluation.evaluate");
    expect(root.display_name).toMatch(/^capitals · \d{4}-\d\d-\d\d \d\d:\d\d$/);
    const below = childrenOf(calls, root);
    expect(below.map(opName).sort()).toEqual([
      ...Array(8).fill("Evaluation.predict_and_score"),
      "Evaluation.summarize",
    ]);
    const summarize = below.find((c) => opName(c) === "Evaluation.summarize")!;
    expect(summarize).toMatchObject({ inputs: { self: result.refs.evaluation }, output: result.summary });

    const rows = below.filter((c) => opName(c) === "Evaluation.predict_and_score");
    expect(
      new Set(
        rows.map(
          (r) =>
            `${r.inputs.example}|${(r.attributes as { tracewire: { eval: { trial: number } } }).tracewire.eval.trial}`,
        ),
      ).size,
    ).toBe(8);
    const lyon = rows.find((r) => r.inputs.example === result.rows[2]!.rowRef)!;
    expect(lyon.inputs).toEqual({
      self: result.refs.evaluation,
      model: result.refs.model,
      example: result.rows[2]!.rowRef,
    });
    expect(lyon.output).toEqual({
      output: "Lyon",
      scores: { exact_match: false, mentions: false, length: 4, verdict: { correct: false, chars: 4 }, flaky: null },
      model_latency: expect.any(Number),
    });
    const [model, ...scorerCalls] = childrenOf(calls, lyon).sort((a, b) => (a.started_at < b.started_at ? -1 : 1));
    expect(opName(model!)).toBe("answer.predict");
    expect(model!.inputs).toEqual({ self: result.refs.model, question: "Lyon", expected: "Nice" });
    expect(model!.output).toBe("Lyon");
    // The LLM call is the model call's child.
    const llm = childrenOf(calls, model!);
    expect(llm.map((c) => c.op_name)).toEqual(["openai.chat.completions.create"]);
    expect(llm[0]!.summary!.usage).toBeDefined();
    // One call per scorer, under the scorer's op ref as the Evaluation lists it (Scorer objects: their score op).
    expect(scorerCalls.map(opName).sort()).toEqual([
      "exact_match.score",
      "flaky",
      "length",
      "mentions.score",
      "verdict",
    ]);
    const lengthCall = scorerCalls.find((c) => opName(c) === "length")!;
    expect(lengthCall.op_name).toBe(result.refs.scorers["length"]);
    expect(lengthCall.inputs).toEqual({ question: "Lyon", expected: "Nice", output: "Lyon" });
    expect(lengthCall.output).toBe(4);
    expect(scorerCalls.find((c) => opName(c) === "flaky")!.exception).toContain("flaky scorer broke");
  });

  it("records each score as wandb.runnable feedback on the model's call", async () => {
    const { result: feedback } = await setup.client.feedback.query({});
    const mine = feedback.filter((f) => calls.some((c) => String(f.weave_ref).endsWith(`/call/${c.id}`)));
    // 8 rows × 5 scorers, less the 2 null verdicts and the 2 flaky failures.
    expect(mine).toHaveLength(36);
    const lyonModel = calls.find((c) => opName(c) === "answer.predict" && c.inputs.question === "Lyon")!;
    const onLyon = mine.filter((f) => String(f.weave_ref).endsWith(`/call/${lyonModel.id}`));
    expect(onLyon.map((f) => [f.feedback_type, f.payload]).sort()).toEqual(
      [
        ["wandb.runnable.exact_match", { output: false }],
        ["wandb.runnable.length", { output: 4 }],
        ["wandb.runnable.mentions", { output: false }],
        ["wandb.runnable.verdict", { output: { correct: false, chars: 4 } }],
      ].sort(),
    );
    const lengthFeedback = onLyon.find((f) => f.feedback_type === "wandb.runnable.length")!;
    expect(lengthFeedback.runnable_ref).toBe(result.refs.scorers["length"]);
    expect(lengthFeedback.call_ref).toMatch(/\/call\/[0-9a-f]{16}$/);
  });
});
