/**
 * OpenTelemetry's `AsyncLocalStorageContextManager`, for the runtimes that have all of Node's `AsyncLocalStorage`
 * (Node, Bun, Deno). The builds for Workers and the edge (tsup.config.ts) replace this module with
 * node-context.edge.ts: the package is CommonJS that `require()`s `async_hooks` when loaded, which an edge bundle
 * cannot do, and Workers lack the methods it calls.
 */
import type { ContextManager } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";

/** OTel's manager, enabled. */
export function nodeContextManager(): ContextManager | undefined {
  return new AsyncLocalStorageContextManager().enable();
}
