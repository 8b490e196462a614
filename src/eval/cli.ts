/**
 * `tracewire eval <file…>`: runs the evaluations a file defines (its default export: the options of one
 * `evaluate()` call, an array of them, or a function returning either) against the service the environment names
 * (`TRACEWIRE_BASE_URL`, `TRACEWIRE_PROJECT`, `TRACEWIRE_API_KEY`), prints the summary, and exits non-zero when a
 * threshold fails or a score regresses against a baseline. Loaded by the bin only for this command, so the local
 * service's code stays out of its way.
 *
 * Exit codes: 0 every check passed · 1 a threshold failed or a score regressed · 2 bad arguments, a file that
 * cannot be loaded or a bad setting · 3 an evaluation could not run (the service refused, an internal error) ·
 * 130 interrupted (Ctrl-C: what was scored is kept; `--resume` continues it).
 */
import { setMaxListeners } from "node:events";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { JsonObject } from "../api/types/common.js";
import { ConfigError, ValidationError } from "../errors.js";
import { describeError } from "../otel/diagnostics.js";
import { init } from "../tracing/init.js";
import { type SerializeOptions, serialize } from "../tracing/serialize.js";
import {
  type BaselineComparison,
  checkThresholds,
  compareWithBaseline,
  formatChecks,
  parseThreshold,
  type ThresholdCheck,
} from "./ci.js";
import { evaluate } from "./evaluate.js";
import { formatReport } from "./progress.js";
import { openSession } from "./session.js";
import type { EvaluateOptions, EvaluationResult, Row } from "./types.js";

export const EVAL_USAGE = `Usage: tracewire eval <file…> [--fail-under scorer=0.8]… [--baseline <call id|name>] [--json] [--resume]

Runs the evaluations each file defines: its default export is the options of one evaluate() call, an array of
them, or a function returning either. Files: .mjs, .js, and .ts where Node strips types (Node 22.18+ or 24 as is,
22.6+ with NODE_OPTIONS=--experimental-strip-types; Node 20 cannot: compile to .mjs first).

Records into the service the environment names: TRACEWIRE_BASE_URL, TRACEWIRE_PROJECT, TRACEWIRE_API_KEY
(\`npx tracewire dev\` starts a local one).

Options:
  --fail-under scorer=N   fail when a score's mean (or true fraction) is below N; repeatable, \`scorer.key\` for
                          a key of an object scorer; adds to the \`thresholds\` in the options
  --baseline <id|name>    compare with an earlier evaluation (its root call id, or an evaluation name: its latest
                          finished run); fail when a score drops by more than --tolerance
  --tolerance N           how far a score may drop below the baseline (default 0)
  --json                  print the results as JSON on stdout (the report goes to stderr)
  --resume                continue the latest unfinished run of each evaluation instead of starting anew
  --trials N              override the trials of every evaluation
  --concurrency N         override the task concurrency of every evaluation
  --quiet                 no progress lines
  -h, --help              show this help

Exit codes: 0 passed · 1 a threshold failed or a score regressed · 2 bad arguments or file · 3 an evaluation
could not run · 130 interrupted (what was scored is kept: --resume continues it)
`;

type AnyOptions = EvaluateOptions<Row, unknown>;

/** What one evaluation of the command came to. */
interface Outcome {
  file: string;
  result?: EvaluationResult;
  error?: string;
  thresholds: ThresholdCheck[];
  baseline?: BaselineComparison;
  passed: boolean;
}

function usageError(message: string, err: (t: string) => void): number {
  err(`tracewire eval: ${message}\n\n${EVAL_USAGE}`);
  return 2;
}

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new ValidationError(`${flag} must be a whole number of at least 1, got ${value}.`, flag);
  return n;
}

