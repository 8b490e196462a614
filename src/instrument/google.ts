/**
 * `wrapGoogleGenAI(client)`: traces `generateContent` of a `@google/genai` client — `models.generateContent`,
 * `models.generateContentStream` and the chats built on them — without changing a single type or behaviour of the
 * client.
 *
 * How (verified against the sources of @google/genai 3.3):
 * - No Proxy, and `client.models` stays the same object: the SDK defines `generateContent` and
 *   `generateContentStream` as own properties of the `models` instance, and every chat (`client.chats.create()`)
 *   keeps its own reference to that instance, so the two properties are replaced in place (still own, still
 *   enumerable) by traced versions that call the originals. The instance is marked with a `Symbol.for` key, so
 *   wrapping twice is a no-op.
 * - `generateContent` returns a promise that settles like the SDK's (the same response object, or the same error),
 *   one step later. `generateContentStream` resolves with the SDK's own async generator, observed in place: its
 *   `next` and `return` are shadowed on that one object (genai/stream-tap.ts), so `for await`, `break`, a direct
 *   `next()` and the request's `config.abortSignal` behave exactly as untraced.
 * - One call is one `generateContent` / `generateContentStream` invocation — what the caller asked for and what it
 *   got back — even when the SDK makes several HTTP requests for it: the hops of a resumed generation (automatic
 *   continuation, which the SDK merges into one answer) and the rounds of automatic function calling (the SDK calls
 *   your `CallableTool`s and asks again). The call's usage is the sum over those requests: for a stream, from its
 *   chunks (google-stream.ts); for a response, by observing the SDK's per-request method `generateContentInternal`
 *   on the same instance while the call runs (found through the OpenTelemetry context; the response itself carries
 *   the last round's usage only). Tools that the SDK runs for a non-streamed call run inside the call's context.
 * - `client.chats.create()` is shadowed on the `chats` instance only to name a chat's requests
 *   (`google.chats.sendMessage` / `google.chats.sendMessageStream`) and link the generator a chat stream returns
 *   for `callOf()`; the request itself is the traced `models.generateContent(Stream)` it makes.
 */
import { context, createContextKey } from "@opentelemetry/api";
import { type EnvOption, envOf } from "../config.js";
import { ValidationError } from "../errors.js";
import { ChatCall } from "../genai/chat-call.js";
import { GEMINI_GENERATE_CONTENT, GOOGLE_PROVIDER, geminiRecordedParams } from "../genai/google-generate.js";
import { addUsage, setTotalUsage } from "../genai/google-usage.js";
import { type ChatEndpoint, chatEndpoint } from "../genai/openai-chat.js";
import {
  type ChatTraceOptions,
  checkChatOptions,
  PROVIDER_WRAPPER_OPTIONS,
  resolveChatTraceOptions,
} from "../genai/options.js";
import { defineOwn, replaceOwn } from "../genai/stream-tap.js";
import { rememberClientSecrets, rememberHeaderSecrets } from "../otel/known-secrets.js";
import {
  type AnyFunction,
  isObj,
  isParams,
  isThenable,
  type Obj,
  type Wrapper,
  warnUntraced,
  internalError as wrapperError,
} from "./api-promise.js";

/** Options of {@link wrapGoogleGenAI}. */
export interface WrapGoogleGenAIOptions extends Pick<ChatTraceOptions, "contentAttributes"> {
  /**
   * `gen_ai.provider.name` for every call. Default: `gcp.vertex_ai` for a Vertex AI client (`vertexai: true`),
   * `gcp.gemini` otherwise.
   */
  providerName?: string;
  /** Where `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is read. Default `process.env`. */
  env?: EnvOption;
}

const WRAP_GOOGLE: Wrapper = { key: "google", name: "wrapGoogleGenAI" };
const internalError = (where: string, err: unknown) => wrapperError(WRAP_GOOGLE, where, err);

/** Marks a `models` instance that is already traced. */
const WRAPPED = Symbol.for("tracewire.google.wrapped");

/** Op names of the traced methods. */
export const GOOGLE_OPS = {
  generateContent: "google.models.generateContent",
  generateContentStream: "google.models.generateContentStream",
  sendMessage: "google.chats.sendMessage",
  sendMessageStream: "google.chats.sendMessageStream",
} as const;

/** A chat method's request on its way to `models.generateContent(Stream)`: named by the first call that takes it. */
interface ChatSlot {
  op: string | undefined;
  call: ChatCall | undefined;
}
const CHAT_KEY = createContextKey("tracewire.google.chat");

/** The model requests of one non-streamed call so far, counted by the shadow of `generateContentInternal`. */
interface Requests {
  count: number;
  usage: Obj | undefined;
}
const REQUESTS_KEY = createContextKey("tracewire.google.requests");

/** The abort signal of a request (`config.abortSignal`), if any. */
function signalOf(params: Obj): AbortSignal | undefined {
  const config = params.config;
  const signal = isObj(config) ? config.abortSignal : undefined;
  return signal instanceof AbortSignal ? signal : undefined;
}

