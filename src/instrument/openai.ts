/**
 * `wrapOpenAI(client)`: traces the chat completions, responses and embeddings of an `openai` client (v5, v6 and v7)
 * without changing a single type or behaviour of the client.
 *
 * How (verified against the sources of openai 5.23, 6.49 and 7.57):
 * - No Proxy. `create` is shadowed by an own property of the client's `chat.completions` *instance*, which calls
 *   the original with `this` = that instance; private fields, `instanceof` and every other endpoint are untouched.
 *   The instance is marked with a `Symbol.for` key, so wrapping twice is a no-op. `chat.completions.parse()`, the
 *   `chat.completions.stream()` helper and `runTools()` all call `client.chat.completions.create` internally, so
 *   each request they make is traced exactly once; the op name comes from the `X-Stainless-Helper-Method` header
 *   those helpers add (v5, v6) or their `__metadata.helperMethod` request option (v7). `stream` and `runTools` are
 *   shadowed too, only to link the runner they return and the completions it emits for `callOf()`.
 * - The `APIPromise` that `create` returns is handed back as the same object, and tracewire never calls its `then`
 *   (that would read the body eagerly and break `asResponse()`). Instead, on that one instance:
 *   - `responsePromise` is replaced by a promise that settles the same way and reports failures (4xx/5xx,
 *     connection, timeout, abort) — a caller who never awaits still gets the unhandled rejection they would get.
 *     When tracewire injected `stream_options`, the response it resolves with has a body without what that added
 *     (genai/sse-usage.ts), and a server's refusal of the option is answered by sending the request again as written;
 *   - `parseResponse` is wrapped to see the parsed result. It is the right hook, not `parse`: `then`,
 *     `withResponse` and the promises `_thenUnwrap` derives (what `chat.completions.parse()` returns) all funnel
 *     through it, while a derived promise never calls the original's `parse`;
 *   - `parse`, `asResponse` and `_thenUnwrap` (and those of derived promises) only note which way the caller
 *     consumes the answer. A caller who only takes `asResponse()` gets the span ended when the response arrives,
 *     with `tracewire.response.raw=true` and no output (the body is theirs to read).
 *   - openai 7 defines `withResponse` and `_thenUnwrap` per promise, as closures over the raw request: derived
 *     promises get the same hooks, and `withResponse()` hands out the response the SDK parsed.
 * - A `Stream` is returned as the same object. Its `iterator` factory (an own property that `[Symbol.asyncIterator]`,
 *   `tee()` and `toReadableStream()` all call) is wrapped so the first iterator it hands out is observed in place;
 *   its `controller.signal` tells an abort apart from an in-stream error.
 * - `client.withOptions()` returns a wrapped client too.
 * - The client's keys are known secrets; one it gets at request time (an `apiKey` function, an Azure AD token) is
 *   registered through an own `authHeaders`, one in a request's own headers as that request starts.
 *
 * `responses.create` and `embeddings.create` are shadowed the same way (on the `responses` / `embeddings` instance),
 * with their own call format (genai/openai-responses.ts, genai/openai-embeddings.ts). `responses.stream()` makes its
 * request through `responses.create` with the helper header / metadata `stream`; `responses.parse()` calls
 * `responses.create` synchronously and marks it in no way, so its shadow names the request while it runs.
 */
import { context, createContextKey } from "@opentelemetry/api";
import { ENV, type EnvOption, envOf } from "../config.js";
import { ValidationError } from "../errors.js";
import { type CallFormat, OPENAI_CHAT_COMPLETIONS_FORMAT } from "../genai/call-format.js";
import { ChatCall } from "../genai/chat-call.js";
import { type ChatEndpoint, chatEndpoint, originOf } from "../genai/openai-chat.js";
import { OPENAI_EMBEDDINGS_FORMAT } from "../genai/openai-embeddings.js";
import { OPENAI_RESPONSES_FORMAT } from "../genai/openai-responses.js";
import { type ChatTraceOptions, type ResolvedChatTraceOptions, resolveChatTraceOptions } from "../genai/options.js";
import { defineOwn } from "../genai/stream-tap.js";
import { rememberClientSecrets } from "../otel/known-secrets.js";
import {
  type AnyFunction,
  isObj,
  isParams,
  isThenable,
  noteBreaks,
  type Obj,
  observeApiPromise,
  rememberAuthHeaders,
  rememberRequestHeaders,
  rewrapWithOptions,
  WRAP_OPENAI,
  warnUntraced,
  internalError as wrapperError,
} from "./api-promise.js";
import { refusalKeyOf, refusedStreamOptions, rememberRefusal } from "./stream-options-refusals.js";

