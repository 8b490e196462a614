/**
 * The row loop: each row × trial is one `Evaluation.predict_and_score` call holding the model's call and one call
 * per scorer. Rows in flight are bounded (task runs by `concurrency.task`, scorer runs by `concurrency.scorers`);
 * the task and the scorers are retried on rate limits and server errors (retry.ts). A task that throws marks its
 * row failed and the run goes on; a scorer that throws scores null and is reported once. Cancelling ends every
 * open call as cancelled at once (the user's promises are left to settle on their own) and keeps what was scored.
 */
import type { JsonObject } from "../api/types/common.js";
import { describeError } from "../otel/diagnostics.js";
import type { ActiveProcessor } from "../otel/state.js";
import { preparePayload } from "../tracing/payload.js";
import { asObject, scoreValue } from "./content.js";
import type { PublishedRow } from "./dataset.js";
import { type EvalCall, type Recorder, type ScoreFeedback, within } from "./recorder.js";
import type { Retrier } from "./retry.js";
import { asScore, type PreparedScorer } from "./scorers.js";
import type { Row, RowResult, RunContext, ScoreValue } from "./types.js";

/** A counting semaphore. */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** Thrown inside a row when the evaluation is cancelled. */
class Cancelled extends Error {}

/** `promise`, or a rejection with {@link Cancelled} as soon as `signal` aborts (the promise is left to settle). */
function unlessCancelled<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(new Cancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Cancelled());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/** One row × trial to run. */
export interface WorkItem<R extends Row> {
  row: PublishedRow<R>;
  trial: number;
}

/** What the loop needs. */
export interface RunPlan<R extends Row> {
  recorder: Recorder;
  processor: ActiveProcessor;
  root: EvalCall;
  refs: { evaluation: string; model: string; predict: string; predictAndScore: string };
  scorers: PreparedScorer[];
  task: (row: R, context: RunContext) => unknown;
  taskName: string;
  concurrency: { task: number; scorers: number };
  retrier: Retrier;
  feedback: ScoreFeedback;
  signal: AbortSignal;
  /** Each finished row × trial (ok, failed or cancelled). */
  onRow?: (result: RowResult<R>) => void;
  /** A scorer's first error. */
  onScorerError?: (scorer: string, err: unknown) => void;
}

/** JSON of `value` as an input or output payload (redacted; undefined when content capture is off). */
function payload(value: unknown, kind: "inputs" | "output", opName: string): unknown {
  return preparePayload(value, kind, opName);
}

/** Runs every item; resolves with one result per item, in item order. */
export async function runItems<R extends Row>(plan: RunPlan<R>, items: WorkItem<R>[]): Promise<RowResult<R>[]> {
  const taskSlots = new Slots(plan.concurrency.task);
  const scorerSlots = new Slots(plan.concurrency.scorers);
  const inFlight = new Slots(plan.concurrency.task + plan.concurrency.scorers);
  const results: RowResult<R>[] = new Array(items.length);
  const running: Promise<void>[] = [];
  const pacer = new Pacer(plan.processor);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    await inFlight.acquire();
    await pacer.pace();
    if (plan.signal.aborted) {
      inFlight.release();
      results[i] = cancelledResult(item);
      continue;
    }
    running.push(
      runItem(plan, item, taskSlots, scorerSlots).then((result) => {
        inFlight.release();
        results[i] = result;
        plan.onRow?.(result);
      }),
    );
  }
  await Promise.all(running);
  return results;
}

/**
 * Backpressure: a row adds a dozen call items, faster than a slow service may take them. When the native route's
 * queue is half full, wait for it to drain (the rows in flight go on) rather than overflow it and drop calls. A flush
 * that ends at its deadline with the queue still half full means the service is not taking calls (down, or never
 * answering): waiting a deadline before every further row would stretch the run to rows × 30 s, so the rows go on
 * unpaced until the queue drains again; what overflows meanwhile is counted and reported (`eval-dropped`: resume
 * records it).
 */
class Pacer {
  private stalled = false;

  constructor(private readonly processor: ActiveProcessor) {}

  async pace(): Promise<void> {
    const half = (b: { queued: number; capacity: number } | undefined) => b !== undefined && b.queued >= b.capacity / 2;
    if (!half(this.processor.callsBacklog?.())) {
      this.stalled = false;
      return;
    }
    if (this.stalled) return;
    await this.processor.forceFlush();
    this.stalled = half(this.processor.callsBacklog?.());
  }
}

function cancelledResult<R extends Row>(item: WorkItem<R>): RowResult<R> {
  return {
    index: item.row.index,
    trial: item.trial,
    row: item.row.row,
    rowDigest: item.row.digest,
    rowRef: item.row.ref,
    output: undefined,
    scores: {},
    status: "cancelled",
    retries: 0,
  };
}

