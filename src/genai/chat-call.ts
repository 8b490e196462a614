/**
 * The life of one chat-completion span, shared by `wrapOpenAI` and tracewire's own inference and training clients.
 *
 * A {@link ChatCall} starts a GenAI `chat {model}` CLIENT span (with the call's start data on the context given to
 * `startSpan`, like op() does, so the calls route sees real JSON inputs) and ends it exactly once:
 * - with the completion (non-streamed), or the reassembled completion when a stream finishes;
 * - as cancelled (status UNSET, `tracewire.cancelled=true`) when the caller aborts, stops iterating early, or drops
 *   a stream it never finished (noticed through a FinalizationRegistry, so no span is left open forever), or when
 *   the processor shuts down while the call still runs (reason `shutdown`);
 * - as failed (status ERROR, `error.type`, the exception recorded) on an API, connection or in-stream error.
 *
 * Streams are observed by chat-stream.ts: the consumer keeps the very same stream object, and the iterator it hands
 * out forwards to the stream's own one, observed. When tracewire injected `stream_options.include_usage`, what the server
 * adds for it is hidden: chunk by chunk when the caller takes only the parsed stream, and in the SSE body itself
 * when the caller may read the HTTP response (`asResponse()`, `withResponse()`, or not yet said when it arrives:
 * sse-usage.ts, so raw bodies are untouched too) — either way the consumer sees exactly what an untraced request
 * would have produced. What is recorded at the start and the end is in span-record.ts.
 *
 * Inside an agent framework's model call (model-request-owner.ts) no call starts: the framework records the request.
 *
 * Every tracing step is guarded: a failure is logged (rate-limited) and never reaches the caller.
 */
import { type Context, context, type Span, trace } from "@opentelemetry/api";
import { AbortError } from "../errors.js";
import { setCallCloser } from "../otel/span-data.js";
import { globalState } from "../otel/state.js";
import { describeAs } from "../own-objects.js";
import { callOfSpan } from "../tracing/op.js";
import { type CallFormat, OPENAI_CHAT_FORMAT } from "./call-format.js";
import { ChatStream, internalError, type StreamOwner } from "./chat-stream.js";
import { isObj, type Obj } from "./guards.js";
import { frameworkModelCallOf } from "./model-request-owner.js";
import { ATTR_TRACEWIRE_RESPONSE_RAW } from "./openai-chat.js";
import type { ResolvedChatTraceOptions } from "./options.js";
import { type ChatCallSpec, type ChatEnd, recordChatEnd, startChatSpan } from "./span-record.js";
import { responseHidingUsage } from "./sse-usage.js";
import { type Method, tapFirstIterator } from "./stream-tap.js";

/** Ends the span of a stream or promise the caller dropped without finishing it. */
const abandoned = new FinalizationRegistry<ChatCall>((call) => call.cancel("abandoned"));

/**
 * Whether `{ ...params }` sends the same request as `params`: a plain object whose `stream` is its own, enumerable
 * property. The SDK decides to stream by reading `params.stream`, so an inherited or non-enumerable `stream: true`
 * (lost by the spread) would turn the caller's stream into a plain completion. Such requests are sent as they are,
 * without the injected usage.
 */
function copiesFaithfully(params: Obj): boolean {
  return isPlain(params) && Object.prototype.propertyIsEnumerable.call(params, "stream");
}

