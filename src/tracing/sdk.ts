/**
 * The OpenTelemetry SDK packages `init()` builds its provider from (`@opentelemetry/sdk-trace-base`, `resources`,
 * `core`, `context-async-hooks`), loaded when `init()` first runs rather than when `tracewire` is imported: together
 * they are most of what importing `tracewire` used to cost (about half of `import "tracewire"`'s instructions, the
 * semantic-conventions tables included), and a process that imports `tracewire` for `op()`, a wrapper or the clients
 * may never call `init()` — or calls it after its first response has gone out.
 *
 * They are loaded with `require`: `init()` is synchronous, and these packages are CommonJS (no `exports` map), so the
 * module Node hands an `import` of them is this very CommonJS module — the app's own imports of them and ours share
 * one instance.
 */
import { createRequire } from "node:module";
import type * as ContextAsyncHooks from "@opentelemetry/context-async-hooks";
import type * as Core from "@opentelemetry/core";
import type * as Resources from "@opentelemetry/resources";
import type * as SdkTraceBase from "@opentelemetry/sdk-trace-base";

/** What `init()` takes from the SDK. */
export interface Sdk {
  BasicTracerProvider: typeof SdkTraceBase.BasicTracerProvider;
  AsyncLocalStorageContextManager: typeof ContextAsyncHooks.AsyncLocalStorageContextManager;
  CompositePropagator: typeof Core.CompositePropagator;
  W3CTraceContextPropagator: typeof Core.W3CTraceContextPropagator;
  W3CBaggagePropagator: typeof Core.W3CBaggagePropagator;
  defaultResource: typeof Resources.defaultResource;
  resourceFromAttributes: typeof Resources.resourceFromAttributes;
}

let loaded: Sdk | undefined;

/** The SDK, loaded on first use. Throws what loading throws (a missing package). */
export function sdk(): Sdk {
  if (loaded) return loaded;
  // The pattern bundlers and file tracers (webpack, Turbopack, @vercel/nft) follow: they see the packages below as
  // dependencies of this file. The CommonJS build gets `import.meta.url` from tsup's shim.
  const load = createRequire(import.meta.url);
  const core = load("@opentelemetry/core") as typeof Core;
  const resources = load("@opentelemetry/resources") as typeof Resources;
  loaded = {
    BasicTracerProvider: (load("@opentelemetry/sdk-trace-base") as typeof SdkTraceBase).BasicTracerProvider,
    AsyncLocalStorageContextManager: (load("@opentelemetry/context-async-hooks") as typeof ContextAsyncHooks)
      .AsyncLocalStorageContextManager,
    CompositePropagator: core.CompositePropagator,
    W3CTraceContextPropagator: core.W3CTraceContextPropagator,
    W3CBaggagePropagator: core.W3CBaggagePropagator,
    defaultResource: resources.defaultResource,
    resourceFromAttributes: resources.resourceFromAttributes,
  };
  return loaded;
}
