/**
 * The OpenAI Agents SDK as tracewire calls: {@link TracewireTraceProcessor} is a `TracingProcessor` for the SDK's
 * `addTraceProcessor` / `setTraceProcessors`. Each trace becomes a workflow call under the caller's op or span, each
 * span a call under its parent's (what each records: openai-agents-shapes.ts), through the shared run machinery of
 * framework-runs.ts. This file never loads the SDK: it reads the objects the SDK hands it.
 *
 * When a span's call starts. The SDK reports a span before it fills its data in (a tool's arguments, an agent's tool
 * list, a model call's input and answer are set after `onSpanStart`), so a span's call starts the first time it is
 * needed: when a span starts under it, when code inside it asks for the active context (a traced op, a wrapped
 * client, HTTP instrumentation), or when it ends — with its own start time in every case. Model calls (`response`,
 * `generation` spans) are recorded when they end, once the SDK has put the request and the answer on them.
 *
 * Context. The SDK keeps its current span in its own AsyncLocalStorage, shared process-wide under
 * `Symbol.for('openai.agents.core.asyncLocalStorage')`. A context bridge (run-context.ts) reads it, so inside a span
 * `context.active()` is that span's call context: an op a tool calls nests under the tool's call, and other
 * OpenTelemetry instrumentation nests under the agent's calls. Inside a model call the active context is its parent's,
 * marked as a framework model call (model-request-owner.ts): a client the app also wrapped with `wrapOpenAI` sends
 * that request untraced, and the SDK's model call is the one call recorded for it.
 *
 * Ends: a span ends its call with the SDK's error (`error.type` from the status or error class in it); a model call
 * that ended with neither an answer nor an error while the SDK records data was cut short (an abort, a stream the
 * consumer stopped), and it and the calls still open in its trace end as cancelled. A trace that ends with spans
 * still open keeps them until they end; the table of runs is bounded (framework-runs.ts), so traces that never end
 * are ended as abandoned rather than kept. `shutdown()` ends what is open as cancelled.
 */
import { type Context, context } from "@opentelemetry/api";
import { refuseUnknownSettings } from "../config.js";
import { ConfigError } from "../errors.js";
import { globalState } from "../otel/state.js";
import { describeAs } from "../own-objects.js";
import { threadContext } from "../tracing/context.js";
import {
  activeContextExcept,
  addContextBridge,
  type ContextBridge,
  removeContextBridge,
} from "../tracing/run-context.js";
import type { CallSpanEnd } from "./call-span.js";
import { type FrameworkRun, frameworkError, RunTracker } from "./framework-runs.js";
import { isObj, type Obj } from "./guards.js";
import {
  type AgentsTraceData,
  agentOutput,
  isModelSpan,
  modelEnd,
  spanFailure,
  spanOutput,
  spanStart,
  workflowStart,
} from "./openai-agents-shapes.js";

const FRAMEWORK = "openai-agents";
/** The SDK's AsyncLocalStorage of the current trace and span. */
const AGENTS_STORAGE = Symbol.for("openai.agents.core.asyncLocalStorage");
/** The run-context key of Agents SDK runs. */
const AGENTS_RUN_KEY = Symbol.for("tracewire.openai-agents.run");
/** The id of the SDK's no-op traces and spans (tracing disabled). */
const NOOP_ID = "no-op";
/** Runs (traces and spans) kept at most by default; see framework-runs.ts. */
const MAX_RUNS = 10_000;

/** Options of {@link tracewireTraceProcessor}. */
export interface TraceProcessorOptions {
  /**
   * Most traces and spans kept in memory at once (default 10 000). Past it, ended spans are forgotten first, then
   * the oldest open ones end as cancelled (`abandoned`): a trace that never ends cannot grow memory without bound.
   */
  maxRuns?: number;
}

/** A span as the SDK hands it to a processor (read structurally). */
export interface AgentsSpan {
  /** The id of the SDK trace the span belongs to (`trace_…`). */
  readonly traceId: string;
  /** The span's id (`span_…`): how tracewire finds its call again when it ends. */
  readonly spanId: string;
  /** The parent span's id, or null for a span directly under the trace (its workflow). */
  readonly parentId: string | null;
  /** What the span is: `type` (`agent`, `generation`, `response`, `function`, `handoff`, …) and its own fields. */
  readonly spanData: { type: string };
  /** When the span started (an ISO 8601 timestamp), or null before it has. */
  readonly startedAt: string | null;
  /** When the span ended (an ISO 8601 timestamp), or null while it runs. */
  readonly endedAt: string | null;
  /** The span's error (a message and the SDK's details), or null: it becomes the call's error and `error.type`. */
  readonly error: { message: string; data?: Record<string, unknown> } | null;
  /** The span that was current before this one (usually its parent). */
  readonly previousSpan?: AgentsSpan | undefined;
}

/** A trace as the SDK hands it to a processor (read structurally). */
export type AgentsTrace = AgentsTraceData;

