/**
 * The public types of `tracewire/eval`: what `evaluate()` takes and resolves to. The row type flows from the
 * dataset into the task and the scorers; a scorer's return type decides the shape of its summary.
 */
import type { JsonObject } from "../api/types/common.js";

/** One dataset row: a plain object of JSON-able fields. */
export type Row = Record<string, unknown>;

/** What a scorer may return: a number, a boolean, an object of those (nested), or null when it has no verdict. */
export type ScoreValue = number | boolean | null | undefined | { readonly [key: string]: ScoreValue };

/** Rows from memory, a generator, a JSONL file path, or a `weave:///…/object/<name>:<digest>` dataset ref. */
export type DatasetSource<R extends Row> = readonly R[] | Iterable<R> | AsyncIterable<R> | string;

/** A dataset with a name of its own (default: the evaluation's name plus `-dataset`, or the JSONL file's name). */
export interface NamedDataset<R extends Row> {
  name: string;
  rows: DatasetSource<R>;
  description?: string;
}

/** What the task and the scorers get besides the row. */
export interface RunContext {
  /** Trial index, from 0. */
  trial: number;
  /** Index of the row in the dataset, from 0. */
  index: number;
  /** Aborted when the evaluation is cancelled: pass it on to your model client to stop the request. */
  signal: AbortSignal;
}

/** The task: a function of the row (an `op` too), or an object with `predict` (its other fields are recorded). */
export type Task<R extends Row, O> =
  | ((row: R, context: RunContext) => O | Promise<O>)
  | { name?: string; predict(row: R, context: RunContext): O | Promise<O> };

/** What a scorer is called with. */
export interface ScorerInput<R extends Row, O> extends RunContext {
  output: O;
  row: R;
}

/** A scorer function: its name (the function's name) is the scorer's name. */
export type ScorerFunction<R extends Row, O, S extends ScoreValue = ScoreValue> = (
  input: ScorerInput<R, O>,
) => S | Promise<S>;

