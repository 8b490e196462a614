/**
 * `EvaluationLogger`: for teams that run their own loop — the TypeScript spelling of the vendor's Python logger.
 * `logPrediction(inputs, output)` → a prediction with `logScore(name, value)` and `finish()`; `logSummary()` ends
 * the evaluation. Recorded as `evaluate()` records (the same objects, call tree and summary rules), with each
 * logged input as a dataset row referenced by digest: when the dataset is given up front its rows are published
 * first and predictions are recorded as they finish; otherwise the logged inputs become the dataset when the
 * summary is logged, and every call is recorded then, with the times it was logged at.
 */
import type { JsonObject } from "../api/types/common.js";
import { refuseUnknownOptions } from "../config.js";
import { TracewireError, ValidationError } from "../errors.js";
import { describeError } from "../otel/diagnostics.js";
import { preparePayload } from "../tracing/payload.js";
import { asObject, scoreValue, summaryValue } from "./content.js";
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
} from "./objects.js";
import { type EvalCall, Recorder, ScoreFeedback, within } from "./recorder.js";
import { checkScore } from "./scorers.js";
import { type EvalSession, evaluationUrl, openSession } from "./session.js";
import { summarizeEvaluation } from "./summary.js";
import type { DatasetSource, NamedDataset, Row, ScoreValue } from "./types.js";

/** Options of {@link EvaluationLogger}. */
export interface EvaluationLoggerOptions {
  /** The evaluation's name (its object on the service). */
  name: string;
  /** The model's name, or `{ name, …attributes }` recorded on the Model object. Default `Model`. */
  model?: string | ({ name: string } & Record<string, unknown>);
  /** The rows the predictions' inputs come from; default: the logged inputs become the dataset. */
  dataset?: DatasetSource<Row> | NamedDataset<Row>;
  /** Recorded as the Evaluation object's `description`. */
  description?: string;
  /** The scorer names you will log (recorded on the Evaluation's metadata). */
  scorers?: string[];
  /** The root call's display name. */
  displayName?: string;
}

/** Every option of {@link EvaluationLoggerOptions}: one it does not read is refused, not ignored. */
type LoggerOption = keyof EvaluationLoggerOptions;
const LOGGER_OPTIONS: readonly LoggerOption[] = ["name", "model", "dataset", "description", "scorers", "displayName"];

/** A prediction whose model call is open while its body runs (what the vitest integration records a test as). */
export interface LivePrediction {
  prediction: ScoreLogger;
  /** Runs `fn` inside the model's call: LLM calls made there are its children. */
  run<T>(fn: () => T): T;
  /** Ends the model's call with the output (or the error), then the prediction. */
  end(output: unknown, error?: unknown): void;
}

/** What `logSummary()` resolves to. */
export interface LoggedEvaluation {
  /** The root `Evaluation.evaluate` call's id: the evaluation's id. */
  callId: string;
  /** Where to see it: the local viewer for `tracewire dev`, the hosted UI otherwise (undefined when unknown). */
  url: string | undefined;
  /**
   * The summary: per scorer, `model_latency`, and your own under `output`. The root call's output is this as every
   * payload is recorded — redacted, and without `output` when `captureContent` is false.
   */
  summary: JsonObject;
}

const IMPERATIVE = { _weave_eval_meta: { imperative: true } };
const IMPERATIVE_SCORE = { _weave_eval_meta: { imperative: true, score: true } };

/** Canonical JSON (sorted keys) of a row, to find a logged input among the dataset's rows. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** One logged prediction: log its scores, then `finish()` it (`logSummary()` finishes any left open). */
export class ScoreLogger {
  /** @internal */ readonly scores: { name: string; value: ScoreValue | null; at: Date }[] = [];
  /** @internal */ finishedAt: Date | undefined;
  /** @internal When the model's call ended (live predictions); else when it was logged. */
  modelEndedAt: Date | undefined;
  /** @internal What the model's call failed with (live predictions). */
  error: unknown;
  /** @internal The calls of a live prediction, open while its body runs. */
  calls: { pas: EvalCall; model: EvalCall } | undefined;

