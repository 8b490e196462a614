/**
 * `evaluate(options)`: publishes the evaluation's objects, records the call tree the service's UI reads (root
 * `Evaluation.evaluate` → one `Evaluation.predict_and_score` per row × trial → the model's call and a call per
 * scorer; then `Evaluation.summarize`), and resolves to the summary, every row, statistics and the link.
 * With `resume`, only the rows × trials not yet scored run, under the same root call, which is ended again with
 * the summary of all rows.
 */
import { setMaxListeners } from "node:events";
import type { JsonObject, LlmUsage } from "../api/types/common.js";
import { ValidationError } from "../errors.js";
import { describeError } from "../otel/diagnostics.js";
import { currentAttributes } from "../tracing/context.js";
import { summaryValue } from "./content.js";
import { type LoadedDataset, loadDataset, type PublishedDataset, publishDataset } from "./dataset.js";
import {
  EVALUATE_OP,
  evaluationValue,
  modelValue,
  objectFields,
  PREDICT_AND_SCORE_OP,
  pickAttributes,
  SUMMARIZE_OP,
  safeName,
  sourceOf,
} from "./objects.js";
import {
  DEFAULT_CONCURRENCY,
  defaultDisplayName,
  positiveInt,
  resolveConcurrency,
  resolveTask,
  validate,
} from "./options.js";
import { Progress } from "./progress.js";
import {
  addUsage,
  checkResumable,
  findEvaluation,
  isFinished,
  type RecordedEvaluation,
  readCall,
  readEvaluation,
} from "./read-back.js";
import { type EvalCall, Recorder, ScoreFeedback } from "./recorder.js";
import { Retrier, resolveRetry } from "./retry.js";
import { runItems, type WorkItem } from "./runner.js";
import { publishScorers, specifyScorers } from "./scorers.js";
import { type EvalSession, evaluationUrl, openSession } from "./session.js";
import { scoreStatistics, summarizeEvaluation } from "./summary.js";
import type { EvaluateOptions, EvaluationResult, Row, RowResult, RunContext, Scorer } from "./types.js";

/** Everything published before the run. */
interface Published<R extends Row> {
  dataset: PublishedDataset<R>;
  refs: {
    evaluation: string;
    model: string;
    predict: string;
    predictAndScore: string;
    evaluate: string;
    summarize: string;
  };
  scorers: Awaited<ReturnType<typeof publishScorers>>;
}

async function publish<R extends Row, O>(
  session: EvalSession,
  options: EvaluateOptions<R, O>,
  loaded: LoadedDataset<R>,
  task: ReturnType<typeof resolveTask<R, O>>,
  trials: number,
): Promise<Published<R>> {
  const { publisher } = session;
  const capture = options.captureCode !== false;
  const name = safeName(options.name, "evaluation");
  const specs = specifyScorers(options.scorers as Scorer<Row, unknown>[] | undefined);
  // Objects and ops share one namespace: a model named like the evaluation or a scorer gets a suffix.
  const taken = new Set([name, loaded.name, ...specs.map((s) => s.name)]);
  const modelName = taken.has(task.name) ? `${task.name}-model` : task.name;
  const [dataset, evaluateRef, predictAndScoreRef, summarizeRef, predictRef, scorers] = await Promise.all([
    publishDataset(loaded, publisher, task.name),
    publisher.ownOp(EVALUATE_OP),
    publisher.ownOp(PREDICT_AND_SCORE_OP),
    publisher.ownOp(SUMMARIZE_OP),
    publisher.op(`${modelName}.predict`, sourceOf(task.source, capture)),
    publishScorers(specs, publisher, capture),
  ]);
  const [model, evaluation] = await Promise.all([
    publisher.object(modelName, modelValue(modelName, predictRef, objectFields(task.attributes, modelName))),
    publisher.object(
      name,
      evaluationValue({
        name,
        description: options.description ?? null,
        datasetRef: dataset.ref,
        scorerRefs: scorers.map((s) => s.ref),
        trials,
        metadata: options.metadata ? objectFields(pickAttributes(options.metadata), name) : null,
        evaluateRef,
        predictAndScoreRef,
        summarizeRef,
      }),
    ),
  ]);
  return {
    dataset,
    scorers,
    refs: {
      evaluation,
      model,
      predict: predictRef,
      predictAndScore: predictAndScoreRef,
      evaluate: evaluateRef,
      summarize: summarizeRef,
    },
  };
}

