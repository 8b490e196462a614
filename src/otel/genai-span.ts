/**
 * The life of one chat-completion span, shared by `wrapOpenAI` and tracewire's own inference and training clients.
 *
 * A {@link ChatCall} starts a GenAI `chat {model}` CLIENT span (with the call's start data on the context given to
 * `startSpan`, like op() does, so the calls route sees real JSON inputs) and ends it exactly once:
 * - with the completion (non-streamed), or the reassembled completion when a stream finishes;
 * - as cancelled (status UNSET, `tracewire.cancelled=true`) when the caller aborts, stops iterating early, or drops
 *   a stream it never finished (noticed through a FinalizationRegistry, so no span is left open forever);
 * - as failed (status ERROR, `error.type`, the exception recorded) on an API, connection or in-stream error.
 *
 * Streams are observed by patching the iterator the stream hands out *in place* (`next`/`return` on that one
 * object), so the consumer keeps the very same objects. When tracewire injected `stream_options.include_usage`,
 * the extra usage-only chunk and the `usage: null` field the server adds to the other chunks are hidden: the
 * consumer sees exactly the chunks an untraced request would have produced.
 *
 * Every tracing step is guarded: a failure is logged (rate-limited) and never reaches the caller.
 */
import { type Attributes, type Context, context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { JsonObject } from "../api/types/common.js";
import { type Env, readBoolean } from "../config.js";
import { AbortError, ConfigError } from "../errors.js";
import { currentAttributes, currentThread } from "../tracing/context.js";
import { callOfSpan } from "../tracing/op.js";
import { preparePayload } from "../tracing/payload.js";
import type { JsonValue } from "../tracing/serialize.js";
import { TRACER_NAME, VERSION } from "../version.js";
import { describeError } from "./diagnostics.js";
import {
  ATTR_TRACEWIRE_CANCEL_REASON,
  ATTR_TRACEWIRE_CANCELLED,
  ATTR_TRACEWIRE_RESPONSE_RAW,
  ChatChunkAccumulator,
  type ChatEndpoint,
  chatEndpoint,
  chatRequestAttributes,
  chatResponseAttributes,
  chatSpanName,
  errorTypeOf,
  inputContentAttributes,
  outputContentAttributes,
  withoutTokenIds,
} from "./genai-chat.js";
import { ATTR_ERROR_TYPE, ATTR_GEN_AI_CONVERSATION_ID, ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK } from "./semconv.js";
import { CALL_START_KEY, type CallStartData, setCallEndData, spanRoute } from "./span-data.js";
import { portableEndAttributes } from "./span-to-call.js";
import { globalState } from "./state.js";

/** How chat calls are traced. Every field is optional; see each for its default. */
export interface ChatTraceOptions {
  /**
   * `gen_ai.provider.name` for every call. Default: detected from the base URL (our inference and training
   * services, `api.openai.com` → `openai`, Azure OpenAI → `azure.ai.openai`, a few well-known hosts; anything else
   * is reported as `openai`, the API it speaks).
   */
  providerName?: string;
  /**
   * Add `stream_options: {include_usage: true}` to streamed requests that set no `stream_options`, so token usage
   * is recorded for streams too. The extra usage chunk (and the `usage: null` the server then adds to every other
   * chunk) is hidden from your code. Default true.
   */
  includeStreamUsage?: boolean;
  /**
   * Also record message content as the opt-in GenAI attributes `gen_ai.input.messages`, `gen_ai.output.messages`
   * and `gen_ai.tool.definitions` (JSON strings), for other OpenTelemetry backends. Default false, or true when
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. Never recorded when content capture is off
   * (`init({captureContent: false})`); always redacted by your `redact` hook first. The call's own inputs and output
   * (the calls route) follow `captureContent` alone.
   */
  contentAttributes?: boolean;
  /**
   * Keep the engine's token id arrays (`prompt_token_ids`, `token_ids`, sent with `return_token_ids`) in the
   * recorded output. Default false: they are not text, and can be longer than it.
   */
  captureTokenIds?: boolean;
}

/** {@link ChatTraceOptions} with every default applied. */
export interface ResolvedChatTraceOptions {
  providerName: string | undefined;
  includeStreamUsage: boolean;
  contentAttributes: boolean;
  captureTokenIds: boolean;
}

/** The environment variable the contrib GenAI instrumentations read to opt in to content capture. */
export const ENV_CAPTURE_MESSAGE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/** Applies defaults and checks types; a bad value is a `ConfigError` naming the option (`where` prefixes it). */
export function resolveChatTraceOptions(options: ChatTraceOptions, env: Env, where: string): ResolvedChatTraceOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options))
    throw new ConfigError(where, typeof options, "an options object");
  const flag = (name: keyof ChatTraceOptions, fallback: boolean): boolean => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== "boolean") throw new ConfigError(`${where}.${name}`, JSON.stringify(value), "true or false");
    return value;
  };
  const provider = options.providerName;
  if (provider !== undefined && (typeof provider !== "string" || provider.trim() === ""))
    throw new ConfigError(`${where}.providerName`, JSON.stringify(provider), "a non-empty string such as openai");
  // The contrib instrumentations also accept span_only / span_and_event here (standards §3.3).
  const raw = env[ENV_CAPTURE_MESSAGE_CONTENT]?.trim().toLowerCase();
  const fromEnv =
    raw === "span_only" || raw === "span_and_event"
      ? true
      : raw === "event_only" || raw === "no_content"
        ? false
        : (readBoolean("contentAttributes", ENV_CAPTURE_MESSAGE_CONTENT, undefined, env) ?? false);
  return {
    providerName: provider,
    includeStreamUsage: flag("includeStreamUsage", true),
    contentAttributes: flag("contentAttributes", fromEnv),
    captureTokenIds: flag("captureTokenIds", false),
  };
}

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null;

