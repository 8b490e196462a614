/**
 * Process-wide singletons, kept on `globalThis` under a `Symbol.for` key: Next.js (and other bundlers) can load
 * this module more than once — instrumentation bundle, route bundles — and every copy must see the same
 * processor, tracer and exit hooks (DESIGN §3).
 */
import type { Tracer } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { CallEndData, CallStartData } from "../wire/span-to-call.js";
import type { Diagnostics } from "./diagnostics.js";
import type { PayloadSettings } from "./payload-options.js";

/** A request about a call sent by OTLP: it goes after the call's span has been exported. */
export interface AfterExport {
  /** The call's span; `undefined` when it has been garbage-collected (so it ended long ago). */
  span: object | undefined;
  /**
   * When the call is still running, the request cannot be answered before the call ends, so its promise resolves at
   * once with what this returns (it may first add to the body what the result promises, e.g. a client-chosen id).
   */
  receipt?: () => unknown;
}

/** The service a processor sends to, as a service client's options take it (see `serviceOptions()`). */
export interface ServiceOptions {
  baseUrl: string;
  apiKey?: string;
  project: string;
  allowInsecureHttp: boolean;
}

/** What the rest of tracewire needs from a live processor (kept minimal to avoid an import cycle). */
export interface ActiveProcessor {
  readonly project: string;
  readonly diagnostics: Diagnostics;
  /** How op() and the GenAI instrumentation turn inputs and outputs into payloads (its payload options). */
  readonly payload: PayloadSettings;
  /**
   * Sends a call-scoped request (feedback, rename) behind the call's start, at once rather than at the next batch;
   * `replaySafe` allows resending it. With `afterExport`, the call went by OTLP: the request waits until its span
   * (`undefined` once collected) has been exported; while the span runs, the promise resolves with `receipt()`.
   */
  enqueueRequest(path: string, body: object, replaySafe?: boolean, afterExport?: AfterExport): Promise<unknown>;
  /** Whether work is queued or in flight. */
  readonly idle: boolean;
  /** Items offered so far on both routes (grows with new work; the exit hook uses it to see progress). */
  readonly offered: number;
  /** Deadline of the exit flush, ms (`exitFlushMillis`). */
  readonly exitFlushMillis: number;
  /** Sends what is queued; resolves when done, at `timeoutMs` (default `exportTimeoutMillis`), or when nothing can be sent. */
  forceFlush(timeoutMs?: number): Promise<void>;
  /**
   * The exit hooks' flush: within `exitFlushMillis`, aborting an export still in flight at the deadline; with
   * `closeRunning` (the process is about to end) calls still running are first ended as cancelled. Absent in
   * processors of older copies (they get `forceFlush(exitFlushMillis)`).
   */
  exitFlush?(closeRunning?: boolean): Promise<void>;
  /**
   * Ends the calls still running as cancelled (reason `shutdown`) and queues their ends, for the exit hooks when the
   * process is about to end. Absent in processors of older copies.
   */
  endRunning?(): void;
  /**
   * Counts (`stats().internalErrors`) and logs (rate-limited) a failure of tracewire's own code outside the processor:
   * a wrapper, op(), an integration. Absent in processors of older copies (they only log it).
   */
  reportInternalError?(key: string, message: string): void;
  /** Where it sends: for tracewire's own service clients (evaluations). Absent in processors of older copies. */
  serviceOptions?(): ServiceOptions;
  /** Native-route items queued, the queue's capacity and drops so far (evaluations pace themselves by it). */
  callsBacklog?(): { queued: number; capacity: number; dropped: number };
}

/** Turns one kind of foreign span into a call (see otel/call-adapters.ts). */
export interface CallAdapter {
  /** The call start data of `span`, or undefined when the span is not one this adapter knows. */
  start(span: ReadableSpan): CallStartData | undefined;
  /** The call end data of an ended span this adapter started. */
  end(span: ReadableSpan): CallEndData;
}

