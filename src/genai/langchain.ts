/**
 * LangChain.js / LangGraph.js runs as tracewire calls: {@link LangChainHandler} is a LangChain callback handler
 * (structurally: this file never loads `@langchain/core`; `instrument/langchain.ts` adds what needs it). Each run the
 * handler hears of becomes a call under its parent run's call, or, for a run without one, under the op or span that
 * started it (what each kind of run records: langchain-shapes.ts; the shared machinery: framework-runs.ts). Runs
 * LangGraph tags `langsmith:hidden` (channel writes, branches) are no calls: what they start nests under their parent.
 *
 * The handler runs in the foreground (`awaitHandlers: true`): LangChain waits for it before running the run's code,
 * so a run's call exists (and is the parent of what runs inside it) by then. Its work is synchronous and small.
 *
 * Context. LangChain keeps the config of the current runnable in its own AsyncLocalStorage (shared process-wide under
 * `Symbol.for("ls:tracing_async_local_storage")`): inside a RunnableLambda, a tool or a LangGraph node, its callback
 * manager names the run as parent. A context bridge (run-context.ts) reads it, so `context.active()` there is that
 * run's call: ops, wrapped clients and other instrumentation nest under it. Chat models, LLMs and retrievers do not
 * set that storage around their own work; `instrument/langchain.ts` runs their request methods in a *run scope*
 * ({@link withRunScope}) whose cell the handler fills with the run when it hears of it, and the bridge prefers the
 * deeper of the two. Inside a model call the active context is marked as a framework model call
 * (model-request-owner.ts): a client also wrapped with `wrapOpenAI` leaves the request to this call.
 *
 * Nothing here throws into LangChain: each handler method is guarded, failures are logged (rate-limited).
 */
import { type Context, context, createContextKey } from "@opentelemetry/api";
import { ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK } from "../semconv.js";
import { threadContext } from "../tracing/context.js";
import {
  activeContextExcept,
  addContextBridge,
  type ContextBridge,
  isWithin,
  unbridgedContext,
} from "../tracing/run-context.js";
import type { CallSpanEnd, CallSpanSpec } from "./call-span.js";
import { type FrameworkRun, frameworkError, RunTracker } from "./framework-runs.js";
import { isObj, type Obj } from "./guards.js";
import {
  chainStart,
  compact,
  failureOf,
  HIDDEN_TAG,
  modelEnd,
  modelStart,
  retrieverStart,
  toolOutput,
  toolStart,
} from "./langchain-shapes.js";
import { claimStream, endStream, type StreamScope } from "./langchain-streams.js";

const FRAMEWORK = "langchain";
/** LangChain's AsyncLocalStorage (a LangSmith RunTree holding the current runnable config). */
const LANGCHAIN_STORAGE = Symbol.for("ls:tracing_async_local_storage");
/** Where that storage keeps the runnable config. */
const CHILD_CONFIG = Symbol.for("lc:child_config");
const RUN_KEY = Symbol.for("tracewire.langchain.run");
const SCOPE_KEY = createContextKey("tracewire.langchain.scope");
/** Runs kept at most (see framework-runs.ts). */
const MAX_RUNS = 10_000;

/** A run scope: the run of the model, LLM or retriever whose request runs inside it, once the handler knows it. */
interface RunScope {
  run: FrameworkRun | undefined;
}

/** What a model run notes beside its call. */
interface ModelNotes {
  chat: boolean;
  startedAt: number;
  firstToken: number | undefined;
}

/** A streamed step's inputs, which LangChain reports only when the step ends (`lc_defers_inputs`). */
interface LateInputs {
  inputs?: unknown;
}

/** The process-wide state every handler (and every bundled copy of tracewire) shares. */
interface LangChainState {
  runs: RunTracker;
  models: WeakMap<FrameworkRun, ModelNotes>;
  bridge: ContextBridge;
  /** Added later: absent from the state an older bundled copy of tracewire made. */
  late?: WeakMap<FrameworkRun, LateInputs>;
}

const STATE = Symbol.for("tracewire.langchain.v1");

function state(): LangChainState {
  const holder = globalThis as { [STATE]?: LangChainState };
  if (!holder[STATE]) {
    const runs = new RunTracker(RUN_KEY, FRAMEWORK, MAX_RUNS);
    holder[STATE] = {
      runs,
      models: new WeakMap(),
      bridge: { key: RUN_KEY, current: (active) => current(runs, active) },
    };
  }
  return holder[STATE];
}