  /** @internal */
  constructor(
    /** @internal */ readonly inputs: Row,
    /** @internal */ public output: unknown,
    /** @internal */ readonly startedAt: Date,
    private readonly onFinish: (prediction: ScoreLogger) => void,
  ) {}

  /** Records a score of this prediction (a number, a boolean, an object of those, or null). */
  logScore(name: string, value: ScoreValue | null): this {
    if (this.finishedAt)
      throw new TracewireError(`logScore(${JSON.stringify(name)}) after finish(): log scores first.`);
    if (typeof name !== "string" || name.trim() === "")
      throw new ValidationError("logScore(name, value): name must be a non-empty string.", "name");
    const score = checkScore(value, `logScore(${JSON.stringify(name)}, value): value is`, "value");
    this.scores.push({ name: safeName(name, "score"), value: score, at: new Date() });
    return this;
  }

  /** The prediction is complete: its calls are recorded. A second call does nothing. */
  finish(): void {
    if (this.finishedAt) return;
    this.finishedAt = new Date();
    this.onFinish(this);
  }
}

/** Logs an evaluation from your own loop. */
export class EvaluationLogger {
  private readonly predictions: ScoreLogger[] = [];
  private readonly session: EvalSession;
  private readonly recorder: Recorder;
  private readonly feedback: ScoreFeedback;
  private readonly startedAt = new Date();
  private readonly name: string;
  private readonly modelName: string;
  private ready: Promise<Ready> | undefined;
  private readonly pending: Promise<void>[] = [];
  private readonly scorerNames: string[] = [];
  private summarized: Promise<LoggedEvaluation> | undefined;
  private failed = false;

  constructor(private readonly options: EvaluationLoggerOptions) {
    if (options === null || typeof options !== "object" || typeof options.name !== "string" || !options.name.trim())
      throw new ValidationError("new EvaluationLogger({ name, model?, dataset? }): name is required.", "name");
    refuseUnknownOptions("new EvaluationLogger()", options, LOGGER_OPTIONS);
    this.name = safeName(options.name, "evaluation");
    const model = safeName(
      (typeof options.model === "string" ? options.model : options.model?.name) ?? "Model",
      "Model",
    );
    this.modelName = model === this.name ? `${this.name}-model` : model;
    this.session = openSession("the evaluation");
    this.recorder = new Recorder(this.session.processor);
    this.feedback = new ScoreFeedback(this.session.processor);
    if (options.dataset !== undefined) {
      const source = options.dataset;
      this.ready = this.publish(loadDataset(source, this.name, this.session.publisher));
      this.ready.catch(() => {}); // reported by logSummary()
    }
  }

  /** Logs one prediction: its inputs (a dataset row) and output. Score it with `logScore`, then `finish()`. */
  logPrediction(inputs: Row, output: unknown): ScoreLogger {
    if (this.summarized) throw new TracewireError("logPrediction() after logSummary(): the evaluation is over.");
    if (inputs === null || typeof inputs !== "object" || Array.isArray(inputs))
      throw new ValidationError("logPrediction(inputs, output): inputs must be an object of fields.", "inputs");
    const prediction = new ScoreLogger(inputs, output, new Date(), (p) => this.finished(p));
    this.predictions.push(prediction);
    return prediction;
  }

  private finished(p: ScoreLogger): void {
    for (const s of p.scores) if (!this.scorerNames.includes(s.name)) this.scorerNames.push(s.name);
    if (this.ready) this.pending.push(this.ready.then((r) => this.record(r, p)).catch((err) => this.fail(err)));
  }

  /**
   * @internal Starts a live prediction of `inputs` (the dataset must have been given): its `predict_and_score` and
   * model calls are open until `end()`, so what runs inside `run()` nests under the model's call.
   */
  async begin(inputs: Row): Promise<LivePrediction> {
    if (!this.ready)
      throw new TracewireError("begin() needs the dataset up front (new EvaluationLogger({ dataset })).");
    if (this.summarized) throw new TracewireError("begin() after logSummary(): the evaluation is over.");
    const prediction = new ScoreLogger(inputs, undefined, new Date(), (p) => this.finished(p));
    this.predictions.push(prediction);
    const ready = await this.ready;
    prediction.calls = this.open(ready, prediction);
    const model = prediction.calls.model;
    return {
      prediction,
      run: (fn) => within(model, fn),
      end: (output, error) => {
        prediction.output = output;
        prediction.error = error;
        prediction.modelEndedAt = new Date();
        prediction.finish();
      },
    };
  }

