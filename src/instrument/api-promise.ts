/**
 * How a wrapper observes the `APIPromise` an SDK method returns, without consuming it or changing what the caller
 * gets. The `openai` and `@anthropic-ai/sdk` packages are generated from one template and share this promise class,
 * so wrapOpenAI and wrapAnthropic hook it the same way (see instrument/openai.ts for the whole picture): the response promise and `parseResponse` of that one
 * instance (and of every promise derived from it with `_thenUnwrap`, as `parse()` and openai 7 do) are hooked, and
 * which way the caller reads the answer (parsed, or raw through `asResponse()`) is noted.
 */
import type { ChatCall } from "../genai/chat-call.js";
import { controllerSignal, defineOwn, replaceOwn, withinGrace } from "../genai/stream-tap.js";
import { describeError } from "../otel/diagnostics.js";
import { rememberHeaderSecrets } from "../otel/known-secrets.js";
import { globalState, reportInternalError } from "../otel/state.js";

export type Obj = Record<PropertyKey, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: the SDK's methods are called through untyped references.
export type AnyFunction = (...args: any[]) => any;

export const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null;
/**
 * Whether a method's first argument is a request's parameters (an object, not an array) that tracing may read. Never
 * throws: a revoked Proxy fails even `Array.isArray`, and then the SDK, not tracewire, says what is wrong with it.
 */
export function isParams(value: unknown): value is Obj {
  try {
    return isObj(value) && !Array.isArray(value);
  } catch {
    return false;
  }
}

export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  isObj(value) && typeof (value as { then?: unknown }).then === "function";

/** Which wrapper is observing: `key` prefixes its diagnostics, `name` is what its messages call it. */
export interface Wrapper {
  key: string;
  name: string;
}

export const WRAP_OPENAI: Wrapper = { key: "openai", name: "wrapOpenAI" };
export const WRAP_ANTHROPIC: Wrapper = { key: "anthropic", name: "wrapAnthropic" };

/** Reports a failure inside a wrapper (counted once per kind and interval); the request itself goes on. */
export function internalError(wrapper: Wrapper, where: string, err: unknown): void {
  reportInternalError(
    `${wrapper.key}-${where}`,
    `Internal error in ${wrapper.name} (${where}; the request itself is unaffected): ${describeError(err)}`,
  );
}

/**
 * A client (or one of its namespaces: `part`, named for the message and for the warning's kind) that cannot take own
 * properties — frozen, sealed, a Proxy refusing `defineProperty` — is left as it is and runs untraced: said once per
 * kind, as a warning, not an internal error.
 */
export function warnUntraced(wrapper: Wrapper, err: unknown, part?: { name: string; key: string }): void {
  globalState().active?.diagnostics.warn(
    part ? `${wrapper.key}-${part.key}-frozen` : `${wrapper.key}-frozen`,
    part
      ? `${wrapper.name} could not instrument ${part.name} (${describeError(err)}); its requests run untraced.`
      : `${wrapper.name} could not instrument this client (${describeError(err)}); it runs untraced.`,
  );
}