/** The run LangChain's own storage says is current (inside a lambda, a tool, a LangGraph node). */
function storedRun(runs: RunTracker): FrameworkRun | undefined {
  const storage = (globalThis as { [LANGCHAIN_STORAGE]?: { getStore?(): unknown } })[LANGCHAIN_STORAGE];
  const store = storage?.getStore?.();
  if (!isObj(store) || !isObj(store.extra)) return undefined;
  const config = (store.extra as { [CHILD_CONFIG]?: unknown })[CHILD_CONFIG];
  const callbacks = isObj(config) ? config.callbacks : undefined;
  if (!isObj(callbacks)) return undefined;
  const id = typeof callbacks.getParentRunId === "function" ? callbacks.getParentRunId() : callbacks._parentRunId;
  return typeof id === "string" ? runs.get(id) : undefined;
}

/** The bridge: the context of the deeper of the run scope's run and the run LangChain's storage names. */
function current(runs: RunTracker, active: Context): Context | undefined {
  // No run in flight (the common case between runs): nothing to look up.
  if (runs.size === 0) return undefined;
  try {
    const scope = active.getValue(SCOPE_KEY) as RunScope | undefined;
    const scoped = scope?.run && !scope.run.ended ? scope.run : undefined;
    let run = storedRun(runs);
    if (scoped && (run === undefined || isWithin(scoped.mark, run.mark))) run = scoped;
    return run ? runs.contextOf(run) : undefined;
  } catch (err) {
    frameworkError(FRAMEWORK, "context", err);
    return undefined;
  }
}

/**
 * Runs `fn` (a model's, LLM's or retriever's request method) in a run scope: the handler records there which run it
 * is, and code inside then runs in that run's context (see the module comment).
 */
export function withRunScope<T>(fn: () => T): T {
  const scope: RunScope = { run: undefined };
  return context.with(context.active().setValue(SCOPE_KEY, scope), fn);
}

/** A `stream()` whose consumer stopped reading: what its run left open ends as cancelled (langchain-streams.ts). */
export function stopStream(scope: StreamScope): void {
  try {
    endStream(state().runs, scope);
  } catch (err) {
    frameworkError(FRAMEWORK, "stream-stop", err);
  }
}

/** The context of a run scope started now, for methods that hand out an iterator (each step runs in it). */
export function runScopeContext(): Context {
  return context.active().setValue(SCOPE_KEY, { run: undefined } satisfies RunScope);
}

type Tags = string[] | undefined;

/**
 * A LangChain callback handler that records every run it hears of as a tracewire call (see the module comment). The
 * fields LangChain reads on a handler are plain properties; `copy()` returns the handler itself.
 */
export class LangChainHandler {
  /** The handler's name: LangChain adds a handler of a name to a run once, so tracewire's is added once. */
  readonly name = "tracewire_callback_handler";
  /** LangChain waits for this handler before running a run's code (its calls exist by then). */
  readonly awaitHandlers = true;
  /** False: LangChain never rethrows a handler error into the run (this handler catches and counts its own). */
  readonly raiseError = false;
  /** False: LLM and chat model runs are recorded. */
  readonly ignoreLLM = false;
  /** False: chain, runnable and graph runs are recorded. */
  readonly ignoreChain = false;
  /** False: agent actions reach the handler. */
  readonly ignoreAgent = false;
  /** False: retriever runs are recorded. */
  readonly ignoreRetriever = false;
  /** True: custom events (`dispatchCustomEvent`) are not recorded. */
  readonly ignoreCustomEvent = true;
  /** False: LangChain never serialises the handler (tracewire's objects are never serialised). */
  readonly lc_serializable = false;

  /** The handler itself: its runs are process-wide already. */
  copy(): this {
    return this;
  }

