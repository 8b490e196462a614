/**
 * Observation of a stream's iterator. The member that hands out iterators is shadowed on the one stream object, so
 * the consumer keeps the very same stream; the first iterator it hands out is replaced by an observing one over it
 * (nobody held it yet), and an iterator the consumer already holds (a stream that is its own iterator) has `next`,
 * `return` and `throw` shadowed in place. What a step means is up to the caller (see ChatCall); this module only
 * forwards calls and reports what happened.
 */
import { type Method, replaceOwn } from "../tracing/shadow.js";
import { isObj, type Obj } from "./guards.js";

// Shadowing one object's members lives with op(), which observes results the same way; re-exported for genai/ and
// instrument/.
export { defineOwn, type Method, replaceOwn, tapFirstIterator } from "../tracing/shadow.js";

/** The `controller.signal` of a stream (the openai `Stream` and our `ChatStream` both carry one), if any. */
export function controllerSignal(stream: unknown): AbortSignal | undefined {
  const signal = (stream as { controller?: { signal?: unknown } } | null | undefined)?.controller?.signal;
  return signal instanceof AbortSignal ? signal : undefined;
}

/** The longest a consumer's `return()` waits for what {@link IteratorHooks.returning} reads on for. */
export const RETURN_GRACE_MS = 25;

/** Resolves when `work` settles or after {@link RETURN_GRACE_MS}, whichever comes first; never rejects. */
export function withinGrace(work: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, RETURN_GRACE_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    work.then(done, done);
  });
}

/** What {@link IteratorHooks.step} returns for a step the consumer must not see. */
export const HIDDEN: unique symbol = Symbol("tracewire.hiddenStep");

/** What {@link tapIterator} reports. The consumer gets every result and error unchanged, after the hook ran. */
export interface IteratorHooks {
  /** A `next()` is about to be forwarded (also the extra one that replaces a hidden step). */
  pulling(): void;
  /** That `next()` settled; runs before `step`, `end` or `failed`. */
  pulled(): void;
  /**
   * A step with a value: returns what the consumer gets, `value` itself or a stand-in for it, or {@link HIDDEN} to
   * hide it (the next step is pulled in its place).
   */
  step(value: unknown): unknown;
  /** The iterator reported done (or a step that is not an object). */
  end(): void;
  /**
   * The consumer called `return()`. A promise returned here (reading on past the consumer, e.g. for a usage chunk)
   * is awaited before the iterator's own `return()` runs — in the background: the consumer's `return()` resolves
   * when that promise does or after {@link RETURN_GRACE_MS}, whichever comes first. A usage chunk that is already on
   * its way (OpenAI sends it right after the last `finish_reason`) so ends the call before the caller goes on, and
   * before the op around it ends and sums its children's usage; tracing never keeps the caller waiting longer.
   */
  returning(): Promise<void> | undefined;
  /** `return()` completed. */
  returned(): void;
  /** `next()`, `return()` or `throw()` threw or rejected. */
  failed(err: unknown): void;
}

/**
 * Shadows `next` (the iterator's own, `next`), `return` and `throw` of one async iterator, reporting to `hooks`. A
 * `throw()` the iterator answers with a final step ends it; one it rethrows (or another error) fails it.
 */
export function tapIterator(iterator: Obj, next: Method, hooks: IteratorHooks): void {
  const methods = observedMethods(iterator, next, hooks, undefined);
  replaceOwn(iterator, "next", methods.next);
  if (methods.return) replaceOwn(iterator, "return", methods.return);
  if (methods.throw) replaceOwn(iterator, "throw", methods.throw);
}

/** `Symbol.asyncDispose` where the runtime has it (Node 20 and later define the symbol). */
const ASYNC_DISPOSE = (Symbol as { asyncDispose?: symbol }).asyncDispose;

/**
 * An iterator that forwards to `iterator` (whose `next` is `next`) and reports to `hooks` as {@link tapIterator}
 * does: handed out instead of an iterator nobody held yet (the one a stream's factory just made, see
 * `tapFirstIterator`). Shadowing such an iterator in place costs more than the whole object: openai's and Anthropic's
 * streams make each iterator with a generator function of their own, so every iterator has a map of its own and each
 * `defineProperty` on it builds new ones (~1 µs each on Node 24; bench/NOTES.md).
 */
