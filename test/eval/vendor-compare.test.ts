/**
 * The same evaluation recorded twice against `tracewire dev` — by the vendor's TypeScript SDK (npm `weave` 0.11.1,
 * in a child process, fixtures/weave-eval-app.cjs) and by `evaluate()` — and read back through `TracingClient`:
 * the same call-tree shape (ours adds `Evaluation.summarize`, which the vendor's TS SDK does not write), the same
 * summary per scorer (the vendor's extra `model_success` aside; where it counts null scores in the denominator the
 * service's rule wins, and the test says by how much they differ), and rows that line up by row digest.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CallSchema } from "../../src/api/types/calls.js";
import { type EvaluationResult, evaluate } from "../../src/eval/index.js";
import { evaluationRoots } from "../../src/eval/read-back.js";
import { runWeaveApp } from "../server/helpers.js";
import logic from "./fixtures/shared-logic.cjs";
import { childrenOf, opName, setupEval } from "./support.js";

const APP = join(import.meta.dirname, "fixtures", "weave-eval-app.cjs");
const setup = setupEval("local/compare");
type Row = { question: string; expected: string };

interface Tree {
  root: CallSchema;
  calls: CallSchema[];
  /** Per-row calls under the root. */
  rows: CallSchema[];
}

async function treeOf(root: CallSchema): Promise<Tree> {
  const calls = await setup.trace(root.trace_id);
  const rows = childrenOf(calls, root).filter((c) =>
    /^Evaluation\.(predict_and_score|predictAndScore)$/.test(opName(c)),
  );
  return { root, calls, rows };
}
const digestOf = (row: CallSchema) => /\/attr\/rows\/id\/(\w+)$/.exec(String(row.inputs.example))![1]!;

describe("the vendor's TS SDK and evaluate(): the same evaluation, recorded alike", () => {
  let vendorSummary: Record<string, unknown>;
  let ours: EvaluationResult<Row, string>;
  let vendor: Tree;
  let mine: Tree;

  beforeAll(async () => {
    vendorSummary = JSON.parse(await runWeaveApp(APP, setup.service.url, setup.project)).summary;
    ours = await evaluate<Row, string>({
      name: "capitals-eval",
      dataset: { name: "capitals", rows: logic.ROWS as Row[] },
      task: function capital(row) {
        return logic.answer(row.question) as string;
      },
      scorers: [
        function exact({ output, row }) {
          return logic.exact(output, row) as boolean;
        },
        function length({ output }) {
          return logic.length(output) as number;
        },
        function verdict({ output, row }) {
          return logic.verdict(output, row) as { correct: boolean; chars: number } | null;
        },
        function confident({ output }) {
          return logic.confident(output) as boolean | null;
        },
      ],
      progress: false,
    });
    const roots = await evaluationRoots(setup.client, setup.project);
    vendor = await treeOf(roots.find((r) => r.id !== ours.callId)!);
    mine = await treeOf(roots.find((r) => r.id === ours.callId)!);
  }, 120_000);

  it("records the same call-tree shape", () => {
    expect(opName(vendor.root)).toBe("Evaluation.evaluate");
    expect(opName(mine.root)).toBe("Evaluation.evaluate");
    for (const tree of [vendor, mine]) {
      expect(tree.rows).toHaveLength(5);
      // What the UI reads: the Evaluation and the model as refs (the vendor also records its maxConcurrency).
      expect(tree.root.inputs).toMatchObject({
        self: expect.stringMatching(/\/object\/[\w-]+:\w+$/),
        model: expect.stringMatching(/^weave:\/\/\//),
      });
      for (const row of tree.rows) {
        expect(row.inputs).toMatchObject({
          self: tree.root.inputs.self,
          model: tree.root.inputs.model,
          example: expect.stringMatching(/\/attr\/rows\/id\/\w+$/),
        });
        // One model call, one call per scorer.
        const below = childrenOf(tree.calls, row);
        expect(below).toHaveLength(5);
        expect(
          below
            .map(opName)
            .filter((n) => ["exact", "length", "verdict", "confident"].includes(n))
            .sort(),
        ).toEqual(["confident", "exact", "length", "verdict"]);
      }
    }
    expect(childrenOf(vendor.calls, vendor.root).map(opName)).not.toContain("Evaluation.summarize");
    expect(childrenOf(mine.calls, mine.root).filter((c) => opName(c) === "Evaluation.summarize")).toHaveLength(1);
  });

  it("lines the rows up by row digest, with the same scores row by row", () => {
    const vendorRows = new Map(vendor.rows.map((r) => [digestOf(r), r]));
    const ourRows = new Map(mine.rows.map((r) => [digestOf(r), r]));
    expect([...ourRows.keys()].sort()).toEqual([...vendorRows.keys()].sort());
    expect(ours.rows.map((r) => r.rowDigest).sort()).toEqual([...vendorRows.keys()].sort());
    for (const [digest, row] of ourRows) {
      const theirs = vendorRows.get(digest)!.output as { scores: Record<string, unknown>; model_output: unknown };
      const mineOut = row.output as { scores: Record<string, unknown>; output: unknown };
      expect(mineOut.output).toEqual(theirs.model_output);
      // The vendor's SDK records a null score as absent; ours as null.
      for (const name of ["exact", "length", "verdict", "confident"])
        expect(mineOut.scores[name] ?? null, `${name} of row ${digest}`).toEqual(theirs.scores[name] ?? null);
    }
  });

  it("computes the same summary per scorer, except where the vendor counts nulls in the denominator", () => {
    const { model_success, model_latency: _theirs, ...vendorScores } = vendorSummary;
    expect(model_success).toEqual({ true_count: 5, true_fraction: 1 });
    const { model_latency, ...ourScores } = ours.summary;
    expect(model_latency).toEqual({ mean: expect.any(Number) });
    expect(mine.root.output).toEqual(ours.summary);
    // Scorers without nulls: identical.
    expect(ourScores.exact).toEqual(vendorScores.exact);
    expect(ourScores.length).toEqual(vendorScores.length);
    expect(ourScores.exact).toEqual({ true_count: 3, true_fraction: 0.6 });
    expect(ourScores.length).toEqual({ mean: 7 });
    // With one null in five: the service's rule (nulls dropped) vs the vendor's TS SDK (divided by all five rows).
    expect(ourScores.confident).toEqual({ true_count: 3, true_fraction: 3 / 4 });
    expect(vendorScores.confident).toEqual({ true_count: 3, true_fraction: 3 / 5 });
    expect(ourScores.verdict).toEqual({ correct: { true_count: 3, true_fraction: 3 / 4 }, chars: { mean: 22 / 4 } });
    expect(vendorScores.verdict).toEqual({ correct: { true_count: 3, true_fraction: 3 / 5 }, chars: { mean: 22 / 5 } });
    // The vendor's root records the summary it computed.
    expect(vendor.root.output).toEqual(vendorSummary);
  });

  it("reads both evaluations side by side through eval_results/query, joined by row digest", async () => {
    const scope = setup.client.project("local", "compare");
    const result = await scope.evalResults.query({
      evaluation_call_ids: [ours.callId, vendor.root.id],
      require_intersection: true,
      include_summary: true,
    });
    expect(result.total_rows).toBe(5);
    for (const row of result.rows as { evaluations: { trials: { scores: Record<string, unknown> }[] }[] }[]) {
      expect(row.evaluations).toHaveLength(2);
      expect(row.evaluations[0]!.trials[0]!.scores.exact).toEqual(row.evaluations[1]!.trials[0]!.scores.exact);
    }
  });
});