/**
 * A client without an API key (Vertex AI on Google auth: application default credentials, a service account) sends a
 * bearer token google-auth-library gets at request time: the SDK's `addAuthHeaders` is shadowed on its auth object to
 * register the credentials it adds as known secrets, so an error that quotes them is masked too. A client with an API
 * key is left as it is.
 */
function rememberAuthTokens(client: Obj): void {
  if (typeof client.apiKey === "string") return;
  const api = client.apiClient;
  const clientOptions = isObj(api) ? api.clientOptions : undefined;
  const auth = isObj(clientOptions) ? clientOptions.auth : undefined;
  const original = isObj(auth) ? auth.addAuthHeaders : undefined;
  if (!isObj(auth) || typeof original !== "function") return;
  replaceOwn(auth, "addAuthHeaders", function addAuthHeaders(this: unknown, ...args: unknown[]) {
    const result: unknown = Reflect.apply(original as AnyFunction, this, args);
    const headers = args[0];
    if (!isThenable(result)) {
      rememberHeaderSecrets(headers);
      return result;
    }
    return Promise.resolve(result).then((value) => {
      rememberHeaderSecrets(headers);
      return value;
    });
  });
}

/** Registers a key sent in this request's own headers (`config.httpOptions.headers`) as a known secret. */
function rememberRequestKeys(params: Obj): void {
  const config = params.config;
  const http = isObj(config) ? config.httpOptions : undefined;
  if (isObj(http) && http.headers != null) rememberHeaderSecrets(http.headers);
}

/**
 * Traces `generateContent` of a `@google/genai` client (3.x; the Gemini Developer API and Vertex AI):
 * `models.generateContent`, `models.generateContentStream` and the chats made by `client.chats.create()`. One GenAI
 * `generate_content {model}` CLIENT span per invocation (see the module comment for what one call covers), recorded
 * as a call with the request (`model`, `contents`, `config`) as inputs and the response — for a stream, the response
 * its chunks add up to — as output; usage (prompt, candidates, cached and thoughts tokens) keyed by the model that
 * answered, time to first chunk and finish reasons. Returns the same client; everything else on it is untouched.
 * Wrapping an already wrapped client returns it as is (the first options stay).
 *
 * @throws ValidationError when `client` is not a `@google/genai` client; ConfigError for a malformed option.
 */