function internalError(where: string, err: unknown): void {
  globalState().active?.diagnostics.error(
    `genai-${where}`,
    `Internal error while tracing a chat completion (${where}; the call itself is unaffected): ${describeError(err)}`,
  );
}

/** The `controller.signal` of a stream (the openai `Stream` and our `ChatStream` both carry one), if any. */
export function controllerSignal(stream: unknown): AbortSignal | undefined {
  const signal = (stream as { controller?: { signal?: unknown } } | null | undefined)?.controller?.signal;
  return signal instanceof AbortSignal ? signal : undefined;
}

/** Defines an own, non-enumerable, writable property (shadowing a prototype method on one instance). */
export function defineOwn(target: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, { value, configurable: true, writable: true, enumerable: false });
}

/** Ends the span of a stream or promise the caller dropped without finishing it. */
const abandoned = new FinalizationRegistry<ChatCall>((call) => call.cancel("abandoned"));

/** What a chat call needs to start. */
export interface ChatCallSpec {
  /** The call's op name, e.g. `openai.chat.completions.create`. */
  opName: string;
  /** The request parameters as the caller passed them. */
  params: Obj;
  endpoint: ChatEndpoint;
  options: ResolvedChatTraceOptions;
  /** The caller's AbortSignal: when it fired, a failure is a cancellation, not an error. */
  signal?: AbortSignal | undefined;
}

/** Whether a failure is the caller's own abort: the openai package's `APIUserAbortError`, or ours. */
function isAbort(err: unknown): boolean {
  try {
    return err instanceof AbortError || (isObj(err) && err.constructor?.name === "APIUserAbortError");
  } catch {
    return false;
  }
}

export class ChatCall {
  /** The request body to send: the caller's parameters, or a copy with `stream_options.include_usage`. */
  readonly body: Obj;
  /** The span's context: run the request inside it so HTTP instrumentation nests under the chat span. */
  readonly context: Context;
  readonly streaming: boolean;
  private readonly injectedUsage: boolean;
  private readonly startedAt = performance.now();
  private ended = false;
  private accumulator: ChatChunkAccumulator | undefined;
  private firstChunk = false;
  /** `next()` calls in flight, and whether `return()` was called: an abort during either is reported by them. */
  private pending = 0;
  private returning = false;
  private streamSignal: AbortSignal | undefined;
  private detach: (() => void) | undefined;

  private constructor(
    readonly span: Span,
    parent: Context,
    params: Obj,
    private readonly opName: string,
    private readonly options: ResolvedChatTraceOptions,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.context = trace.setSpan(parent, span);
    this.streaming = params.stream === true;
    this.injectedUsage = this.streaming && options.includeStreamUsage && params.stream_options == null;
    this.body = this.injectedUsage ? { ...params, stream_options: { include_usage: true } } : params;
  }

