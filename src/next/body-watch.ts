/**
 * Noticing when a Response body has been read to its end, without changing it: the ways of reading a web
 * ReadableStream are wrapped on the one instance, so the Response and its body stay the very same objects.
 */

import { define } from "../tracing/observe.js";

/**
 * Called when the body has been read to its end, with `cancelled` true when its reader stopped early (the client went
 * away: a cancelled reader, an aborted pipe, an iteration left early), or with the error that stopped it.
 */
export type Settle = (error?: unknown, cancelled?: boolean) => void;

/** The name of the error Next aborts a response's pipe with when the client disconnects. */
const RESPONSE_ABORTED = "ResponseAborted";

/** Whether a failed `pipeTo(destination, options)` was stopped by its reader (its signal) rather than by the body. */
function abortedByReader(options: unknown, err: unknown): boolean {
  const signal = (options as { signal?: { aborted?: unknown } } | null | undefined)?.signal;
  if (signal?.aborted === true) return true;
  return (err as { name?: unknown } | null | undefined)?.name === RESPONSE_ABORTED;
}

/** Wraps `read` and `cancel` of one reader of the watched stream. */
function watchReader(reader: Record<string, unknown>, settle: Settle): void {
  const read = reader.read as (...args: unknown[]) => Promise<{ done?: boolean }>;
  define(reader, "read", function (this: unknown, ...args: unknown[]) {
    const result = read.apply(this, args);
    result.then(
      (step) => {
        if (step?.done) settle();
      },
      (err: unknown) => settle(err ?? new Error("stream failed")),
    );
    return result;
  });
  const cancel = reader.cancel as ((...args: unknown[]) => Promise<void>) | undefined;
  if (typeof cancel === "function")
    define(reader, "cancel", function (this: unknown, ...args: unknown[]) {
      settle(undefined, true);
      return cancel.apply(this, args);
    });
}

/**
 * Resolves when a web ReadableStream has been read to its end (rejects when it errors), without changing it: the
 * ways of reading it are wrapped on the instance only, so the Response and its body stay the very same objects.
 */
export function watchStream(stream: Record<PropertyKey, unknown>, settle: Settle): boolean {
  const getReader = stream.getReader as ((...args: unknown[]) => Record<string, unknown>) | undefined;
  if (typeof getReader !== "function") return false;
  const ok = define(stream, "getReader", function (this: unknown, ...args: unknown[]) {
    const reader = getReader.apply(this, args);
    watchReader(reader, settle);
    return reader;
  });
  if (!ok) return false;
  const pipeTo = stream.pipeTo as ((...args: unknown[]) => Promise<void>) | undefined;
  if (typeof pipeTo === "function")
    define(stream, "pipeTo", function (this: unknown, ...args: unknown[]) {
      const result = pipeTo.apply(this, args);
      // The reader leaving (Next aborts the pipe's signal when the client disconnects) ends the call now: the pipe
      // itself settles only once the body's cancel() has, which is the app's code and may take long. Listening after
      // pipeTo's own listener, so the body's cancel() has been called (a toTextStream has ended its LLM call) first.
      const signal = (args[1] as { signal?: unknown } | null | undefined)?.signal as EventTarget | undefined;
      if (typeof signal?.addEventListener === "function")
        signal.addEventListener("abort", () => settle(undefined, true), { once: true });
      result.then(
        () => settle(),
        (err: unknown) =>
          abortedByReader(args[1], err) ? settle(undefined, true) : settle(err ?? new Error("stream aborted")),
      );
      return result;
    });
  const pipeThrough = stream.pipeThrough as ((...args: unknown[]) => Record<PropertyKey, unknown>) | undefined;
  if (typeof pipeThrough === "function")
    define(stream, "pipeThrough", function (this: unknown, ...args: unknown[]) {
      const out = pipeThrough.apply(this, args);
      if (!watchStream(out, settle)) settle();
      return out;
    });
  const tee = stream.tee as ((...args: unknown[]) => Record<PropertyKey, unknown>[]) | undefined;
  if (typeof tee === "function")
    define(stream, "tee", function (this: unknown, ...args: unknown[]) {
      const branches = tee.apply(this, args);
      // The call ends with the first branch read to its end.
      for (const branch of branches) if (!watchStream(branch, settle)) settle();
      return branches;
    });
  const values = stream.values as ((...args: unknown[]) => Record<string, unknown>) | undefined;
  if (typeof values === "function") {
    const iterate = function (this: unknown, ...args: unknown[]) {
      const iterator = values.apply(this, args);
      const next = iterator.next as () => Promise<{ done?: boolean }>;
      define(iterator, "next", function (this: unknown) {
        const result = next.call(this);
        result.then(
          (step) => {
            if (step?.done) settle();
          },
          (err: unknown) => settle(err ?? new Error("stream failed")),
        );
        return result;
      });
      const ret = iterator.return as ((...a: unknown[]) => unknown) | undefined;
      if (typeof ret === "function")
        define(iterator, "return", function (this: unknown, ...a: unknown[]) {
          settle(undefined, true);
          return ret.apply(this, a);
        });
      return iterator;
    };
    define(stream, "values", iterate);
    define(stream, Symbol.asyncIterator, iterate);
  }
  return true;
}
