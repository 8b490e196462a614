/**
 * `evaluate()`'s options checked and completed: concurrency, trials, the task as a model (its name, the function to
 * run, what is recorded about it), the root's display name. Bad values are `ValidationError`s naming the option.
 */
import { refuseUnknownOptions } from "../config.js";
import { ValidationError } from "../errors.js";
import { unwrapOp } from "../tracing/op.js";
import { pickAttributes, safeName } from "./objects.js";
import type { EvaluateOptions, Row, RunContext } from "./types.js";

/** Default work in flight (docs/evaluations.md). */
export const DEFAULT_CONCURRENCY = { task: 8, scorers: 16 };

export function positiveInt(value: unknown, name: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
    throw new ValidationError(`evaluate(): ${name} must be a whole number of at least 1, got ${String(value)}.`, name);
  return value;
}

export function resolveConcurrency(value: EvaluateOptions<Row, unknown>["concurrency"]): {
  task: number;
  scorers: number;
} {
  if (value === undefined) return { ...DEFAULT_CONCURRENCY };
  if (typeof value === "number") return { task: positiveInt(value, "concurrency"), scorers: 2 * value };
  if (value === null || typeof value !== "object")
    throw new ValidationError("evaluate(): concurrency must be a number or { task, scorers }.", "concurrency");
  return {
    task: value.task === undefined ? DEFAULT_CONCURRENCY.task : positiveInt(value.task, "concurrency.task"),
    scorers:
      value.scorers === undefined ? DEFAULT_CONCURRENCY.scorers : positiveInt(value.scorers, "concurrency.scorers"),
  };
}

/**
 * The task as a model: its name, the function to run, what is recorded about it (its fields, serialised when the
 * Model is published: by then the evaluation's tracing, and so its `redactKeys` and `redact`, are known).
 */
export function resolveTask<R extends Row, O>(options: EvaluateOptions<R, O>) {
  const { task } = options;
  // An arrow function written inline as `task: (row) => …` is named "task" by JavaScript: that names nothing.
  const named = (n: string | undefined) => safeName(options.model?.name ?? (n === "task" ? "" : (n ?? "")), "Model");
  if (typeof task === "function") {
    const op = unwrapOp(task);
    const fn = (op?.fn ?? task) as (row: R, context: RunContext) => unknown;
    return {
      name: named(op?.opName ?? task.name),
      fn,
      attributes: pickAttributes(options.model?.attributes),
      source: fn,
    };
  }
  if (task === null || typeof task !== "object" || typeof task.predict !== "function") {
    throw new ValidationError(
      "evaluate(): task must be a function of the row, an op, or an object with predict(row).",
      "task",
    );
  }
  const ctor = (task as object).constructor?.name;
  const name = named(task.name ?? (ctor && ctor !== "Object" ? ctor : undefined));
  const predict = unwrapOp(task.predict)?.fn ?? task.predict;
  return {
    name,
    fn: ((row: R, context: RunContext) => predict.call(task, row, context)) as (row: R, c: RunContext) => unknown,
    attributes: { ...pickAttributes(task), ...pickAttributes(options.model?.attributes) },
    source: predict,
  };
}

/** `<name> · YYYY-MM-DD HH:MM` in local time. */
export function defaultDisplayName(name: string, at = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${name} · ${at.getFullYear()}-${p(at.getMonth() + 1)}-${p(at.getDate())} ${p(at.getHours())}:${p(at.getMinutes())}`;
}

/** Every option `evaluate()` reads; `satisfies` keeps the list in step with {@link EvaluateOptions}. */
const KNOWN_OPTIONS = {
  name: true,
  description: true,
  dataset: true,
  task: true,
  scorers: true,
  trials: true,
  concurrency: true,
  retry: true,
  resume: true,
  signal: true,
  displayName: true,
  metadata: true,
  model: true,
  thresholds: true,
  progress: true,
  captureCode: true,
} as const satisfies Record<keyof EvaluateOptions<Row, unknown>, true>;

/** What other evaluation APIs (and likely slips) call an option, by the option's name here. */
const OTHER_NAMES: Record<string, keyof typeof KNOWN_OPTIONS> = {
  ntrials: "trials",
  trial: "trials",
  numrepetitions: "trials",
  trialcount: "trials",
  repetitions: "trials",
  maxconcurrency: "concurrency",
  data: "dataset",
  examples: "dataset",
  rows: "dataset",
  scorer: "scorers",
  scores: "scorers",
  evaluators: "scorers",
  target: "task",
  predict: "task",
  fn: "task",
  evaluationname: "name",
  experimentname: "name",
};

export function validate<R extends Row, O>(options: EvaluateOptions<R, O>): void {
  if (options === null || typeof options !== "object")
    throw new ValidationError("evaluate() takes an options object: { name, dataset, task, scorers }.", "options");
  refuseUnknownOptions("evaluate()", options, KNOWN_OPTIONS, OTHER_NAMES);
  if (typeof options.name !== "string" || options.name.trim() === "")
    throw new ValidationError("evaluate(): name must be a non-empty string (the evaluation's name).", "name");
  if (options.dataset === undefined || options.dataset === null)
    throw new ValidationError("evaluate(): dataset is required (rows, a JSONL path, a dataset ref).", "dataset");
  if (options.resume !== undefined && typeof options.resume !== "string" && typeof options.resume !== "boolean")
    throw new ValidationError("evaluate(): resume must be a call id or true.", "resume");
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw new ValidationError("evaluate(): signal must be an AbortSignal.", "signal");
}