  /**
   * Starts the span of one chat request, or returns undefined when nothing would record it (no tracer provider,
   * sampled out) or tracing failed to start — then run the request untraced.
   */
  static start(spec: ChatCallSpec): ChatCall | undefined {
    try {
      const state = globalState();
      const { params, opName } = spec;
      const parent = context.active();
      const contentAttributes = spec.options.contentAttributes && state.payload.captureContent;
      let inputs: JsonValue | undefined;
      if (state.active || contentAttributes) inputs = preparePayload(params, "inputs", opName);
      let startContext = parent;
      const thread = currentThread();
      if (state.active) {
        const data: CallStartData = {
          opName,
          inputs:
            isObj(inputs) && !Array.isArray(inputs)
              ? (inputs as JsonObject)
              : inputs === undefined
                ? {}
                : { value: inputs },
          attributes: { ...currentAttributes() },
        };
        if (thread) {
          data.threadId = thread.threadId;
          data.turnId = thread.turnId ?? "self";
        }
        startContext = parent.setValue(CALL_START_KEY, data);
      }
      const attributes = chatRequestAttributes(params, spec.endpoint, params.stream === true);
      // The conversation a chat call belongs to is the withThread() thread it runs in.
      if (thread) attributes[ATTR_GEN_AI_CONVERSATION_ID] = thread.threadId;
      const tracer = state.tracer ?? trace.getTracer(TRACER_NAME, VERSION);
      const span = tracer.startSpan(chatSpanName(params), { kind: SpanKind.CLIENT, attributes }, startContext);
      if (!span.isRecording()) {
        span.end();
        return undefined;
      }
      if (contentAttributes && inputs !== undefined) span.setAttributes(inputContentAttributes(inputs));
      return new ChatCall(span, parent, params, opName, spec.options, spec.signal);
    } catch (err) {
      internalError("start", err);
      return undefined;
    }
  }

  /** Whether the span has ended. */
  get done(): boolean {
    return this.ended;
  }

  /** Links `result` (a completion, a stream) to this call for `callOf(result)`. Only while the span is live. */
  link(result: unknown): void {
    try {
      if (this.ended || !isObj(result)) return;
      const call = callOfSpan(this.span);
      if (call) globalState().results.set(result, call);
    } catch (err) {
      internalError("link", err);
    }
  }

  /** Ends the span with a non-streamed answer. */
  complete(completion: unknown): void {
    if (this.ended) return;
    this.link(completion);
    this.finish("ok", { value: completion });
  }

  /** Ends the span because the request failed: cancelled when the caller aborted, otherwise an error. */
  fail(err: unknown): void {
    if (this.ended) return;
    const partial = this.partialOutput();
    if (this.signal?.aborted || isAbort(err)) {
      this.finish("cancel", partial, undefined, "abort");
    } else {
      this.finish("error", partial, err);
    }
  }

  /** Ends the span as cancelled (`abort`, `break` or `abandoned`), keeping what a stream delivered so far. */
  cancel(reason: "abort" | "break" | "abandoned"): void {
    if (this.ended) return;
    this.finish("cancel", this.partialOutput(), undefined, reason);
  }

  /** Ends the span when the caller took the raw HTTP response: tracewire never sees the body. */
  raw(): void {
    if (this.ended) return;
    try {
      this.span.setAttribute(ATTR_TRACEWIRE_RESPONSE_RAW, true);
    } catch (err) {
      internalError("raw", err);
    }
    this.finish("ok", undefined);
  }

  /** Ends the span if `target` is garbage-collected first (a stream or promise nobody finished). */
  track(target: object): void {
    if (this.ended) return;
    try {
      abandoned.unregister(this);
      abandoned.register(target, this, this);
    } catch (err) {
      internalError("track", err);
    }
  }