const internalError = (where: string, err: unknown) => wrapperError(WRAP_OPENAI, where, err);

/** Options of {@link wrapOpenAI}. */
export interface WrapOpenAIOptions extends ChatTraceOptions {
  /**
   * Where `TRACEWIRE_INFERENCE_BASE_URL`, `TRACEWIRE_TRAINING_BASE_URL` and
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` are read. Default `process.env`.
   */
  env?: EnvOption;
}

/** Marks a resource instance (`chat.completions`, `responses`, `embeddings`) that is already traced. */
const WRAPPED = Symbol.for("tracewire.openai.wrapped");

const HELPER_HEADER = "X-Stainless-Helper-Method";

/** One traced endpoint: its op names (by the SDK helper that made the request) and what its calls record. */
interface Endpoint {
  /** The op name of a request no helper made. */
  op: string;
  /** Helper name (`X-Stainless-Helper-Method` header or `__metadata.helperMethod`) → op name. */
  helpers: Record<string, string>;
  format?: CallFormat;
}

const CHAT: Endpoint = {
  op: "openai.chat.completions.create",
  format: OPENAI_CHAT_COMPLETIONS_FORMAT,
  helpers: {
    "chat.completions.parse": "openai.chat.completions.parse",
    stream: "openai.chat.completions.stream",
    runTools: "openai.chat.completions.runTools",
  },
};
const RESPONSES: Endpoint = {
  op: "openai.responses.create",
  helpers: { stream: "openai.responses.stream" },
  format: OPENAI_RESPONSES_FORMAT,
};
const RESPONSES_PARSE_OP = "openai.responses.parse";
const EMBEDDINGS: Endpoint = { op: "openai.embeddings.create", helpers: {}, format: OPENAI_EMBEDDINGS_FORMAT };

/**
 * The SDK helpers that return a runner (`chat.completions.stream()`, `runTools()`, `responses.stream()`): each
 * request they make is a traced `create`, and the runner is linked for `callOf()` — the runner itself to its latest
 * request's call, each completion it emits (`chatCompletion`, what `finalChatCompletion()` returns) to the call of
 * the request it came from.
 */
const RUNNER_HELPERS = ["stream", "runTools"];
const RUNNER_KEY = createContextKey("tracewire.openai.runner");

/** The calls a runner's requests started, in order, until the completion each one produced is linked. */
interface RunnerLinks {
  runner: Obj | undefined;
  pending: ChatCall[];
  /** The call of the runner's latest request: the one a `break` out of the runner's iterator stops. */
  latest: ChatCall | undefined;
}

/** Notes a call started by a runner's request (found on the context the helper ran in). */
function noteRunnerCall(call: ChatCall): void {
  const links = context.active().getValue(RUNNER_KEY) as RunnerLinks | undefined;
  if (!links) return;
  // A break out of the runner aborts its request: the usage is read from the body as it arrives, not when yielded.
  call.hideUsageInBody = true;
  links.pending.push(call);
  links.latest = call;
  if (links.runner) call.link(links.runner);
}

/** Runs a runner helper with a context that lets its requests find the runner, then links what it emits. */
function traceRunner(helper: AnyFunction, self: unknown, args: unknown[]): unknown {
  let links: RunnerLinks | undefined;
  let ctx = context.active();
  try {
    links = { runner: undefined, pending: [], latest: undefined };
    ctx = ctx.setValue(RUNNER_KEY, links);
  } catch (err) {
    internalError("runner", err);
  }
  const runner: unknown = context.with(ctx, () => Reflect.apply(helper, self, args));
  try {
    if (links && isObj(runner) && typeof runner.on === "function") {
      const known = links;
      known.runner = runner;
      known.pending.at(-1)?.link(runner);
      (runner.on as AnyFunction).call(runner, "chatCompletion", (completion: unknown) => {
        known.pending.shift()?.link(completion);
      });
      noteBreaks(runner, () => known.latest?.stopReading(), WRAP_OPENAI);
    }
  } catch (err) {
    internalError("runner", err);
  }
  return runner;
}

/**
 * The op name: which SDK helper (if any) made this request, from the header the helpers add (openai 5 and 6) or the
 * request metadata they pass (`__metadata.helperMethod`, openai 7).
 */
