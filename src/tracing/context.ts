/**
 * Context that flows to every call started inside a function: call attributes and thread/turn membership. Stored
 * on the OpenTelemetry context (so it follows async work through the registered context manager) under
 * `Symbol.for` keys that every bundled copy of tracewire shares.
 */
import { type Context, context, createContextKey } from "@opentelemetry/api";
import type { JsonObject } from "../api/types/common.js";
import { ValidationError } from "../errors.js";
import { globalState } from "../otel/state.js";
import { payloadSettings } from "./payload.js";
import { serialize } from "./serialize.js";

/** Longest thread id accepted (every call inside the thread carries it). */
const MAX_THREAD_ID_LENGTH = 1024;

const ATTRIBUTES_KEY = createContextKey("tracewire.attributes");
const THREAD_KEY = createContextKey("tracewire.thread");

/** Thread membership of the current context. `turnId` is set once a call inside the thread became its turn. */
export interface ThreadContext {
  threadId: string;
  turnId: string | undefined;
}

/** Attributes set by enclosing `withAttributes` calls, merged (inner wins): of `ctx`, default the active context. */
export function currentAttributes(ctx: Context = context.active()): JsonObject | undefined {
  return ctx.getValue(ATTRIBUTES_KEY) as JsonObject | undefined;
}

/** The enclosing thread of `ctx` (default: the active context), if any. */
export function currentThread(ctx: Context = context.active()): ThreadContext | undefined {
  return ctx.getValue(THREAD_KEY) as ThreadContext | undefined;
}

/**
 * Call attributes as JSON. An object that cannot be read at all (a Proxy whose traps throw) serializes to a
 * placeholder string; it is kept as one entry under `"…"` (the serializer's key for markers), not spread into one
 * attribute per character.
 */
export function serializeAttributes(attributes: object): JsonObject {
  const json = serialize(attributes, payloadSettings().limits);
  return typeof json === "object" && json !== null && !Array.isArray(json) ? (json as JsonObject) : { "…": json };
}

/**
 * A bad setting passed to a context helper: logged (once a minute per helper, through the active processor's logger)
 * and left out, so the app's function still runs. Tracing is off without an active processor: nothing to say then.
 */
function ignoreSetting(helper: string, message: string): void {
  globalState().active?.diagnostics.warn(`${helper}-ignored`, `${helper}: ${message}`);
}

/** Shows a bad value in a message without echoing a huge one. */
function shown(value: unknown): string {
  if (typeof value === "string")
    return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

/**
 * Runs `fn` so that every call started inside it (at any depth, across `await`) carries `attributes`, merged over
 * those of enclosing `withAttributes` calls. Values are stored as JSON. Returns what `fn` returns. Attributes that
 * are not an object are logged and ignored: `fn` runs without them. Only a `fn` that is not a function throws
 * (`ValidationError`), since there is nothing to run.
 */
export function withAttributes<T>(attributes: Record<string, unknown>, fn: () => T): T {
  if (typeof fn !== "function") throw new ValidationError("withAttributes expects a function to run.", "fn");
  if (attributes === null || typeof attributes !== "object" || Array.isArray(attributes)) {
    ignoreSetting(
      "withAttributes",
      `attributes must be an object, got ${shown(attributes)}; the function ran without these attributes.`,
    );
    return fn();
  }
  const merged = { ...currentAttributes(), ...serializeAttributes(attributes) };
  return context.with(context.active().setValue(ATTRIBUTES_KEY, merged), fn);
}

/**
 * Runs `fn` inside conversation thread `threadId`: calls started inside get `thread_id`, and the outermost call
 * becomes a turn (`turn_id` = its own id) unless its op says `turn: false`; calls below it share that turn. A thread
 * id that is not a non-empty string of at most 1024 characters is logged and ignored: `fn` runs outside any new
 * thread. Only a `fn` that is not a function throws (`ValidationError`).
 */
export function withThread<T>(threadId: string, fn: () => T): T {
  if (typeof fn !== "function") throw new ValidationError("withThread expects a function to run.", "fn");
  if (typeof threadId !== "string" || threadId.trim() === "" || threadId.length > MAX_THREAD_ID_LENGTH) {
    ignoreSetting(
      "withThread",
      `the thread id must be a non-empty string of at most ${MAX_THREAD_ID_LENGTH} characters, got ${shown(threadId)}; the function ran without a thread.`,
    );
    return fn();
  }
  const thread: ThreadContext = { threadId, turnId: undefined };
  return context.with(context.active().setValue(THREAD_KEY, thread), fn);
}

/**
 * `base` inside conversation thread `threadId`, as `withThread` would make it, for integrations that learn the thread
 * from a framework (a run's group id, a graph's `thread_id`). A thread id `withThread` would refuse leaves `base` as
 * it is; so does `base` already being in that thread (its turn stays).
 */
export function threadContext(base: Context, threadId: unknown): Context {
  if (typeof threadId !== "string" || threadId.trim() === "" || threadId.length > MAX_THREAD_ID_LENGTH) return base;
  const current = base.getValue(THREAD_KEY) as ThreadContext | undefined;
  if (current?.threadId === threadId) return base;
  return base.setValue(THREAD_KEY, { threadId, turnId: undefined } satisfies ThreadContext);
}

/** `base` with the thread's turn fixed to `turnId`, for the body of a call that is (or belongs to) a turn. */
export function withTurn(base: Context, thread: ThreadContext, turnId: string): Context {
  return base.setValue(THREAD_KEY, { threadId: thread.threadId, turnId } satisfies ThreadContext);
}