/** The earlier run a `resume` continues, or undefined for a fresh start. */
async function priorRun(
  session: EvalSession,
  options: EvaluateOptions<Row, unknown>,
  refs: Published<Row>["refs"],
): Promise<RecordedEvaluation | undefined> {
  const { client, service } = session;
  if (!options.resume) return undefined;
  const root =
    options.resume === true
      ? await findEvaluation(client, service.project, safeName(options.name, "evaluation"), "unfinished")
      : await readCall(client, service.project, options.resume);
  if (!root) {
    if (options.resume !== true)
      throw new ValidationError(`resume: there is no call ${options.resume} in ${service.project}.`, "resume");
    return undefined; // nothing unfinished: a fresh evaluation
  }
  checkResumable(root, refs.evaluation, refs.model);
  return readEvaluation(client, service.project, root);
}

export { DEFAULT_CONCURRENCY };

/**
 * Runs an evaluation and records it in the tracing service (the one `init()` or the environment names). See
 * docs/evaluations.md for the options and what is recorded.
 */
export async function evaluate<R extends Row, O>(
  options: EvaluateOptions<R, O>,
  internal: { table?: boolean } = {},
): Promise<EvaluationResult<R, O>> {
  validate(options);
  const trials = options.trials === undefined ? 1 : positiveInt(options.trials, "trials");
  const concurrency = resolveConcurrency(options.concurrency);
  const retry = resolveRetry(options.retry);
  const task = resolveTask(options);
  const session = openSession("the evaluation");
  const { processor, service } = session;
  // Our own signal: the user's, plus nothing else (kept separate so listeners are ours to remove).
  const controller = new AbortController();
  // Every row in flight listens for cancellation while it waits on the task or a scorer.
  setMaxListeners(0, controller.signal);
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const loaded = await loadDataset(options.dataset, options.name, session.publisher);
    const published = await publish(session, options as EvaluateOptions<R, O>, loaded, task, trials);
    const prior = await priorRun(session, options as EvaluateOptions<Row, unknown>, published.refs as never);
    return await run(
      session,
      options,
      published,
      prior,
      { trials, concurrency, retry, task },
      controller.signal,
      internal,
    );
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    await processor.forceFlush().catch(() => {});
    await session.close();
    void service;
  }
}