  /** Logs a prediction with all its scores at once. */
  logExample(inputs: Row, output: unknown, scores: Record<string, ScoreValue | null>): void {
    const prediction = this.logPrediction(inputs, output);
    for (const [name, value] of Object.entries(scores)) prediction.logScore(name, value);
    prediction.finish();
  }

  /**
   * Ends the evaluation: finishes open predictions, records the summary (per scorer, by the service's rules;
   * `summary` is kept under `output`), and resolves once everything reached the service, or the
   * flush deadline (`exportTimeoutMillis`) passed: what a service that does not answer has not taken is reported.
   */
  logSummary(summary?: Record<string, unknown>): Promise<LoggedEvaluation> {
    this.summarized ??= this.summarize(summary);
    return this.summarized;
  }

  private async summarize(extra: Record<string, unknown> | undefined): Promise<LoggedEvaluation> {
    try {
      for (const p of this.predictions) p.finish();
      if (!this.ready) {
        const rows = this.predictions.map((p) => p.inputs);
        const loaded: Promise<LoadedDataset<Row>> = Promise.resolve({
          name: safeName(`${this.name}-dataset`, "dataset"),
          description: null,
          rows: rows.length ? rows : [{}],
        });
        this.ready = this.publish(loaded);
        const ready = await this.ready;
        for (const p of this.predictions) this.pending.push(this.record(ready, p));
      }
      const ready = await this.ready;
      await Promise.all(this.pending);
      const names = this.scorerNames.map((name) => ({ name }));
      const summary = summarizeEvaluation(
        this.predictions.map((p) => ({
          output: p.output,
          scores: Object.fromEntries(p.scores.map((s) => [s.name, s.value])),
          // Live predictions (the vitest integration) timed their model call; logged ones have no latency.
          latency:
            p.modelEndedAt && p.error === undefined
              ? (p.modelEndedAt.getTime() - p.startedAt.getTime()) / 1000
              : undefined,
        })),
        names,
      );
      delete summary.output;
      if (extra !== undefined) summary.output = extra as JsonObject;
      // Recorded redacted, your summary under `output` as content (content.ts `summaryValue`); returned whole.
      const recorded = summaryValue(summary);
      const summarize = this.recorder.start(ready.root, {
        opName: ready.refs.summarize,
        inputs: { self: ready.refs.evaluation },
        attributes: IMPERATIVE,
      });
      summarize.end({ output: recorded });
      ready.root.end({ output: recorded });
      await this.feedback.settle();
      await this.session.processor.forceFlush();
      const { service } = this.session;
      return {
        callId: ready.root.id,
        url: evaluationUrl(service.baseUrl, service.project, ready.root.id),
        summary,
      };
    } finally {
      await this.session.close();
    }
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.session.processor.diagnostics.warn("eval-logger", `EvaluationLogger could not record: ${describeError(err)}`);
  }

