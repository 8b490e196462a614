/**
 * Watches what a traced function returned, without changing it, and ends the call when the value is complete:
 * - a promise: when it settles (a resolved stream is then watched in turn);
 * - a generator, async generator or async iterable: when iteration finishes, throws, or is stopped early; the body
 *   of each step runs inside the call's context so work it starts nests under the call;
 * - a Node readable stream: like an async iterable when it is iterated (items collected); otherwise, when it is read
 *   through events or `pipe`, on `end`, `error` or `close` (listening to those does not switch it to flowing mode);
 * - anything else: at once.
 * Iteration is observed by replacing methods *on the instance* (never the prototype), so identity, `instanceof`
 * and every other method stay the same. Objects that refuse that (frozen) end the call at once.
 */
import { type Context, context, type Span } from "@opentelemetry/api";

/** How many streamed items are kept as the call's output. */
const MAX_STREAM_ITEMS = 1000;

export interface Observation {
  span: Span;
  context: Context;
  opName: string;
  end(span: Span, output: unknown, opName: string): void;
  fail(span: Span, error: unknown): void;
}

type Step = { done?: boolean; value?: unknown };

function isObject(value: unknown): value is Record<PropertyKey, unknown> {
  return value !== null && (typeof value === "object" || typeof value === "function");
}

/** Ends the call exactly once: with the collected items, another value, or the error. */
function finisher(o: Observation) {
  const items: unknown[] = [];
  let ended = false;
  const once = (end: () => void) => {
    if (ended) return;
    ended = true;
    end();
  };
  return {
    push(value: unknown) {
      if (items.length < MAX_STREAM_ITEMS) items.push(value);
      else if (items.length === MAX_STREAM_ITEMS) items.push(`[… more items not recorded]`);
    },
    finish(error?: unknown, failed = false) {
      once(() => (failed ? o.fail(o.span, error) : o.end(o.span, items, o.opName)));
    },
    /** Ends with `output` instead of the items (a stream that was never iterated). */
    endWith(output: unknown) {
      once(() => o.end(o.span, output, o.opName));
    },
  };
}

type Finisher = ReturnType<typeof finisher>;

/** Defines an own, non-enumerable property; false when the object refuses it (frozen, a Proxy that says no). */
export function define(target: object, key: PropertyKey, value: unknown): boolean {
  try {
    Object.defineProperty(target, key, { value, configurable: true, writable: true, enumerable: false });
    return true;
  } catch {
    return false;
  }
}

/** Observes an iterator's `next`/`return`/`throw` in place. Returns false when the object cannot be patched. */
function patchIterator(
  iterator: Record<PropertyKey, unknown>,
  o: Observation,
  isAsync: boolean,
  state: Finisher = finisher(o),
): boolean {
  const next = iterator.next as (...args: unknown[]) => unknown;
  const onStep = (step: Step) => {
    if (step?.done) state.finish();
    else state.push(step?.value);
  };
  const wrap = (method: (...args: unknown[]) => unknown, after: (step: Step) => void) =>
    function (this: unknown, ...args: unknown[]) {
      let result: unknown;
      try {
        result = context.with(o.context, () => method.apply(this, args));
      } catch (err) {
        state.finish(err, true);
        throw err;
      }
      if (isAsync && isObject(result) && typeof result.then === "function") {
        (result as unknown as Promise<Step>).then(after, (err: unknown) => state.finish(err, true));
      } else {
        after(result as Step);
      }
      return result;
    };
  if (!define(iterator, "next", wrap(next, onStep))) return false;
  const ret = iterator.return as ((...args: unknown[]) => unknown) | undefined;
  if (typeof ret === "function")
    define(
      iterator,
      "return",
      wrap(ret, () => state.finish()),
    );
  const thr = iterator.throw as ((...args: unknown[]) => unknown) | undefined;
  if (typeof thr === "function") define(iterator, "throw", wrap(thr, onStep));
  return true;
}

/** Starts watching `result`; the call ends through `o.end` / `o.fail` exactly once. */
export function observeResult(result: unknown, o: Observation, afterPromise = false): void {
  if (!isObject(result)) {
    o.end(o.span, result, o.opName);
    return;
  }

  if (!afterPromise && typeof result.then === "function") {
    (result as unknown as PromiseLike<unknown>).then(
      (value) => {
        try {
          observeResult(value, o, true);
        } catch {
          o.end(o.span, undefined, o.opName);
        }
      },
      (err: unknown) => o.fail(o.span, err),
    );
    return;
  }

  const tag = Object.prototype.toString.call(result);
  const isGenerator = tag === "[object Generator]" || tag === "[object AsyncGenerator]";
  if (isGenerator && typeof result.next === "function") {
    if (!patchIterator(result, o, tag === "[object AsyncGenerator]")) o.end(o.span, `[${tag.slice(8, -1)}]`, o.opName);
    return;
  }

  const asyncIterator = result[Symbol.asyncIterator];
  // A Node Readable is also async iterable, but may be consumed with events or `pipe` instead: watch both ways.
  const isStream = typeof result.pipe === "function" && typeof result.once === "function";
  if (typeof asyncIterator === "function") {
    // An async iterable that is not itself an iterator (e.g. an SDK Stream): watch the iterator it hands out.
    const state = finisher(o);
    let iterated = false;
    const patched = define(result, Symbol.asyncIterator, function (this: unknown) {
      const iterator = (asyncIterator as () => Record<PropertyKey, unknown>).call(this);
      iterated = true;
      if (!isObject(iterator) || !patchIterator(iterator, o, true, state)) state.endWith("[AsyncIterable]");
      return iterator;
    });
    if (!patched) state.endWith("[AsyncIterable]");
    // Once iterated, the iterator ends the call (with its items) when it finishes, throws or is returned.
    if (isStream) watchStream(result, state, () => iterated);
    return;
  }

  if (isStream) {
    watchStream(result, finisher(o), () => false);
    return;
  }

  o.end(o.span, result, o.opName);
}

/**
 * Ends the call of a Node readable stream that is not being iterated, on `end`, `error` or `close`. No "error"
 * listener: adding one would stop an unhandled stream error from crashing the app as it would untraced. `close`
 * follows an error (autoDestroy), and `errored` tells the two apart.
 */
function watchStream(result: Record<PropertyKey, unknown>, state: Finisher, iterated: () => boolean): void {
  const stream = result as unknown as NodeJS.EventEmitter & { errored?: unknown };
  const done = () => {
    if (iterated()) return;
    if (stream.errored) state.finish(stream.errored, true);
    else state.endWith("[Readable]");
  };
  stream.once("end", done);
  stream.once("close", done);
}
