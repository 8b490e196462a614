/**
 * `wrapOpenAI(client)`: traces the chat completions of an `openai` client (v5, v6 and v7) without changing a single
 * type or behaviour of the client.
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
 */
import { context, createContextKey } from "@opentelemetry/api";
import { ENV, type Env } from "../config.js";
import { ValidationError } from "../errors.js";
import { ChatCall } from "../genai/chat-call.js";
import { type ChatEndpoint, chatEndpoint, originOf } from "../genai/openai-chat.js";
import { type ChatTraceOptions, resolveChatTraceOptions } from "../genai/options.js";
import { controllerSignal, defineOwn } from "../genai/stream-tap.js";
import { describeError } from "../otel/diagnostics.js";
import { globalState } from "../otel/state.js";

/** Options of {@link wrapOpenAI}. */
export interface WrapOpenAIOptions extends ChatTraceOptions {
  /**
   * Where `TRACEWIRE_INFERENCE_BASE_URL`, `TRACEWIRE_TRAINING_BASE_URL` and
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` are read. Default `process.env`.
   */
  env?: Env;
}

type Obj = Record<PropertyKey, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: the SDK's methods are called through untyped references.
type AnyFunction = (...args: any[]) => any;

const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null;
const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  isObj(value) && typeof (value as { then?: unknown }).then === "function";

/** Marks a `chat.completions` instance that is already traced. */
const WRAPPED = Symbol.for("tracewire.openai.wrapped");

const HELPER_HEADER = "X-Stainless-Helper-Method";
const HELPER_OPS: Record<string, string> = {
  "chat.completions.parse": "openai.chat.completions.parse",
  stream: "openai.chat.completions.stream",
  runTools: "openai.chat.completions.runTools",
};
const CREATE_OP = "openai.chat.completions.create";

/**
 * The SDK helpers that return a runner (`stream()`, `runTools()`): each request they make is a traced `create`,
 * and the runner is linked for `callOf()` — the runner itself to its latest request's call, each completion it
 * emits (`chatCompletion`, what `finalChatCompletion()` returns) to the call of the request it came from.
 */
const RUNNER_HELPERS = ["stream", "runTools"];
const RUNNER_KEY = createContextKey("tracewire.openai.runner");

/** The calls a runner's requests started, in order, until the completion each one produced is linked. */
interface RunnerLinks {
  runner: Obj | undefined;
  pending: ChatCall[];
}

/** Notes a call started by a runner's request (found on the context the helper ran in). */
function noteRunnerCall(call: ChatCall): void {
  const links = context.active().getValue(RUNNER_KEY) as RunnerLinks | undefined;
  if (!links) return;
  links.pending.push(call);
  if (links.runner) call.link(links.runner);
}

/** Runs a runner helper with a context that lets its requests find the runner, then links what it emits. */
function traceRunner(helper: AnyFunction, self: unknown, args: unknown[]): unknown {
  let links: RunnerLinks | undefined;
  let ctx = context.active();
  try {
    links = { runner: undefined, pending: [] };
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
    }
  } catch (err) {
    internalError("runner", err);
  }
  return runner;
}

function internalError(where: string, err: unknown): void {
  globalState().active?.diagnostics.error(
    `openai-${where}`,
    `Internal error in wrapOpenAI (${where}; the request itself is unaffected): ${describeError(err)}`,
  );
}

/**
 * The op name: which SDK helper (if any) made this request, from the header the helpers add (openai 5 and 6) or the
 * request metadata they pass (`__metadata.helperMethod`, openai 7).
 */
function opNameOf(options: Obj | undefined): string {
  const metadata = options?.__metadata;
  const fromMetadata = isObj(metadata) ? metadata.helperMethod : undefined;
  if (typeof fromMetadata === "string" && HELPER_OPS[fromMetadata]) return HELPER_OPS[fromMetadata];
  const headers = options?.headers;
  if (!isObj(headers)) return CREATE_OP;
  let helper: unknown;
  if (typeof (headers as { get?: unknown }).get === "function") {
    helper = (headers as unknown as { get(name: string): unknown }).get(HELPER_HEADER);
  } else if (!Array.isArray(headers)) {
    helper = headers[HELPER_HEADER];
  }
  return (typeof helper === "string" && HELPER_OPS[helper]) || CREATE_OP;
}

