/**
 * Watching the stream of one traced model call (chat-call.ts owns the call; this is its streaming half): the chunks
 * are added to the format's accumulator as the consumer reads them, the first one stamps the time to first chunk, the
 * injected usage chunk is hidden, and the stream's end, an early `return()`, an abort or an in-stream failure end the
 * call through its {@link StreamOwner}. The consumer keeps the very same stream object; the iterator it hands out is
 * an observing one over the stream's own (stream-tap.ts), and a stream that is its own iterator is patched in place.
 *
 * A consumer that stops right after the answer is complete but before what carries its usage still gets that usage
 * recorded (see {@link ChatStream.tailDue}): the injected usage chunk after the last `finish_reason` of a chat
 * completion, the `response.completed` after the closing `.done` events of a Responses stream. What follows is read,
 * within {@link USAGE_AFTER_FINISH_MS}, before the stream is closed.
 */
import type { Span } from "@opentelemetry/api";
import { describeError } from "../otel/diagnostics.js";
import { globalState, reportInternalError, settleLater } from "../otel/state.js";
import { ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK } from "../semconv.js";
import type { StreamAccumulator } from "./call-format.js";
import { isObj, type Obj } from "./guards.js";
import type { ChatEnd } from "./span-record.js";
import { chunkWithoutUsage, USAGE_ONLY } from "./sse-usage.js";
import { HIDDEN, type IteratorHooks, type Method, observedIterator, readOn, tapIterator } from "./stream-tap.js";

/**
 * How long a `break` right after the end of the answer has the stream read on for what carries the usage (the usage
 * chunk after the last `finish_reason`, a Responses stream's `response.completed`); the consumer's `return()` waits
 * at most `RETURN_GRACE_MS` of it (stream-tap.ts).
 */
export const USAGE_AFTER_FINISH_MS = 500;

/** Reports a failure of tracewire's own (rate-limited); the model call itself goes on. */
export function internalError(where: string, err: unknown): void {
  reportInternalError(
    `genai-${where}`,
    `Internal error while tracing a chat completion (${where}; the call itself is unaffected): ${describeError(err)}`,
  );
}

/** What a stream needs from the call it belongs to: its span, its state, and the ways to end it. */
export interface StreamOwner {
  readonly span: Span;
  /** Whether the call has ended. */
  readonly done: boolean;
  /** Whether tracewire added `stream_options.include_usage` (so the usage chunk is hidden from the consumer). */
  readonly injectsUsage: boolean;
  /** `performance.now()` when the call started. */
  readonly startedAt: number;
  /** The request's own abort signal. */
  readonly requestSignal: AbortSignal | undefined;
  /** Links a result (here: the stream) to the call for `callOf()`. */
  link(result: unknown): void;
  /** Ends the call if `target` is garbage-collected first. */
  track(target: object): void;
  cancel(reason: "abort" | "break" | "abandoned" | "shutdown"): void;
  fail(err: unknown): void;
  /** Ends the call, once. */
  end(end: ChatEnd): void;
}

/** One observed stream of a call: its accumulator, abort wiring and the hooks on its iterator. */
export class ChatStream {
  private readonly accumulator: StreamAccumulator;
  private streamController: { abort(): void } | undefined;
  private firstChunk = false;
  /** `next()` calls in flight, and whether `return()` was called: an abort during either is reported by them. */
  private pending = 0;
  private returning = false;
  /**
   * The consumer stopped reading a helper built on this stream after every choice finished, with the injected usage
   * still to come: the call ends when it comes, or when the stream ends or is aborted (see {@link stopReading}).
   */
  private stopRequested = false;
  private stopSettled: (() => void) | undefined;
  /**
   * An item read after the consumer stopped did not belong to the close of the answer (another Responses output item
   * began): the consumer stopped before the end, and that item is left out of the record (the consumer never saw it).
   */
  private cutShort = false;
  private signal: AbortSignal | undefined;
  private detach: (() => void) | undefined;