/** Loads a file's evaluations; a `.ts` file this Node cannot run gets a message saying which Node can. */
async function load(file: string): Promise<AnyOptions[]> {
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ERR_UNKNOWN_FILE_EXTENSION" && /\.[cm]?ts$/.test(file)) {
      throw new ConfigError(
        `the file ${file}`,
        `a TypeScript file on Node ${process.versions.node}`,
        "a .mjs/.js file, or Node 22.18+ / 24 (22.6+ with NODE_OPTIONS=--experimental-strip-types), which run .ts files",
      );
    }
    if (code === "ERR_MODULE_NOT_FOUND" && String((err as Error).message).includes(resolve(file)))
      throw new ConfigError(`the file ${file}`, "a path that does not exist", "a file that exists");
    throw err;
  }
  let value = module.default;
  if (typeof value === "function") value = await (value as () => unknown)();
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || list.some((o) => o === null || typeof o !== "object")) {
    throw new ConfigError(
      `the default export of ${file}`,
      value === undefined ? undefined : Array.isArray(value) ? "an array with a non-object" : typeof value,
      "the options of an evaluate() call ({ name, dataset, task, scorers }), an array of them, or a function returning either",
    );
  }
  return list as AnyOptions[];
}

/** Runs the command; resolves with the exit code. `argv` is what follows `eval`. */
export async function runEvalCommand(
  argv: string[],
  io: { out: (t: string) => void; err: (t: string) => void } = {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
  },
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof FLAGS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: FLAGS, allowPositionals: true });
  } catch (err) {
    return usageError((err as Error).message, io.err);
  }
  const { values, positionals: files } = parsed;
  if (values.help) {
    io.out(EVAL_USAGE);
    return 0;
  }
  if (files.length === 0) return usageError("which file? (tracewire eval evals/quality.mjs)", io.err);
  let thresholds: Record<string, number>;
  let trials: number | undefined;
  let concurrency: number | undefined;
  let tolerance = 0;
  try {
    thresholds = Object.fromEntries((values["fail-under"] ?? []).map(parseThreshold));
    trials = positive(values.trials, "--trials");
    concurrency = positive(values.concurrency, "--concurrency");
    if (values.tolerance !== undefined) {
      tolerance = Number(values.tolerance);
      if (!(tolerance >= 0))
        throw new ValidationError(`--tolerance must be a number ≥ 0, got ${values.tolerance}.`, "tolerance");
    }
  } catch (err) {
    return usageError((err as Error).message, io.err);
  }
  const report = values.json ? io.err : io.out;

  // Tracing from the environment; the files' own init() calls get this same handle.
  let tracing: ReturnType<typeof init>;
  try {
    tracing = init();
  } catch (err) {
    io.err(`tracewire eval: ${(err as Error).message}\n`);
    return 2;
  }
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130); // a second Ctrl+C: do not wait
    interrupted = true;
    io.err("\ninterrupted: ending the open calls as cancelled (Ctrl+C again to quit now)…\n");
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const outcomes: Outcome[] = [];
  let code = 0;
  try {
    for (const file of files) {
      let list: AnyOptions[];
      try {
        list = await load(file);
      } catch (err) {
        io.err(
          `tracewire eval: cannot load ${file}: ${err instanceof ConfigError ? err.message : describeError(err)}\n`,
        );
        code = Math.max(code, 2);
        continue;
      }
      for (const options of list) {
        if (controller.signal.aborted) break;
        const outcome = await runOne(file, options, {
          thresholds,
          trials,
          concurrency,
          tolerance,
          values,
          signal: controller.signal,
          report,
        });
        outcomes.push(outcome);
        if (outcome.error) code = Math.max(code, outcome.error.startsWith("bad options") ? 2 : 3);
        else if (!outcome.passed && code === 0) code = 1;
      }
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await tracing.shutdown();
  }
  if (values.json) io.out(`${JSON.stringify(serialize(toJson(outcomes, interrupted), JSON_OUTPUT), null, 2)}\n`);
  if (interrupted) {
    report("interrupted: run again with --resume to score the rest.\n");
    return 130;
  }
  return code;
}