/**
 * Base URLs whose server refused `stream_options` (older Azure OpenAI API versions answer 400 "Unrecognized request
 * argument supplied: stream_options"): later streamed requests to them are sent as written. Bounded: a process
 * talking to more servers than this forgets the oldest, and at worst retries once more.
 */
const refusingStreamOptions = new Set<string>();
const MAX_REFUSING = 256;

function rememberRefusal(baseUrl: string): void {
  if (refusingStreamOptions.size >= MAX_REFUSING) {
    const oldest = refusingStreamOptions.values().next().value;
    if (oldest !== undefined) refusingStreamOptions.delete(oldest);
  }
  refusingStreamOptions.add(baseUrl);
}

/** Whether an error is a server's refusal of the `stream_options` parameter (a 400 or 422 that names it). */
function refusesStreamOptions(err: unknown): boolean {
  try {
    if (!isObj(err) || (err.status !== 400 && err.status !== 422)) return false;
    const body = isObj(err.error) ? err.error : undefined;
    if (body?.param === "stream_options") return true;
    const texts = [err.message, body?.message, typeof body?.detail === "string" ? body.detail : JSON.stringify(body)];
    return texts.some((text) => typeof text === "string" && text.includes("stream_options"));
  } catch {
    return false;
  }
}

/** How the caller consumes one APIPromise (and the promises derived from it). */
interface Consumption {
  parse: boolean;
  raw: boolean;
  arrived: boolean;
}

/** Shadows the method `name` of one promise so that `note()` runs before each call of the original. */
function noteCalls(promise: Obj, name: string, note: () => void): void {
  const original = promise[name];
  if (typeof original !== "function") return;
  defineOwn(promise, name, function (this: unknown, ...args: unknown[]) {
    note();
    return Reflect.apply(original as AnyFunction, this, args);
  });
}

/** What one traced request's APIPromise and every promise derived from it share. */
interface Observed {
  call: ChatCall;
  consumption: Consumption;
  /** The response promise every hooked promise reads: settles like the SDK's, seen by tracewire. */
  responsePromise: PromiseLike<unknown>;
  /** Ends the call with what the SDK parsed (once: a derived promise parses through its origin first). */
  settle(value: unknown): void;
  /** Whether the request was sent again without the injected `stream_options`. */
  retried: boolean;
}

/**
 * Hooks one APIPromise (the one `create` returned, or one `_thenUnwrap` derived from it, as `parse()` does) in place:
 * its `responsePromise` and `parseResponse` (see the module comment), which way the caller consumes it, and the
 * instance methods openai 7 defines per promise (`withResponse` and `_thenUnwrap` closures over the raw request),
 * so that every version reads the same observed response.
 */