/** Whether a value is a plain object (its own enumerable keys are all it has). */
function isPlain(value: unknown): value is Obj {
  if (!isObj(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether a failure is the caller's own abort: the openai package's `APIUserAbortError`, or ours. */
function isAbort(err: unknown): boolean {
  try {
    return err instanceof AbortError || (isObj(err) && err.constructor?.name === "APIUserAbortError");
  } catch {
    return false;
  }
}

/** One traced chat request: its span, and the ways that span can end (each of them at most once). */
export class ChatCall implements StreamOwner {
  /**
   * The request body to send: the caller's parameters, or a copy with `stream_options.include_usage` (added to the
   * caller's `stream_options` when they say nothing about usage: `{include_obfuscation: false}`).
   */
  readonly body: Obj;
  /** The span's context: run the request inside it so HTTP instrumentation nests under the chat span. */
  readonly context: Context;
  /** Whether the request asked for a stream (`stream: true`). */
  readonly streaming: boolean;
  /**
   * Hide the injected usage in the SSE body itself (where it is read as the bytes arrive) even when the caller only
   * takes the parsed stream: set for a request an SDK helper makes (openai's `chat.completions.stream()` runner),
   * whose `break` aborts the request while the usage chunk may have arrived but not been yielded yet.
   */
  hideUsageInBody = false;
  private injectedUsage: boolean;
  /** Usage cut out of the SSE body before a stream was observed (kept for its accumulator). */
  private usage: Obj | undefined;
  /** The call's handle, kept from before the span ended so results can be linked afterwards. */
  private handle: ReturnType<typeof callOfSpan>;
  /** `performance.now()` when the call started (for the time to first chunk). */
  readonly startedAt = performance.now();
  private ended = false;
  /** Whether {@link abandoned} holds an entry for this call (most never get one: `await create()` asks at once). */
  private watched = false;
  /** The stream being watched, once there is one. */
  private stream: ChatStream | undefined;

  private constructor(
    readonly span: Span,
    parent: Context,
    params: Obj,
    private readonly opName: string,
    private readonly options: ResolvedChatTraceOptions,
    private readonly signal: AbortSignal | undefined,
    noUsageInjection: boolean,
    private readonly format: CallFormat,
    streaming: boolean | undefined,
  ) {
    this.context = trace.setSpan(parent, span);
    this.streaming = streaming ?? params.stream === true;
    const own = params.stream_options;
    this.injectedUsage =
      this.streaming &&
      format.injectsStreamUsage &&
      options.includeStreamUsage &&
      !noUsageInjection &&
      (own == null || (isPlain(own) && own.include_usage === undefined)) &&
      copiesFaithfully(params);
    this.body = this.injectedUsage
      ? { ...params, stream_options: { ...(isObj(own) ? own : {}), include_usage: true } }
      : params;
    // A processor that shuts down while this call runs ends it through cancel("shutdown"), with what it has so far.
    setCallCloser(span, this);
  }

  /**
   * Starts the span of one chat request, or returns undefined when nothing would record it (no tracer provider,
   * sampled out) or tracing failed to start — then run the request untraced.
   */
  static start(spec: ChatCallSpec): ChatCall | undefined {
    try {
      // Inside an agent framework's model call, the framework records this request (model-request-owner.ts).
      const parent = context.active();
      const owner = frameworkModelCallOf(parent);
      if (owner) {
        owner.deferred++;
        return undefined;
      }
      const started = startChatSpan(spec, parent);
      if (!started) return undefined;
      return new ChatCall(
        started.span,
        started.parent,
        spec.params,
        spec.opName,
        spec.options,
        spec.signal,
        spec.noUsageInjection === true,
        spec.format ?? OPENAI_CHAT_FORMAT,
        spec.streaming,
      );
    } catch (err) {
      internalError("start", err);
      return undefined;
    }
  }

  /** Whether tracewire added `stream_options.include_usage` to this request (and so hides what it brings). */
  get injectsUsage(): boolean {
    return this.injectedUsage;
  }

  /**
   * The request is sent again without the injected `stream_options` (the server refused it): nothing is hidden
   * any more, and `body` is the caller's parameters again.
   */
  withoutInjection(params: Obj): void {
    this.injectedUsage = false;
    (this as { body: Obj }).body = params;
  }

  /**
   * The HTTP response the SDK will parse and the caller may read raw: with the injected usage hidden from its body
   * (and recorded here), or `response` itself when nothing was injected or it cannot be filtered.
   */
  hideUsage(response: unknown): unknown {
    if (!this.injectedUsage) return response;
    try {
      return responseHidingUsage(response, (usage) => {
        if (this.stream) this.stream.addUsage(usage);
        else this.usage = usage;
      });
    } catch (err) {
      internalError("hide-usage", err);
      return response;
    }
  }

  /** Whether the span has ended. */
  get done(): boolean {
    return this.ended;
  }

  /**
   * Links `result` (a completion, a stream, what an SDK helper made of them) to this call for `callOf(result)`;
   * also after the span ended (a helper's result is made from the completion that ended it).
   */
  link(result: unknown): void {
    try {
      if (!isObj(result)) return;
      const call = this.handle ?? callOfSpan(this.span);
      if (call) globalState().results.set(result, call);
    } catch (err) {
      internalError("link", err);
    }
  }

  /** Ends the span with a non-streamed answer (failed when the answer itself reports a failure). */
  complete(completion: unknown): void {
    if (this.ended) return;
    this.link(completion);
    let failure: unknown;
    try {
      failure = this.format.failureOf?.(completion);
    } catch (err) {
      internalError("failure", err);
    }
    if (failure !== undefined) this.finish({ kind: "error", output: { value: completion }, err: failure });
    else this.finish({ kind: "ok", output: { value: completion } });
  }

  /** Ends the span because the request failed: cancelled when the caller aborted, otherwise an error. */
  fail(err: unknown): void {
    if (this.ended) return;
    const output = this.partialOutput();
    if (this.signal?.aborted || isAbort(err)) {
      this.finish({ kind: "cancel", output, reason: "abort" });
    } else {
      this.finish({ kind: "error", output, err });
    }
  }

  /**
   * Ends the span as cancelled (`abort`, `break`, `abandoned`, or `shutdown`: the processor shut down while the call
   * ran), keeping what a stream delivered so far.
   */
  cancel(reason: "abort" | "break" | "abandoned" | "shutdown"): void {
    if (this.ended) return;
    this.finish({ kind: "cancel", output: this.partialOutput(), reason });
  }

  /**
   * The caller stopped reading a helper built on the stream (a `break` out of Anthropic's `MessageStream`, which then
   * aborts its request): ended as the stream's own `return()` would end it — complete if the answer had finished,
   * cancelled (`break`) otherwise — before that abort can make it look like the caller's.
   */
  stopReading(): Promise<void> | undefined {
    if (this.ended) return undefined;
    if (this.stream) return this.stream.stopReading();
    this.cancel("break");
    return undefined;
  }

  /** Ends the span when the caller took the raw HTTP response: tracewire never sees the body. */
  raw(): void {
    if (this.ended) return;
    try {
      this.span.setAttribute(ATTR_TRACEWIRE_RESPONSE_RAW, true);
    } catch (err) {
      internalError("raw", err);
    }
    this.finish({ kind: "ok", output: undefined });
  }

  /** Ends the span if `target` is garbage-collected first (a stream or promise nobody finished). */
  track(target: object): void {
    if (this.ended) return;
    try {
      if (this.watched) abandoned.unregister(this);
      abandoned.register(target, this, this);
      this.watched = true;
    } catch (err) {
      internalError("track", err);
    }
  }

  /** Stops the abandonment watch (the caller has started consuming the result). */
  untrack(): void {
    if (!this.watched) return;
    this.watched = false;
    abandoned.unregister(this);
  }

  /**
   * Watches a stream: `key` is the member that hands out its iterator (`Symbol.asyncIterator`, or the `iterator`
   * factory of the openai package's `Stream`, which `tee()`, `toReadableStream()` and `for await` all use). The
   * first iterator handed out is observed; `signal` is the stream's own abort signal.
   */
  observeStream(stream: object, key: PropertyKey, signal: AbortSignal | undefined): void {
    if (this.ended) return;
    try {
      const target = stream as Record<PropertyKey, unknown>;
      const factory = target[key];
      if (typeof factory !== "function") {
        this.finish({ kind: "ok", output: undefined });
        return;
      }
      const watched = this.beginStream(stream, signal);
      tapFirstIterator(target, key, factory as Method, (iterator) => watched.observeIterator(iterator, true));
    } catch (err) {
      internalError("observe-stream", err);
      this.finish({ kind: "ok", output: undefined });
    }
  }

  /**
   * Watches a stream that is its own iterator (an async generator, whose `[Symbol.asyncIterator]()` returns itself):
   * its `next` and `return` are observed in place, whether the consumer uses `for await` or calls `next()` directly.
   * `signal` is the request's abort signal.
   */
  observeIterable(iterator: object, signal: AbortSignal | undefined): void {
    if (this.ended) return;
    try {
      if (typeof (iterator as Obj).next !== "function") {
        this.finish({ kind: "ok", output: undefined });
        return;
      }
      this.beginStream(iterator, signal).observeIterator(iterator as Obj);
    } catch (err) {
      internalError("observe-stream", err);
      this.finish({ kind: "ok", output: undefined });
    }
  }

  /** What watching any stream starts with: its accumulator, abort wiring, `callOf` link and GC watch. */
  private beginStream(stream: object, signal: AbortSignal | undefined): ChatStream {
    const watched = new ChatStream(this, stream, this.format.accumulator(this.options, this.body), this.usage, signal);
    this.stream = watched;
    return watched;
  }

  /** The completion a stream's chunks add up to so far; undefined when nothing was streamed. */
  private partialOutput(): { value: unknown } | undefined {
    return this.stream?.partialOutput();
  }

  /** The request's own abort signal (for a stream: an abort seen as the stream ends makes the call cancelled). */
  get requestSignal(): AbortSignal | undefined {
    return this.signal;
  }

  /** Ends the call with how a stream ended (chat-stream.ts); once, like every other way to end it. */
  end(end: ChatEnd): void {
    this.finish(end);
  }

  /** Ends the span, once: records how the call ended, then `span.end()` whatever happened while recording. */
  private finish(end: ChatEnd): void {
    if (this.ended) return;
    this.ended = true;
    const span = this.span;
    try {
      this.handle ??= callOfSpan(span);
      this.untrack();
      this.stream?.stopWatching();
      recordChatEnd(span, end, this.options, this.opName, this.format);
    } catch (e) {
      internalError("end", e);
    } finally {
      span.end();
    }
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(ChatCall, "ChatCall");

/**
 * Ends the call of a traced LLM stream as cancelled at once, for the code that consumes the stream and is stopping it
 * (`toTextStream` when the response is cancelled): the abort that follows reaches the stream's pending read only some
 * turns later, and a platform may end the request's spans in between (`@vercel/otel` ends every span still open when
 * the request's root span ends), which would leave the call ended without saying it was cancelled. A no-op for a
 * stream that is not traced or whose call has ended.
 */
export function cancelStreamCall(stream: unknown): void {
  if (!isObj(stream)) return;
  try {
    globalState().streamCancels?.get(stream)?.("abort");
  } catch (err) {
    internalError("cancel-stream", err);
  }
}