/**
 * `--json` goes through the serializer, not straight to `JSON.stringify`: a scorer's own `summarize` may return a
 * BigInt (written as its decimal string) or a cycle (`"[Circular]"`). Its limits are lifted so a big run's rows are
 * all written; credential-like keys stay masked, as in every other line tracewire prints.
 */
const JSON_OUTPUT: SerializeOptions = Object.freeze({
  maxItems: Number.MAX_SAFE_INTEGER,
  maxBytes: Number.MAX_SAFE_INTEGER,
  maxStringLength: Number.MAX_SAFE_INTEGER,
});

const FLAGS = {
  "fail-under": { type: "string", multiple: true },
  baseline: { type: "string" },
  tolerance: { type: "string" },
  json: { type: "boolean" },
  resume: { type: "boolean" },
  trials: { type: "string" },
  concurrency: { type: "string" },
  quiet: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

async function runOne(
  file: string,
  options: AnyOptions,
  run: {
    thresholds: Record<string, number>;
    trials: number | undefined;
    concurrency: number | undefined;
    tolerance: number;
    values: { baseline?: string; resume?: boolean; quiet?: boolean };
    signal: AbortSignal;
    report: (t: string) => void;
  },
): Promise<Outcome> {
  const merged: AnyOptions = {
    ...options,
    signal: run.signal,
    progress: run.values.quiet ? false : (options.progress ?? "auto"),
    ...(run.trials === undefined ? {} : { trials: run.trials }),
    ...(run.concurrency === undefined ? {} : { concurrency: run.concurrency }),
    ...(run.values.resume ? { resume: true } : {}),
  };
  let result: EvaluationResult;
  try {
    result = (await evaluate(merged, { table: false })) as EvaluationResult;
  } catch (err) {
    const bad = err instanceof ValidationError || err instanceof ConfigError;
    const message = `${bad ? "bad options: " : ""}${err instanceof Error ? err.message : describeError(err)}`;
    run.report(`${String(options?.name ?? file)}: ${message}\n`);
    return { file, error: message, thresholds: [], passed: false };
  }
  const checks = checkThresholds(result.summary as JsonObject, { ...(options.thresholds ?? {}), ...run.thresholds });
  let baseline: BaselineComparison | undefined;
  if (run.values.baseline && !result.cancelled) {
    const session = openSession("the comparison");
    try {
      baseline = await compareWithBaseline(
        session.client,
        session.service.project,
        result,
        run.values.baseline,
        run.tolerance,
      );
    } catch (err) {
      run.report(`${result.name}: ${(err as Error).message}\n`);
      return { file, result, error: `bad options: ${(err as Error).message}`, thresholds: checks, passed: false };
    } finally {
      await session.close();
    }
  }
  run.report(formatReport(result) + formatChecks(checks, baseline));
  const passed = !result.cancelled && checks.every((c) => c.passed) && !baseline?.regressed;
  return { file, result, thresholds: checks, ...(baseline ? { baseline } : {}), passed };
}

function toJson(outcomes: Outcome[], interrupted: boolean) {
  return {
    passed: !interrupted && outcomes.length > 0 && outcomes.every((o) => o.passed),
    interrupted,
    evaluations: outcomes.map((o) => ({
      file: o.file,
      passed: o.passed,
      ...(o.error ? { error: o.error } : {}),
      ...(o.result
        ? {
            name: o.result.name,
            callId: o.result.callId,
            url: o.result.url ?? null,
            cancelled: o.result.cancelled,
            summary: o.result.summary,
            stats: o.result.stats,
            counts: o.result.counts,
            scorerErrors: o.result.scorerErrors,
          }
        : {}),
      thresholds: o.thresholds,
      ...(o.baseline ? { baseline: o.baseline } : {}),
    })),
  };
}