  /** Stops the abandonment watch (the caller has started consuming the result). */
  untrack(): void {
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
        this.finish("ok", undefined);
        return;
      }
      this.accumulator = new ChatChunkAccumulator(this.options.captureTokenIds);
      this.link(stream);
      this.track(stream);
      this.watchAbort(signal);
      let claimed = false;
      const call = this;
      const observed = function (this: unknown, ...args: unknown[]): unknown {
        const iterator = Reflect.apply(factory, this, args);
        if (!claimed && isObj(iterator)) {
          claimed = true;
          call.observeIterator(iterator);
        }
        return iterator;
      };
      // An own data property (the openai Stream's `iterator`) is replaced as is, so the object's keys stay the same.
      if (Object.hasOwn(target, key)) target[key] = observed;
      else defineOwn(target, key, observed);
    } catch (err) {
      internalError("observe-stream", err);
      this.finish("ok", undefined);
    }
  }

  private watchAbort(signal: AbortSignal | undefined): void {
    if (!signal) return;
    this.streamSignal = signal;
    const onAbort = () => {
      // While a next() or return() is in flight, its outcome tells what happened (an in-stream error also aborts).
      if (this.pending === 0 && !this.returning) this.cancel("abort");
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    this.detach = () => signal.removeEventListener("abort", onAbort);
  }

  /** Patches `next`/`return` of the iterator a stream handed out, in place. */
  private observeIterator(iterator: Obj): void {
    const next = iterator.next;
    if (typeof next !== "function") return;
    this.track(iterator);
    const call = this;
    const onError = (err: unknown): never => {
      call.pending--;
      call.fail(err);
      throw err;
    };
    const onStep = (step: IteratorResult<unknown>): IteratorResult<unknown> | Promise<IteratorResult<unknown>> => {
      call.pending--;
      if (!isObj(step) || step.done) {
        call.streamEnded();
        return step;
      }
      if (call.chunk(step.value)) {
        call.pending++;
        return (Reflect.apply(next, iterator, []) as Promise<IteratorResult<unknown>>).then(onStep, onError);
      }
      return step;
    };
    defineOwn(iterator, "next", function (this: unknown, ...args: unknown[]) {
      call.pending++;
      let result: Promise<IteratorResult<unknown>>;
      try {
        result = Reflect.apply(next, this, args) as Promise<IteratorResult<unknown>>;
      } catch (err) {
        return onError(err);
      }
      return Promise.resolve(result).then(onStep, onError);
    });
    const ret = iterator.return;
    if (typeof ret === "function") {
      defineOwn(iterator, "return", function (this: unknown, ...args: unknown[]) {
        call.returning = true;
        let result: unknown;
        try {
          result = Reflect.apply(ret, this, args);
        } catch (err) {
          call.fail(err);
          throw err;
        }
        return Promise.resolve(result).then(
          (step) => {
            call.stopped();
            return step;
          },
          (err: unknown) => {
            call.fail(err);
            throw err;
          },
        );
      });
    }
  }

  /** Records one chunk; returns true when it must be hidden from the consumer (the injected usage chunk). */
  private chunk(value: unknown): boolean {
    if (!this.ended) {
      try {
        if (!this.firstChunk) {
          this.firstChunk = true;
          this.span.setAttribute(ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, (performance.now() - this.startedAt) / 1000);
        }
        this.accumulator?.add(value);
      } catch (err) {
        internalError("chunk", err);
      }
    }
    if (!this.injectedUsage || !isObj(value)) return false;
    try {
      const choices = value.choices;
      if (Array.isArray(choices) && choices.length === 0 && isObj(value.usage)) return true;
      if (value.usage === null) delete value.usage;
    } catch (err) {
      internalError("hide-usage", err);
    }
    return false;
  }

  /** The iterator reported done: finished, or stopped quietly by an abort. */
  private streamEnded(): void {
    if (this.ended) return;
    if (this.streamSignal?.aborted || this.signal?.aborted) this.cancel("abort");
    else this.finish("ok", this.partialOutput() ?? { value: this.accumulator?.completion() });
  }

  /** The consumer called `return()` (e.g. `break`): complete if every choice had finished, cancelled otherwise. */
  private stopped(): void {
    if (this.ended) return;
    if (this.accumulator?.finished) this.finish("ok", this.partialOutput());
    else this.cancel("break");
  }

  private partialOutput(): { value: unknown } | undefined {
    const accumulator = this.accumulator;
    if (!accumulator || accumulator.chunks === 0) return undefined;
    try {
      return { value: accumulator.completion() };
    } catch (err) {
      internalError("reassemble", err);
      return undefined;
    }
  }

  private finish(
    kind: "ok" | "error" | "cancel",
    output: { value: unknown } | undefined,
    err?: unknown,
    reason?: string,
  ): void {
    if (this.ended) return;
    this.ended = true;
    const span = this.span;
    try {
      abandoned.unregister(this);
      this.detach?.();
      const attributes: Attributes = {};
      if (output) chatResponseAttributes(output.value, attributes);
      if (kind === "cancel") {
        attributes[ATTR_TRACEWIRE_CANCELLED] = true;
        if (reason) attributes[ATTR_TRACEWIRE_CANCEL_REASON] = reason;
      } else if (kind === "error") {
        attributes[ATTR_ERROR_TYPE] = errorTypeOf(err);
        span.recordException(err instanceof Error ? err : { message: describeError(err) });
        span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(err) });
      }
      const state = globalState();
      const contentAttributes = this.options.contentAttributes && state.payload.captureContent;
      let payload: JsonValue | undefined;
      if (output && (state.active || contentAttributes)) {
        const value = this.options.captureTokenIds ? output.value : withoutTokenIds(output.value);
        payload = preparePayload(value, "output", this.opName);
      }
      if (state.active) {
        setCallEndData(span, payload === undefined ? {} : { output: payload });
        if (payload !== undefined && spanRoute(span) === "otlp")
          Object.assign(attributes, portableEndAttributes(payload));
      }
      if (contentAttributes && payload !== undefined) Object.assign(attributes, outputContentAttributes(payload));
      span.setAttributes(attributes);
    } catch (e) {
      internalError("end", e);
    } finally {
      span.end();
    }
  }
}

