/**
 * An evaluation's calls are ordinary tracewire calls: spans that go through the active `TracewireSpanProcessor`
 * (so everything it does for calls — usage rolled up from the model's LLM calls, redaction, batching — applies to
 * them), started with their call data on the context as `op()` starts its spans. Two things differ: they always
 * take the native calls route (`route: "calls"`: the UI needs refs as JSON inputs, which OTLP cannot carry), and
 * they come from a tracer of their own, whose id generator can re-create a call with the ids it had — how a
 * resumed evaluation reopens its root call.
 */
import { type Context, context, ROOT_CONTEXT, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  type IdGenerator,
  RandomIdGenerator,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { callRef } from "../api/refs.js";
import type { JsonObject, LlmUsage } from "../api/types/common.js";
import { describeError, exceptionFields } from "../otel/diagnostics.js";
import { CALL_START_KEY, type CallStartData, setCallEndData } from "../otel/span-data.js";
import type { ActiveProcessor } from "../otel/state.js";
import { ATTR_TRACEWIRE_CANCEL_REASON, ATTR_TRACEWIRE_CANCELLED } from "../semconv.js";
import { TRACER_NAME, VERSION } from "../version.js";

/** Ids a call must be (re)created with. */
export interface FixedIds {
  traceId: string;
  spanId: string;
}

/** Random ids, except for the one span started while `next` is set. */
class ReopeningIds implements IdGenerator {
  next: FixedIds | undefined;
  private readonly random = new RandomIdGenerator();
  generateTraceId(): string {
    return this.next?.traceId ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    return this.next?.spanId ?? this.random.generateSpanId();
  }
}

interface EvalTracer {
  tracer: ReturnType<BasicTracerProvider["getTracer"]>;
  ids: ReopeningIds;
}

// One tracer per processor. Its provider is never shut down: the processor belongs to the app's init().
const tracers = new WeakMap<object, EvalTracer>();

function tracerFor(processor: ActiveProcessor): EvalTracer {
  let entry = tracers.get(processor);
  if (!entry) {
    const ids = new ReopeningIds();
    const provider = new BasicTracerProvider({
      spanProcessors: [processor as unknown as SpanProcessor],
      idGenerator: ids,
    });
    entry = { tracer: provider.getTracer(TRACER_NAME, VERSION), ids };
    tracers.set(processor, entry);
  }
  return entry;
}

/** How a call ended. */
export interface CallEnding {
  output?: unknown;
  /** The call failed with this error (recorded as its exception). */
  error?: unknown;
  /** The call was cancelled (status `cancelled` in its summary), for this reason. */
  cancelled?: string;
  /** Usage the call carries itself (a resumed root: what its earlier run's rows used). */
  usage?: Record<string, LlmUsage>;
  /** When it ended (default now): calls logged after the fact keep their own times. */
  endTime?: Date;
}

/** One evaluation call in flight. */
export class EvalCall {
  private ended = false;

  constructor(
    readonly span: Span,
    /** The context to run the call's body in: its children parent on it. */
    readonly context: Context,
    readonly project: string,
  ) {}

  get id(): string {
    return this.span.spanContext().spanId;
  }

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  get ref(): string {
    return callRef(this.project, this.id);
  }

  /** Ends the call once; later calls are ignored. Never throws. */
  end(ending: CallEnding = {}): void {
    if (this.ended) return;
    this.ended = true;
    const { span } = this;
    try {
      if (ending.cancelled !== undefined) {
        span.setAttributes({ [ATTR_TRACEWIRE_CANCELLED]: true, [ATTR_TRACEWIRE_CANCEL_REASON]: ending.cancelled });
      } else if (ending.error !== undefined) {
        // Masked at the source (a model's error can quote its key): every exporter of the span sees them masked.
        span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(ending.error) });
        span.recordException(exceptionFields(ending.error));
      }
      const data: { output?: unknown; usage?: Record<string, LlmUsage> } = {};
      if ("output" in ending) data.output = ending.output;
      if (ending.usage && Object.keys(ending.usage).length > 0) data.usage = ending.usage;
      setCallEndData(span, data);
    } finally {
      span.end(ending.endTime);
    }
  }

  /** Whether {@link end} ran. */
  get isEnded(): boolean {
    return this.ended;
  }
}

