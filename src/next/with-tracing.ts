/**
 * `withTracing(handler)`: one call per route-handler request or server-action invocation, ended when the response
 * body has been read to its end, with the spans flushed before a serverless invocation ends.
 */
import { trace } from "@opentelemetry/api";
import { kindOf, refuseUnknownSettings } from "../config.js";
import { ConfigError } from "../errors.js";
import { describeError } from "../otel/diagnostics.js";
import { globalState, reportInternalError } from "../otel/state.js";
import { ATTR_TRACEWIRE_CANCEL_REASON, ATTR_TRACEWIRE_CANCELLED } from "../semconv.js";
import { op } from "../tracing/op.js";
import { type Settle, watchStream } from "./body-watch.js";
import { controlFlowOutput } from "./control-flow.js";
import { loadAfter, scheduleFlush } from "./flush.js";

/** Options of {@link withTracing}. */
export interface WithTracingOptions {
  /**
   * The call's name. Default: route handlers `"<METHOD> <route>"` (the route from Next's span, else the URL
   * path); server actions and other functions `"action <function name>"`.
   */
  name?: string;
  /** The route pattern, e.g. `"/api/chat/[id]"`, for the default name of a route handler. */
  route?: string;
  /** Extra call attributes. */
  attributes?: Record<string, unknown>;
}

/** The options of {@link WithTracingOptions} (`satisfies`: no name that is not one of them). */
const WITH_TRACING_OPTIONS = ["name", "route", "attributes"] as const satisfies readonly (keyof WithTracingOptions)[];

// biome-ignore lint/suspicious/noExplicitAny: a wrapper must accept any handler signature.
type AnyFunction = (...args: any[]) => any;

/** What {@link withTracing} returns: the handler's signature, answering with a promise (a synchronous handler too). */
export type TracedHandler<F extends AnyFunction> = (
  this: ThisParameterType<F>,
  ...args: Parameters<F>
) => Promise<Awaited<ReturnType<F>>>;

/** The parts of a web Request (or Next's NextRequest) that name the call. */
type RequestLike = { method: string; url: string; headers: unknown };
/** The parts of a web Response the call records, and the body it waits for. */
type ResponseLike = {
  status: number;
  statusText?: string;
  headers?: { get(name: string): string | null };
  body: unknown;
};

function isRequest(value: unknown): value is RequestLike {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v.method === "string" && typeof v.url === "string" && typeof v.headers === "object";
}

function isResponse(value: unknown): value is ResponseLike {
  if (value === null || typeof value !== "object") return false;
  return typeof (value as ResponseLike).status === "number" && "body" in value;
}

/** The route pattern Next put on its active span (`next.route`), when the SDK span exposes its attributes. */
function activeRoute(): string | undefined {
  const span = trace.getActiveSpan() as { attributes?: Record<string, unknown> } | undefined;
  const route = span?.attributes?.["next.route"];
  return typeof route === "string" && route !== "" ? route : undefined;
}

/** The path of a request URL (relative URLs included), without its query. */
function pathOf(url: string): string {
  try {
    return new URL(url, "http://localhost").pathname;
  } catch {
    return url.split("?")[0] ?? url;
  }
}

/**
 * Wraps a route handler or a server action so that each request is one call: a root call named from the method and
 * route (`"POST /api/chat"`), or a child of Next's own request span when Next traces the request. The call ends
 * when the response body has been read to its end (streaming responses included), and the spans are flushed through
 * `after()` (from `next/server`), else the platform's `waitUntil`, so a serverless invocation does not lose them.
 *
 * The handler's Response (or return value) comes back unchanged, its errors are rethrown unchanged (`redirect()` and
 * `notFound()` from `next/navigation` too, recorded as the answer they stand for, not as failures), and tracewire's
 * own failures never reach the handler. With tracing off (edge runtime, not configured) the handler runs as is.
 * Options it does not read (`nme`) are a `ConfigError`, thrown here, when the module is loaded.
 */