  /**
   * Starts watching `stream` (the object handed to the caller) for `call`: `accumulator` reassembles its chunks
   * (`usage`, cut from the SSE body before, is added to it), `signal` is the stream's own abort signal.
   */
  constructor(
    private readonly call: StreamOwner,
    stream: object,
    accumulator: StreamAccumulator,
    usage: Obj | undefined,
    signal: AbortSignal | undefined,
  ) {
    this.accumulator = accumulator;
    if (usage) accumulator.addUsage(usage);
    const controller = (stream as { controller?: unknown }).controller;
    if (isObj(controller) && typeof controller.abort === "function")
      this.streamController = controller as unknown as { abort(): void };
    call.link(stream);
    call.track(stream);
    this.watchAbort(signal);
    // toTextStream (next/) cancels the call the moment its body is cancelled, through the global state so that another
    // bundled copy of tracewire finds it too.
    const state = globalState();
    state.streamCancels ??= new WeakMap();
    state.streamCancels.set(stream, (reason) => call.cancel(reason));
  }

  /** Usage the SSE body filter cut out of the stream (sse-usage.ts). */
  addUsage(usage: Obj): void {
    this.accumulator.addUsage(usage);
    if (this.stopRequested) this.stopped();
  }

  /** Stops listening to the stream's abort signal (the call ended). */
  stopWatching(): void {
    this.detach?.();
    this.stopSettled?.();
  }

  /**
   * Whether a consumer that stops now stops after the answer but before what carries its usage, which is worth
   * reading on for: for a chat completion, every choice finished and the usage chunk tracewire asked for has not
   * come; for a format whose stream ends with a terminal item (the Responses API), the latest item closed a part of
   * the answer ({@link StreamAccumulator.closing}) and no item read since began another. One concept for every
   * format: the stop, the reading on and its limits are the same (awaitTail, stopReading).
   */
  private get tailDue(): boolean {
    const { accumulator, call } = this;
    if (call.done || this.cutShort) return false;
    if (accumulator.closing === true) return true;
    return call.injectsUsage && accumulator.finished && !accumulator.hasUsage;
  }