async function runItem<R extends Row>(
  plan: RunPlan<R>,
  item: WorkItem<R>,
  taskSlots: Slots,
  scorerSlots: Slots,
): Promise<RowResult<R>> {
  const { recorder, refs, signal } = plan;
  const { row, trial } = item;
  const result: RowResult<R> = cancelledResult(item);
  await taskSlots.acquire();
  let taskSlotHeld = true;
  const releaseTask = () => {
    if (taskSlotHeld) taskSlots.release();
    taskSlotHeld = false;
  };
  if (signal.aborted) {
    releaseTask();
    return result;
  }
  const open: EvalCall[] = [];
  const pas = recorder.start(plan.root, {
    opName: refs.predictAndScore,
    inputs: { self: refs.evaluation, model: refs.model, example: row.ref },
    attributes: { tracewire: { eval: { trial, row: row.index } } },
  });
  open.push(pas);
  result.callId = pas.id;
  const context: RunContext = { trial, index: row.index, signal };
  const rowInputs = asObject(payload(row.row, "inputs", plan.taskName));
  try {
    // The model's call: the task, retried on rate limits; only the successful attempt is timed.
    const model = recorder.start(pas, { opName: refs.predict, inputs: { self: refs.model, ...rowInputs } });
    open.push(model);
    let output: unknown;
    let outputJson: unknown = null;
    try {
      const attempted = await unlessCancelled(
        plan.retrier.run(() => within(model, () => Promise.resolve(plan.task(row.row, context)))),
        signal,
      );
      output = attempted.value;
      result.latency = attempted.seconds;
      result.retries = attempted.retries;
      outputJson = payload(output, "output", plan.taskName) ?? null;
      model.end({ output: outputJson });
    } catch (err) {
      if (err instanceof Cancelled) throw err;
      model.end({ error: err });
      releaseTask();
      result.status = "failed";
      result.error = describeError(err);
      pas.end({ output: { output: null, scores: {}, model_latency: null } });
      return result;
    }
    releaseTask();
    result.output = output as never;

    const scores: Record<string, ScoreValue | null> = {};
    // As recorded: the scorer's call output, its feedback, the row's scores (redacted; content.ts `scoreValue`).
    const recorded: JsonObject = {};
    await Promise.all(
      plan.scorers.map(async (scorer) => {
        await scorerSlots.acquire();
        let call: EvalCall | undefined;
        try {
          if (signal.aborted) throw new Cancelled();
          const inputs: JsonObject = { ...rowInputs, output: outputJson as JsonObject[string] };
          if (scorer.selfRef) inputs.self = scorer.selfRef;
          call = recorder.start(pas, {
            opName: scorer.opRef,
            inputs,
            attributes: { _weave_eval_meta: { score: true } },
          });
          open.push(call);
          const scored = call;
          try {
            const attempted = await unlessCancelled(
              plan.retrier.run(() =>
                within(scored, () => Promise.resolve(scorer.score({ output, row: row.row, ...context }))),
              ),
              signal,
            );
            const value = asScore(attempted.value, scorer.name);
            const json = scoreValue(value, scorer.name);
            scored.end({ output: json });
            scores[scorer.name] = value;
            recorded[scorer.name] = json;
            plan.feedback.add(model, scorer.name, scorer.ref, scored, json);
          } catch (err) {
            if (err instanceof Cancelled) throw err;
            scored.end({ error: err });
            scores[scorer.name] = null;
            plan.onScorerError?.(scorer.name, err);
          }
        } finally {
          scorerSlots.release();
        }
      }),
    );
    // Scores in the scorers' order, whatever order they finished in.
    for (const scorer of plan.scorers) result.scores[scorer.name] = scores[scorer.name] ?? null;
    pas.end({
      output: {
        output: outputJson as JsonObject[string],
        // Scores are verdicts, not content: kept when content capture is off, redacted as the scorers' outputs are.
        scores: Object.fromEntries(plan.scorers.map((s) => [s.name, recorded[s.name] ?? null])),
        model_latency: result.latency ?? null,
      },
    });
    result.status = "ok";
    return result;
  } catch (err) {
    releaseTask();
    if (!(err instanceof Cancelled)) {
      // An internal failure: the row ends as failed, the evaluation goes on.
      for (const call of open.reverse()) call.end({ error: err });
      result.status = "failed";
      result.error = describeError(err);
      return result;
    }
    for (const call of open.reverse()) call.end({ cancelled: "abort" });
    result.status = "cancelled";
    result.scores = {};
    result.output = undefined;
    return result;
  }
}
