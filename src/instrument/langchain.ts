/**
 * `tracewire/langchain`: LangChain.js and LangGraph.js runs as tracewire calls.
 *
 * ```ts
 * import { instrumentLangChain } from "tracewire/langchain";
 * await instrumentLangChain();                  // every run in the process, no per-call config
 * // or, per call: graph.invoke(input, { callbacks: [new TracewireCallbackHandler()] })
 * ```
 * This subpath loads `@langchain/core` (the copy its own module format resolves: ESM from `import`, CommonJS from
 * `require`); importing `tracewire` never does. What each run records and how the handler works: genai/langchain.ts.
 *
 * Both entry points also wrap the request methods of `@langchain/core`'s chat model, LLM and retriever base classes
 * (`_generateUncached`, `_streamIterator`, `invoke`) in a run scope, once per copy, so the model's own request runs
 * in its call's context, and register the credentials the model declares (`lc_secrets`) as known secrets, masked in
 * what tracewire records. Importing this module runs the runnables' `stream()` in a stream scope, so a stream whose
 * consumer stops reading ends its calls (genai/langchain-streams.ts). Nothing else about them changes: the same
 * arguments, the same return values and errors.
 *
 * @module tracewire/langchain
 */
import { createRequire } from "node:module";
import { CallbackManager } from "@langchain/core/callbacks/manager";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { BaseLLM } from "@langchain/core/language_models/llms";
import { BaseRetriever } from "@langchain/core/retrievers";
import * as runnables from "@langchain/core/runnables";
import { IterableReadableStream } from "@langchain/core/utils/stream";
import type { Context } from "@opentelemetry/api";
import { context } from "@opentelemetry/api";
import { refuseUnknownSettings } from "../config.js";
import { frameworkError } from "../genai/framework-runs.js";
import { LangChainHandler, runScopeContext, stopStream, withRunScope } from "../genai/langchain.js";
import { rememberModelSecrets } from "../genai/langchain-secrets.js";
import { type StreamScope, streamScopeContext } from "../genai/langchain-streams.js";
import { describeAs } from "../own-objects.js";

const PATCHED = Symbol.for("tracewire.langchain.patched");

