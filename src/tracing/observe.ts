/**
 * Watches what a traced function returned, without changing it, and ends the call when the value is complete:
 * - a native promise: when it settles (a resolved stream is then watched in turn);
 * - any other thenable (an SDK's APIPromise, a query builder): when the caller's own `then` settles, never by calling
 *   `then` itself, which may parse a body or run a query; as cancelled once nobody can await it (observe-thenable.ts);
 * - a generator, async generator or async iterable: when iteration finishes, throws, or is stopped early; the body
 *   of each step runs inside the call's context so work it starts nests under the call. An iterable's iterators are
 *   watched as `Symbol.asyncIterator` or an `iterator()` factory of its own (an SDK Stream's, which `tee()` calls)
 *   hands them out;
 * - a Node readable stream: like an async iterable when it is iterated (items collected); otherwise, when it is read
 *   through events or `pipe`, on `end`, `error` or `close` (listening to those does not switch it to flowing mode);
 * - a web `ReadableStream`: when read to its end through a reader (`getReader()`, which `new Response(stream)` uses),
 *   async iteration, `pipeTo` or `pipeThrough`; when cancelled; or with the error when reading it fails;
 * - anything else: at once.
 * Iteration is observed by replacing methods *on the instance* (never the prototype), so identity, `instanceof`
 * and every other method stay the same. Objects that refuse that (frozen) end the call at once.
 */
import { type Context, context, type Span } from "@opentelemetry/api";
import { ATTR_TRACEWIRE_CANCEL_REASON, ATTR_TRACEWIRE_CANCELLED } from "../semconv.js";
import { isNativePromise, type ThenableWatch, watchThenable } from "./observe-thenable.js";
import { type Method, tapFirstIterator } from "./shadow.js";

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
  if (typeof next !== "function") return false; // not an iterator: left as it is
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

/**
 * How a settled promise or thenable ends its call: the value is watched in turn (a stream), an error fails the call,
 * an abandoned thenable ends it as cancelled. Built apart from `observeResult`, so that the watch, which a
 * FinalizationRegistry holds until the thenable is collected, cannot keep the thenable alive through a shared scope.
 */
function thenableWatch(o: Observation): ThenableWatch {
  return {
    settled(value) {
      try {
        observeResult(value, o, true);
      } catch {
        o.end(o.span, undefined, o.opName);
      }
    },
    failed: (err) => o.fail(o.span, err),
    finished: () => o.end(o.span, undefined, o.opName),
    abandoned() {
      try {
        o.span.setAttributes({ [ATTR_TRACEWIRE_CANCELLED]: true, [ATTR_TRACEWIRE_CANCEL_REASON]: "abandoned" });
      } finally {
        o.end(o.span, undefined, o.opName);
      }
    },
  };
}

