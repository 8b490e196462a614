/**
 * CI gates over an evaluation's result: thresholds (`--fail-under scorer=0.8`, or `thresholds` in the options) on
 * each score's headline number (mean, or true fraction), and a comparison with a baseline evaluation read back from
 * the service — per score the delta, and the rows (joined by row digest) that got worse.
 */
import type { TracingClient } from "../api/tracing/client.js";
import type { JsonObject } from "../api/types/common.js";
import { ValidationError } from "../errors.js";
import { evaluationRoots, findEvaluation, isFinished, objectNameOf, readEvaluation } from "./read-back.js";
import { headline, scoreLeaves } from "./summary.js";
import type { EvaluationResult } from "./types.js";

/** One threshold and how the evaluation fared. */
export interface ThresholdCheck {
  /** `scorer` or `scorer.key`. */
  key: string;
  min: number;
  /** The score's mean or true fraction; undefined when the summary has none (which fails). */
  value: number | undefined;
  passed: boolean;
}

/** `scorer=0.8` → `["scorer", 0.8]`; throws a ValidationError naming the flag for anything else. */
export function parseThreshold(text: string): [string, number] {
  const m = /^([^=\s]+)=(-?\d+(?:\.\d+)?|\.\d+)$/.exec(text.trim());
  if (!m)
    throw new ValidationError(
      `--fail-under takes scorer=number (e.g. exact_match=0.8), got ${JSON.stringify(text)}.`,
      "fail-under",
    );
  return [m[1]!, Number(m[2])];
}

/** Checks `thresholds` against a summary. */
export function checkThresholds(summary: JsonObject, thresholds: Record<string, number>): ThresholdCheck[] {
  return Object.entries(thresholds).map(([key, min]) => {
    const value = headline(summary, key);
    return { key, min, value, passed: value !== undefined && value >= min };
  });
}

/** One score compared with the baseline. */
export interface ScoreDelta {
  key: string;
  baseline: number | undefined;
  current: number | undefined;
  /** current − baseline (undefined when either is missing). */
  delta: number | undefined;
  /** Lower than the baseline by more than the tolerance. */
  regressed: boolean;
}

/** A row scored lower than in the baseline (means over trials). */
export interface WorseRow {
  rowDigest: string;
  index: number;
  key: string;
  baseline: number;
  current: number;
}

/** The comparison with a baseline evaluation. */
export interface BaselineComparison {
  callId: string;
  name: string | null;
  deltas: ScoreDelta[];
  worseRows: WorseRow[];
  /** Rows both evaluations scored. */
  sharedRows: number;
  regressed: boolean;
}

/** Per row digest and score key: the mean over the row's trials (booleans as 1/0). */
function rowMeans(rows: { rowDigest: string; scores: Record<string, unknown> }[]): Map<string, Map<string, number>> {
  const sums = new Map<string, Map<string, [number, number]>>();
  for (const row of rows) {
    const keys = sums.get(row.rowDigest) ?? new Map<string, [number, number]>();
    sums.set(row.rowDigest, keys);
    for (const [name, value] of Object.entries(row.scores)) {
      for (const [key, leaf] of scoreLeaves(name, value)) {
        const [sum, n] = keys.get(key) ?? [0, 0];
        keys.set(key, [sum + (typeof leaf === "boolean" ? (leaf ? 1 : 0) : leaf), n + 1]);
      }
    }
  }
  return new Map([...sums].map(([digest, keys]) => [digest, new Map([...keys].map(([k, [sum, n]]) => [k, sum / n]))]));
}

/**
 * Compares `result` with the evaluation `baseline` names (a call id, a call ref, or an evaluation name: its latest
 * finished run other than this one). Scores are "higher is better"; a drop of more than `tolerance` regresses.
 */