/** The classes of one copy of `@langchain/core` that tracewire hooks into. */
export interface LangChainModules {
  /** `CallbackManager` from `@langchain/core/callbacks/manager`: tracewire's handler is added to each it configures. */
  CallbackManager: unknown;
  /** `BaseChatModel` from `@langchain/core/language_models/chat_models`: its requests run in their call's context. */
  BaseChatModel: unknown;
  /** `BaseLLM` from `@langchain/core/language_models/llms`, hooked like `BaseChatModel` when given. */
  BaseLLM?: unknown;
  /** `BaseRetriever` from `@langchain/core/retrievers`: its `invoke` runs in its call's context when given. */
  BaseRetriever?: unknown;
  /**
   * The exports of `@langchain/core/runnables`: the `stream()` of `Runnable` and of the classes that define their own
   * run in a stream scope, so a stream its consumer stops reading ends its calls (genai/langchain-streams.ts).
   */
  runnables?: Record<string, unknown>;
  /** `IterableReadableStream` from `@langchain/core/utils/stream`: what `stream()` returns (its `return`, `cancel`). */
  IterableReadableStream?: unknown;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** Replaces `target[name]` once (marked), keeping the original's `this`, arguments and result. */
function wrapMethod(target: unknown, name: string, wrap: (original: Method) => Method): void {
  if (typeof target !== "function" && (typeof target !== "object" || target === null)) return;
  const holder = target as Record<string, unknown> & { [PATCHED]?: Set<string> };
  const original = holder[name];
  if (typeof original !== "function") return;
  if (Object.hasOwn(holder, PATCHED) && holder[PATCHED]?.has(name)) return;
  const wrapped = wrap(original as Method);
  Object.defineProperty(wrapped, "name", { value: (original as Method).name });
  holder[name] = wrapped;
  if (!Object.hasOwn(holder, PATCHED)) Object.defineProperty(holder, PATCHED, { value: new Set<string>() });
  holder[PATCHED]?.add(name);
}

/** An async iterator whose every step runs in `ctx` (the generator's own code resumes there). */
function iteratorIn(ctx: Context, iterator: AsyncIterator<unknown> & AsyncIterable<unknown>): AsyncGenerator<unknown> {
  const step = (method: "next" | "return" | "throw", value?: unknown) =>
    context.with(ctx, () =>
      (iterator[method] as (v?: unknown) => Promise<IteratorResult<unknown>>).call(iterator, value),
    );
  const scoped = {
    next: (value?: unknown) => step("next", value),
    return: (value?: unknown) =>
      typeof iterator.return === "function" ? step("return", value) : Promise.resolve({ done: true, value }),
    throw: (err?: unknown) => (typeof iterator.throw === "function" ? step("throw", err) : Promise.reject(err)),
    [Symbol.asyncIterator]() {
      return scoped;
    },
  };
  return scoped as unknown as AsyncGenerator<unknown>;
}

/** Runs the request methods of the model, LLM and retriever classes in a run scope (once per class). */
function hookModels(modules: LangChainModules): void {
  const scoped = (original: Method): Method =>
    function (this: unknown, ...args: unknown[]) {
      rememberModelSecrets(this);
      return withRunScope(() => original.apply(this, args));
    };
  const scopedIterator = (original: Method): Method =>
    function (this: unknown, ...args: unknown[]) {
      rememberModelSecrets(this);
      const ctx = runScopeContext();
      const iterator = context.with(ctx, () => original.apply(this, args)) as AsyncIterator<unknown> &
        AsyncIterable<unknown>;
      return iteratorIn(ctx, iterator);
    };
  for (const cls of [modules.BaseChatModel, modules.BaseLLM]) {
    const proto = (cls as { prototype?: unknown } | undefined)?.prototype;
    wrapMethod(proto, "_generateUncached", scoped);
    wrapMethod(proto, "_streamIterator", scopedIterator);
  }
  wrapMethod((modules.BaseRetriever as { prototype?: unknown } | undefined)?.prototype, "invoke", scoped);
}

/** The streams `stream()` returned, with their scope: returned or cancelled before their end, they end their calls. */
const watched = new WeakMap<object, StreamScope>();

/**
 * Runs every `stream()` of the copy's runnables in a stream scope, and ends what a stream left open when its consumer
 * returns or cancels it (once per class). The stream itself is returned as is; the first scope that claimed a run
 * keeps the stream (a `RunnableBinding` delegates its `stream()` to the runnable it binds).
 */
function hookStreams(modules: LangChainModules): void {
  const exports = modules.runnables ?? {};
  const base = exports.Runnable as { prototype?: object } | undefined;
  const classes = Object.values(exports).filter(
    (c): c is { prototype: object } =>
      typeof c === "function" &&
      isObject(c.prototype) &&
      (c === base || (isObject(base?.prototype) && Object.prototype.isPrototypeOf.call(base.prototype, c.prototype))) &&
      Object.hasOwn(c.prototype, "stream"),
  );
  for (const cls of classes)
    wrapMethod(
      cls.prototype,
      "stream",
      (original) =>
        async function (this: unknown, ...args: unknown[]) {
          const { ctx, scope } = streamScopeContext();
          const stream = await context.with(ctx, () => original.apply(this, args));
          if (scope.run && isObject(stream) && !watched.has(stream)) watched.set(stream, scope);
          return stream;
        },
    );
  const proto = (modules.IterableReadableStream as { prototype?: unknown } | undefined)?.prototype;
  for (const name of ["return", "cancel"])
    wrapMethod(
      proto,
      name,
      (original) =>
        async function (this: unknown, ...args: unknown[]) {
          // Only once it worked: `cancel()` on a stream another reader holds rejects, and that stream goes on.
          const result = await original.apply(this, args);
          const scope = isObject(this) ? watched.get(this) : undefined;
          if (scope) stopStream(scope);
          return result;
        },
    );
}

function isObject(value: unknown): value is object {
  return (typeof value === "object" || typeof value === "function") && value !== null;
}

/**
 * Adds `handler` to every callback manager the copy's `CallbackManager` configures (once per copy; a manager that
 * already has a handler of its name keeps its own). Given as an inheritable handler when the call brought none or a
 * list, so the manager LangChain builds carries the run's tags and metadata as usual.
 */
function hookCallbacks(modules: LangChainModules, handler: LangChainHandler): void {
  type Manager = { handlers?: { name?: string }[]; addHandler?(h: unknown, inherit?: boolean): void };
  const named = (list: unknown[]) => list.some((h) => (h as { name?: unknown } | undefined)?.name === handler.name);
  wrapMethod(
    modules.CallbackManager,
    "_configureSync",
    (original) =>
      function (this: unknown, ...args: unknown[]) {
        const inheritable = args[0];
        if (inheritable === undefined || inheritable === null) args[0] = [handler];
        else if (Array.isArray(inheritable) && !named(inheritable)) args[0] = [...inheritable, handler];
        const manager = original.apply(this, args) as Manager | undefined;
        try {
          if (manager && !named(manager.handlers ?? [])) manager.addHandler?.(handler, true);
        } catch (err) {
          frameworkError("langchain", "configure", err);
        }
        return manager;
      },
  );
}

/** This module's own copy of `@langchain/core`. */
const OWN: LangChainModules = {
  CallbackManager,
  BaseChatModel,
  BaseLLM,
  BaseRetriever,
  runnables: runnables as Record<string, unknown>,
  IterableReadableStream,
};

/**
 * A LangChain callback handler recording every run it hears of as tracewire calls: pass it in a call's `callbacks`
 * (`graph.invoke(input, { callbacks: [new TracewireCallbackHandler()] })`), or let {@link instrumentLangChain} add it
 * to every run. Creating one also wraps the model, LLM and retriever request methods of the `@langchain/core` copy
 * this module loaded in a run scope (see the module comment).
 */
export class TracewireCallbackHandler extends LangChainHandler {
  constructor() {
    super();
    try {
      hookModels(OWN);
    } catch (err) {
      frameworkError("langchain", "hook", err);
    }
  }
}

describeAs(TracewireCallbackHandler, "TracewireCallbackHandler");

// `stream()` is hooked when this module loads, not when the first handler is created: in
// `model.stream(input, { callbacks: [new TracewireCallbackHandler()] })` the method is looked up before the handler
// exists, so a hook made by the constructor would miss the first stream of the process.
try {
  hookStreams(OWN);
} catch (err) {
  frameworkError("langchain", "hook", err);
}

/** Options of {@link instrumentLangChain}. */
export interface InstrumentLangChainOptions {
  /**
   * Copies of `@langchain/core` to hook, beyond the ESM and CommonJS copies tracewire finds (from this module and
   * from the working directory): e.g. one a bundler inlined. Each is `{ CallbackManager, BaseChatModel, BaseLLM,
   * BaseRetriever }` of that copy.
   */
  modules?: LangChainModules[];
}

let instrumented: Promise<TracewireCallbackHandler> | undefined;
let shared: TracewireCallbackHandler | undefined;

/** Loads one copy's modules with `load`, or undefined when that copy is not installed. */
async function copyOf(load: (path: string) => unknown): Promise<LangChainModules | undefined> {
  try {
    const [callbacks, chat, llms, retrievers, runnableExports, streams] = (await Promise.all([
      load("@langchain/core/callbacks/manager"),
      load("@langchain/core/language_models/chat_models"),
      load("@langchain/core/language_models/llms"),
      load("@langchain/core/retrievers"),
      load("@langchain/core/runnables"),
      load("@langchain/core/utils/stream"),
    ])) as Record<string, unknown>[];
    return {
      CallbackManager: callbacks?.CallbackManager,
      BaseChatModel: chat?.BaseChatModel,
      BaseLLM: llms?.BaseLLM,
      BaseRetriever: retrievers?.BaseRetriever,
      runnables: runnableExports,
      IterableReadableStream: streams?.IterableReadableStream,
    };
  } catch {
    return undefined;
  }
}

/**
 * Traces every LangChain / LangGraph run in the process with no per-call config: tracewire's handler is added to
 * every callback manager `@langchain/core` configures, in both its ESM and its CommonJS copy (the one this module
 * loaded at once, the other as soon as it is loaded here), once per run whichever copies a run passes through.
 * Resolves with the handler when both copies are hooked; calling it again returns the same promise. An option it
 * does not read is a `ConfigError`, thrown at once.
 */
export function instrumentLangChain(options: InstrumentLangChainOptions = {}): Promise<TracewireCallbackHandler> {
  // Thrown at once, as every set-up mistake is: a misspelt `module` would otherwise leave that copy unhooked.
  refuseUnknownSettings("instrumentLangChain", options, ["modules"]);
  shared ??= new TracewireCallbackHandler();
  const handler = shared;
  for (const modules of options?.modules ?? []) {
    hookCallbacks(modules, handler);
    hookModels(modules);
    hookStreams(modules);
  }
  if (instrumented) return instrumented;
  hookCallbacks(OWN, handler);
  instrumented = (async () => {
    // The other format's copy: CommonJS through require() from the working directory, ESM through import().
    const fromCwd = createRequire(`${process.cwd()}/`);
    const copies = await Promise.all([copyOf((path) => fromCwd(path)), copyOf((path) => import(path))]);
    for (const modules of copies) {
      if (!modules) continue;
      hookCallbacks(modules, handler);
      hookModels(modules);
      hookStreams(modules);
    }
    return handler;
  })();
  return instrumented;
}