function opNameOf(options: Obj | undefined, endpoint: Endpoint): string {
  const { helpers, op } = endpoint;
  const metadata = options?.__metadata;
  const fromMetadata = isObj(metadata) ? metadata.helperMethod : undefined;
  if (typeof fromMetadata === "string" && helpers[fromMetadata]) return helpers[fromMetadata];
  const headers = options?.headers;
  if (!isObj(headers)) return op;
  let helper: unknown;
  if (typeof (headers as { get?: unknown }).get === "function") {
    helper = (headers as unknown as { get(name: string): unknown }).get(HELPER_HEADER);
  } else if (!Array.isArray(headers)) {
    helper = headers[HELPER_HEADER];
  }
  return (typeof helper === "string" && helpers[helper]) || op;
}

/**
 * The op name a helper that calls `create` synchronously and marks it in no other way gives that request
 * (`responses.parse()`): set only while the helper runs.
 */
let helperOp: string | undefined;

/** What every traced method of one client shares: its settings and where it sends requests. */
interface ClientTracing {
  settings: ResolvedChatTraceOptions;
  /** Which server a refusal of `stream_options` is remembered for (stream-options-refusals.ts). */
  refusalKeyNow(): string;
  endpointNow(): ChatEndpoint;
}

/**
 * The traced version of a `create` method (`original`): starts a call per request (unless tracing is off or the
 * parameters are not an object), runs the request in the call's context and observes the APIPromise it returns.
 */
function tracedCreate(original: AnyFunction, endpoint: Endpoint, tracing: ClientTracing): AnyFunction {
  return function create(this: unknown, ...args: unknown[]): unknown {
    const params = args[0];
    if (!isParams(params)) return Reflect.apply(original, this, args);
    let call: ChatCall | undefined;
    try {
      const requestOptions = isObj(args[1]) ? args[1] : undefined;
      // A key in this request's own headers is masked like the client's.
      rememberRequestHeaders(requestOptions);
      const signal = requestOptions?.signal;
      call = ChatCall.start({
        opName: helperOp ?? opNameOf(requestOptions, endpoint),
        params: params as Record<string, unknown>,
        endpoint: tracing.endpointNow(),
        options: tracing.settings,
        signal: signal instanceof AbortSignal ? signal : undefined,
        noUsageInjection: refusedStreamOptions(tracing.refusalKeyNow()),
        format: endpoint.format,
      });
    } catch (err) {
      internalError("start", err);
    }
    if (!call) return Reflect.apply(original, this, args);
    try {
      noteRunnerCall(call);
    } catch (err) {
      internalError("runner", err);
    }
    if (call.body !== params) args[0] = call.body;
    const active = call;
    let promise: unknown;
    try {
      promise = context.with(active.context, () => Reflect.apply(original, this, args));
    } catch (err) {
      active.fail(err);
      throw err;
    }
    const retry = () => {
      const refusalKey = tracing.refusalKeyNow();
      active.withoutInjection(params as Record<string, unknown>);
      const again: unknown = context.with(active.context, () =>
        Reflect.apply(original, this, [params, ...args.slice(1)]),
      );
      const responsePromise = isObj(again) ? again.responsePromise : undefined;
      if (!isThenable(responsePromise)) return undefined;
      // Only once answered: refused as written too, it was the caller's own stream_options the server objected to.
      responsePromise.then(
        () => rememberRefusal(refusalKey),
        () => {},
      );
      return responsePromise;
    };
    observeApiPromise(promise, active, WRAP_OPENAI, endpoint.op, retry);
    return promise;
  };
}

/**
 * Shadows `create` (and the given runner helpers) on one resource instance with traced versions, and marks it.
 * Returns false when the instance is already traced or has no `create`.
 */
function instrumentResource(resource: Obj, endpoint: Endpoint, tracing: ClientTracing, runners: string[]): boolean {
  if (resource[WRAPPED] || typeof resource.create !== "function") return false;
  defineOwn(resource, "create", tracedCreate(resource.create as AnyFunction, endpoint, tracing));
  for (const name of runners) {
    const helper = resource[name];
    if (typeof helper !== "function") continue;
    defineOwn(resource, name, function (this: unknown, ...args: unknown[]) {
      return traceRunner(helper as AnyFunction, this, args);
    });
  }
  defineOwn(resource, WRAPPED, true);
  return true;
}

/** Names the request `responses.parse()` makes (through `responses.create`) `openai.responses.parse`. */
function instrumentResponsesParse(responses: Obj): void {
  const parse = responses.parse;
  if (typeof parse !== "function") return;
  defineOwn(responses, "parse", function (this: unknown, ...args: unknown[]) {
    const outer = helperOp;
    helperOp = RESPONSES_PARSE_OP;
    try {
      return Reflect.apply(parse as AnyFunction, this, args);
    } finally {
      helperOp = outer;
    }
  });
}