/** Whether an error is a server's refusal of the `stream_options` parameter (a 400 or 422 that names it). */
export function refusesStreamOptions(err: unknown): boolean {
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

/**
 * Registers the credentials a client sends at request time (an `apiKey` function's key, a token provider's token) as
 * known secrets when the SDK builds its auth headers (`authHeaders`, an async method of both SDKs' clients), so an
 * error that quotes them is masked too. For clients without a fixed key: each wrapper decides.
 */
export function rememberAuthHeaders(client: Obj): void {
  const original = client.authHeaders;
  if (typeof original !== "function") return;
  replaceOwn(client, "authHeaders", function authHeaders(this: unknown, ...args: unknown[]) {
    const result: unknown = Reflect.apply(original as AnyFunction, this, args);
    if (!isThenable(result)) return result;
    return Promise.resolve(result).then((headers) => {
      rememberHeaderSecrets(headers);
      return headers;
    });
  });
}

/** Registers the credentials among one request's own headers (`{ headers: { Authorization } }`). Never throws. */
export function rememberRequestHeaders(requestOptions: Obj | undefined): void {
  if (requestOptions?.headers != null) rememberHeaderSecrets(requestOptions.headers);
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
  replaceOwn(promise, name, function (this: unknown, ...args: unknown[]) {
    note();
    return Reflect.apply(original as AnyFunction, this, args);
  });
}

/** What one traced request's APIPromise and every promise derived from it share. */
interface Observed {
  wrapper: Wrapper;
  call: ChatCall;
  consumption: Consumption;
  /** The response promise every hooked promise reads: settles like the SDK's, seen by tracewire. */
  responsePromise: PromiseLike<unknown>;
  /**
   * Ends the call with what the SDK parsed, linking it for `callOf()`, once: a derived promise parses through its
   * origin first. Returns false when the call was settled already.
   */
  settle(value: unknown): boolean;
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
  const { call, consumption, wrapper } = observed;
  // Redefined, never assigned: see replaceOwn.
  if (promise.responsePromise !== observed.responsePromise)
    replaceOwn(promise, "responsePromise", observed.responsePromise);
  const parseResponse = promise.parseResponse;
  if (typeof parseResponse === "function") {
    replaceOwn(promise, "parseResponse", function (this: unknown, ...args: unknown[]) {
      const result = Reflect.apply(parseResponse as AnyFunction, this, args);
      return Promise.resolve(result).then(
        (value) => {
          try {
            // What a derived promise hands out (a parse() result) leads back to the call too.
            if (!observed.settle(value)) call.link(value);
          } catch (err) {
            internalError(wrapper, "settle", err);
          }
          return value;
        },
        (err: unknown) => {
          call.fail(err);
          throw err;
        },
      );
    });
  }
  // openai 7: withResponse() reads the raw request's response; hand out the one the SDK parsed instead.
  const withResponse = Object.hasOwn(promise, "withResponse") ? promise.withResponse : undefined;
  if (typeof withResponse === "function") {
    replaceOwn(promise, "withResponse", function (this: unknown, ...args: unknown[]) {
      // The caller takes the HTTP response too: its body must be the filtered one (see `arrived`), whatever order
      // the SDK asks for the parsed data and the response in.
      consumption.raw = true;
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
    replaceOwn(promise, "_thenUnwrap", function (this: unknown, ...args: unknown[]) {
      const derived = Reflect.apply(thenUnwrap as AnyFunction, this, args);
      try {
        if (isObj(derived)) hookPromise(derived, observed);
      } catch (err) {
        internalError(wrapper, "derive", err);
      }
      return derived;
    });
  }
}

/** Ends the call with what a stream or completion `value` turns out to be (a stream is watched to its end). */
function settleWith(call: ChatCall, value: unknown): void {
  if (call.streaming && isObj(value) && typeof value.iterator === "function") {
    call.observeStream(value, "iterator", controllerSignal(value));
  } else call.complete(value);
}

/**
 * Observes a native promise (see observeApiPromise). Its rejection is handled here, on a branch of its own: the
 * caller who awaits it gets it as always; one who never does gets no unhandled-rejection report for it.
 */
function observeNativePromise(promise: Promise<unknown>, call: ChatCall): void {
  promise.then(
    (value) => settleWith(call, value),
    (err: unknown) => call.fail(err),
  );
}

/**
 * Observes what `create` returned (an APIPromise) without consuming it. `method` names the op for diagnostics;
 * `retry` sends the request again without the injected `stream_options` and returns the new request's response
 * promise (or undefined when it cannot).
 */
export function observeApiPromise(
  promise: unknown,
  call: ChatCall,
  wrapper: Wrapper,
  method: string,
  retry?: () => PromiseLike<unknown> | undefined,
): void {
  try {
    if (!isObj(promise) || !isThenable(promise)) {
      // An answer handed back as is (a `create` the app replaced with a synchronous one): nothing to wait for.
      settleWith(call, promise);
      return;
    }
    const responsePromise = promise.responsePromise;
    if (promise instanceof Promise && !isThenable(responsePromise) && typeof promise.asResponse !== "function") {
      // A native promise: what a `create` the app replaced returns (an async function delegating to the SDK, a
      // cache, a test double). Reading it changes nothing, so its answer is recorded like the SDK's. (An SDK promise
      // this version does not know, one with `asResponse`, is never read: its body would be gone for `asResponse()`.)
      observeNativePromise(promise, call);
      return;
    }
    if (!isThenable(responsePromise) || typeof promise.parseResponse !== "function") {
      // Not an APIPromise this version of tracewire knows: record the request, never touch the promise.
      globalState().active?.diagnostics.warn(
        `${wrapper.key}-shape`,
        `${wrapper.name}: ${method} returned an unknown promise type; its answer is not recorded.`,
      );
      call.raw();
      return;
    }
    let settled = false;
    const settle = (value: unknown) => {
      if (settled) return false;
      settled = true;
      // complete() and observeStream() link the value for callOf().
      settleWith(call, value);
      return true;
    };
    const consumption: Consumption = { parse: false, raw: false, arrived: false };
    const observed: Observed = { wrapper, call, consumption, responsePromise, settle, retried: false };
    const arrived = (props: unknown) => {
      consumption.arrived = true;
      if (consumption.raw && !consumption.parse) call.raw();
      // Nobody has asked for the answer yet: end the call if the promise is dropped unread. (Watched only from here:
      // `await create(…)` asks before the response arrives, and a FinalizationRegistry entry per call costs.)
      else if (!consumption.parse && !consumption.raw) call.track(promise);
      // The body the SDK parses and a raw reader gets: without what the injected stream_options added. A caller who
      // only takes the parsed stream (by now `then` has asked for it; `asResponse` has not) never sees the body:
      // the usage is hidden from the chunks instead (ChatCall), which costs far less than a filtered copy of it.
      if (call.injectsUsage && isObj(props) && (call.hideUsageInBody || !(consumption.parse && !consumption.raw))) {
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
          internalError(wrapper, "retry", retryErr);
        }
      }
      return failed(err);
    });
    observed.responsePromise = observedResponse;
    hookPromise(promise, observed);
  } catch (err) {
    internalError(wrapper, "observe", err);
    call.raw();
  }
}

/**
 * Makes `client.withOptions(…)` return a client traced like `client` (the SDKs build a fresh client there, which
 * would otherwise escape the wrapper). `wrap` is the wrapper itself; a failure leaves the derived client untraced.
 */
export function rewrapWithOptions(client: object, wrap: (derived: object) => object, wrapper: Wrapper): void {
  const originalWithOptions = (client as Obj).withOptions;
  if (typeof originalWithOptions !== "function") return;
  try {
    replaceOwn(client as Obj, "withOptions", function withOptions(this: unknown, ...args: unknown[]) {
      const derived = Reflect.apply(originalWithOptions as AnyFunction, this, args);
      try {
        return isObj(derived) ? wrap(derived) : derived;
      } catch (err) {
        internalError(wrapper, "with-options", err);
        return derived;
      }
    });
  } catch (err) {
    internalError(wrapper, "with-options", err);
  }
}

/**
 * A `for await` over an SDK stream helper (Anthropic's `MessageStream`, openai's `ChatCompletionStream` and other
 * runners) that the caller leaves (`break`, `return`, a throw) aborts the helper's request from the iterator's
 * `return()`: each iterator the helper hands out calls `stopReading` first, so the call ends as a break (complete
 * when the answer had finished) and not as the caller's abort.
 */
export function noteBreaks(helper: Obj, stopReading: () => Promise<void> | undefined | void, wrapper: Wrapper): void {
  const iterate = helper[Symbol.asyncIterator];
  if (typeof iterate !== "function") return;
  defineOwn(helper, Symbol.asyncIterator, function (this: unknown, ...args: unknown[]): unknown {
    const iterator: unknown = Reflect.apply(iterate as AnyFunction, this, args);
    try {
      const ret = isObj(iterator) ? iterator.return : undefined;
      if (isObj(iterator) && typeof ret === "function")
        replaceOwn(iterator, "return", function (this: unknown, ...rest: unknown[]): unknown {
          let ending: Promise<void> | undefined | void;
          try {
            ending = stopReading();
          } catch (err) {
            internalError(wrapper, "stream-break", err);
          }
          const result: unknown = Reflect.apply(ret as AnyFunction, this, rest);
          // The call waits for a usage chunk still on its way: the caller's `break` waits a moment for it (as a
          // stream's own does, stream-tap.ts), so the call ends before the op around it.
          return ending ? Promise.resolve(result).then((step) => withinGrace(ending).then(() => step)) : result;
        });
    } catch (err) {
      internalError(wrapper, "stream-break", err);
    }
    return iterator;
  });
}