export function observedIterator(iterator: Obj, next: Method, hooks: IteratorHooks): Obj {
  const methods = observedMethods(iterator, next, hooks, iterator);
  // An async generator (openai's and Anthropic's iterators) is disposable (`await using`): it inherits
  // %AsyncIteratorPrototype%[Symbol.asyncDispose] (built in from Node 24, or a polyfill's), which calls `this.return()`.
  // Handed the same function, the observing iterator disposes through its observed `return` (the call ends as a
  // break); without it, `await using` would throw a TypeError only when traced.
  const dispose = ASYNC_DISPOSE === undefined ? undefined : (iterator as Record<symbol, unknown>)[ASYNC_DISPOSE];
  // One shape for all (a `return` or `throw` the iterator lacks is undefined, which `for await` takes as absent);
  // with a dispose, one shape per runtime (every generator has it or none does).
  return typeof dispose === "function"
    ? {
        next: methods.next,
        return: methods.return,
        throw: methods.throw,
        [Symbol.asyncIterator]: itself,
        [ASYNC_DISPOSE as symbol]: dispose,
      }
    : { next: methods.next, return: methods.return, throw: methods.throw, [Symbol.asyncIterator]: itself };
}

function itself<T>(this: T): T {
  return this;
}

interface ObservedMethods {
  next: Method;
  return: Method | undefined;
  throw: Method | undefined;
}

/** The observed `next`, `return` and `throw`, called on `self` (when given) or on what they are called on. */
function observedMethods(iterator: Obj, next: Method, hooks: IteratorHooks, self: Obj | undefined): ObservedMethods {
  const onError = (err: unknown): never => {
    hooks.pulled();
    hooks.failed(err);
    throw err;
  };
  const onThrowError = (err: unknown): never => {
    hooks.failed(err);
    throw err;
  };
  const onStep = (step: IteratorResult<unknown>): IteratorResult<unknown> | Promise<IteratorResult<unknown>> => {
    hooks.pulled();
    if (!isObj(step) || step.done) {
      hooks.end();
      return step;
    }
    const shown = hooks.step(step.value);
    if (shown === HIDDEN) {
      hooks.pulling();
      return (Reflect.apply(next, iterator, []) as Promise<IteratorResult<unknown>>).then(onStep, onError);
    }
    return shown === step.value ? step : { value: shown, done: false };
  };
  const observedNext = function (this: unknown, ...args: unknown[]) {
    hooks.pulling();
    let result: Promise<IteratorResult<unknown>>;
    try {
      result = Reflect.apply(next, self ?? this, args) as Promise<IteratorResult<unknown>>;
    } catch (err) {
      return onError(err);
    }
    return Promise.resolve(result).then(onStep, onError);
  };
  const ret = iterator.return;
  const observedReturn =
    typeof ret !== "function"
      ? undefined
      : function (this: unknown, ...args: unknown[]) {
          const target = self ?? this;
          let before: Promise<void> | undefined;
          try {
            before = hooks.returning();
          } catch {
            before = undefined;
          }
          const forward = () => {
            let result: unknown;
            try {
              result = Reflect.apply(ret, target, args);
            } catch (err) {
              hooks.failed(err);
              throw err;
            }
            return result;
          };
          const settled = (result: unknown) =>
            Promise.resolve(result).then(
              (step) => {
                hooks.returned();
                return step;
              },
              (err: unknown) => {
                hooks.failed(err);
                throw err;
              },
            );
          if (!before) return settled(forward());
          // Reported to the hooks (the call ends failed); the consumer, already answered, never sees it.
          settled(before.then(forward, forward)).catch(() => {});
          const answer = { value: args[0], done: true };
          return withinGrace(before).then(() => answer);
        };
  const thrower = iterator.throw;
  const observedThrow =
    typeof thrower !== "function"
      ? undefined
      : function (this: unknown, ...args: unknown[]) {
          let result: unknown;
          try {
            result = Reflect.apply(thrower, self ?? this, args);
          } catch (err) {
            hooks.failed(err);
            throw err;
          }
          return Promise.resolve(result).then((step) => {
            if (!isObj(step) || step.done) hooks.end();
            return step;
          }, onThrowError);
        };
  return { next: observedNext, return: observedReturn, throw: observedThrow };
}

/**
 * Keeps pulling from `iterator` (past a consumer that stopped reading) until `enough()` says so, the iterator ends
 * or fails, or `ms` pass — then `onTimeout()` runs (e.g. aborts a read still pending). Resolves when it stops; never
 * rejects. Undefined when the iterator has no `next`.
 */
export function readOn(
  iterator: Obj,
  enough: () => boolean,
  ms: number,
  onTimeout: () => void,
): Promise<void> | undefined {
  const next = iterator.next;
  if (typeof next !== "function") return undefined;
  return new Promise<void>((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      onTimeout();
      stop();
    }, ms);
    const pull = (): void => {
      if (enough()) {
        stop();
        return;
      }
      (Reflect.apply(next, iterator, []) as Promise<IteratorResult<unknown>>).then(
        (step) => (step.done ? stop() : pull()),
        () => stop(),
      );
    };
    pull();
  });
}
