/**
 * The summary rules of the service (the vendor's `auto_summarize`, reference/evaluations.md §"Summary rules"):
 * booleans → `{true_count, true_fraction}`, numbers → `{mean}`, objects → the same per key, nulls dropped before
 * averaging. Plus what the service does not compute and `evaluate()` adds: mean and standard error across rows,
 * pass@k, and each row's spread across trials.
 */
import type { JsonObject } from "../api/types/common.js";
import type { EvaluationResult, RowSpread, ScoreOf, ScoreStats, ScoreValue, SummaryOf } from "./types.js";

type Summary = JsonObject | null;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/**
 * Summarises a column of values the way the service does: the first non-null value decides the kind; `{}` for an
 * empty column, null when every value is null or the kind has no summary (strings, arrays).
 */
export function autoSummarize(values: readonly unknown[]): Summary {
  return summarizeColumn(values, new Set(), 0);
}

/** Object levels summarised, as deep as a payload is recorded (serialize-options.ts `maxDepth`); deeper is left out. */
const MAX_SUMMARY_DEPTH = 64;

/**
 * {@link autoSummarize} with the objects on the path down to this column: a score or an output may hold a cycle (an
 * object that refers to itself), which is left out where it recurs rather than followed without end (and so is what lies deeper than
 * {@link MAX_SUMMARY_DEPTH}: the stack stays bounded).
 */
function summarizeColumn(values: readonly unknown[], path: Set<object>, depth: number): Summary {
  if (values.length === 0) return {};
  const present = values.filter((v) => v !== null && v !== undefined && !(isPlainObject(v) && path.has(v)));
  if (present.length === 0) return null;
  const first = present[0];
  if (typeof first === "boolean") {
    const trueCount = present.filter((v) => Boolean(v)).length;
    return { true_count: trueCount, true_fraction: trueCount / present.length };
  }
  if (typeof first === "number") {
    // Booleans mixed into a numeric column count 1/0, as numpy's mean counts them.
    const numbers = present.flatMap((v) => (isNumber(v) ? [v] : typeof v === "boolean" ? [v ? 1 : 0] : []));
    return numbers.length === 0 ? null : { mean: numbers.reduce((a, b) => a + b, 0) / numbers.length };
  }
  if (isPlainObject(first)) {
    if (depth >= MAX_SUMMARY_DEPTH) return null;
    const objects = present.filter(isPlainObject);
    const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))];
    const result: JsonObject = {};
    const below = new Set([...path, ...objects]);
    for (const key of keys) {
      const summary = summarizeColumn(
        objects.map((o) => o[key]),
        below,
        depth + 1,
      );
      if (summary === null) continue;
      // The vendor's quirk, kept so summaries match: a key summarised into an object holding that same key merges.
      if (key in summary) Object.assign(result, summary);
      else result[key] = summary;
    }
    return Object.keys(result).length === 0 ? null : result;
  }
  return null;
}

/** One predict_and_score outcome as the summary reads it. */
export interface SummaryRow {
  output: unknown;
  scores: Record<string, ScoreValue | null>;
  /** Seconds; undefined for a row that never ran its task. */
  latency: number | undefined;
}

/** A scorer as the summary needs it: its name and optional own summarize. */
export interface SummaryScorer {
  name: string;
  summarize?: ((scores: never[]) => unknown) | undefined;
}

/**
 * The evaluation's summary (the root call's output): `output` when the outputs summarise (numbers, booleans,
 * objects of them), one entry per scorer in order, then `model_latency: {mean}`.
 */
export function summarizeEvaluation(
  rows: readonly SummaryRow[],
  scorers: readonly SummaryScorer[],
  onSummarizeError?: (scorer: string, err: unknown) => void,
): JsonObject {
  const summary: JsonObject = {};
  const outputs = autoSummarize(rows.map((r) => r.output));
  if (outputs !== null && Object.keys(outputs).length > 0) summary.output = outputs;
  for (const scorer of scorers) {
    const column = rows.map((r) => r.scores[scorer.name]);
    let value: unknown = null;
    if (scorer.summarize) {
      try {
        value = scorer.summarize(column.filter((v) => v !== null && v !== undefined) as never[]);
      } catch (err) {
        onSummarizeError?.(scorer.name, err);
        value = autoSummarize(column);
      }
    } else value = autoSummarize(column);
    summary[scorer.name] = (value ?? null) as JsonObject[string];
  }
  const latency = autoSummarize(rows.map((r) => r.latency));
  if (latency !== null) summary.model_latency = latency;
  return summary;
}