export function withTracing<F extends AnyFunction>(handler: F, options: WithTracingOptions = {}): TracedHandler<F> {
  if (typeof handler !== "function") throw new TypeError("withTracing(handler): handler must be a function.");
  checkWithTracingOptions(options);
  const wrapped = async function (this: unknown, ...args: unknown[]) {
    const state = globalState();
    if (!state.active) return Reflect.apply(handler, this, args);
    let called = false;
    const call = () => {
      called = true;
      return Reflect.apply(handler, this, args);
    };
    try {
      return await traceOne(call, handler.name, args, options);
    } catch (err) {
      if (called) throw err;
      // tracewire failed before the handler ran: run it untraced.
      reportInternalError("next-wrap", `withTracing could not trace the request: ${describeError(err)}`);
      return call();
    }
  };
  Object.defineProperty(wrapped, "name", { value: handler.name, configurable: true });
  return wrapped as unknown as TracedHandler<F>;
}

/**
 * Refuses what the options cannot mean, when the route module loads rather than on each request: a misspelt
 * `atributes` would otherwise record nothing, and a `name` that is not a string would name every call oddly.
 */
function checkWithTracingOptions(options: WithTracingOptions): void {
  if (options === null || typeof options !== "object" || Array.isArray(options))
    throw new ConfigError("withTracing options", kindOf(options), "an options object ({ name, route, attributes })");
  refuseUnknownSettings("withTracing", options, WITH_TRACING_OPTIONS);
  for (const key of ["name", "route"] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== "string" || value.trim() === ""))
      throw new ConfigError(`withTracing option ${key}`, kindOf(value), "a non-empty string");
  }
  const { attributes } = options;
  if (attributes !== undefined && (attributes === null || typeof attributes !== "object" || Array.isArray(attributes)))
    throw new ConfigError("withTracing option attributes", kindOf(attributes), "an object of attribute values");
}

/**
 * Runs one invocation as a call. Resolves with the handler's result as soon as the handler returns (the call itself
 * goes on until the response body has been read), or rejects with the handler's error.
 */
async function traceOne(
  call: () => unknown,
  handlerName: string,
  args: unknown[],
  options: WithTracingOptions,
): Promise<unknown> {
  const after = await loadAfter();
  const request = isRequest(args[0]) ? args[0] : undefined;
  let name = options.name;
  let inputs: Record<string, unknown>;
  if (request) {
    const path = pathOf(request.url);
    const route = options.route ?? activeRoute() ?? path;
    name ??= `${request.method.toUpperCase()} ${route}`;
    inputs = { method: request.method, path, route };
  } else {
    name ??= `action ${handlerName || "anonymous"}`;
    inputs = { args };
  }

  let handOver!: (value: unknown) => void;
  let handOverError!: (error: unknown) => void;
  const given = new Promise<unknown>((resolve, reject) => {
    handOver = resolve;
    handOverError = reject;
  });
  let backstop: () => void = () => {};

  const body = async (_request: Record<string, unknown>) => {
    // This call's span (the op runs the body inside it): a body the client stopped reading marks it cancelled.
    const span = trace.getActiveSpan();
    let result: unknown;
    try {
      result = await call();
    } catch (err) {
      handOverError(err);
      // redirect() / notFound(): how the handler answered, not a failure (the caller still gets the error).
      const answer = controlFlowOutput(err);
      if (answer) return answer;
      throw err;
    }
    handOver(result);
    if (!isResponse(result)) return result;
    const summary = {
      status: result.status,
      ...(result.headers?.get?.("content-type") ? { contentType: result.headers.get("content-type") } : {}),
    };
    const stream = result.body;
    if (stream === null || typeof stream !== "object") return summary;
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle: Settle = (error, cancelled) => {
        if (settled) return;
        settled = true;
        if (cancelled)
          span?.setAttributes({ [ATTR_TRACEWIRE_CANCELLED]: true, [ATTR_TRACEWIRE_CANCEL_REASON]: "abort" });
        if (error === undefined) resolve();
        else reject(error);
      };
      backstop = () => settle();
      if (!watchStream(stream as Record<PropertyKey, unknown>, settle)) settle();
    });
    return summary;
  };

  const traced = op(body, {
    name,
    parameterNames: [request ? "request" : "inputs"],
    ...(options.attributes ? { attributes: options.attributes } : {}),
  });
  const [finished] = traced.invoke(inputs);
  const done = finished.then(
    () => undefined,
    () => undefined,
  );
  scheduleFlush(after, done, () => backstop());
  return given;
}