  /** Publishes the dataset and objects, then starts the root call (dated when the logger was made). */
  private async publish(loading: Promise<LoadedDataset<Row>>) {
    const { publisher } = this.session;
    const loaded = await loading;
    const [dataset, evaluate, predictAndScore, summarize, predict] = await Promise.all([
      publishDataset(loaded, publisher, this.modelName),
      publisher.ownOp(EVALUATE_OP),
      publisher.ownOp(PREDICT_AND_SCORE_OP),
      publisher.ownOp(SUMMARIZE_OP),
      publisher.op(`${this.modelName}.predict`, "// logged with EvaluationLogger.logPrediction\n"),
    ]);
    const attributes =
      typeof this.options.model === "object" ? objectFields(pickAttributes(this.options.model), this.modelName) : {};
    const [model, evaluation] = await Promise.all([
      publisher.object(this.modelName, modelValue(this.modelName, predict, attributes)),
      publisher.object(
        this.name,
        evaluationValue({
          name: this.name,
          description: this.options.description ?? null,
          datasetRef: dataset.ref,
          scorerRefs: [],
          trials: 1,
          metadata: { scorers: this.options.scorers ?? null },
          evaluateRef: evaluate,
          predictAndScoreRef: predictAndScore,
          summarizeRef: summarize,
        }),
      ),
    ]);
    const refs: Refs = { evaluation, model, predict, predictAndScore, summarize, scorers: new Map() };
    const root = this.recorder.start(
      undefined,
      {
        opName: evaluate,
        inputs: { self: evaluation, model },
        attributes: IMPERATIVE,
        displayName: this.options.displayName ?? this.name,
      },
      { startTime: this.startedAt },
    );
    return { dataset, root, refs };
  }

  /** Starts a prediction's `predict_and_score` and model calls, dated when it was logged. */
  private open(ready: Ready, p: ScoreLogger): { pas: EvalCall; model: EvalCall } {
    const { refs, dataset, root } = ready;
    const key = canonical(p.inputs);
    const row = dataset.rows.find((r) => canonical(r.row) === key);
    const inputs = preparePayload(p.inputs, "inputs", this.modelName);
    // Not a dataset row: the example is the input itself, as the vendor's logger records it (none without content).
    const example = row?.ref ?? inputs ?? null;
    const at = { startTime: p.startedAt };
    const pas = this.recorder.start(
      root,
      {
        opName: refs.predictAndScore,
        inputs: { self: refs.evaluation, model: refs.model, example },
        attributes: IMPERATIVE,
      },
      at,
    );
    const model = this.recorder.start(
      pas,
      { opName: refs.predict, inputs: { self: refs.model, ...asObject(inputs) }, attributes: IMPERATIVE },
      at,
    );
    return { pas, model };
  }

  /** Records one finished prediction's calls, with the times it was logged at. */
  private async record(ready: Ready, p: ScoreLogger) {
    const { recorder } = this;
    const { refs } = ready;
    const { pas, model } = p.calls ?? this.open(ready, p);
    const inputs = preparePayload(p.inputs, "inputs", this.modelName) ?? null;
    const output = preparePayload(p.output, "output", this.modelName) ?? null;
    const modelEnd = p.modelEndedAt ?? p.startedAt;
    if (p.error !== undefined) model.end({ error: p.error, endTime: modelEnd });
    else model.end({ output, endTime: modelEnd });
    const latency = p.modelEndedAt ? (p.modelEndedAt.getTime() - p.startedAt.getTime()) / 1000 : null;
    const scores: Record<string, unknown> = {};
    for (const s of p.scores) {
      const opRef = await this.scorerOp(refs, s.name);
      const call = recorder.start(
        pas,
        { opName: opRef, inputs: { output: output as JsonObject[string], inputs }, attributes: IMPERATIVE_SCORE },
        { startTime: s.at },
      );
      const value = scoreValue(s.value, s.name);
      call.end({ output: value, endTime: s.at });
      scores[s.name] = value;
      this.feedback.add(model, s.name, opRef, call, value);
    }
    pas.end({
      output: {
        output: (p.error === undefined ? output : null) as JsonObject[string],
        scores: scores as JsonObject,
        model_latency: latency,
      },
      endTime: p.finishedAt ?? new Date(),
    });
  }

  private scorerOp(refs: Refs, name: string): Promise<string> {
    let ref = refs.scorers.get(name);
    if (!ref) {
      ref = this.session.publisher.op(name, "// logged with EvaluationLogger.logScore\n");
      refs.scorers.set(name, ref);
    }
    return ref;
  }
}

interface Ready {
  dataset: PublishedDataset<Row>;
  root: EvalCall;
  refs: Refs;
}

interface Refs {
  evaluation: string;
  model: string;
  predict: string;
  predictAndScore: string;
  summarize: string;
  scorers: Map<string, Promise<string>>;
}