/** What tracewire notes about a run beside its call. */
interface RunNotes {
  type: string;
  /** The last text a model answered under it (agents and the workflow). */
  answer?: string;
  /** The workflow: a model call in it was cut short, so the calls that end now were cancelled. */
  cancelled?: boolean;
}

function timeOf(iso: unknown): number | undefined {
  if (typeof iso !== "string") return undefined;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * A `TracingProcessor` of the OpenAI Agents SDK that records every trace as tracewire calls (structurally: this file
 * never loads the SDK). Create it with {@link tracewireTraceProcessor}; every method resolves, none throws.
 */
export class TracewireTraceProcessor {
  private readonly runs: RunTracker;
  private readonly notes = new WeakMap<FrameworkRun, RunNotes>();
  private readonly bridge: ContextBridge = { key: AGENTS_RUN_KEY, current: (active) => this.current(active) };

  /** Throws `ConfigError` for a `maxRuns` that is not a positive integer, and for an option it does not read. */
  constructor(options: TraceProcessorOptions = {}) {
    refuseUnknownSettings("tracewireTraceProcessor", options, ["maxRuns"]);
    const maxRuns = options?.maxRuns ?? MAX_RUNS;
    if (!Number.isInteger(maxRuns) || maxRuns < 1)
      throw new ConfigError("maxRuns (tracewireTraceProcessor)", String(maxRuns), "a positive integer");
    this.runs = new RunTracker(AGENTS_RUN_KEY, FRAMEWORK, maxRuns);
  }

  /** A trace starts: its workflow call, under the caller's op or span, in the thread of its group id. */
  async onTraceStart(trace: AgentsTrace): Promise<void> {
    this.guard("trace-start", () => {
      if (!isObj(trace) || typeof trace.traceId !== "string" || trace.traceId === NOOP_ID) return;
      if (this.runs.get(trace.traceId)) return;
      addContextBridge(this.bridge);
      const base = threadContext(context.active(), trace.groupId);
      const root = this.runs.add({ id: trace.traceId, parent: undefined, base, spec: () => workflowStart(trace) });
      this.notes.set(root, { type: "trace" });
      this.runs.start(root);
    });
  }

  /** A trace ends: its workflow call, with the last answer of the run as output. */
  async onTraceEnd(trace: AgentsTrace): Promise<void> {
    this.guard("trace-end", () => {
      const root = isObj(trace) ? this.runs.get(String(trace.traceId)) : undefined;
      if (!root || root.ended) return;
      const notes = this.notes.get(root);
      const output = notes?.answer === undefined ? undefined : { value: notes.answer };
      this.runs.end(root, notes?.cancelled ? { output, cancelled: "abort" } : { output });
    });
  }

  /** A span starts: noted; its call starts when first needed (see the module comment). */
  async onSpanStart(span: AgentsSpan): Promise<void> {
    this.guard("span-start", () => {
      if (!this.known(span) || this.runs.get(span.spanId)) return;
      this.track(span, activeContextExcept(this.bridge));
    });
  }

  /** A span ends: its call (started now if it never was) ends with what the SDK put on the span. */
  async onSpanEnd(span: AgentsSpan): Promise<void> {
    this.guard("span-end", () => {
      if (!this.known(span)) return;
      const run = this.runs.get(span.spanId) ?? this.track(span, activeContextExcept(this.bridge));
      if (run.ended) return;
      const notes = this.notes.get(run) ?? { type: "custom" };
      const data = (isObj(span.spanData) ? span.spanData : {}) as Obj;
      const failure = spanFailure(span.error);
      const workflow = this.notes.get(run.root);
      let end: CallSpanEnd;
      if (run.model) {
        const model = modelEnd(notes.type, data, failure !== undefined);
        if (model.cut && workflow) workflow.cancelled = true;
        if (model.answer !== undefined) this.answered(run, model.answer);
        end = { output: model.output, spanAttributes: model.spanAttributes };
        if (model.cut) end.cancelled = "abort";
      } else {
        end = { output: spanOutput(notes.type, data, run.started) };
        if (notes.type === "agent") end.output = agentOutput(data, notes.answer);
        const usage = data.usage;
        if ((notes.type === "task" || notes.type === "turn") && isObj(usage)) {
          end.output = { value: { usage } };
          end.spanAttributes = this.runs.usageRemainder(
            run,
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_input_tokens,
          );
        }
        if (failure === undefined && workflow?.cancelled) end.cancelled = "abort";
      }
      if (failure) {
        end.error = failure.error;
        end.errorType = failure.errorType;
        end.cancelled = undefined;
      }
      end.endTime = timeOf(span.endedAt);
      this.runs.end(run, end, timeOf(span.startedAt));
      if (failure && run.parent === run.root) this.failedRun(run.root, failure);
    });
  }

  /**
   * A run under the workflow failed. The SDK never ends the trace of a run that threw (only of one that returned or
   * streamed to its end), so once nothing else of the trace is open, and the SDK did not end it within the same turn
   * of the event loop, the workflow ends with that failure instead of staying open.
   */
  private failedRun(root: FrameworkRun, failure: { error: string; errorType: string }): void {
    if (root.open !== 1 || root.ended) return;
    setImmediate(() =>
      this.guard("trace-failed", () => {
        if (root.ended || root.open !== 1) return;
        const notes = this.notes.get(root);
        const output = notes?.answer === undefined ? undefined : { value: notes.answer };
        this.runs.end(root, { output, error: failure.error, errorType: failure.errorType });
      }),
    );
  }

  /** Ends the calls still open as cancelled and stops bridging (the SDK calls it when processors are replaced). */
  async shutdown(_timeout?: number): Promise<void> {
    this.guard("shutdown", () => {
      this.runs.endAll({ cancelled: "shutdown" });
      removeContextBridge(this.bridge);
    });
    await this.forceFlush();
  }

  /** Sends what tracewire has recorded so far. */
  async forceFlush(): Promise<void> {
    try {
      await globalState().active?.forceFlush();
    } catch (err) {
      frameworkError(FRAMEWORK, "flush", err);
    }
  }

  /** Whether `span` is a real span of a trace this processor records. */
  private known(span: AgentsSpan): boolean {
    return (
      isObj(span) &&
      typeof span.spanId === "string" &&
      span.spanId !== NOOP_ID &&
      this.runs.get(String(span.traceId)) !== undefined
    );
  }

  /**
   * Notes a span under its parent; `base` is where its code started. A parent tracewire has not heard of yet (it is
   * told of spans late when a processor before it takes its time) is noted first, from the SDK's chain of
   * `previousSpan`s; a parent found nowhere leaves the span under the workflow.
   */
  private track(span: AgentsSpan, base: Context | undefined): FrameworkRun {
    const root = this.runs.get(span.traceId) as FrameworkRun;
    let parent: FrameworkRun | undefined;
    if (typeof span.parentId === "string") {
      parent = this.runs.get(span.parentId);
      if (!parent) {
        const found = this.previousSpan(span, span.parentId);
        if (found) parent = this.track(found, undefined);
      }
    }
    const type = isObj(span.spanData) && typeof span.spanData.type === "string" ? span.spanData.type : "custom";
    const run = this.runs.add({
      id: span.spanId,
      parent: parent ?? root,
      base,
      model: isModelSpan(type),
      deferred: isModelSpan(type),
      spec: () => spanStart(type, (isObj(span.spanData) ? span.spanData : {}) as Obj),
    });
    this.notes.set(run, { type });
    return run;
  }

  /** The span `id` among the spans that were current before `span` (the SDK links them), if there. */
  private previousSpan(span: AgentsSpan, id: string): AgentsSpan | undefined {
    let previous = span.previousSpan;
    for (let depth = 0; isObj(previous) && depth < 100; depth++) {
      if (previous.spanId === id && previous.traceId === span.traceId) return previous;
      previous = previous.previousSpan;
    }
    return undefined;
  }

  /** A model answered `text`: the answer so far of the agent above it and of the workflow. */
  private answered(run: FrameworkRun, text: string): void {
    for (let up = run.parent; up !== undefined; up = up.parent) {
      const notes = this.notes.get(up);
      if (notes?.type === "agent") {
        notes.answer = text;
        break;
      }
    }
    const workflow = this.notes.get(run.root);
    if (workflow) workflow.answer = text;
  }

  /** The bridge: the context of the SDK's current span (or trace), when it is one this processor records. */
  private current(active: Context): Context | undefined {
    // No trace in flight (the common case between runs): nothing to look up.
    if (this.runs.size === 0) return undefined;
    try {
      const storage = (globalThis as { [AGENTS_STORAGE]?: { getStore?(): unknown } })[AGENTS_STORAGE];
      const store = storage?.getStore?.();
      if (!isObj(store) || store.active !== true) return undefined;
      const span = store.span as AgentsSpan | undefined;
      if (isObj(span) && this.known(span)) {
        const run = this.runs.get(span.spanId) ?? this.track(span, active);
        return this.runs.contextOf(run);
      }
      const trace = store.trace;
      const root = isObj(trace) ? this.runs.get(String(trace.traceId)) : undefined;
      return root ? this.runs.contextOf(root) : undefined;
    } catch (err) {
      frameworkError(FRAMEWORK, "context", err);
      return undefined;
    }
  }

  private guard(where: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      frameworkError(FRAMEWORK, where, err);
    }
  }
}

// Recorded, logged or inspected as a short summary: the runs in flight are never read.
describeAs(TracewireTraceProcessor, "TracewireTraceProcessor");

/**
 * A trace processor for the OpenAI Agents SDK: `addTraceProcessor(tracewireTraceProcessor())` (traces go to OpenAI's
 * dashboard too), or `setTraceProcessors([tracewireTraceProcessor()])` (tracewire only). Register it after importing
 * `@openai/agents`, whose import installs the SDK's default exporter in place of the processors set before.
 */
export function tracewireTraceProcessor(options?: TraceProcessorOptions): TracewireTraceProcessor {
  return new TracewireTraceProcessor(options);
}