/**
 * Runs one request of tracewire's own clients under `call` (if any): the request runs inside the span's context;
 * a completion ends the span, a stream (`ChatStream`) is observed until it ends; a rejection ends it as failed or
 * cancelled and is passed on unchanged.
 */
export function traceChatRequest<T>(
  call: ChatCall | undefined,
  run: (body: Obj) => Promise<T>,
  params: Obj,
): Promise<T> {
  if (!call) return run(params);
  let promise: Promise<T>;
  try {
    promise = context.with(call.context, () => run(call.body));
  } catch (err) {
    call.fail(err);
    throw err;
  }
  return promise.then(
    (result) => {
      if (call.streaming) {
        if (isObj(result)) call.observeStream(result, Symbol.asyncIterator, controllerSignal(result));
        else call.complete(result);
      } else {
        call.complete(result);
      }
      return result;
    },
    (err: unknown) => {
      call.fail(err);
      throw err;
    },
  );
}

/**
 * The tracing settings of one of tracewire's own chat clients (`InferenceClient`, `TrainingClient`): their `trace`
 * option resolved once, at construction.
 */
export class ChatTracing {
  private constructor(
    readonly endpoint: ChatEndpoint,
    readonly options: ResolvedChatTraceOptions,
  ) {}

  /**
   * Resolves a client's `trace` option: `undefined` or `true` trace with defaults, `false` turns tracing off
   * (returns undefined), an object sets {@link ChatTraceOptions}. Anything else is a `ConfigError`.
   */
  static resolve(
    option: boolean | ChatTraceOptions | undefined,
    client: { name: string; baseUrl: string; provider: string; env: Env },
  ): ChatTracing | undefined {
    if (option === false) return undefined;
    if (option !== undefined && option !== true && (option === null || typeof option !== "object")) {
      throw new ConfigError(`${client.name} option trace`, JSON.stringify(option), "true, false or an options object");
    }
    const options = resolveChatTraceOptions(
      option === true || option === undefined ? {} : option,
      client.env,
      `${client.name} option trace`,
    );
    return new ChatTracing(chatEndpoint(client.baseUrl, options.providerName ?? client.provider), options);
  }

  /** Starts the span of one request (undefined when nothing records it). */
  start(opName: string, params: Obj, signal: AbortSignal | undefined): ChatCall | undefined {
    return ChatCall.start({ opName, params, endpoint: this.endpoint, options: this.options, signal });
  }
}