  /**
   * A chain, runnable, graph or graph node starts. A streamed step (`transform`) reports a placeholder as its inputs
   * (`extra.lc_defers_inputs`) and its real inputs when it ends: its call then starts at its end, with its own start
   * time and those inputs, unless something inside it needs its context first (then it records no inputs).
   */
  handleChainStart(
    chain: unknown,
    inputs: unknown,
    runId: string,
    parentRunId?: string,
    tags?: Tags,
    metadata?: Obj,
    _runType?: string,
    runName?: string,
    extra?: Obj,
  ): void {
    this.guard("chain-start", () => {
      if (!isObj(extra) || extra.lc_defers_inputs !== true) {
        this.open(runId, parentRunId, tags, metadata, () => chainStart(chain, inputs, metadata, runName));
        return;
      }
      const late: LateInputs = {};
      const spec = () => chainStart(chain, late.inputs, metadata, runName);
      const run = this.open(runId, parentRunId, tags, metadata, spec, false, true);
      if (!run) return;
      const s = state();
      s.late ??= new WeakMap();
      s.late.set(run, late);
    });
  }

  /** A chain, runnable, graph or node returned: its outputs end its call. */
  handleChainEnd(outputs: unknown, runId: string, _parentRunId?: string, _tags?: Tags, kwargs?: Obj): void {
    this.guard("chain-end", () => {
      this.lateInputs(runId, kwargs);
      this.close(runId, () => ({ output: { value: compact(outputs) } }));
    });
  }

  /** A chain, runnable, graph or node threw: its call ends failed, or cancelled for an abort or a graph interrupt. */
  handleChainError(err: unknown, runId: string, _parentRunId?: string, _tags?: Tags, kwargs?: Obj): void {
    this.guard("chain-error", () => {
      this.lateInputs(runId, kwargs);
      this.fail(runId, err);
    });
  }

  /** The inputs LangChain reports at the end of a streamed step, for its call if it has not started yet. */
  private lateInputs(runId: string, kwargs: Obj | undefined): void {
    const run = state().runs.get(runId);
    const late = run && state().late?.get(run);
    if (late && isObj(kwargs) && kwargs.inputs !== undefined) late.inputs = kwargs.inputs;
  }

