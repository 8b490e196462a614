/**
 * `tracewire/eval/vitest`: a test file is an evaluation. `describeEval(name, options, body)` is a vitest
 * `describe` whose tests are its rows: `evalTest(name, inputs, fn)` one row, `evalTest.each(rows)(name, fn)` one row
 * per item (names formatted as vitest's `test.for` does, `$field`). Each test runs inside its row's model call, so
 * the LLM calls it makes are recorded under it; `logOutput` and `logScore` (from anywhere inside the test) record
 * the row's output and scores; a test's pass or fail is the `passed` score. Thresholds are a last test that asserts
 * them. `vitest run` records the evaluation in the service the environment names (`TRACEWIRE_*`); without one, the
 * tests still run and the thresholds are still checked, with one warning.
 *
 * `vitest` is an optional peer of this entry only: nothing else in tracewire loads it.
 *
 * @module tracewire/eval/vitest
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { afterAll, describe, expect, test } from "vitest";
import type { JsonObject } from "../api/types/common.js";
import { refuseUnknownOptions } from "../config.js";
import { ConfigError, TracewireError, ValidationError } from "../errors.js";
import { describeError } from "../otel/diagnostics.js";
import { EvaluationLogger, type LivePrediction } from "./logger.js";
import { checkScore } from "./scorers.js";
import { headline, summarizeEvaluation } from "./summary.js";
import type { Row, ScoreValue } from "./types.js";

/** Options of {@link describeEval}. */
export interface DescribeEvalOptions {
  /** The model's name (or `{ name, …attributes }`) recorded on the Model object. Default `Model`. */
  model?: string | ({ name: string } & Record<string, unknown>);
  /** Recorded as the Evaluation object's `description`. */
  description?: string;
  /** Minimum per score (`scorer` or `scorer.key`: its mean or true fraction), asserted by a last test. */
  thresholds?: Record<string, number>;
  /** Name of the score a test's pass or fail is recorded as; `false` to leave it out. Default `passed`. */
  passScore?: string | false;
}

/** Every option of {@link DescribeEvalOptions}: one it does not read is refused, not ignored. */
const DESCRIBE_OPTIONS = {
  model: true,
  description: true,
  thresholds: true,
  passScore: true,
} as const satisfies Record<keyof DescribeEvalOptions, true>;

/** Helpers a test gets as its second argument (the same as the module's `logOutput` and `logScore`). */
export interface EvalTestContext {
  /** Records this test's output (default: what the test function returns). */
  logOutput(output: unknown): void;
  /** Records a score of this test's row (a number, a boolean, an object of those, or null). */
  logScore(name: string, value: ScoreValue | null): void;
}

interface RowState {
  output: unknown;
  hasOutput: boolean;
  scores: { name: string; value: ScoreValue | null }[];
}

interface Suite {
  name: string;
  options: DescribeEvalOptions;
  rows: Row[];
  logger: EvaluationLogger | undefined;
  /** Every finished test's scores, for the thresholds (computed here whether or not the service records). */
  finished: { output: unknown; scores: Record<string, ScoreValue | null>; latency: number | undefined }[];
  scorerNames: string[];
  summary: Promise<JsonObject> | undefined;
  /** Set once recording failed or stalled: the remaining rows run unrecorded. */
  offline: boolean;
}

const current = new AsyncLocalStorage<RowState>();
const suites = new AsyncLocalStorage<Suite>();
let activeSuite: Suite | undefined;
let warnedOffline = false;

function rowState(what: string): RowState {
  const state = current.getStore();
  if (!state) throw new TracewireError(`${what}() runs inside an evalTest of a describeEval block.`);
  return state;
}

/** Records the current test's output (default: what the test function returns). */
export function logOutput(output: unknown): void {
  const state = rowState("logOutput");
  state.output = output;
  state.hasOutput = true;
}