function hookPromise(promise: Obj, observed: Observed): void {
  const { call, consumption } = observed;
  if (promise.responsePromise !== observed.responsePromise) promise.responsePromise = observed.responsePromise;
  const parseResponse = promise.parseResponse;
  if (typeof parseResponse === "function") {
    promise.parseResponse = function (this: unknown, ...args: unknown[]) {
      const result = Reflect.apply(parseResponse as AnyFunction, this, args);
      return Promise.resolve(result).then(
        (value) => {
          try {
            observed.settle(value);
            // What a derived promise hands out (a parse() result) leads back to the call too.
            call.link(value);
          } catch (err) {
            internalError("settle", err);
          }
          return value;
        },
        (err: unknown) => {
          call.fail(err);
          throw err;
        },
      );
    };
  }
  // openai 7: withResponse() reads the raw request's response; hand out the one the SDK parsed instead.
  const withResponse = Object.hasOwn(promise, "withResponse") ? promise.withResponse : undefined;
  if (typeof withResponse === "function") {
    defineOwn(promise, "withResponse", function (this: unknown, ...args: unknown[]) {
      const viaObserved = () =>
        Promise.all([promise as unknown as PromiseLike<unknown>, observed.responsePromise]).then(([data, props]) => {
          const response = (props as { response: Response }).response;
          return { data, response, request_id: response.headers.get("x-request-id") };
        });
      const result = Reflect.apply(withResponse as AnyFunction, this, args) as Promise<unknown>;
      return Promise.resolve(result).then(
        (value) =>
          Promise.resolve(observed.responsePromise).then((props) => {
            const response = isObj(props) ? props.response : undefined;
            return isObj(value) && response !== undefined && value.response !== response
              ? { ...value, response }
              : value;
          }),
        // The raw request failed but its retry without stream_options did not: answer from the retry.
        (err: unknown) => (observed.retried ? viaObserved() : Promise.reject(err)),
      );
    });
  }
  noteCalls(promise, "parse", () => {
    if (consumption.parse) return;
    consumption.parse = true;
    call.untrack();
  });
  noteCalls(promise, "asResponse", () => {
    if (consumption.raw) return;
    consumption.raw = true;
    call.untrack();
    if (consumption.arrived && !consumption.parse) call.raw();
  });
  const thenUnwrap = promise._thenUnwrap;
  if (typeof thenUnwrap === "function") {
    defineOwn(promise, "_thenUnwrap", function (this: unknown, ...args: unknown[]) {
      const derived = Reflect.apply(thenUnwrap as AnyFunction, this, args);
      try {
        if (isObj(derived)) hookPromise(derived, observed);
      } catch (err) {
        internalError("derive", err);
      }
      return derived;
    });
  }
}

/**
 * Observes what `create` returned (an APIPromise) without consuming it. `retry` sends the request again without
 * the injected `stream_options` and returns the new request's response promise (or undefined when it cannot).
 */
function observeApiPromise(promise: unknown, call: ChatCall, retry?: () => PromiseLike<unknown> | undefined): void {
  try {
    if (!isObj(promise)) {
      call.complete(promise);
      return;
    }
    const responsePromise = promise.responsePromise;
    if (!isThenable(responsePromise) || typeof promise.parseResponse !== "function") {
      // Not an APIPromise this version of tracewire knows: record the request, never touch the promise.
      globalState().active?.diagnostics.warn(
        "openai-shape",
        "wrapOpenAI: chat.completions.create returned an unknown promise type; its answer is not recorded.",
      );
      call.raw();
      return;
    }
    let settled = false;
    const settle = (value: unknown) => {
      if (settled) return;
      settled = true;
      if (!call.streaming) call.complete(value);
      else if (isObj(value) && typeof value.iterator === "function") {
        call.observeStream(value, "iterator", controllerSignal(value));
      } else call.complete(value);
    };
    const consumption: Consumption = { parse: false, raw: false, arrived: false };
    const observed: Observed = { call, consumption, responsePromise, settle, retried: false };
    const arrived = (props: unknown) => {
      consumption.arrived = true;
      if (consumption.raw && !consumption.parse) call.raw();
      // The body the SDK parses and a raw reader gets: without what the injected stream_options added.
      if (call.injectsUsage && isObj(props)) {
        const response = call.hideUsage(props.response);
        if (response !== props.response) return { ...props, response };
      }
      return props;
    };
    const failed = (err: unknown) => {
      call.fail(err);
      throw err;
    };
    const observedResponse = responsePromise.then(arrived, (err: unknown) => {
      // A server that refuses the injected stream_options: send the request as the caller wrote it, once.
      if (call.injectsUsage && retry && refusesStreamOptions(err)) {
        try {
          const again = retry();
          if (again !== undefined) {
            observed.retried = true;
            return again.then(arrived, failed);
          }
        } catch (retryErr) {
          internalError("retry", retryErr);
        }
      }
      return failed(err);
    });
    observed.responsePromise = observedResponse;
    hookPromise(promise, observed);
    call.track(promise);
  } catch (err) {
    internalError("observe", err);
    call.raw();
  }
}

