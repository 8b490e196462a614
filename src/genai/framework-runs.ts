/**
 * The runs of an agent framework as tracewire calls: what the OpenAI Agents SDK integration (openai-agents.ts) and
 * the LangChain one (langchain.ts) share. A framework reports runs by id with their parent's id; a
 * {@link RunTracker} keeps them in a bounded table and turns each into one call (call-span.ts):
 *
 * - Where a run's call nests: under its parent run's call, or, when the code that started the run was already deeper
 *   inside that parent (an op a tool called, which then started the run), under that deeper context; a run without
 *   a parent nests under the context it started in (the caller's op or span). The choice uses the run marks of
 *   run-context.ts, the same rule the context bridge applies to `context.active()`.
 * - When it starts: at once ({@link RunTracker.start}), or lazily, the first time its context is needed (a child
 *   starts, code inside it asks for the active context) or at its end, for frameworks that fill a run's data in after
 *   reporting it. A deferred run (the Agents SDK's model calls) is recorded when it ends; code inside it runs in its
 *   parent's context. A transparent run (a framework's internal plumbing) is never a call. A model call's context is
 *   marked as a framework model call (model-request-owner.ts).
 * - Usage counted once: a model call's `gen_ai.usage.*` is added to the tally of every run above it, so a run that
 *   reports aggregate usage of the model calls under it (the Agents SDK's task and turn) records as its own only the
 *   part nobody below recorded ({@link RunTracker.usageRemainder}). On the calls route the rollup
 *   (otel/usage-rollup.ts) then adds what the calls below used, so such a run's `summary.usage` holds every request
 *   under it exactly once.
 * - Memory: at most `maxRuns` runs are kept; past that the oldest ended runs go first, then the oldest open ones,
 *   which end as cancelled (`abandoned`). A run that never ends cannot grow the table without bound.
 */
