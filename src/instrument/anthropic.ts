/**
 * `wrapAnthropic(client)`: traces the Messages API of an `@anthropic-ai/sdk` client (0.x and 1.x) without changing a
 * single type or behaviour of the client.
 *
 * How (verified against the sources of @anthropic-ai/sdk 0.137 and 1.14):
 * - No Proxy. `create` and `stream` are shadowed by own properties of the client's `messages` *instance* (and of
 *   `beta.messages`, whose calls are named `anthropic.beta.messages.*`), which
 *   call the originals with `this` = that instance; every other endpoint is untouched, and the instance is marked
 *   with a `Symbol.for` key so wrapping twice is a no-op. `messages.stream()` (a `MessageStream`) and
 *   `messages.parse()` call `messages.create` internally, so each request they make is traced exactly once;
 *   `stream()` starts its call itself (op `anthropic.messages.stream`) and hands it to the `create` it makes while it
 *   is built; the helper itself runs in the caller's context, so its listeners do too.
 * - The `APIPromise` that `create` returns is handed back as the same object, and tracewire never calls its `then`
 *   (that would read the body eagerly and break `asResponse()`). On that one instance `responsePromise` is replaced
 *   by a promise that settles the same way and reports failures, and `parseResponse` is wrapped to see the parsed
 *   Message or `Stream` (`then`, `withResponse()` and the promises `_thenUnwrap` derives all funnel through it);
 *   `parse`/`asResponse` only note which way the caller consumes the answer, so a caller who only takes
 *   `asResponse()` gets the call ended when the response arrives, with `tracewire.response.raw=true`.
 * - A `Stream` is returned as the same object; its `iterator` factory (what `for await`, `tee()` and
 *   `toReadableStream()` use) is wrapped so the first iterator it hands out is observed in place, and its events
 *   are reassembled per content-block index (genai/anthropic-stream.ts). `controller.signal` tells an abort apart
 *   from an in-stream `error` event.
 * - The SDK's own OpenTelemetry span for a traced call (`anthropic.messages.create`, on by default since the SDK
 *   records spans itself) would be a second call for the same request. For the requests it traces, tracewire
 *   passes the SDK its documented hand-over (the `__span` request option a helper uses to own the call span) with a
 *   non-recording span that carries tracewire's span context: the SDK's trace headers then name tracewire's span,
 *   and one request is one call. A client whose own spans are off is left exactly as it is.
 * - `client.withOptions()` returns a wrapped client too.
 */
import { context, trace } from "@opentelemetry/api";
import { type EnvOption, envOf } from "../config.js";
import { ValidationError } from "../errors.js";
import { ANTHROPIC_MESSAGES, ANTHROPIC_PROVIDER } from "../genai/anthropic-messages.js";
import { ChatCall } from "../genai/chat-call.js";
import { isObj, type Obj } from "../genai/guards.js";
import { type ChatEndpoint, chatEndpoint } from "../genai/openai-chat.js";
import {
  type ChatTraceOptions,
  checkChatOptions,
  PROVIDER_WRAPPER_OPTIONS,
  resolveChatTraceOptions,
} from "../genai/options.js";
import { defineOwn } from "../genai/stream-tap.js";
import { rememberClientSecrets } from "../otel/known-secrets.js";
import {
  type AnyFunction,
  isParams,
  noteBreaks,
  observeApiPromise,
  rememberAuthHeaders,
  rememberRequestHeaders,
  rewrapWithOptions,
  WRAP_ANTHROPIC,
  warnUntraced,
  internalError as wrapperError,
} from "./api-promise.js";

/** Options of {@link wrapAnthropic}. */
export interface WrapAnthropicOptions extends Pick<ChatTraceOptions, "contentAttributes"> {
  /**
   * `gen_ai.provider.name` for every call. Default: what the client says it is (`anthropic`; the Bedrock and
   * Vertex clients name their platform), else `anthropic`.
   */
  providerName?: string;
  /** Where `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is read. Default `process.env`. */
  env?: EnvOption;
}

/** Marks a `messages` instance that is already traced. */
const WRAPPED = Symbol.for("tracewire.anthropic.wrapped");
/** Op names of the traced methods of a Messages API instance. */
interface MessagesOps {
  create: string;
  stream: string;
}
const OPS: MessagesOps = { create: "anthropic.messages.create", stream: "anthropic.messages.stream" };
const BETA_OPS: MessagesOps = { create: "anthropic.beta.messages.create", stream: "anthropic.beta.messages.stream" };
/** Starts the call of one request (undefined: run it untraced). */
type StartCall = (opName: string, params: Obj, requestOptions: unknown) => ChatCall | undefined;
/** The SDK's own name for the span of a `messages.create` call (what its `__span` hand-over carries). */
const SDK_SPAN_NAME = "anthropic.messages.create";

