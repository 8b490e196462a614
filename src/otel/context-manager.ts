/**
 * The context manager `init()` registers: OpenTelemetry's `AsyncLocalStorageContextManager` on Node, Bun and Deno
 * (node-context.ts), and {@link StorageContextManager} where that one cannot run — Cloudflare Workers, whose
 * `AsyncLocalStorage` throws for `enterWith()` and `disable()` (OTel's manager calls both), and Vercel's edge, where
 * `AsyncLocalStorage` is a global and `node:async_hooks` cannot be imported.
 */
import { type Context, type ContextManager, ROOT_CONTEXT } from "@opentelemetry/api";
import { nodeBuiltin, runtimeName } from "../runtime.js";
import { nodeContextManager } from "./node-context.js";

interface Storage {
  getStore(): Context | undefined;
  run<R, A extends unknown[]>(store: Context, fn: (...args: A) => R, ...args: A): R;
}
type StorageClass = new () => Storage;

/** `AsyncLocalStorage`: the global one (Next's edge sandbox), else `node:async_hooks`'s (Workers with compat). */
function storageClass(): StorageClass | undefined {
  const global = (globalThis as { AsyncLocalStorage?: StorageClass }).AsyncLocalStorage;
  if (typeof global === "function") return global;
  return nodeBuiltin<{ AsyncLocalStorage: StorageClass }>("node:async_hooks")?.AsyncLocalStorage;
}

/**
 * A context manager over `AsyncLocalStorage.run()` and `getStore()` alone. Binds functions; event emitters are
 * returned as they are (no runtime that needs this manager hands them to instrumentation). `disable()` forgets every
 * context by starting a fresh storage, instead of calling the storage's own `disable()`.
 */
export class StorageContextManager implements ContextManager {
  private storage: Storage;

  constructor(private readonly Storage: StorageClass) {
    this.storage = new Storage();
  }

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const call = thisArg === undefined ? fn : (fn.bind(thisArg) as F);
    return this.storage.run(context, call, ...args);
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== "function") return target;
    const manager = this;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    const bound = function (this: unknown, ...args: unknown[]) {
      return manager.with(context, () => fn.apply(this, args));
    };
    Object.defineProperty(bound, "length", { value: fn.length, configurable: true });
    return bound as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage = new this.Storage();
    return this;
  }
}

/** The context manager for this runtime, or undefined when it has no `AsyncLocalStorage` at all. */
export function createContextManager(): ContextManager | undefined {
  const runtime = runtimeName();
  const node = runtime === "node" || runtime === "bun" || runtime === "deno" ? nodeContextManager() : undefined;
  if (node) return node;
  const Storage = storageClass();
  return Storage ? new StorageContextManager(Storage) : undefined;
}