import type { Attributes, Context } from "@opentelemetry/api";
import { describeError } from "../otel/diagnostics.js";
import { reportInternalError } from "../otel/state.js";
import {
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from "../semconv.js";
import { isWithin, markRun, type RunMark, runMarkOf } from "../tracing/run-context.js";
import { type CallSpan, type CallSpanEnd, type CallSpanSpec, endCallSpan, startCallSpan } from "./call-span.js";
import { isNum } from "./guards.js";
import { type FrameworkModelCall, withFrameworkModelCall } from "./model-request-owner.js";

/** The call attribute naming what a framework call is (the viewer labels the call tree with it). */
export const ATTR_CALL_KIND = "kind";

/** What a framework call is: `llm` calls read as conversations; the others are labelled by kind in the viewer. */
export type CallKind =
  | "workflow"
  | "agent"
  | "llm"
  | "tool"
  | "handoff"
  | "guardrail"
  | "task"
  | "turn"
  | "custom"
  | "mcp"
  | "speech"
  | "chain"
  | "retriever"
  | "graph"
  | "node";

/** Tokens recorded below a run, and the models that recorded them. */
export interface UsageTally {
  input: number;
  output: number;
  cached: number;
  models: Set<string>;
}

/** One framework run and its call. */
export interface FrameworkRun {
  readonly id: string;
  readonly parent: FrameworkRun | undefined;
  /** The outermost run above it (itself for a root): its runs are forgotten together once all of them ended. */
  readonly root: FrameworkRun;
  /** A root's runs (itself included) that have not ended yet. */
  open: number;
  /** A root's runs, for forgetting them together. */
  members: FrameworkRun[] | undefined;
  readonly mark: RunMark;
  /** A model call: its context is marked as a framework model call (wrapped clients leave requests to it). */
  readonly model: FrameworkModelCall | undefined;
  /** Recorded when it ends (its data is filled in late); meanwhile code inside it runs in its parent's context. */
  readonly deferred: boolean;
  /** Never a call (a framework's internal run): what starts inside it nests under its parent. */
  readonly transparent: boolean;
  /** When the run started, for a call started later (lazily) than the run. */
  readonly startTime: number | undefined;
  /**
   * The context its code started in (the other frameworks' bridges applied, its own not), when known; with no
   * parent, the context its call nests under.
   */
  base: Context | undefined;
  /** The call start data, computed when the call starts (the framework may fill its data in after reporting it). */
  spec: () => Omit<CallSpanSpec, "parent">;
  call: CallSpan | undefined;
  /** The context of code inside the run (its call's, marked), once known. */
  context: Context | undefined;
  started: boolean;
  ended: boolean;
  usage: UsageTally | undefined;
}

/** What {@link RunTracker.add} needs. */
export interface RunSpec {
  id: string;
  parent: FrameworkRun | undefined;
  base: Context | undefined;
  spec: () => Omit<CallSpanSpec, "parent">;
  /** A model call (see {@link FrameworkRun.model}). */
  model?: boolean;
  /** Recorded when it ends (see {@link FrameworkRun.deferred}). */
  deferred?: boolean;
  /** Never a call (see {@link FrameworkRun.transparent}). */
  transparent?: boolean;
  /** When the run started (see {@link FrameworkRun.startTime}). */
  startTime?: number;
}

/** Reports a failure of tracewire's own (rate-limited); the framework's run goes on. */
export function frameworkError(framework: string, where: string, err: unknown): void {
  reportInternalError(
    `${framework}-${where}`,
    `Internal error while tracing ${/^[aeiou]/i.test(framework) ? "an" : "a"} ${framework} run (${where}; the run itself is unaffected): ${describeError(err)}`,
  );
}

/** The runs of one framework (see the module comment). */
export class RunTracker {
  private readonly runs = new Map<string, FrameworkRun>();

  constructor(
    /** The run-context bridge key of this framework. */
    readonly key: symbol,
    /** The framework's name, for markers and messages (`openai-agents`, `langchain`). */
    readonly framework: string,
    private readonly maxRuns = 10_000,
  ) {}

  /** Runs kept (open, and ended ones still kept for their late children). */
  get size(): number {
    return this.runs.size;
  }

  get(id: string): FrameworkRun | undefined {
    return this.runs.get(id);
  }

  /** Adds a run (not started yet). Makes room first, ending the oldest open run as `abandoned` if need be. */
  add(spec: RunSpec): FrameworkRun {
    if (this.runs.size >= this.maxRuns) this.makeRoom();
    const run = {
      id: spec.id,
      parent: spec.parent,
      open: 0,
      members: undefined as FrameworkRun[] | undefined,
      mark: { parent: spec.parent?.mark },
      model: spec.model ? { framework: this.framework, deferred: 0 } : undefined,
      deferred: spec.deferred === true,
      transparent: spec.transparent === true,
      startTime: spec.startTime,
      base: spec.base,
      spec: spec.spec,
      call: undefined,
      context: undefined,
      started: false,
      ended: false,
      usage: undefined,
    } as Omit<FrameworkRun, "root"> as FrameworkRun;
    (run as { root: FrameworkRun }).root = spec.parent?.root ?? run;
    run.root.members ??= [];
    run.root.members.push(run);
    run.root.open++;
    this.runs.set(spec.id, run);
    return run;
  }

  /**
   * The context code inside `run` runs in: its call's (started now if need be), or, for a deferred or transparent
   * run, its parent's; marked as a framework model call for a model call.
   */
  contextOf(run: FrameworkRun): Context | undefined {
    if (run.context !== undefined) return run.context;
    if (run.deferred || run.transparent) {
      const parent = this.parentContext(run);
      if (parent === undefined) return undefined;
      run.context = this.marked(run, parent);
      return run.context;
    }
    this.start(run);
    return run.context;
  }

  /** Starts the call of `run` now (once), unless it ended or is transparent; returns it. */
  start(run: FrameworkRun, startTime = run.startTime): CallSpan | undefined {
    if (run.started || run.ended || run.transparent) return run.call;
    run.started = true;
    const parent = this.parentContext(run);
    if (parent === undefined) return undefined;
    const spec = run.spec();
    run.call = startCallSpan({ ...spec, parent, ...(startTime === undefined ? {} : { startTime }) });
    if (!run.deferred) run.context = this.marked(run, run.call?.context ?? parent);
    return run.call;
  }

  /** `ctx` marked as `run`'s (and as a framework model call's, for a model call). */
  private marked(run: FrameworkRun, ctx: Context): Context {
    return markRun(run.model ? withFrameworkModelCall(ctx, run.model) : ctx, this.key, run.mark);
  }

  /**
   * Ends the call of `run` once (starting it first if it never started, at `startTime`), then adds its recorded
   * usage to every run above it. The run is kept (ended) so late children still find their parent.
   */
  end(run: FrameworkRun, end: CallSpanEnd, startTime?: number): void {
    if (run.ended) return;
    const call = run.started || run.transparent ? run.call : this.start(run, startTime);
    run.ended = true;
    run.spec = ENDED_SPEC;
    run.base = undefined;
    run.call = undefined;
    try {
      if (call) endCallSpan(call, end);
      if (end.spanAttributes) this.tally(run, end.spanAttributes);
    } finally {
      // Once a root and every run under it ended, they are forgotten together (late children are then ignored).
      const root = run.root;
      if (--root.open <= 0 && root.ended) this.forget(root);
    }
  }

  /** Forgets a root and its runs. */
  private forget(root: FrameworkRun): void {
    for (const member of root.members ?? []) if (this.runs.get(member.id) === member) this.runs.delete(member.id);
    root.members = undefined;
  }

  /** Ends every open run (innermost first) with `end`, and forgets them all. */
  endAll(end: CallSpanEnd): void {
    const open = [...this.runs.values()].filter((r) => !r.ended).reverse();
    for (const run of open) this.end(run, end);
    this.runs.clear();
  }

  /** Ends `run` and every open run under it with `end`, innermost first (a stream its consumer stopped reading). */
  endUnder(run: FrameworkRun, end: CallSpanEnd): void {
    const under = (r: FrameworkRun) => {
      for (let up: FrameworkRun | undefined = r; up !== undefined; up = up.parent) if (up === run) return true;
      return false;
    };
    const open = (run.root.members ?? []).filter((r) => !r.ended && under(r)).reverse();
    for (const r of open) this.end(r, end);
  }

  /** Tokens `run` aggregates that no call below it recorded: what it records as its own usage. */
  usageRemainder(run: FrameworkRun, input: unknown, output: unknown, cached?: unknown): Attributes {
    const below = run.usage;
    const attributes: Attributes = {};
    const rest = (total: unknown, counted: number) => (isNum(total) ? Math.max(0, total - counted) : 0);
    const restInput = rest(input, below?.input ?? 0);
    const restOutput = rest(output, below?.output ?? 0);
    if (restInput === 0 && restOutput === 0) return attributes;
    attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = restInput;
    attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = restOutput;
    const restCached = rest(cached, below?.cached ?? 0);
    if (restCached > 0) attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = restCached;
    // Keyed by the one model that answered below, when there is exactly one.
    if (below?.models.size === 1) attributes[ATTR_GEN_AI_RESPONSE_MODEL] = [...below.models][0] as string;
    return attributes;
  }

  /** Adds the usage a run recorded to the tallies of the runs above it. */
  private tally(run: FrameworkRun, attributes: Attributes): void {
    const input = attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS];
    const output = attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS];
    if (!isNum(input) && !isNum(output)) return;
    const cached = attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS];
    const model = attributes[ATTR_GEN_AI_RESPONSE_MODEL] ?? attributes[ATTR_GEN_AI_REQUEST_MODEL];
    for (let up = run.parent; up !== undefined; up = up.parent) {
      up.usage ??= { input: 0, output: 0, cached: 0, models: new Set() };
      up.usage.input += isNum(input) ? input : 0;
      up.usage.output += isNum(output) ? output : 0;
      up.usage.cached += isNum(cached) ? cached : 0;
      if (typeof model === "string") up.usage.models.add(model);
    }
  }

  /**
   * Where `run`'s call nests: its parent's context, or the context the run's code started in when that lies inside
   * the parent (deeper: an op the parent's code called); with no parent, the context it started in.
   */
  private parentContext(run: FrameworkRun): Context | undefined {
    const base = run.base;
    if (run.parent === undefined) return base;
    const parent = this.contextOf(run.parent);
    if (parent === undefined) return base;
    if (base !== undefined) {
      const mark = runMarkOf(parent, this.key);
      if (mark !== undefined && isWithin(runMarkOf(base, this.key), mark)) return base;
    }
    return parent;
  }

  /**
   * Makes room for new runs: drops the oldest ended runs whose root is still open (kept for late children); then,
   * oldest first, ends open runs as abandoned (runs whose root never ended: a trace nobody finished).
   */
  private makeRoom(): void {
    const target = Math.floor(this.maxRuns * 0.9);
    for (const run of this.runs.values()) {
      if (this.runs.size <= target) return;
      if (run.ended && run.root !== run) this.runs.delete(run.id);
    }
    for (const run of this.runs.values()) {
      if (this.runs.size <= target) return;
      this.end(run, { cancelled: "abandoned" });
      this.runs.delete(run.id);
    }
  }
}

const ENDED_SPEC = (): Omit<CallSpanSpec, "parent"> => ({ spanName: "ended", opName: "ended" });