export interface TracewireGlobal {
  /** The processor op() and Call use; the most recently constructed live one. */
  active: ActiveProcessor | undefined;
  /** Every live processor, for the exit hooks. */
  live: Set<ActiveProcessor>;
  /** The tracer op() uses when init() created a private provider; otherwise the global API tracer is used. */
  tracer: Tracer | undefined;
  /** Exit hooks installed once per process. */
  hooks: { beforeExit: () => void; sigterm: () => void } | undefined;
  /** Warning keys already printed once per process (e.g. "tracing is off"). */
  warned: Set<string>;
  /** The handle of the current `init()`, so a second `init()` (e.g. another bundle's copy) reuses it. */
  handle: unknown;
  /**
   * While an `init()` handle's `shutdown()` runs: gives back the OpenTelemetry globals it registered (tracer provider,
   * context manager, propagator), at once and once. A new `init()` calls it first, so that it registers its own
   * instead of finding the old ones still there and having them disabled under it when that shutdown ends.
   */
  releaseGlobals?: (() => void) | undefined;
  /** Objects returned by traced calls → their call (for `callOf`). Weak: never keeps a result alive. */
  results: WeakMap<object, unknown>;
  /** Call adapters of foreign spans, by name (a second bundled copy registering the same name replaces it). */
  adapters?: Map<string, CallAdapter>;
  /**
   * Traced LLM streams → their call's cancel, so that the code that consumes a stream (`toTextStream` in another
   * bundle's copy) can end its call as cancelled the moment it stops the stream. Weak: never keeps a stream alive.
   */
  streamCancels?: WeakMap<object, (reason: "abort") => void>;
  /**
   * Work that ends calls shortly after the caller moved on (a stream reading on, bounded, for the usage chunk after a
   * `break`): `flush()` and `shutdown()` wait for it, so such a call's end is sent with the rest instead of after.
   */
  settling?: Set<Promise<void>>;
  /**
   * Exact credential strings `scrubText` masks wherever they occur (secrets.ts `maskKnownSecrets`; registered by
   * otel/known-secrets.ts), oldest first, at most `MAX_KNOWN_SECRETS`. Replaced whole on every change, never mutated:
   * each copy of tracewire caches its pattern per list. Plain strings, so copies of other versions can share it.
   */
  knownSecrets?: readonly string[];
}

const KEY = Symbol.for("tracewire.global.v1");

/** The process-wide tracewire state, created on first use. */
export function globalState(): TracewireGlobal {
  const holder = globalThis as { [KEY]?: TracewireGlobal };
  holder[KEY] ??= {
    active: undefined,
    live: new Set(),
    tracer: undefined,
    hooks: undefined,
    warned: new Set(),
    results: new WeakMap(),
    handle: undefined,
  };
  return holder[KEY];
}

/**
 * Reports a failure of tracewire's own code to the active processor: counted in `stats().internalErrors` and logged
 * once per `key` and interval. Nothing happens while tracing is off. Never throws.
 */
export function reportInternalError(key: string, message: string): void {
  try {
    const active = globalState().active;
    if (active?.reportInternalError) active.reportInternalError(key, message);
    else active?.diagnostics.error(key, message);
  } catch {
    // A logger that throws: the failure it reports stays unlogged rather than reach the caller.
  }
}

/** Registers `work` that will end calls soon (see `TracewireGlobal.settling`); it must settle on its own, bounded. */
export function settleLater(work: Promise<void>): void {
  const state = globalState();
  state.settling ??= new Set();
  const pending = state.settling;
  pending.add(work);
  const done = () => {
    pending.delete(work);
  };
  work.then(done, done);
}

/** Resolves when the work registered with {@link settleLater} so far has settled, or after `timeoutMs`. */
export function callsSettled(timeoutMs: number): Promise<void> {
  const pending = globalState().settling;
  if (!pending || pending.size === 0) return Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    Promise.allSettled([...pending]),
    new Promise((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]).then(() => clearTimeout(timer));
}