  /**
   * The consumer stopped reading a helper built on this stream (a `break` out of openai's `chat.completions.stream()`
   * or `responses.stream()` runner, which then aborts its request while its own reading may still hold the next
   * item): ended as the stream's `return()` would end it. When the tail that carries the usage is due
   * ({@link tailDue}), the call stays open until it comes, the stream ends or the abort stops it (at most
   * {@link USAGE_AFTER_FINISH_MS}), and none of those is a failure or a cancellation. Returns a promise that
   * settles when the call ended, or undefined when it ended at once.
   */
  stopReading(): Promise<void> | undefined {
    if (this.call.done) return undefined;
    if (!this.tailDue) {
      this.stopped();
      return undefined;
    }
    this.stopRequested = true;
    const ended = new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.stopped(), USAGE_AFTER_FINISH_MS);
      this.stopSettled = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    settleLater(ended);
    return ended;
  }

  private watchAbort(signal: AbortSignal | undefined): void {
    if (!signal) return;
    this.signal = signal;
    const onAbort = () => {
      // While a next() or return() is in flight, its outcome tells what happened (an in-stream error also aborts).
      if (this.pending === 0 && !this.returning) {
        if (this.stopRequested) this.stopped();
        else this.call.cancel("abort");
      }
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    this.detach = () => signal.removeEventListener("abort", onAbort);
  }

  /**
   * Observes the iterator the stream handed out: each chunk, the end, an early `return()` and failures. `fresh`: an
   * iterator nobody holds yet, which is left as it is and the observing iterator returned to be handed out instead;
   * otherwise (a stream that is its own iterator) it is observed in place.
   */
  observeIterator(iterator: Obj, fresh = false): Obj | undefined {
    const next = iterator.next;
    if (typeof next !== "function") return undefined;
    let observed = iterator;
    // Reading on past the consumer (awaitTail) pulls through the observed `next`, so the hooks see those steps too.
    const hooks = this.iteratorHooks(() => observed);
    if (fresh) observed = observedIterator(iterator, next as Method, hooks);
    else tapIterator(iterator, next as Method, hooks);
    this.call.track(observed);
    return fresh ? observed : undefined;
  }

  private iteratorHooks(observed: () => Obj): IteratorHooks {
    return {
      pulling: () => {
        this.pending++;
      },
      pulled: () => {
        this.pending--;
      },
      step: (value) => this.chunk(value),
      end: () => this.ended(),
      returning: () => {
        this.returning = true;
        return this.awaitTail(observed());
      },
      returned: () => this.stopped(),
      failed: (err) => {
        if (this.stopRequested) this.stopped();
        else this.call.fail(err);
      },
    };
  }

  /**
   * Records one chunk; returns what the consumer gets: the chunk, a copy without the injected `usage`, or HIDDEN (the
   * injected usage-only chunk).
   */
  private chunk(value: unknown): unknown {
    const { accumulator, call } = this;
    if (!call.done) {
      try {
        if (!this.firstChunk) {
          this.firstChunk = true;
          call.span.setAttribute(ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, (performance.now() - call.startedAt) / 1000);
        }
        const pastConsumer = this.returning || this.stopRequested;
        if (pastConsumer && accumulator.closing === true && accumulator.closes?.(value) === false) this.cutShort = true;
        else accumulator.add(value);
        if (this.stopRequested && !this.tailDue) this.stopped();
      } catch (err) {
        internalError("chunk", err);
      }
    }
    if (!call.injectsUsage) return value;
    try {
      const shown = chunkWithoutUsage(value);
      return shown === USAGE_ONLY ? HIDDEN : shown;
    } catch (err) {
      internalError("hide-usage", err);
      return value;
    }
  }

  /**
   * Before a `return()` (the consumer stopped): when the tail that carries the usage is due ({@link tailDue}), reads
   * on for at most {@link USAGE_AFTER_FINISH_MS} (those items are past the consumer's `break`) until it comes or shows
   * the answer was not over, then ends the call as the `break` would have after them (complete with the usage, or as
   * the `break` alone: a finished chat completion without usage, a Responses stream cancelled). A read still pending
   * then is aborted so the stream closes as it would have — that abort is tracewire's, not the caller's, so it does
   * not make the call cancelled. The iterator's own `return()` runs after (stream-tap.ts): it closes the stream.
   */
  private awaitTail(iterator: Obj): Promise<void> | undefined {
    if (!this.tailDue) return undefined;
    const reading = readOn(
      iterator,
      () => !this.tailDue,
      USAGE_AFTER_FINISH_MS,
      () => {
        this.stopped();
        try {
          this.streamController?.abort();
        } catch (err) {
          internalError("usage-wait", err);
        }
      },
    );
    if (!reading) return undefined;
    // The call ends as soon as the reading stops (the usage came, or the wait ran out), not after the stream's own
    // `return()`. The consumer's `return()` does not wait for any of it (stream-tap.ts); flush() and shutdown() do.
    const ended = reading.then(() => this.stopped());
    settleLater(ended);
    return ended;
  }

  /** The iterator reported done: finished, failed in the stream itself, or stopped quietly by an abort. */
  private ended(): void {
    const call = this.call;
    if (call.done) return;
    // Read on past a consumer that stopped, the stream ended before its tail came: the stop decides (stopped()).
    if (this.stopRequested || this.returning) {
      this.stopped();
      return;
    }
    if (this.signal?.aborted || call.requestSignal?.aborted) {
      call.cancel("abort");
      return;
    }
    const output = this.partialOutput() ?? { value: this.accumulator.completion() };
    const failure = this.accumulator.failure;
    if (failure !== undefined) call.end({ kind: "error", output, err: failure });
    else call.end({ kind: "ok", output });
  }

  /** The consumer called `return()` (e.g. `break`): complete if every choice had finished, cancelled otherwise. */
  stopped(): void {
    const { accumulator, call } = this;
    if (call.done) return;
    if (!accumulator.finished) call.cancel("break");
    else if (accumulator.failure !== undefined)
      call.end({ kind: "error", output: this.partialOutput(), err: accumulator.failure });
    else call.end({ kind: "ok", output: this.partialOutput() });
  }

  /** The completion the chunks add up to so far; undefined before the first chunk (or if reassembly fails). */
  partialOutput(): { value: unknown } | undefined {
    const accumulator = this.accumulator;
    if (accumulator.chunks === 0) return undefined;
    try {
      return { value: accumulator.completion() };
    } catch (err) {
      internalError("reassemble", err);
      return undefined;
    }
  }
}