/** Records a score of the current test's row (a number, a boolean, an object of those, or null). */
export function logScore(name: string, value: ScoreValue | null): void {
  if (typeof name !== "string" || name.trim() === "")
    throw new ValidationError("logScore(name, value): name must be a non-empty string.", "name");
  const score = checkScore(value, `logScore(${JSON.stringify(name)}, value): value is`, "value");
  rowState("logScore").scores.push({ name, value: score });
}

/**
 * How long a row waits for its calls to be set up on the service (the first row: the evaluation's objects published)
 * before it runs unrecorded; and how long the summary is waited for. A test's own timeout is 5 s by default: a tracing
 * service that is down or never answers must not turn the user's tests red.
 */
const BEGIN_WAIT_MS = 2_000;
const SUMMARY_WAIT_MS = 4_000;

/** Whether `promise` settled within `ms` (its value or its error), or undefined when it did not. */
async function settledWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown } | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function warnNotRecorded(reason: string): void {
  if (warnedOffline) return;
  warnedOffline = true;
  console.warn(`[tracewire] describeEval: not recorded (${reason}); the tests and thresholds still run.`);
}

/** The row's live prediction, or undefined (it runs unrecorded) when the service failed or did not answer in time. */
async function beginRow(suite: Suite, inputs: Row): Promise<LivePrediction | undefined> {
  suite.logger ??= openLogger(suite);
  if (!suite.logger || suite.offline) return undefined;
  const begun = suite.logger.begin(inputs);
  const outcome = await settledWithin(begun, BEGIN_WAIT_MS);
  if (outcome?.ok) return outcome.value;
  suite.offline = true;
  // A prediction that opens after all is ended at once: no call is left open on the service.
  begun.then(
    (late) => late.end(undefined, new Error("not recorded: the tracing service answered too late")),
    () => {},
  );
  warnNotRecorded(
    outcome
      ? `the tracing service failed: ${describeError(outcome.error)}`
      : `the tracing service did not answer within ${BEGIN_WAIT_MS / 1000} s`,
  );
  return undefined;
}