const internalError = (where: string, err: unknown) => wrapperError(WRAP_ANTHROPIC, where, err);

/**
 * The request options to send: the caller's, plus the SDK's `__span` hand-over (see the module comment) when the
 * client records spans of its own and nothing handed one over yet.
 */
function handOver(client: Obj, options: unknown, call: ChatCall): unknown {
  if (!client._tracer) return options;
  if (options !== undefined && !isObj(options)) return options;
  if (options?.__span !== undefined) return options;
  const span = trace.wrapSpanContext(call.span.spanContext());
  return { ...options, __span: { span, name: SDK_SPAN_NAME, startTime: Date.now() } };
}

/**
 * A client without a key or token of its own gets its credentials at request time (an `apiKey` function, a
 * credentials provider or its token cache): the ones each request sends are registered as known secrets when the SDK
 * builds its auth headers, so an error that quotes them is masked too. A client with a fixed key is left as it is.
 */
function rememberRequestCredentials(client: Obj): void {
  if (typeof client.apiKey === "string" || typeof client.authToken === "string") return;
  rememberAuthHeaders(client);
}

/** A `messages.stream()` call waiting for the `create` it makes. */
interface StreamSlot {
  call: ChatCall | undefined;
}

/**
 * Traces the Messages API of an `@anthropic-ai/sdk` client (0.x or 1.x, and the Bedrock and Vertex clients built
 * on it): `messages.create` (streamed or not), `messages.stream()` and `messages.parse()`. One GenAI
 * `chat {model}` span per request, recorded as a call with the request parameters as inputs and the Message (for a
 * stream, the reassembled Message) as output, usage with cache creation and read tokens keyed by the response
 * model. Returns the same client; everything else on it is untouched. Wrapping an already wrapped client returns
 * it as is (the first options stay).
 *
 * @throws ValidationError when `client` is not an Anthropic client; ConfigError for a malformed option.
 */
export function wrapAnthropic<T extends object>(client: T, options: WrapAnthropicOptions = {}): T {
  if (client === null || typeof client !== "object") {
    throw new ValidationError(
      `wrapAnthropic expects an Anthropic client, got ${client === null ? "null" : typeof client}.`,
    );
  }
  const messages = (client as Obj).messages;
  if (!isObj(messages) || typeof messages.create !== "function") {
    throw new ValidationError(
      "wrapAnthropic expects a client of the @anthropic-ai/sdk package: client.messages.create is missing.",
      "client",
    );
  }
  if ((messages as Record<PropertyKey, unknown>)[WRAPPED]) return client;
  // Masked wherever an error quotes them: the API key (`x-api-key`) or the bearer token (`authToken`).
  rememberClientSecrets(client, ["apiKey", "authToken"]);
  if (options !== null && typeof options === "object")
    checkChatOptions(options, "wrapAnthropic options", PROVIDER_WRAPPER_OPTIONS);
  try {
    rememberRequestCredentials(client as Obj);
  } catch (err) {
    internalError("credentials", err);
  }
  const env = envOf(options.env);
  const { providerName, contentAttributes } = options ?? {};
  const settings = resolveChatTraceOptions({ providerName, contentAttributes }, env, "wrapAnthropic options");
  const self = client as Obj;

  let lastBase: unknown;
  let endpoint: ChatEndpoint | undefined;
  const endpointNow = (): ChatEndpoint => {
    const base = self.baseURL;
    if (endpoint === undefined || base !== lastBase) {
      lastBase = base;
      const own = self._genAIProviderName;
      const provider = settings.providerName ?? (typeof own === "string" && own !== "" ? own : ANTHROPIC_PROVIDER);
      endpoint = chatEndpoint(typeof base === "string" ? base : undefined, provider);
    }
    return endpoint;
  };

  const start: StartCall = (opName, params, requestOptions) => {
    try {
      // A key in this request's own headers is masked like the client's.
      rememberRequestHeaders(isObj(requestOptions) ? requestOptions : undefined);
      const signal = isObj(requestOptions) ? requestOptions.signal : undefined;
      return ChatCall.start({
        opName,
        params,
        endpoint: endpointNow(),
        options: settings,
        signal: signal instanceof AbortSignal ? signal : undefined,
        noUsageInjection: true,
        format: ANTHROPIC_MESSAGES,
      });
    } catch (err) {
      internalError("start", err);
      return undefined;
    }
  };

  try {
    instrumentMessages(self, messages, OPS, start);
  } catch (err) {
    warnUntraced(WRAP_ANTHROPIC, err);
    return client;
  }
  // The beta namespace has a Messages API of its own (its BetaMessageStream calls its create).
  try {
    const beta = self.beta;
    const betaMessages = isObj(beta) ? beta.messages : undefined;
    if (
      isObj(betaMessages) &&
      typeof betaMessages.create === "function" &&
      !(betaMessages as Record<PropertyKey, unknown>)[WRAPPED]
    )
      instrumentMessages(self, betaMessages, BETA_OPS, start);
  } catch (err) {
    warnUntraced(WRAP_ANTHROPIC, err, { name: "client.beta.messages", key: "beta" });
  }

  rewrapWithOptions(client, (derived) => wrapAnthropic(derived, options), WRAP_ANTHROPIC);
  return client;
}