/** Leaves of a score as `[key, number-or-boolean]`: `scorer` for a scalar, `scorer.a.b` inside objects. */
export function scoreLeaves(name: string, value: unknown, path: readonly object[] = []): [string, number | boolean][] {
  if (typeof value === "boolean" || isNumber(value)) return [[name, value]];
  // A cycle is not followed, nor anything deeper than the summary goes (see summarizeColumn).
  if (!isPlainObject(value) || path.includes(value) || path.length >= MAX_SUMMARY_DEPTH) return [];
  const below = [...path, value];
  return Object.entries(value).flatMap(([k, v]) => scoreLeaves(`${name}.${k}`, v, below));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Sample standard deviation (n − 1); 0 for fewer than two values. */
function std(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** A row × trial's scores, as the statistics read them. */
export interface StatsRow {
  index: number;
  rowDigest: string;
  scores: Record<string, ScoreValue | null>;
}

/**
 * Per score key: the mean over rows of each row's mean over its trials, its standard error across rows, and for
 * booleans with several trials pass@k (any trial true) and pass^k (every trial true). Per row: the spread.
 */
export function scoreStatistics(
  rows: readonly StatsRow[],
  scorerNames: readonly string[],
  trials: number,
): { stats: ScoreStats[]; spread: RowSpread[] } {
  // key → row index → values over trials
  const byKey = new Map<string, { kind: "boolean" | "number"; rows: Map<number, number[]> }>();
  const digests = new Map<number, string>();
  const order: string[] = [];
  for (const row of rows) {
    digests.set(row.index, row.rowDigest);
    for (const name of scorerNames) {
      for (const [key, value] of scoreLeaves(name, row.scores[name])) {
        let entry = byKey.get(key);
        if (!entry) {
          entry = { kind: typeof value === "boolean" ? "boolean" : "number", rows: new Map() };
          byKey.set(key, entry);
          order.push(key);
        }
        const list = entry.rows.get(row.index) ?? [];
        list.push(typeof value === "boolean" ? (value ? 1 : 0) : value);
        entry.rows.set(row.index, list);
      }
    }
  }
  const stats: ScoreStats[] = [];
  const spreadByRow = new Map<number, RowSpread>();
  for (const key of order) {
    const entry = byKey.get(key)!;
    const rowMeans: number[] = [];
    let anyPass = 0;
    let allPass = 0;
    for (const [index, values] of entry.rows) {
      const m = mean(values);
      rowMeans.push(m);
      const spread = spreadByRow.get(index) ?? { index, rowDigest: digests.get(index) ?? "", scores: {} };
      spreadByRow.set(index, spread);
      const cell: RowSpread["scores"][string] = {
        mean: m,
        min: Math.min(...values),
        max: Math.max(...values),
        std: std(values),
        n: values.length,
      };
      if (entry.kind === "boolean") {
        cell.pass = values.some((v) => v === 1);
        if (cell.pass) anyPass++;
        if (values.every((v) => v === 1)) allPass++;
      }
      spread.scores[key] = cell;
    }
    const stat: ScoreStats = {
      key,
      kind: entry.kind,
      rows: rowMeans.length,
      mean: rowMeans.length ? mean(rowMeans) : 0,
      stderr: rowMeans.length ? std(rowMeans) / Math.sqrt(rowMeans.length) : 0,
    };
    if (entry.kind === "boolean" && trials > 1 && rowMeans.length) {
      stat.passAtK = anyPass / rowMeans.length;
      stat.passAllK = allPass / rowMeans.length;
    }
    stats.push(stat);
  }
  return { stats, spread: [...spreadByRow.values()].sort((a, b) => a.index - b.index) };
}

/**
 * The headline number of a score key in a summary: `mean`, else `true_fraction`; `key` is `scorer` or
 * `scorer.a.b`. Undefined when the summary has no such number.
 */
export function headline(summary: JsonObject | null | undefined, key: string): number | undefined {
  let node: unknown = summary;
  for (const part of key.split(".")) {
    if (!isPlainObject(node)) return undefined;
    node = node[part];
  }
  if (isNumber(node)) return node;
  if (!isPlainObject(node)) return undefined;
  if (isNumber(node.mean)) return node.mean;
  if (isNumber(node.true_fraction)) return node.true_fraction;
  return undefined;
}

/**
 * One scorer's entry in an evaluation's summary, typed by what the scorer returns (`{ true_count, true_fraction }`
 * for a boolean scorer, `{ mean }` for a number, per key for an object); null when every score was null.
 */
export function summaryOf<Sc extends { name: string } | ((input: never) => unknown)>(
  result: Pick<EvaluationResult, "summary">,
  scorer: Sc,
): SummaryOf<ScoreOf<Sc>> | null {
  const name = typeof scorer === "function" ? scorer.name : scorer.name;
  const key = name.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^[-.]+|-+$/g, "");
  return (result.summary[key] ?? null) as SummaryOf<ScoreOf<Sc>> | null;
}