function openLogger(suite: Suite): EvaluationLogger | undefined {
  try {
    return new EvaluationLogger({
      name: suite.name,
      dataset: suite.rows,
      ...(suite.options.model === undefined ? {} : { model: suite.options.model }),
      ...(suite.options.description === undefined ? {} : { description: suite.options.description }),
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    warnNotRecorded(err.message);
    return undefined;
  }
}

/** Runs one row: inside its model call when recorded, collecting its output and scores. */
async function runRow(suite: Suite, inputs: Row, fn: (context: EvalTestContext) => unknown): Promise<void> {
  const state: RowState = { output: undefined, hasOutput: false, scores: [] };
  const live = await beginRow(suite, inputs);
  const helpers: EvalTestContext = {
    logOutput: (output) => current.run(state, () => logOutput(output)),
    logScore: (name, value) => current.run(state, () => logScore(name, value)),
  };
  const started = performance.now();
  let error: unknown;
  let returned: unknown;
  try {
    returned = await current.run(state, () => (live ? live.run(() => fn(helpers)) : fn(helpers)));
  } catch (err) {
    error = err;
  }
  const latency = (performance.now() - started) / 1000;
  const output = state.hasOutput ? state.output : returned;
  const pass = suite.options.passScore ?? "passed";
  if (pass !== false) state.scores.push({ name: pass, value: error === undefined });
  if (live) {
    for (const s of state.scores) live.prediction.logScore(s.name, s.value);
    live.end(output, error);
  }
  for (const s of state.scores) if (!suite.scorerNames.includes(s.name)) suite.scorerNames.push(s.name);
  suite.finished.push({
    output: error === undefined ? output : null,
    scores: Object.fromEntries(state.scores.map((s) => [s.name, s.value])),
    latency: error === undefined ? latency : undefined,
  });
  if (error !== undefined) throw error;
}

function suiteOf(what: string): Suite {
  const suite = suites.getStore() ?? activeSuite;
  if (!suite) throw new TracewireError(`${what} belongs inside a describeEval(name, options, body) block.`);
  return suite;
}

type TestBody<A> = (inputs: A, context: EvalTestContext) => unknown;

/** One row: a test named `name` whose inputs (the dataset row) are `inputs`. */
function evalTestOne<A extends Row>(name: string, inputs: A, fn: TestBody<A>, timeout?: number): void {
  const suite = suiteOf("evalTest");
  suite.rows.push(inputs);
  test(name, timeout === undefined ? {} : { timeout }, () => runRow(suite, inputs, (ctx) => fn(inputs, ctx)));
}

/** One row per item of `rows`: `evalTest.each(rows)("capital of $country", async (row, { logScore }) => …)`. */
function evalTestEach<A extends Row>(rows: readonly A[]) {
  return (name: string, fn: TestBody<A>, timeout?: number): void => {
    const suite = suiteOf("evalTest.each");
    if (!Array.isArray(rows) || rows.some((r) => r === null || typeof r !== "object" || Array.isArray(r)))
      throw new ValidationError("evalTest.each(rows): rows must be an array of objects (the dataset's rows).", "rows");
    suite.rows.push(...rows);
    test.for(rows)(name, timeout === undefined ? {} : { timeout }, (row) => runRow(suite, row, (ctx) => fn(row, ctx)));
  };
}

/** A test that is a row of the enclosing `describeEval`'s evaluation. */
export const evalTest: typeof evalTestOne & { each: typeof evalTestEach } = Object.assign(evalTestOne, {
  each: evalTestEach,
});

/**
 * A `describe` block that is one evaluation named `name`: its `evalTest`s are the rows. The evaluation is
 * recorded when the block's tests have run; `thresholds` are asserted by a last test named `thresholds`.
 */
export function describeEval(name: string, options: DescribeEvalOptions, body: () => void): void;
export function describeEval(name: string, body: () => void): void;
export function describeEval(
  name: string,
  optionsOrBody: DescribeEvalOptions | (() => void),
  maybeBody?: () => void,
): void {
  const options = typeof optionsOrBody === "function" ? {} : optionsOrBody;
  const body = typeof optionsOrBody === "function" ? optionsOrBody : maybeBody;
  if (typeof name !== "string" || name.trim() === "" || typeof body !== "function")
    throw new ValidationError("describeEval(name, options?, body): a name and a body function are required.", "name");
  refuseUnknownOptions("describeEval()", options, DESCRIBE_OPTIONS);
  const suite: Suite = {
    name,
    options,
    rows: [],
    logger: undefined,
    finished: [],
    scorerNames: [],
    summary: undefined,
    offline: false,
  };
  const finish = () => {
    suite.summary ??= (async () => {
      const local = summarizeEvaluation(
        suite.finished,
        suite.scorerNames.map((n) => ({ name: n })),
      );
      delete local.output;
      if (!suite.logger || suite.offline) return local;
      // The thresholds are checked either way: on the recorded summary, or on the same one computed here.
      const logged = await settledWithin(suite.logger.logSummary(), SUMMARY_WAIT_MS);
      if (logged?.ok) return logged.value.summary;
      warnNotRecorded(
        logged
          ? `the summary could not be recorded: ${describeError(logged.error)}`
          : `the tracing service did not take the summary within ${SUMMARY_WAIT_MS / 1000} s`,
      );
      return local;
    })();
    return suite.summary;
  };
  describe(name, () => {
    activeSuite = suite;
    try {
      suites.run(suite, body);
    } finally {
      activeSuite = undefined;
    }
    const thresholds = Object.entries(options.thresholds ?? {});
    if (thresholds.length > 0) {
      test("thresholds", async () => {
        const summary = await finish();
        for (const [key, min] of thresholds) {
          const value = headline(summary, key);
          expect(value, `${name}: ${key} (mean or true fraction) is at least ${min}`).toBeGreaterThanOrEqual(min);
        }
      });
    }
    afterAll(async () => {
      await finish();
    });
  });
}