/** The credentials an `openai` client holds (an `AzureOpenAI` too): its API key and its admin key. */
const OPENAI_SECRETS = ["apiKey", "adminAPIKey"];

/**
 * Registers the client's credentials as known secrets (masked wherever an error quotes them, as a 401 "Incorrect API
 * key provided: sk-…" does). A client whose key comes from a function (`apiKey: async () => …`, an `AzureOpenAI`
 * `azureADTokenProvider`) or a workload identity has none yet (v5 holds the placeholder "Missing Key"): the
 * credentials each request sends are registered when the SDK builds its auth headers.
 */
function rememberOpenAISecrets(client: Obj): void {
  const options = client._options;
  const atRequestTime =
    (isObj(options) && typeof options.apiKey === "function") || client._workloadIdentityAuth != null;
  if (!atRequestTime) {
    rememberClientSecrets(client, OPENAI_SECRETS);
    return;
  }
  rememberClientSecrets(client, ["adminAPIKey"]);
  try {
    rememberAuthHeaders(client);
  } catch (err) {
    internalError("credentials", err);
  }
}

/**
 * Traces the model calls of an `openai` client (v5, v6 or v7), one GenAI span per HTTP request, recorded as a call
 * with the request parameters as inputs:
 * - `chat.completions.create` (streamed or not), `chat.completions.parse()`, the `chat.completions.stream()` helper
 *   and `runTools()`: `chat {model}` spans whose output is the completion (for a stream, the reassembled one);
 * - `responses.create` (streamed or not), `responses.parse()` and the `responses.stream()` helper: `chat {model}`
 *   spans whose output is the response (for a stream, the one its events add up to);
 * - `embeddings.create`: `embeddings {model}` spans whose output leaves the vectors out.
 * Usage is keyed by the response model. Returns the same client; everything else on it is untouched. Wrapping an
 * already wrapped client returns it as is (the first options stay).
 *
 * @throws ValidationError when `client` is not an `openai` client; ConfigError for a malformed option.
 */
export function wrapOpenAI<T extends object>(client: T, options: WrapOpenAIOptions = {}): T {
  if (client === null || typeof client !== "object") {
    throw new ValidationError(`wrapOpenAI expects an OpenAI client, got ${client === null ? "null" : typeof client}.`);
  }
  const chat = (client as Obj).chat;
  const completions = isObj(chat) ? chat.completions : undefined;
  if (!isObj(completions) || typeof completions.create !== "function") {
    throw new ValidationError(
      "wrapOpenAI expects a client of the openai package (v5, v6 or v7): client.chat.completions.create is missing.",
      "client",
    );
  }
  if (completions[WRAPPED]) return client;
  rememberOpenAISecrets(client as Obj);
  const env = envOf(options.env);
  const settings = resolveChatTraceOptions(options, env, "wrapOpenAI options");
  const known = { inference: originOf(env[ENV.inferenceBaseUrl]), training: originOf(env[ENV.trainingBaseUrl]) };

  // The endpoint follows client.baseURL, computed again only when it changes.
  let lastBase: unknown;
  let endpoint: ChatEndpoint | undefined;
  const tracing: ClientTracing = {
    settings,
    refusalKeyNow: () => refusalKeyOf(client),
    endpointNow: () => {
      const base = (client as Obj).baseURL;
      if (endpoint === undefined || base !== lastBase) {
        lastBase = base;
        endpoint = chatEndpoint(typeof base === "string" ? base : undefined, settings.providerName, known);
      }
      return endpoint;
    },
  };

  try {
    instrumentResource(completions, CHAT, tracing, RUNNER_HELPERS);
  } catch (err) {
    warnUntraced(WRAP_OPENAI, err);
    return client;
  }
  // Endpoints an older client may lack, or a test double leave out: traced when present.
  try {
    const responses = (client as Obj).responses;
    if (isObj(responses) && instrumentResource(responses, RESPONSES, tracing, ["stream"])) {
      instrumentResponsesParse(responses);
    }
    const embeddings = (client as Obj).embeddings;
    if (isObj(embeddings)) instrumentResource(embeddings, EMBEDDINGS, tracing, []);
  } catch (err) {
    internalError("instrument", err);
  }

  rewrapWithOptions(client, (derived) => wrapOpenAI(derived, options), WRAP_OPENAI);
  return client;
}
