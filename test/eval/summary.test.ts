/**
 * The summary rules (the service's `auto_summarize`) and the statistics `evaluate()` adds, on values worked out by
 * hand: booleans, numbers, objects per key, nulls dropped before averaging (not counted as 0 — the vendor's TS SDK
 * does count them), the first value deciding the kind; mean, standard error, pass@k and per-row spread.
 */
import { describe, expect, it } from "vitest";
import { autoSummarize } from "../../src/eval/index.js";
import { headline, scoreStatistics, summarizeEvaluation } from "../../src/eval/summary.js";

describe("autoSummarize", () => {
  it("summarises booleans, numbers and objects per key, dropping nulls before averaging", () => {
    expect(autoSummarize([true, false, null, true])).toEqual({ true_count: 2, true_fraction: 2 / 3 });
    expect(autoSummarize([1, 2, null, undefined, 6])).toEqual({ mean: 3 });
    expect(autoSummarize([{ ok: true, f1: 0.5, label: "a" }, null, { ok: false, f1: 1, nested: { n: 4 } }])).toEqual({
      ok: { true_count: 1, true_fraction: 0.5 },
      f1: { mean: 0.75 },
      nested: { n: { mean: 4 } },
    });
  });

  it("keeps the service's edge cases: empty → {}, all null → null, strings → null, booleans in numbers count 1/0", () => {
    expect(autoSummarize([])).toEqual({});
    expect(autoSummarize([null, undefined])).toBeNull();
    expect(autoSummarize(["a", "b"])).toBeNull();
    expect(autoSummarize([{ label: "x" }])).toBeNull();
    expect(autoSummarize([2, true, false])).toEqual({ mean: 1 });
    // A key summarised into an object holding that same key merges (the vendor's quirk, kept so summaries match).
    expect(autoSummarize([{ mean: 2 }, { mean: 4 }])).toEqual({ mean: 3 });
  });
});

describe("summarizeEvaluation", () => {
  it("puts output (when it summarises), each scorer in order, then model_latency; a custom summarize wins", () => {
    const rows = [
      { output: 1, scores: { a: true, b: 2, c: null }, latency: 0.5 },
      { output: 3, scores: { a: false, b: null, c: null }, latency: 1.5 },
    ];
    const summary = summarizeEvaluation(rows, [
      { name: "a" },
      { name: "b", summarize: ((xs: number[]) => ({ max: Math.max(...xs) })) as never },
      { name: "c" },
    ]);
    expect(summary).toEqual({
      output: { mean: 2 },
      a: { true_count: 1, true_fraction: 0.5 },
      b: { max: 2 },
      c: null,
      model_latency: { mean: 1 },
    });
    expect(Object.keys(summary)).toEqual(["output", "a", "b", "c", "model_latency"]);
    expect(headline(summary, "a")).toBe(0.5);
    expect(headline(summary, "model_latency")).toBe(1);
    expect(headline(summary, "missing")).toBeUndefined();
  });
});

describe("scoreStatistics", () => {
  it("averages each row over its trials, then rows; standard error across rows; pass@k for booleans", () => {
    const rows = [
      { index: 0, rowDigest: "d0", scores: { ok: true, n: 1 } },
      { index: 0, rowDigest: "d0", scores: { ok: false, n: 3 } },
      { index: 1, rowDigest: "d1", scores: { ok: false, n: 5 } },
      { index: 1, rowDigest: "d1", scores: { ok: false, n: 7 } },
      { index: 2, rowDigest: "d2", scores: { ok: true, n: null } },
      { index: 2, rowDigest: "d2", scores: { ok: true, n: 9 } },
    ];
    const { stats, spread } = scoreStatistics(rows, ["ok", "n"], 2);
    const ok = stats.find((s) => s.key === "ok")!;
    // Row means 0.5, 0, 1: mean 0.5, sample std 0.5, stderr 0.5/√3.
    expect(ok).toMatchObject({ kind: "boolean", rows: 3, mean: 0.5, passAtK: 2 / 3, passAllK: 1 / 3 });
    expect(ok.stderr).toBeCloseTo(0.5 / Math.sqrt(3), 12);
    const n = stats.find((s) => s.key === "n")!;
    // Row means 2, 6, 9 (the null trial left out): mean 17/3.
    expect(n).toMatchObject({ kind: "number", rows: 3, mean: 17 / 3 });
    expect(n.passAtK).toBeUndefined();
    expect(spread[0]!.scores.n).toEqual({ mean: 2, min: 1, max: 3, std: Math.SQRT2, n: 2 });
    expect(spread[2]!.scores.ok).toMatchObject({ pass: true, n: 2 });
  });
});