export async function compareWithBaseline(
  client: TracingClient,
  project: string,
  result: EvaluationResult,
  baseline: string,
  tolerance = 0,
): Promise<BaselineComparison> {
  let root = await findEvaluation(client, project, baseline, "latest");
  if (root?.id === result.callId) {
    // The name matched this very run: the baseline is the one before it.
    root = (await evaluationRoots(client, project)).find(
      (r) => r.id !== result.callId && isFinished(r) && objectNameOf(r.inputs?.self) === baseline,
    );
  }
  if (!root) {
    throw new ValidationError(
      `--baseline: no finished evaluation ${JSON.stringify(baseline)} in ${project} (give a root call id, or the name of an evaluation that ran before).`,
      "baseline",
    );
  }
  const recorded = await readEvaluation(client, project, root);
  const before = (root.output ?? {}) as JsonObject;
  const keys = [...new Set([...result.stats.map((s) => s.key), ...recordedKeys(before, result)])];
  const deltas = keys.map((key): ScoreDelta => {
    const current = headline(result.summary as JsonObject, key);
    const base = headline(before, key);
    const delta = current !== undefined && base !== undefined ? current - base : undefined;
    return { key, baseline: base, current, delta, regressed: delta !== undefined && delta < -tolerance };
  });
  const now = rowMeans(result.rows.filter((r) => r.status === "ok" || r.status === "resumed"));
  const then = rowMeans(recorded.rows.filter((r) => r.scored));
  const indexOf = new Map(result.rows.map((r) => [r.rowDigest, r.index]));
  const worseRows: WorseRow[] = [];
  let shared = 0;
  for (const [digest, scores] of now) {
    const old = then.get(digest);
    if (!old) continue;
    shared++;
    for (const [key, value] of scores) {
      const was = old.get(key);
      if (was !== undefined && value < was - 1e-12)
        worseRows.push({ rowDigest: digest, index: indexOf.get(digest) ?? -1, key, baseline: was, current: value });
    }
  }
  worseRows.sort((a, b) => a.current - a.baseline - (b.current - b.baseline) || a.index - b.index);
  return {
    callId: root.id,
    name: root.display_name ?? null,
    deltas,
    worseRows,
    sharedRows: shared,
    regressed: deltas.some((d) => d.regressed),
  };
}

/** Score keys of a recorded summary that the current result also summarises (scorers only, no latency/output). */
function recordedKeys(summary: JsonObject, result: EvaluationResult): string[] {
  const scorers = Object.keys(result.refs.scorers);
  return Object.keys(summary).filter((k) => scorers.includes(k) && !result.stats.some((s) => s.key.startsWith(k)));
}

/** The comparison and thresholds as lines of the CLI's report. */
export function formatChecks(checks: ThresholdCheck[], comparison: BaselineComparison | undefined): string {
  const lines: string[] = [];
  for (const c of checks) {
    const value = c.value === undefined ? "no value" : c.value.toFixed(4);
    lines.push(`  ${c.passed ? "pass" : "FAIL"}  ${c.key} ${value} (at least ${c.min})`);
  }
  if (comparison) {
    lines.push(
      `  baseline ${comparison.name ?? comparison.callId} (${comparison.callId}), ${comparison.sharedRows} rows in common:`,
    );
    for (const d of comparison.deltas) {
      const fmt = (v: number | undefined) => (v === undefined ? "—" : v.toFixed(4));
      const delta = d.delta === undefined ? "" : ` (${d.delta >= 0 ? "+" : ""}${d.delta.toFixed(4)})`;
      lines.push(`    ${d.regressed ? "WORSE" : "     "} ${d.key} ${fmt(d.baseline)} → ${fmt(d.current)}${delta}`);
    }
    const shown = comparison.worseRows.slice(0, 10);
    if (shown.length) lines.push(`    rows that got worse (${comparison.worseRows.length}):`);
    for (const r of shown)
      lines.push(
        `      row ${r.index} ${r.key}: ${r.baseline.toFixed(3)} → ${r.current.toFixed(3)}  (digest ${r.rowDigest})`,
      );
  }
  return lines.length ? `${lines.join("\n")}\n` : "";
}