async function run<R extends Row, O>(
  session: EvalSession,
  options: EvaluateOptions<R, O>,
  published: Published<R>,
  prior: RecordedEvaluation | undefined,
  settings: {
    trials: number;
    concurrency: { task: number; scorers: number };
    retry: ReturnType<typeof resolveRetry>;
    task: ReturnType<typeof resolveTask<R, O>>;
  },
  signal: AbortSignal,
  internal: { table?: boolean },
): Promise<EvaluationResult<R, O>> {
  const { processor, client, service } = session;
  const { refs, dataset, scorers } = published;
  const recorder = new Recorder(processor);
  const name = safeName(options.name, "evaluation");

  // What the earlier run scored stays; everything else under its root is replaced. A row that appears twice in
  // the dataset (one digest) keeps at most as many scored runs per trial as it has occurrences.
  const scored = new Map<string, RecordedEvaluation["rows"]>();
  for (const row of prior?.rows ?? []) {
    if (!row.scored) continue;
    const key = `${row.rowDigest}\u0000${row.trial}`;
    scored.set(key, [...(scored.get(key) ?? []), row]);
  }
  const kept: { recorded: RecordedEvaluation["rows"][number]; row: PublishedDataset<R>["rows"][number] }[] = [];
  const items: WorkItem<R>[] = [];
  for (let trial = 0; trial < settings.trials; trial++) {
    for (const row of dataset.rows) {
      const recorded = scored.get(`${row.digest}\u0000${trial}`)?.shift();
      if (recorded) kept.push({ recorded, row });
      else items.push({ row, trial });
    }
  }
  const keptIds = new Set(kept.map((k) => k.recorded.callId));
  const stale = (prior?.rows ?? []).filter((r) => !keptIds.has(r.callId)).map((r) => r.callId);
  const alreadyDone = prior && items.length === 0 && isFinished(prior.root) && stale.length === 0;
  if (prior && !alreadyDone && (stale.length || prior.summarizeIds.length)) {
    await client.calls.delete({ project_id: service.project, call_ids: [...stale, ...prior.summarizeIds] });
  }

  const progress = new Progress(name, items.length, options.progress !== false, process.stderr, kept.length);
  const feedback = new ScoreFeedback(processor);
  const retrier = new Retrier(settings.retry, signal);
  const scorerErrors: Record<string, string> = {};
  let root: EvalCall | undefined;
  if (!alreadyDone) {
    const attributes = { ...currentAttributes() };
    const rootData = {
      opName: refs.evaluate,
      inputs: { self: refs.evaluation, model: refs.model },
      attributes: prior ? (prior.root.attributes as JsonObject) : attributes,
      displayName: prior?.root.display_name ?? options.displayName ?? defaultDisplayName(options.name),
    };
    root = prior
      ? recorder.start(undefined, rootData, {
          ids: { traceId: prior.root.trace_id, spanId: prior.root.id },
          startTime: new Date(prior.root.started_at),
        })
      : recorder.start(undefined, rootData);
  }
  const callId = root?.id ?? prior!.root.id;
  const traceId = root?.traceId ?? prior!.root.trace_id;
  progress.start(`task concurrency ${settings.concurrency.task}, scorers ${settings.concurrency.scorers}`);

  const droppedBefore = processor.callsBacklog?.().dropped ?? 0;
  let fresh: RowResult<R>[] = [];
  if (root && items.length > 0) {
    fresh = await runItems<R>(
      {
        recorder,
        processor,
        root,
        refs,
        scorers,
        task: settings.task.fn as (row: R, context: RunContext) => unknown,
        taskName: settings.task.name,
        concurrency: settings.concurrency,
        retrier,
        feedback,
        signal,
        onRow: (result) => progress.row(result.status),
        onScorerError: (scorer, err) => {
          if (scorer in scorerErrors) return;
          scorerErrors[scorer] = describeError(err);
          processor.diagnostics.warn(
            `eval-scorer-${scorer}`,
            `Scorer ${scorer} threw (its score is null on that row; reported once): ${scorerErrors[scorer]}`,
          );
        },
      },
      items,
    );
  }
  for (let i = 0; i < retrier.retries; i++) progress.retry();
  const dropped = (processor.callsBacklog?.().dropped ?? 0) - droppedBefore;
  if (dropped > 0) {
    processor.diagnostics.warn(
      "eval-dropped",
      `${dropped} call item(s) were dropped while this evaluation ran (the tracing service did not keep up, or was unreachable); some of its rows may be missing on the service: resume it to record them again.`,
    );
  }

  // All rows × trials: the earlier run's, then this run's, in dataset order.
  const rows: RowResult<R, O>[] = kept.map(({ recorded, row }) => ({
    index: row.index,
    trial: recorded.trial,
    row: row.row,
    rowDigest: row.digest,
    rowRef: row.ref,
    output: recorded.output as O,
    scores: recorded.scores,
    status: "resumed" as const,
    ...(recorded.latency === undefined ? {} : { latency: recorded.latency }),
    retries: 0,
    callId: recorded.callId,
  }));
  rows.push(...(fresh as RowResult<R, O>[]));
  rows.sort((a, b) => a.index - b.index || a.trial - b.trial);

  const counted = rows.filter((r) => r.status !== "cancelled");
  const summary = summarizeEvaluation(
    counted.map((r) => ({
      output: r.status === "failed" ? null : r.output,
      scores: r.status === "failed" ? {} : r.scores,
      latency: r.latency,
    })),
    scorers,
    (scorer, err) =>
      processor.diagnostics.warn("eval-summarize", `summarize of ${scorer} threw: ${describeError(err)}`),
  );
  const cancelled = signal.aborted && rows.some((r) => r.status === "cancelled");
  await feedback.settle();
  if (root) {
    const usage: Record<string, LlmUsage> = {};
    for (const { recorded } of kept) addUsage(usage, recorded.usage);
    // The result keeps the whole summary; the service gets it redacted (content.ts `summaryValue`).
    const output = summaryValue(summary as JsonObject);
    if (cancelled) root.end({ output, cancelled: "abort", usage });
    else {
      const summarize = recorder.start(root, { opName: refs.summarize, inputs: { self: refs.evaluation } });
      summarize.end({ output });
      root.end({ output, usage });
    }
  }
  const counts = {
    rows: dataset.rows.length,
    trials: settings.trials,
    total: dataset.rows.length * settings.trials,
    ok: rows.filter((r) => r.status === "ok").length,
    failed: rows.filter((r) => r.status === "failed").length,
    cancelled: rows.filter((r) => r.status === "cancelled").length,
    resumed: rows.filter((r) => r.status === "resumed").length,
  };
  const { stats, spread } = scoreStatistics(
    counted.filter((r) => r.status !== "failed"),
    scorers.map((s) => s.name),
    settings.trials,
  );
  const result: EvaluationResult<R, O> = {
    name,
    callId,
    traceId,
    url: evaluationUrl(service.baseUrl, service.project, callId),
    summary,
    rows,
    stats,
    spread,
    counts,
    cancelled,
    scorerErrors,
    refs: {
      evaluation: refs.evaluation,
      dataset: dataset.ref,
      model: refs.model,
      scorers: Object.fromEntries(scorers.map((s) => [s.name, s.ref])),
    },
  };
  progress.finish(result as never, internal.table !== false);
  return result;
}
