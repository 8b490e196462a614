/**
 * How op() watches a returned thenable that is not a plain native promise, without changing what it does.
 *
 * Calling `then` is not harmless for every thenable: the `openai` and `@anthropic-ai/sdk` packages' APIPromise (a
 * Promise subclass with its own `then`) parses the response body when `then` is first called, so a caller who then
 * asks for the raw response (`asResponse()`) finds the body already read; a query builder (Knex, Mongoose) runs its
 * query on every `then`; even a Promise subclass without a `then` of its own has one of its instances constructed by
 * every `then`. So op() never calls `then` on such an object: it shadows `then` on that one instance (and a `catch`
 * or `finally` of the object's own, which may bypass `then`) and learns the outcome from the callbacks the caller's
 * own `then` hands over, which still receive exactly what they would have.
 *
 * A thenable nobody awaits (only read raw, or dropped) must not keep its call open forever: once the thenable and
 * every callback handed to it are garbage-collected, nothing can settle the call any more, and it ends as cancelled
 * (`abandoned`). Only a plain native promise, on which `then` has no effect but to observe, is watched eagerly.
 */
import { type Method, replaceOwn } from "./shadow.js";

/** What a watched thenable reports, each at most once and only one of them. */
export interface ThenableWatch {
  /** A callback of the caller's received `value` (what the thenable fulfilled with). */
  settled(value: unknown): void;
  /** A callback of the caller's received `err`, or the caller's `then` threw it. */
  failed(err: unknown): void;
  /** A `finally` callback ran: the thenable settled, but how is not known. */
  finished(): void;
  /** The thenable and every callback handed to it were collected before it settled. */
  abandoned(): void;
}

/**
 * Whether `value` is a plain native promise, whose `then` only observes: its prototype is `Promise.prototype` and its
 * `then` the intrinsic one. A subclass (APIPromise overrides `then`; any subclass's `then` constructs an instance of
 * it through `Symbol.species`) or a promise with a `then` shadowed on it is not.
 */
export function isNativePromise(value: object): boolean {
  return (
    Object.getPrototypeOf(value) === Promise.prototype && (value as { then?: unknown }).then === Promise.prototype.then
  );
}

/**
 * Counts what could still settle a watched thenable (the thenable itself, each callback handed to it) and reports the
 * watch abandoned when the last of them is collected. Holds the watch, never the thenable: a finalizer's held value
 * must not keep its target alive.
 */
class Lifeline {
  private live = 0;

  constructor(private watch: ThenableWatch | undefined) {}

  hold(target: object): void {
    if (!this.watch) return;
    this.live++;
    lifelines.register(target, this);
  }

  release(): void {
    if (--this.live > 0 || !this.watch) return;
    const watch = this.watch;
    this.watch = undefined;
    try {
      watch.abandoned();
    } catch {
      // A finalizer that throws would surface as an uncaught exception: tracing failures are never the app's.
    }
  }

  /** The thenable settled: nothing is left to report (and the watch is let go). */
  cut(): void {
    this.watch = undefined;
  }
}

const lifelines = new FinalizationRegistry<Lifeline>((lifeline) => lifeline.release());

/**
 * Watches `thenable` lazily (see the module comment). Returns false when it cannot be watched (frozen, or a Proxy
 * that refuses): then nothing was changed, and the caller should end the call at once.
 */
export function watchThenable(thenable: Record<PropertyKey, unknown>, watch: ThenableWatch): boolean {
  const lifeline = new Lifeline(watch);
  let done = false;
  /** Reports one outcome, once; a report that throws is dropped (it must not reach the caller's callback). */
  const report = (outcome: (watch: ThenableWatch) => void) => {
    if (done) return;
    done = true;
    lifeline.cut();
    try {
      outcome(watch);
    } catch {}
  };
  /** `onFulfilled` as the caller's `then` receives it, reporting the value first. */
  const fulfilled = (onFulfilled: unknown) =>
    function (this: unknown, value: unknown) {
      report((w) => w.settled(value));
      return typeof onFulfilled === "function" ? Reflect.apply(onFulfilled, this, [value]) : value;
    };
  /** `onRejected` likewise; a missing one rethrows, as `then` does without it. */
  const rejected = (onRejected: unknown) =>
    function (this: unknown, err: unknown) {
      report((w) => w.failed(err));
      if (typeof onRejected === "function") return Reflect.apply(onRejected, this, [err]);
      throw err;
    };
  /** Calls the original method, reporting a synchronous throw as the failure the caller's `await` will see. */
  const forward = (method: Method, self: unknown, args: unknown[]) => {
    try {
      return Reflect.apply(method, self, args);
    } catch (err) {
      report((w) => w.failed(err));
      throw err;
    }
  };
  const hold = (...callbacks: object[]) => {
    for (const callback of callbacks) lifeline.hold(callback);
  };

  const then = thenable.then as Method;
  try {
    replaceOwn(thenable, "then", function (this: unknown, ...args: unknown[]) {
      if (done || this !== thenable) return Reflect.apply(then, this, args);
      const callbacks = [fulfilled(args[0]), rejected(args[1])];
      hold(...callbacks);
      return forward(then, this, [...callbacks, ...args.slice(2)]);
    });
  } catch {
    return false;
  }
  // The intrinsic `catch` and `finally` call `then` (observed above); one of the object's own may not (APIPromise's
  // parse and settle without it). Their callbacks tell a rejection, or that it settled.
  const own = (key: "catch" | "finally", intrinsic: unknown): Method | undefined => {
    try {
      const method = thenable[key];
      return typeof method === "function" && method !== intrinsic ? (method as Method) : undefined;
    } catch {
      return undefined; // a getter that throws: `then` is watched, which is what `await` uses
    }
  };
  const ownCatch = own("catch", Promise.prototype.catch);
  if (ownCatch)
    shadow(thenable, "catch", function (this: unknown, ...args: unknown[]) {
      if (done || this !== thenable || typeof args[0] !== "function") return Reflect.apply(ownCatch, this, args);
      const callback = rejected(args[0]);
      hold(callback);
      return forward(ownCatch, this, [callback, ...args.slice(1)]);
    });
  const ownFinally = own("finally", Promise.prototype.finally);
  if (ownFinally)
    shadow(thenable, "finally", function (this: unknown, ...args: unknown[]) {
      const onFinally = args[0];
      if (done || this !== thenable || typeof onFinally !== "function") return Reflect.apply(ownFinally, this, args);
      const callback = function (this: unknown, ...rest: unknown[]) {
        report((w) => w.finished());
        return Reflect.apply(onFinally, this, rest);
      };
      hold(callback);
      return forward(ownFinally, this, [callback, ...args.slice(1)]);
    });
  lifeline.hold(thenable);
  return true;
}

/** Shadows a method when the object lets us; when it does not, that way of settling is simply not observed. */
function shadow(target: object, key: string, value: Method): void {
  try {
    replaceOwn(target, key, value);
  } catch {}
}
