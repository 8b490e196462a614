/**
 * What a user's task and scorers may hand back that is not plain JSON — a cycle, a structure deeper than any payload
 * is recorded — and what the evaluation does with it: every row is still recorded, the summary is still computed
 * from what can be summarised, and evaluate() resolves (one odd value never costs the run).
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/index.js";
import { opName, setupEval } from "./support.js";

const setup = setupEval("acme/hostile");

/** `{ correct, detail: { chars, back: <itself> } }`: a verdict whose detail refers back to the verdict. */
function cyclicVerdict(correct: boolean): Record<string, unknown> {
  const verdict: Record<string, unknown> = { correct };
  verdict.detail = { chars: 3, back: verdict };
  return verdict;
}

/** An object nested `depth` levels deep, with a number at every level. */
function deep(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = { n: 1 };
  for (let i = 0; i < depth; i++) node = { n: 1, next: node };
  return node;
}

describe("scores and outputs that are not plain JSON", () => {
  it("a score or an output with a cycle: the run resolves, the summary leaves the cycle out, the root is ended", async () => {
    const result = await evaluate({
      name: "cyclic",
      dataset: [{ q: "a" }, { q: "b" }],
      task: function answer(row: { q: string }) {
        const out: Record<string, unknown> = { ok: row.q === "a", score: 2 };
        out.self = out;
        return out;
      },
      scorers: [
        function judged({ row }) {
          return cyclicVerdict(row.q === "a") as never;
        },
      ],
      progress: false,
    });
    expect(result.counts.ok).toBe(2);
    expect(result.summary.judged).toEqual({
      correct: { true_count: 1, true_fraction: 0.5 },
      detail: { chars: { mean: 3 } },
    });
    expect(result.summary.output).toEqual({ ok: { true_count: 1, true_fraction: 0.5 }, score: { mean: 2 } });
    expect(result.stats.map((s) => s.key)).toEqual(["judged.correct", "judged.detail.chars"]);
    const root = (await setup.trace(result.traceId)).find((c) => opName(c) === "Evaluation.evaluate")!;
    expect(root.ended_at).toBeTruthy();
    expect(root.output).toMatchObject({ judged: result.summary.judged });
  });

  it("a score nested deeper than the stack allows: summarised down to the recorded depth", async () => {
    const result = await evaluate({
      name: "deep",
      dataset: [{ q: "a" }],
      task: function answer() {
        return "x";
      },
      scorers: [
        function nested() {
          return deep(20_000) as never;
        },
      ],
      progress: false,
    });
    expect(result.counts.ok).toBe(1);
    expect((result.summary.nested as { n: unknown }).n).toEqual({ mean: 1 });
  });
});

describe("a score JSON has no form for", () => {
  it("a BigInt: that score is null with an error naming the scorer and the fix, reported once; the rest is kept", async () => {
    const warnings = setup.logs.length;
    const result = await evaluate({
      name: "bigint-score",
      dataset: [{ q: "a" }, { q: "b" }],
      task: function answer(row: { q: string }) {
        return row.q;
      },
      scorers: [
        function tokens() {
          return 12n as never;
        },
        function counted() {
          return { ok: true, count: 3n } as never;
        },
        function fine() {
          return 1;
        },
      ],
      progress: false,
    });
    expect(result.counts.ok).toBe(2);
    expect(result.rows.map((r) => r.scores)).toEqual([
      { tokens: null, counted: null, fine: 1 },
      { tokens: null, counted: null, fine: 1 },
    ]);
    expect(result.scorerErrors.tokens).toMatch(/scorer tokens returned a bigint; a score is a number.*Number\(value\)/);
    expect(result.scorerErrors.counted).toMatch(/scorer counted returned a bigint at count;/);
    expect(result.summary).toMatchObject({ tokens: null, counted: null, fine: { mean: 1 } });
    const logged = setup.logs.slice(warnings).filter((m) => /Scorer tokens threw/.test(m));
    expect(logged).toHaveLength(1);
    const calls = await setup.trace(result.traceId);
    const tokenCalls = calls.filter((c) => opName(c) === "tokens");
    expect(tokenCalls).toHaveLength(2);
    for (const call of tokenCalls) expect(call.exception).toMatch(/returned a bigint/);
  });
});