/**
 * Traces `client.chat.completions.create` (streamed or not), `chat.completions.parse` and the
 * `chat.completions.stream()` helper of an `openai` client (v5, v6 or v7): one GenAI `chat {model}` span per request,
 * recorded as a call with the request parameters as inputs and the completion (for a stream, the reassembled
 * completion) as output, usage keyed by the response model. Returns the same client; everything else on it is
 * untouched. Wrapping an already wrapped client returns it as is (the first options stay).
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
  const env = options.env ?? process.env;
  const settings = resolveChatTraceOptions(options, env, "wrapOpenAI options");
  const known = { inference: originOf(env[ENV.inferenceBaseUrl]), training: originOf(env[ENV.trainingBaseUrl]) };

  const baseUrlNow = (): string => {
    const base = (client as Obj).baseURL;
    return typeof base === "string" ? base : "";
  };
  // The endpoint follows client.baseURL, computed again only when it changes.
  let lastBase: unknown;
  let endpoint: ChatEndpoint | undefined;
  const endpointNow = (): ChatEndpoint => {
    const base = (client as Obj).baseURL;
    if (endpoint === undefined || base !== lastBase) {
      lastBase = base;
      endpoint = chatEndpoint(typeof base === "string" ? base : undefined, settings.providerName, known);
    }
    return endpoint;
  };

  const original = completions.create as AnyFunction;
  const traced = function create(this: unknown, ...args: unknown[]): unknown {
    const params = args[0];
    if (!isObj(params) || Array.isArray(params)) return Reflect.apply(original, this, args);
    let call: ChatCall | undefined;
    try {
      const requestOptions = isObj(args[1]) ? args[1] : undefined;
      const signal = requestOptions?.signal;
      call = ChatCall.start({
        opName: opNameOf(requestOptions),
        params: params as Record<string, unknown>,
        endpoint: endpointNow(),
        options: settings,
        signal: signal instanceof AbortSignal ? signal : undefined,
        noUsageInjection: refusingStreamOptions.has(baseUrlNow()),
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
      rememberRefusal(baseUrlNow());
      active.withoutInjection(params as Record<string, unknown>);
      const again: unknown = context.with(active.context, () =>
        Reflect.apply(original, this, [params, ...args.slice(1)]),
      );
      const responsePromise = isObj(again) ? again.responsePromise : undefined;
      return isThenable(responsePromise) ? responsePromise : undefined;
    };
    observeApiPromise(promise, active, retry);
    return promise;
  };

  try {
    defineOwn(completions, "create", traced);
    for (const name of RUNNER_HELPERS) {
      const helper = completions[name];
      if (typeof helper !== "function") continue;
      defineOwn(completions, name, function (this: unknown, ...args: unknown[]) {
        return traceRunner(helper as AnyFunction, this, args);
      });
    }
    defineOwn(completions, WRAPPED, true);
  } catch (err) {
    // A frozen client: leave it as it is, untraced, and say so once.
    globalState().active?.diagnostics.warn(
      "openai-frozen",
      `wrapOpenAI could not instrument this client (${describeError(err)}); it runs untraced.`,
    );
    return client;
  }

  const originalWithOptions = (client as Obj).withOptions;
  if (typeof originalWithOptions === "function") {
    try {
      defineOwn(client, "withOptions", function withOptions(this: unknown, ...args: unknown[]) {
        const derived = Reflect.apply(originalWithOptions as AnyFunction, this, args);
        try {
          return isObj(derived) ? wrapOpenAI(derived, options) : derived;
        } catch (err) {
          internalError("with-options", err);
          return derived;
        }
      });
    } catch (err) {
      internalError("with-options", err);
    }
  }
  return client;
}