export function wrapGoogleGenAI<T extends object>(client: T, options: WrapGoogleGenAIOptions = {}): T {
  if (client === null || typeof client !== "object") {
    throw new ValidationError(
      `wrapGoogleGenAI expects a GoogleGenAI client, got ${client === null ? "null" : typeof client}.`,
    );
  }
  const self = client as Obj;
  const models = self.models;
  if (!isObj(models) || typeof models.generateContent !== "function") {
    throw new ValidationError(
      "wrapGoogleGenAI expects a client of the @google/genai package: client.models.generateContent is missing.",
      "client",
    );
  }
  if (models[WRAPPED]) return client;
  // Masked wherever an error quotes it (a Vertex AI client built from Google auth has none).
  rememberClientSecrets(client, ["apiKey"]);
  try {
    rememberAuthTokens(client as Obj);
  } catch (err) {
    internalError("credentials", err);
  }
  // envOf(): `process` may be missing (Workers) or throw on every access (Vercel's edge).
  if (options !== null && typeof options === "object")
    checkChatOptions(options, "wrapGoogleGenAI options", PROVIDER_WRAPPER_OPTIONS);
  const env = envOf(options.env);
  const { providerName, contentAttributes } = options ?? {};
  const settings = resolveChatTraceOptions({ providerName, contentAttributes }, env, "wrapGoogleGenAI options");

  let endpoint: ChatEndpoint | undefined;
  const endpointNow = (): ChatEndpoint => {
    if (endpoint) return endpoint;
    let base: unknown;
    try {
      const api = self.apiClient;
      if (isObj(api) && typeof api.getBaseUrl === "function") base = (api.getBaseUrl as AnyFunction).call(api);
    } catch {
      // No base URL (a client built some other way): no server.* attributes.
    }
    const provider =
      settings.providerName ?? (self.vertexai === true ? GOOGLE_PROVIDER.vertex : GOOGLE_PROVIDER.gemini);
    endpoint = chatEndpoint(typeof base === "string" ? base : undefined, provider);
    return endpoint;
  };

  const start = (streaming: boolean, params: Obj): ChatCall | undefined => {
    try {
      rememberRequestKeys(params);
      const slot = context.active().getValue(CHAT_KEY) as ChatSlot | undefined;
      const chatOp = slot?.op;
      const call = ChatCall.start({
        opName: chatOp ?? (streaming ? GOOGLE_OPS.generateContentStream : GOOGLE_OPS.generateContent),
        params: geminiRecordedParams(params),
        endpoint: endpointNow(),
        options: settings,
        signal: signalOf(params),
        format: GEMINI_GENERATE_CONTENT,
        streaming,
      });
      if (slot && chatOp !== undefined) {
        slot.op = undefined;
        slot.call = call;
      }
      return call;
    } catch (err) {
      internalError("start", err);
      return undefined;
    }
  };

  const originalGenerate = models.generateContent as AnyFunction;
  const generateContent = function generateContent(this: unknown, ...args: unknown[]): unknown {
    const params = args[0];
    if (!isParams(params)) return Reflect.apply(originalGenerate, this, args);
    const call = start(false, params);
    if (!call) return Reflect.apply(originalGenerate, this, args);
    const requests: Requests = { count: 0, usage: undefined };
    let result: unknown;
    try {
      result = context.with(call.context.setValue(REQUESTS_KEY, requests), () =>
        Reflect.apply(originalGenerate, this, args),
      );
    } catch (err) {
      call.fail(err);
      throw err;
    }
    if (!isThenable(result)) {
      call.complete(result);
      return result;
    }
    return result.then(
      (response) => {
        try {
          if (requests.count > 1 && requests.usage) setTotalUsage(response, requests.usage);
        } catch (err) {
          internalError("usage", err);
        }
        call.complete(response);
        return response;
      },
      (err: unknown) => {
        call.fail(err);
        throw err;
      },
    );
  };

  const originalStream = models.generateContentStream;
  const generateContentStream = function generateContentStream(this: unknown, ...args: unknown[]): unknown {
    const params = args[0];
    if (typeof originalStream !== "function") return undefined;
    if (!isParams(params)) return Reflect.apply(originalStream, this, args);
    const call = start(true, params);
    if (!call) return Reflect.apply(originalStream, this, args);
    let result: unknown;
    try {
      result = context.with(call.context, () => Reflect.apply(originalStream as AnyFunction, this, args));
    } catch (err) {
      call.fail(err);
      throw err;
    }
    const observe = (stream: unknown) => {
      if (isObj(stream)) call.observeIterable(stream, signalOf(params));
      else call.complete(stream);
      return stream;
    };
    if (!isThenable(result)) return observe(result);
    return result.then(observe, (err: unknown) => {
      call.fail(err);
      throw err;
    });
  };

  /** Counts each HTTP request of a non-streamed call and adds up its usage (see the module comment). */
  const originalInternal = models.generateContentInternal;
  const generateContentInternal = function generateContentInternal(this: unknown, ...args: unknown[]): unknown {
    const result = Reflect.apply(originalInternal as AnyFunction, this, args);
    let requests: Requests | undefined;
    try {
      requests = context.active().getValue(REQUESTS_KEY) as Requests | undefined;
    } catch (err) {
      internalError("requests", err);
    }
    if (!requests || !isThenable(result)) return result;
    const counted = requests;
    return result.then((response) => {
      try {
        counted.count++;
        counted.usage = addUsage(counted.usage, isObj(response) ? response.usageMetadata : undefined);
      } catch (err) {
        internalError("requests", err);
      }
      return response;
    });
  };

  try {
    replaceOwn(models, "generateContent", generateContent);
    if (typeof originalStream === "function") replaceOwn(models, "generateContentStream", generateContentStream);
    if (typeof originalInternal === "function") replaceOwn(models, "generateContentInternal", generateContentInternal);
    defineOwn(models, WRAPPED, true);
  } catch (err) {
    warnUntraced(WRAP_GOOGLE, err);
    return client;
  }
  try {
    instrumentChats(self.chats);
  } catch (err) {
    internalError("chats", err);
  }
  return client;
}

/** Shadows `chats.create` so that each chat it makes names its requests (see the module comment). */
function instrumentChats(chats: unknown): void {
  if (!isObj(chats) || typeof chats.create !== "function") return;
  const original = chats.create as AnyFunction;
  replaceOwn(chats, "create", function create(this: unknown, ...args: unknown[]) {
    const chat: unknown = Reflect.apply(original, this, args);
    try {
      if (isObj(chat)) {
        nameRequests(chat, "sendMessage", GOOGLE_OPS.sendMessage, false);
        nameRequests(chat, "sendMessageStream", GOOGLE_OPS.sendMessageStream, true);
      }
    } catch (err) {
      internalError("chat", err);
    }
    return chat;
  });
}

/** Runs a chat's `method` with a slot that names the request it makes; links a stream it returns to that call. */
function nameRequests(chat: Obj, method: string, op: string, stream: boolean): void {
  const original = chat[method];
  if (typeof original !== "function") return;
  defineOwn(
    chat,
    method,
    {
      [method](this: unknown, ...args: unknown[]): unknown {
        const slot: ChatSlot = { op, call: undefined };
        let ctx = context.active();
        try {
          ctx = ctx.setValue(CHAT_KEY, slot);
        } catch (err) {
          internalError("chat", err);
        }
        const result: unknown = context.with(ctx, () => Reflect.apply(original as AnyFunction, this, args));
        if (!stream || !isThenable(result)) return result;
        return result.then((generator) => {
          slot.call?.link(generator);
          return generator;
        });
      },
    }[method],
  );
}
