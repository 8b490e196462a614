/**
 * Context bridging: making a framework's current run the active OpenTelemetry context while its code runs.
 *
 * Agent frameworks tell an observer about a run (a trace processor's `onSpanStart`, a callback handler's
 * `handleChainStart`), but the observer is not on the call stack of the code that runs inside the run, so it cannot
 * make the run's span active with `context.with()`. The framework does keep its own notion of "the current run" in
 * its own AsyncLocalStorage (the Agents SDK's current span, LangChain's runnable config). A {@link ContextBridge}
 * reads it, and tracewire makes the registered context manager's `active()` consult the bridges: inside a run,
 * `context.active()` is that run's call context. So `op()`, tracewire's wrapped clients and every other
 * OpenTelemetry instrumentation (HTTP, databases) nest under the framework's run, in the same process-wide way
 * `context.with()` would.
 *
 * Which context wins. The OpenTelemetry context can be deeper than the framework's run (an op a tool called, or a
 * run the op started in turn): every run context carries a {@link RunMark} under its bridge's key, and contexts
 * derived from it keep that mark. The active context is kept when its mark is the framework's current run or lies
 * inside it; otherwise the framework's run is deeper, and its context replaces the active one.
 *
 * Limits: the patch is applied to the global context manager registered when a bridge is added (and re-applied when
 * a framework integration sees a new one); a manager the app registers later is bridged at the next run start. A
 * continuation the framework schedules outside its storage (a timer created before the run, a callback captured
 * elsewhere) sees the context of where it was created, as with plain OpenTelemetry. Without a registered context
 * manager (no `init()`, no OpenTelemetry SDK) there is nothing to bridge.
 */
import { type Context, type ContextManager, context } from "@opentelemetry/api";

/** Identifies one framework run inside its context; `parent` is the run it started in (same framework). */
export interface RunMark {
  readonly parent: RunMark | undefined;
}

/** A framework whose current run can be read from its own ambient storage. */
export interface ContextBridge {
  /** The context key its run contexts carry a {@link RunMark} under. */
  readonly key: symbol;
  /**
   * The context of the framework's current run here, or undefined outside one. `active` is the active context
   * before this bridge (the manager's own, after any bridge registered earlier). Must not throw; may start calls.
   */
  current(active: Context): Context | undefined;
}

interface BridgeRegistry {
  bridges: ContextBridge[];
  /** The manager patched, and its own `active`. */
  manager: ContextManager | undefined;
  original: (() => Context) | undefined;
  /** Set while a bridge resolves, so the calls it starts see the unbridged context (no recursion). */
  resolving: boolean;
}

const REGISTRY = Symbol.for("tracewire.run-context.v1");
const PATCHED = Symbol.for("tracewire.run-context.patched");
/** Longest chain of nested runs walked (runs nest a few levels deep; a cycle would be a bug, never a hang). */
const MAX_DEPTH = 1000;

let cached: BridgeRegistry | undefined;

/** The registry, shared by every bundled copy of tracewire (kept here once found: `active()` asks for it often). */
function registry(): BridgeRegistry {
  if (cached) return cached;
  const holder = globalThis as { [REGISTRY]?: BridgeRegistry };
  holder[REGISTRY] ??= { bridges: [], manager: undefined, original: undefined, resolving: false };
  cached = holder[REGISTRY];
  return cached;
}

/** Whether run `inner` is `outer` or started inside it. */
export function isWithin(inner: unknown, outer: RunMark): boolean {
  let mark = inner as RunMark | undefined;
  for (let depth = 0; mark !== undefined && depth < MAX_DEPTH; depth++) {
    if (mark === outer) return true;
    mark = mark.parent;
  }
  return false;
}

/** The active context after the bridges, from the manager's own `active` context. */
function resolve(reg: BridgeRegistry, base: Context, skip?: ContextBridge): Context {
  let active = base;
  for (const bridge of reg.bridges) {
    if (bridge === skip) continue;
    const run = bridge.current(active);
    if (run === undefined || run === active) continue;
    const mark = run.getValue(bridge.key) as RunMark | undefined;
    if (mark !== undefined && isWithin(active.getValue(bridge.key), mark)) continue;
    active = run;
  }
  return active;
}

/** The active context without the bridges (what `context.with()` set). */
export function unbridgedContext(): Context {
  const reg = registry();
  const manager = (context as unknown as { _getContextManager?(): ContextManager })._getContextManager?.();
  if (manager && reg.manager === manager && reg.original) return reg.original.call(manager);
  return context.active();
}

/**
 * The active context as the bridges other than `skip` see it: what a framework's own span started in, without the
 * framework's own current run (which may be that very span).
 */
export function activeContextExcept(skip: ContextBridge): Context {
  const reg = registry();
  if (reg.resolving) return unbridgedContext();
  reg.resolving = true;
  try {
    return resolve(reg, unbridgedContext(), skip);
  } finally {
    reg.resolving = false;
  }
}

/** The registered context manager, unless there is none (the API's no-op manager propagates nothing). */
function registeredManager(): ContextManager | undefined {
  const manager = (context as unknown as { _getContextManager?(): ContextManager })._getContextManager?.();
  if (!manager || manager.constructor?.name === "NoopContextManager") return undefined;
  return manager;
}

/**
 * Makes the registered context manager consult the bridges (once per manager; cheap to call on every run start).
 * Returns whether a manager is bridged.
 */
export function bridgeContextManager(): boolean {
  const reg = registry();
  if (reg.bridges.length === 0) return false;
  const manager = registeredManager();
  if (!manager) return false;
  if (reg.manager === manager) return true;
  const holder = manager as ContextManager & { [PATCHED]?: () => Context };
  // Patched by an earlier registry generation (a bundled copy that lost its registry): reuse its original.
  const original = holder[PATCHED] ?? manager.active;
  holder[PATCHED] = original;
  reg.manager = manager;
  reg.original = original;
  manager.active = function bridgedActive(this: ContextManager): Context {
    const base = original.call(this);
    const current = registry();
    if (current.resolving || current.bridges.length === 0 || current.manager !== this) return base;
    current.resolving = true;
    try {
      return resolve(current, base);
    } catch {
      return base;
    } finally {
      current.resolving = false;
    }
  };
  return true;
}

/** Registers a bridge (once) and bridges the registered context manager. */
export function addContextBridge(bridge: ContextBridge): void {
  const reg = registry();
  if (!reg.bridges.includes(bridge)) reg.bridges.push(bridge);
  bridgeContextManager();
}

/** Unregisters a bridge; the manager's patch stays, and costs one check per `active()` with no bridge left. */
export function removeContextBridge(bridge: ContextBridge): void {
  const reg = registry();
  reg.bridges = reg.bridges.filter((b) => b !== bridge);
}

/** `ctx` marked as the context of run `mark` of the bridge keyed `key`. */
export function markRun(ctx: Context, key: symbol, mark: RunMark): Context {
  return ctx.setValue(key, mark);
}

/** The run mark `ctx` carries under `key`. */
export function runMarkOf(ctx: Context, key: symbol): RunMark | undefined {
  return ctx.getValue(key) as RunMark | undefined;
}
