/**
 * `tracewire/next`: Next.js integration (App Router, Next 15.1+ / 16).
 *
 * ```ts
 * // instrumentation.ts
 * export { register } from "tracewire/next";
 * // app/api/chat/route.ts
 * export const POST = withTracing(async (request: Request) => new Response(toTextStream(await openai.chat…)));
 * ```
 *
 * Safe to import from an edge bundle: `register()` loads everything Node-only only in the Node.js runtime.
 *
 * @module tracewire/next
 */
// Everything Node-only is loaded by `import()` inside the `NEXT_RUNTIME === "nodejs"` branch of `register()`, which
// Next's bundler drops from edge builds. The modules `withTracing` and `toTextStream` are made of (with-tracing.ts,
// body-watch.ts, control-flow.ts, flush.ts, text-stream.ts) are bundled into edge builds as they are, so they must stay free of
// Node-only imports.
import { globalState } from "../otel/state.js";
import type { InitOptions, TracewireHandle } from "../tracing/init.js";

export { VERSION } from "../version.js";
export { type TextChunkLike, type TextChunkSource, toTextStream } from "./text-stream.js";
export { type TracedHandler, type WithTracingOptions, withTracing } from "./with-tracing.js";
export type { InitOptions, TracewireHandle };

const NO_RUNTIME =
  "register() from tracewire/next is meant for Next's instrumentation.ts (NEXT_RUNTIME is not set); use init() elsewhere.";

/** Prints `message` once per process (across bundles: the set of keys is global). */
function warnOnce(key: string, message: string): void {
  const state = globalState();
  if (state.warned.has(key)) return;
  state.warned.add(key);
  console.warn(`[tracewire] ${message}`);
}

/**
 * For `instrumentation.ts`: `export { register } from "tracewire/next"`, or call it from your own `register()`.
 * Node.js runtime: sets up tracing with `init(options)` (settings from the environment by default) and returns its
 * handle; a second call (another bundle's copy) returns the same handle. Edge runtime: does nothing and says once
 * that edge is not traced. A malformed setting throws `ConfigError`, as `init()` does.
 */
export async function register(options: InitOptions = {}): Promise<TracewireHandle | undefined> {
  // Outside Next on a runtime without `process` at all (an edge function): nothing to read.
  if (typeof process === "undefined") {
    warnOnce("next-no-runtime", NO_RUNTIME);
    return undefined;
  }
  // Written out literally: Next replaces `process.env.NEXT_RUNTIME` at build time and drops the dead branch (and with
  // it the Node-only import below) from edge bundles.
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { init } = await import("./node.js");
    return init(options);
  }
  if (process.env.NEXT_RUNTIME === "edge") {
    warnOnce("next-edge", "The edge runtime is not traced by tracewire (Node.js runtime only); edge code runs as is.");
  } else {
    warnOnce("next-no-runtime", NO_RUNTIME);
  }
  return undefined;
}