  /** A chat model starts (one run per message list). */
  handleChatModelStart(
    llm: unknown,
    messages: unknown[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Obj,
    tags?: Tags,
    metadata?: Obj,
    runName?: string,
  ): void {
    this.guard("chat-start", () => {
      const list = Array.isArray(messages?.[0]) ? messages[0] : [];
      this.openModel(runId, parentRunId, tags, metadata, true, () =>
        modelStart(llm, { messages: list }, extraParams, metadata, runName),
      );
    });
  }

  /** A text-completion LLM starts (one run per prompt). */
  handleLLMStart(
    llm: unknown,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Obj,
    tags?: Tags,
    metadata?: Obj,
    runName?: string,
  ): void {
    this.guard("llm-start", () =>
      this.openModel(runId, parentRunId, tags, metadata, false, () =>
        modelStart(llm, { prompt: prompts?.[0] }, extraParams, metadata, runName),
      ),
    );
  }

  /** A streamed token: the first one sets the time to first token. */
  handleLLMNewToken(_token: string, _idx: unknown, runId: string): void {
    this.guard("llm-token", () => {
      const run = state().runs.get(runId);
      const notes = run && state().models.get(run);
      if (notes && notes.firstToken === undefined) notes.firstToken = performance.now();
    });
  }

  /** A chat model or LLM returned: its generations, token usage and time to first token end its call. */
  handleLLMEnd(output: unknown, runId: string): void {
    this.guard("llm-end", () => {
      const s = state();
      const run = s.runs.get(runId);
      if (!run || run.ended) return;
      const notes = s.models.get(run);
      const { output: value, spanAttributes } = modelEnd(output, notes?.chat ?? true);
      if (notes?.firstToken !== undefined)
        spanAttributes[ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = (notes.firstToken - notes.startedAt) / 1000;
      s.runs.end(run, { output: value, spanAttributes });
    });
  }

  /** A chat model or LLM threw: its call ends failed, or cancelled for an abort or a graph interrupt. */
  handleLLMError(err: unknown, runId: string): void {
    this.guard("llm-error", () => this.fail(runId, err));
  }

  /** A tool starts: its arguments (LangChain passes them as text, JSON for structured tools). */
  handleToolStart(
    tool: unknown,
    input: string,
    runId: string,
    parentRunId?: string,
    tags?: Tags,
    metadata?: Obj,
    runName?: string,
    toolCallId?: string,
  ): void {
    this.guard("tool-start", () =>
      this.open(runId, parentRunId, tags, metadata, () => toolStart(tool, input, runName, toolCallId)),
    );
  }

  /** A tool returned: its output ends its call. */
  handleToolEnd(output: unknown, runId: string): void {
    this.guard("tool-end", () => this.close(runId, () => ({ output: toolOutput(output) })));
  }

  /** A tool threw: its call ends failed, or cancelled for an abort or a graph interrupt. */
  handleToolError(err: unknown, runId: string): void {
    this.guard("tool-error", () => this.fail(runId, err));
  }

  /** A retriever starts: the query. */
  handleRetrieverStart(
    retriever: unknown,
    query: string,
    runId: string,
    parentRunId?: string,
    tags?: Tags,
    metadata?: Obj,
    name?: string,
  ): void {
    this.guard("retriever-start", () => {
      const run = this.open(runId, parentRunId, tags, metadata, () => retrieverStart(retriever, query, name));
      if (run) this.claimScope(run);
    });
  }

  /** A retriever returned: the documents end its call. */
  handleRetrieverEnd(documents: unknown, runId: string): void {
    this.guard("retriever-end", () => this.close(runId, () => ({ output: { value: compact(documents) } })));
  }

  /** A retriever threw: its call ends failed, or cancelled for an abort or a graph interrupt. */
  handleRetrieverError(err: unknown, runId: string): void {
    this.guard("retriever-error", () => this.fail(runId, err));
  }

  /**
   * Notes a run and starts its call. Its parent is the run LangChain names, when tracewire recorded it; the context
   * its code started in decides whether it nests deeper (an op inside the parent); a run without a parent nests
   * under that context, in the thread of the run's `thread_id` (LangGraph's `configurable.thread_id`).
   */
  private open(
    runId: string,
    parentRunId: string | undefined,
    tags: Tags,
    metadata: Obj | undefined,
    spec: () => Omit<CallSpanSpec, "parent">,
    model = false,
    lazy = false,
  ): FrameworkRun | undefined {
    const s = state();
    if (typeof runId !== "string" || s.runs.get(runId)) return undefined;
    addContextBridge(s.bridge);
    const parent = typeof parentRunId === "string" ? s.runs.get(parentRunId) : undefined;
    let base = activeContextExcept(s.bridge);
    if (!parent) base = threadContext(base, metadata?.thread_id);
    const hidden = Array.isArray(tags) && tags.includes(HIDDEN_TAG);
    const startTime = lazy ? performance.timeOrigin + performance.now() : undefined;
    const run = s.runs.add({ id: runId, parent, base, spec, model, transparent: hidden, startTime });
    if (!hidden && !lazy) s.runs.start(run);
    claimStream(run);
    return run;
  }

  private openModel(
    runId: string,
    parentRunId: string | undefined,
    tags: Tags,
    metadata: Obj | undefined,
    chat: boolean,
    spec: () => Omit<CallSpanSpec, "parent">,
  ): void {
    const run = this.open(runId, parentRunId, tags, metadata, spec, true);
    if (!run) return;
    state().models.set(run, { chat, startedAt: performance.now(), firstToken: undefined });
    this.claimScope(run);
  }

  /** The run scope the model's or retriever's request method opened (instrument/langchain.ts) is this run's. */
  private claimScope(run: FrameworkRun): void {
    const scope = unbridgedContext().getValue(SCOPE_KEY) as RunScope | undefined;
    if (scope && scope.run === undefined) scope.run = run;
  }

  /** Ends a run's call with what `end` makes (not asked for a transparent run, whose outputs nobody records). */
  private close(runId: string, end: () => CallSpanEnd): void {
    const run = state().runs.get(runId);
    if (run && !run.ended) state().runs.end(run, run.transparent ? {} : end());
  }

  /** A run threw: cancelled for an abort or LangGraph's control flow (an interrupt), else failed. */
  private fail(runId: string, err: unknown): void {
    this.close(runId, () => {
      const outcome = failureOf(err);
      return "cancelled" in outcome ? { cancelled: outcome.cancelled } : { error: outcome.error };
    });
  }

  private guard(where: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      frameworkError(FRAMEWORK, where, err);
    }
  }
}