/** Starts watching `result`; the call ends through `o.end` / `o.fail` exactly once. */
export function observeResult(result: unknown, o: Observation, afterPromise = false): void {
  if (!isObject(result)) {
    o.end(o.span, result, o.opName);
    return;
  }

  if (!afterPromise && typeof result.then === "function") {
    const watch = thenableWatch(o);
    if (isNativePromise(result)) (result as unknown as Promise<unknown>).then(watch.settled, watch.failed);
    else if (!watchThenable(result, watch)) o.end(o.span, "[Thenable]", o.opName);
    return;
  }

  const tag = Object.prototype.toString.call(result);
  const isGenerator = tag === "[object Generator]" || tag === "[object AsyncGenerator]";
  if (isGenerator && typeof result.next === "function") {
    if (!patchIterator(result, o, tag === "[object AsyncGenerator]")) o.end(o.span, `[${tag.slice(8, -1)}]`, o.opName);
    return;
  }

  if (isWebStream(result)) {
    if (!watchWebStream(result, o)) o.end(o.span, "[ReadableStream]", o.opName);
    return;
  }

  const asyncIterator = result[Symbol.asyncIterator];
  // A Node Readable is also async iterable, but may be consumed with events or `pipe` instead: watch both ways.
  const isStream = typeof result.pipe === "function" && typeof result.once === "function";
  if (typeof asyncIterator === "function") {
    // An async iterable that is not itself an iterator: watch the iterators it hands out, through
    // `Symbol.asyncIterator` and through an `iterator()` factory of its own, which an SDK Stream's `tee()` calls
    // directly (openai, anthropic: their `Symbol.asyncIterator` calls it too) and a Node Readable offers beside
    // `for await`. An iterator handed out through both is watched once.
    const state = finisher(o);
    let iterated = false;
    const watched = new WeakSet<object>();
    const watchIterator = (iterator: unknown) => {
      iterated = true;
      if (isObject(iterator) && watched.has(iterator)) return;
      if (isObject(iterator) && patchIterator(iterator, o, true, state)) watched.add(iterator);
      else state.endWith("[AsyncIterable]");
    };
    // Once `Symbol.asyncIterator` has handed out an iterator, one the `iterator()` factory hands out later is read
    // through it: openai 7 installs its own `Symbol.asyncIterator` per stream, an async generator that normalizes the
    // chunks of the factory's iterator, which it asks for only on its first step. Watching both would record every
    // chunk twice; the outer one yields what the caller gets. (openai 6 returns the factory's iterator itself, asked
    // for during the call: the same object, watched once.)
    let inAsyncIterator = false;
    let handedOut = false;
    const patched = define(result, Symbol.asyncIterator, function (this: unknown, ...args: unknown[]) {
      inAsyncIterator = true;
      let iterator: unknown;
      try {
        iterator = Reflect.apply(asyncIterator as Method, this, args);
      } finally {
        inAsyncIterator = false;
      }
      handedOut = true;
      watchIterator(iterator);
      return iterator;
    });
    if (!patched) state.endWith("[AsyncIterable]");
    const factory = result.iterator;
    if (patched && typeof factory === "function") {
      try {
        tapFirstIterator(result, "iterator", factory as Method, (iterator) => {
          if (handedOut && !inAsyncIterator) return;
          watchIterator(iterator);
        });
      } catch {
        // Not shadowable: `for await` is still watched through `Symbol.asyncIterator`.
      }
    }
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

/** A web `ReadableStream` (any realm's): it has the stream methods, whatever its class. */
function isWebStream(value: Record<PropertyKey, unknown>): boolean {
  return (
    typeof value.getReader === "function" &&
    typeof value.cancel === "function" &&
    typeof value.pipeTo === "function" &&
    typeof value.tee === "function" &&
    typeof value.locked === "boolean"
  );
}

/** Settles `promise` into the finisher: `then` ends normally (or by `onValue`), a rejection ends with the error. */
function follow(promise: unknown, state: Finisher, onValue: (value: unknown) => void = () => state.finish()): void {
  if (isObject(promise) && typeof promise.then === "function")
    (promise as unknown as Promise<unknown>).then(onValue, (err: unknown) => state.finish(err, true));
}

/**
 * Observes a web `ReadableStream` in place (own methods on the instance, as for iterators). Its call ends when it is
 * read to the end through a reader from `getReader()` (how `new Response(stream)` and `Readable.fromWeb` read it),
 * async iteration (`for await`, `values()`), `pipeTo` or `pipeThrough`; when it or its reader is cancelled; and
 * with the error when reading or piping it fails. Chunks read through a reader or iterator are the output. A
 * `tee()`d stream is read by its branches, which are not observed: its call ends only if the stream is read
 * otherwise too. Returns false when the stream cannot be patched.
 */
function watchWebStream(stream: Record<PropertyKey, unknown>, o: Observation): boolean {
  const state = finisher(o);
  const getReader = stream.getReader as Method;
  const cancel = stream.cancel as Method;
  const pipeTo = stream.pipeTo as Method;
  const pipeThrough = stream.pipeThrough as Method | undefined;
  const values = stream.values as Method | undefined;
  const asyncIterator = stream[Symbol.asyncIterator] as Method | undefined;
  const isLocked = () => (stream as { locked?: unknown }).locked === true;

  const patched = define(stream, "getReader", function (this: unknown, ...args: unknown[]) {
    const reader = getReader.apply(this, args);
    if (isObject(reader)) watchReader(reader, o, state);
    return reader;
  });
  if (!patched) return false;
  define(stream, "cancel", function (this: unknown, ...args: unknown[]) {
    const locked = isLocked();
    const result = cancel.apply(this, args);
    if (!locked) follow(result, state); // a locked stream refuses cancel(): nothing ended
    return result;
  });
  define(stream, "pipeTo", function (this: unknown, ...args: unknown[]) {
    const locked = isLocked();
    const result = pipeTo.apply(this, args);
    if (!locked) follow(result, state);
    return result;
  });
  if (typeof pipeThrough === "function") {
    // As the spec defines it: pipe into the transform's writable side (through the observed pipeTo), hand back its
    // readable side. Anything unusual (locked, a malformed transform) goes to the original, which throws as before.
    define(stream, "pipeThrough", function (this: unknown, ...args: unknown[]) {
      const [transform, options] = args as [Record<string, unknown> | undefined, unknown];
      const writable = isObject(transform) ? transform.writable : undefined;
      if (this !== stream || isLocked() || !isObject(writable) || (writable as { locked?: unknown }).locked !== false)
        return pipeThrough.apply(this, args);
      const piping = (stream.pipeTo as Method).call(stream, writable, options);
      if (isObject(piping) && typeof piping.then === "function")
        (piping as unknown as Promise<unknown>).catch(() => {});
      return transform!.readable;
    });
  }
  const iterate = (original: Method) =>
    function (this: unknown, ...args: unknown[]) {
      const iterator = original.apply(this, args);
      if (isObject(iterator) && !patchIterator(iterator, o, true, state)) state.endWith("[ReadableStream]");
      return iterator;
    };
  if (typeof values === "function") define(stream, "values", iterate(values));
  if (typeof asyncIterator === "function") define(stream, Symbol.asyncIterator, iterate(asyncIterator));
  return true;
}

/** Observes a stream reader's `read()` and `cancel()` in place; reads run inside the call's context. */
function watchReader(reader: Record<PropertyKey, unknown>, o: Observation, state: Finisher): void {
  const read = reader.read as Method | undefined;
  const cancel = reader.cancel as Method | undefined;
  if (typeof read === "function")
    define(reader, "read", function (this: unknown, ...args: unknown[]) {
      const result = context.with(o.context, () => read.apply(this, args));
      follow(result, state, (step) => {
        if ((step as Step | undefined)?.done) state.finish();
        else state.push((step as Step | undefined)?.value);
      });
      return result;
    });
  if (typeof cancel === "function")
    define(reader, "cancel", function (this: unknown, ...args: unknown[]) {
      const result = cancel.apply(this, args);
      // A released reader refuses cancel(): the stream goes on, so only a cancel that happened ends the call.
      if (isObject(result) && typeof result.then === "function")
        (result as unknown as Promise<unknown>).then(
          () => state.finish(),
          () => {},
        );
      return result;
    });
}