/** Starts evaluation calls through one processor. */
export class Recorder {
  private readonly entry: EvalTracer;

  constructor(readonly processor: ActiveProcessor) {
    this.entry = tracerFor(processor);
  }

  get project(): string {
    return this.processor.project;
  }

  /**
   * Starts a call: under `parent` (a call, or none for a root), with its op name (a ref), inputs and attributes
   * exactly as given, on the calls route. `ids` re-create an earlier call (a resumed root); `startTime` dates a
   * call started earlier (a resumed root, a prediction logged after the fact).
   */
  start(
    parent: EvalCall | undefined,
    data: { opName: string; inputs: JsonObject; attributes?: JsonObject; displayName?: string },
    reopen?: { ids?: FixedIds; startTime?: Date },
  ): EvalCall {
    const start: CallStartData = {
      opName: data.opName,
      inputs: data.inputs,
      attributes: data.attributes ?? {},
      route: "calls",
    };
    if (data.displayName) start.displayName = data.displayName;
    const base = parent ? parent.context : ROOT_CONTEXT;
    const { tracer, ids } = this.entry;
    if (reopen?.ids) ids.next = reopen.ids;
    let span: Span;
    try {
      span = tracer.startSpan(
        data.opName,
        reopen?.startTime ? { startTime: reopen.startTime } : {},
        base.setValue(CALL_START_KEY, start),
      );
    } finally {
      ids.next = undefined;
    }
    return new EvalCall(span, trace.setSpan(base, span), this.project);
  }
}

/** Runs `fn` with `call` as the current call (children started inside, e.g. LLM calls, parent on it). */
export function within<T>(call: EvalCall, fn: () => T): T {
  return context.with(call.context, fn);
}

/** Rows of score feedback per `/feedback/batch/create` request. */
const FEEDBACK_BATCH = 100;

/**
 * Scores also go out as `wandb.runnable.<scorer>` feedback on the model's call (what the UI's feedback column and
 * the service's score queries read), batched: one `/feedback/batch/create` per hundred scores, queued behind the
 * calls they name.
 */
export class ScoreFeedback {
  private batch: JsonObject[] = [];
  private readonly sent: Promise<unknown>[] = [];
  private failed = false;

  constructor(private readonly processor: ActiveProcessor) {}

  /** A score of `scorer` (ref `runnableRef`, its call `scorerCall`) on the model's call. Null scores are skipped. */
  add(modelCall: EvalCall, scorer: string, runnableRef: string, scorerCall: EvalCall, value: unknown): void {
    if (value === null || value === undefined) return;
    this.batch.push({
      project_id: this.processor.project,
      weave_ref: modelCall.ref,
      feedback_type: `wandb.runnable.${scorer}`,
      payload: { output: value as JsonObject[string] },
      runnable_ref: runnableRef,
      call_ref: scorerCall.ref,
    });
    if (this.batch.length >= FEEDBACK_BATCH) this.flush();
  }

  /** Sends what is batched. */
  flush(): void {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    const request = this.processor.enqueueRequest("/feedback/batch/create", { batch }, false).catch((err) => {
      if (this.failed) return;
      this.failed = true;
      this.processor.diagnostics.warn(
        "eval-feedback",
        `Score feedback could not be recorded (the scores are in the calls): ${describeError(err)}`,
      );
    });
    this.sent.push(request);
  }

  /**
   * Sends the rest and waits for every batch's answer, within the processor's flush deadline (`exportTimeoutMillis`):
   * a batch waits behind the calls it names, and a service that takes no calls (down, or never answering) would hold
   * it — and evaluate() — for as long as the background retries go on. A batch unsent at the deadline settles as not
   * sent (reported once) and stays queued for the retries.
   */
  async settle(): Promise<void> {
    this.flush();
    if (this.sent.length === 0) return;
    await this.processor.forceFlush().catch(() => {});
    await Promise.all(this.sent);
  }
}