/** A scorer object: a name, a `score` function, and optionally its own `summarize` of the non-null scores. */
export interface ScorerObject<R extends Row, O, S extends ScoreValue = ScoreValue, N extends string = string> {
  name: N;
  score: ScorerFunction<R, O, S>;
  /** Summary of this scorer's non-null scores (default: the service's rules, see `autoSummarize`). */
  summarize?: (scores: NonNullable<S>[]) => JsonObject | number | boolean | null;
  description?: string;
  /** Extra fields recorded on the scorer object (thresholds, the judge's model…). */
  attributes?: Record<string, unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: scorers of any row and output type are accepted where the row type is unknown.
export type AnyScorer = ScorerFunction<any, any> | ScorerObject<any, any>;

/** A scorer of rows `R` and outputs `O`. */
// biome-ignore lint/suspicious/noExplicitAny: a scorer's own score type is free; it shapes its summary.
export type Scorer<R extends Row, O> = ScorerFunction<R, O, any> | ScorerObject<R, O, any, string>;

/** The summary of one boolean, number or object score, by the service's rules. */
export type SummaryOf<S> = [NonNullable<S>] extends [boolean]
  ? { true_count: number; true_fraction: number }
  : [NonNullable<S>] extends [number]
    ? { mean: number }
    : NonNullable<S> extends Record<string, unknown>
      ? { [K in keyof NonNullable<S>]?: SummaryOf<NonNullable<S>[K]> }
      : unknown;

/** The score type of a scorer (what its function or `score` returns). */
export type ScoreOf<Sc> = Sc extends { score: (input: never) => infer S }
  ? Awaited<S>
  : Sc extends (input: never) => infer S
    ? Awaited<S>
    : ScoreValue;

/**
 * The evaluation's summary: one entry per scorer (null when every score was null), `model_latency`, and `output`
 * when the outputs summarise. `summaryOf(result, scorer)` reads one scorer's entry typed by its return type.
 */
export interface EvaluationSummary {
  model_latency?: { mean: number };
  output?: JsonObject;
  [scorer: string]: unknown;
}

/** Retries of the task and scorers on rate limits and server errors (429, 408, 5xx, dropped connections). */
export interface RetryPolicy {
  /** Attempts in total, the first included. Default 5; 1 turns retries off. */
  attempts?: number;
  /** First backoff ceiling in ms, doubled each retry (full jitter). Default 1000. */
  baseDelayMs?: number;
  /** Largest wait in ms (a longer `Retry-After` gives up). Default 60000. */
  maxDelayMs?: number;
}

/** Limits on work in flight. */
export interface Concurrency {
  /** Task runs at once. Default 8. */
  task?: number;
  /** Scorer runs at once (over all rows). Default 16. */
  scorers?: number;
}

/** Options of `evaluate()`. */
export interface EvaluateOptions<R extends Row, O> {
  /** The evaluation's name: its object on the service, and how `resume: true` finds it again. */
  name: string;
  description?: string;
  /** The rows: an array, an (async) iterable, a JSONL file path, a dataset ref, or `{ name, rows }`. */
  dataset: DatasetSource<R> | NamedDataset<R>;
  /** What is evaluated: a function of the row, an `op`, or an object with `predict`. */
  task: Task<NoInfer<R>, O>;
  /** Scorer functions and objects (the built-ins: `exactMatch()`, `contains()`, …). */
  scorers?: readonly Scorer<NoInfer<R>, NoInfer<O>>[];
  /** Runs of each row (each its own `predict_and_score`, with its trial index). Default 1. */
  trials?: number;
  /** Work in flight: a number (task runs at once; scorers get twice as many) or `{ task, scorers }`. */
  concurrency?: number | Concurrency;
  /** Retries on 429, 408, 5xx and dropped connections, with backoff; `false` turns them off. */
  retry?: RetryPolicy | false;
  /**
   * Continue an interrupted evaluation: its root call id, or `true` for the latest unfinished evaluation of this
   * name. Only the rows × trials not yet scored run; the service ends up with one evaluation covering all rows.
   */
  resume?: string | boolean;
  /** Cancels the evaluation: open calls end as cancelled, what was scored is kept (and resumable). */
  signal?: AbortSignal;
  /** The root call's display name. Default `<name> · YYYY-MM-DD HH:MM`. */
  displayName?: string;
  /** Recorded on the Evaluation object. */
  metadata?: Record<string, unknown>;
  /** The model's name on the service (default: the task's name) and attributes recorded on it. */
  model?: { name?: string; attributes?: Record<string, unknown> };
  /** Minimum per scorer for `tracewire eval` (`scorer` or `scorer.key`, compared to its mean or true fraction). */
  thresholds?: Record<string, number>;
  /** Progress lines on stderr: `"auto"` (a live line on a TTY, plain lines otherwise; the default), or off. */
  progress?: boolean | "auto";
  /** Record the source of the task and scorers on their op objects (credentials in it are masked). Default true. */
  captureCode?: boolean;
}

/** One row × trial of the result. */
export interface RowResult<R extends Row = Row, O = unknown> {
  /** Index of the row in the dataset. */
  index: number;
  trial: number;
  row: R;
  /** The row's digest: how rows line up across evaluations. */
  rowDigest: string;
  /** `weave:///…/object/<dataset>:<digest>/attr/rows/id/<row digest>`. */
  rowRef: string;
  /** The task's output (undefined when it failed or was cancelled). */
  output: O | undefined;
  /** Score per scorer; null when the scorer threw or had no verdict. */
  scores: Record<string, ScoreValue | null>;
  /** `ok`, `failed` (the task threw), `cancelled` or `resumed` (scored by an earlier run). */
  status: "ok" | "failed" | "cancelled" | "resumed";
  /** The task's error, when it failed. */
  error?: string;
  /** Seconds the successful attempt of the task took (retry waits excluded). */
  latency?: number;
  /** Retries the task needed. */
  retries: number;
  /** The row's `predict_and_score` call id. */
  callId?: string;
}

/** Mean and standard error of one score (a scorer, or one key of an object scorer) across rows. */
export interface ScoreStats {
  /** `scorer` or `scorer.key`. */
  key: string;
  kind: "boolean" | "number";
  /** Rows with at least one non-null value. */
  rows: number;
  /** Mean over rows of each row's mean over its trials (booleans count 1/0). */
  mean: number;
  /** Standard error of that mean across rows (sample standard deviation / √rows). */
  stderr: number;
  /** Booleans with trials > 1: the fraction of rows where at least one trial was true. */
  passAtK?: number;
  /** Booleans with trials > 1: the fraction of rows where every trial was true. */
  passAllK?: number;
}

/** One row's spread across its trials, per score key. */
export interface RowSpread {
  index: number;
  rowDigest: string;
  /** Per score key: the trials' mean, min, max and standard deviation; `pass` for booleans (any trial true). */
  scores: Record<string, { mean: number; min: number; max: number; std: number; n: number; pass?: boolean }>;
}

/** What `evaluate()` resolves to. */
export interface EvaluationResult<R extends Row = Row, O = unknown> {
  name: string;
  /** The root `Evaluation.evaluate` call: its id is the evaluation's id (for `resume` and `--baseline`). */
  callId: string;
  traceId: string;
  /** Where to see it: the local viewer for `tracewire dev`, the hosted UI otherwise (when known). */
  url: string | undefined;
  /** What the root call's output holds, by the service's rules. */
  summary: EvaluationSummary;
  /** Every row × trial, in dataset order, trials together. */
  rows: RowResult<R, O>[];
  /** Per score: mean and standard error across rows, pass@k for booleans. */
  stats: ScoreStats[];
  /** Per row: the spread across trials. */
  spread: RowSpread[];
  counts: {
    rows: number;
    trials: number;
    total: number;
    ok: number;
    failed: number;
    cancelled: number;
    resumed: number;
  };
  /** Whether the evaluation was cancelled (its `signal` aborted) before every row was scored. */
  cancelled: boolean;
  /** Scorers that threw, with the first error each (each was reported once). */
  scorerErrors: Record<string, string>;
  /** The refs recorded: evaluation, dataset, model and scorers. */
  refs: { evaluation: string; dataset: string; model: string; scorers: Record<string, string> };
}