/**
 * Shadows `create` and `stream` of one Messages API instance (`client.messages`, `client.beta.messages`) with traced
 * versions named `ops`, and marks it. Throws when the instance cannot take own properties (a frozen client).
 */
function instrumentMessages(self: Obj, messages: Obj, ops: MessagesOps, start: StartCall): void {
  /** The call of the `messages.stream()` being built right now, for the `create` the helper makes meanwhile. */
  let streamSlot: StreamSlot | undefined;

  const originalCreate = messages.create as AnyFunction;
  const create = function create(this: unknown, ...args: unknown[]): unknown {
    const params = args[0];
    if (!isParams(params)) return Reflect.apply(originalCreate, this, args);
    // A create made by messages.stream() (synchronously, while the helper is built) continues the call it started.
    const slot = streamSlot;
    let call = slot?.call;
    if (slot) slot.call = undefined;
    call ??= start(ops.create, params, args[1]);
    if (!call) return Reflect.apply(originalCreate, this, args);
    const active = call;
    let promise: unknown;
    try {
      try {
        const sent = handOver(self, args[1], active);
        if (sent !== args[1]) args[1] = sent;
      } catch (err) {
        internalError("hand-over", err);
      }
      promise = context.with(active.context, () => Reflect.apply(originalCreate, this, args));
    } catch (err) {
      active.fail(err);
      throw err;
    }
    observeApiPromise(promise, active, WRAP_ANTHROPIC, ops.create);
    return promise;
  };

  const originalStream = messages.stream;
  const stream = function stream(this: unknown, ...args: unknown[]): unknown {
    const body = args[0];
    if (typeof originalStream !== "function") return undefined;
    if (!isParams(body)) return Reflect.apply(originalStream, this, args);
    const call = start(ops.stream, { ...body, stream: true }, args[1]);
    if (!call) return Reflect.apply(originalStream, this, args);
    const slot: StreamSlot = { call };
    try {
      const sent = handOver(self, args[1], call);
      if (sent !== args[1]) args[1] = sent;
    } catch (err) {
      internalError("stream", err);
    }
    // The helper runs in the caller's context, as untraced: its listeners (and what they call) are the caller's
    // code, not part of the request. Only the create it makes runs inside the call (see create above).
    let helper: unknown;
    const outer = streamSlot;
    streamSlot = slot;
    try {
      helper = Reflect.apply(originalStream as AnyFunction, this, args);
    } catch (err) {
      call.fail(err);
      throw err;
    } finally {
      streamSlot = outer;
    }
    try {
      // The helper never made its request (a version that builds it elsewhere): record what is known.
      if (slot.call) slot.call.raw();
      call.link(helper);
      if (isObj(helper) && typeof helper.on === "function")
        (helper.on as AnyFunction).call(helper, "finalMessage", (message: unknown) => call.link(message));
      if (isObj(helper)) noteBreaks(helper, () => call.stopReading(), WRAP_ANTHROPIC);
    } catch (err) {
      internalError("stream", err);
    }
    return helper;
  };

  defineOwn(messages, "create", create);
  if (typeof originalStream === "function") defineOwn(messages, "stream", stream);
  defineOwn(messages, WRAPPED, true);
}
