/**
 * `tracewire/next`: Next.js integration (App Router, Next 15.1+ / 16).
 *
 * ```ts
 * // instrumentation.ts
 * export { register } from "tracewire/next";
 * // app/api/chat/route.ts
 * export const POST = withTracing(async (request: Request) => …);
 * ```
 *
 * This entry is safe to import from an edge bundle: everything Node-only is loaded by `import()` inside the
 * `NEXT_RUNTIME === "nodejs"` branch of `register()`, which Next's bundler drops from edge builds.
 */
import { trace } from "@opentelemetry/api";
import { globalState } from "../otel/state.js";
import type { InitOptions, TracewireHandle } from "../tracing/init.js";
import { op } from "../tracing/op.js";

export { VERSION } from "../version.js";
export type { InitOptions, TracewireHandle };

function warnOnce(key: string, message: string): void {
  const state = globalState();
  if (state.warned.has(key)) return;
  state.warned.add(key);
  console.warn(`[tracewire] ${message}`);
}

/**
 * For `instrumentation.ts`: `export { register } from "tracewire/next"`, or call it from your own `register()`.
 * Node.js runtime: sets up tracing with `init(options)` (settings from the environment by default) and returns its
 * handle; a second call (another bundle's copy) returns the same handle. Edge runtime: does nothing and says once
 * that edge is not traced. A malformed setting throws `ConfigError`, as `init()` does.
 */
export async function register(options: InitOptions = {}): Promise<TracewireHandle | undefined> {
  // Written out literally: Next replaces `process.env.NEXT_RUNTIME` at build time and drops the dead branch.
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { init } = await import("./node.js");
    return init(options);
  }
  if (process.env.NEXT_RUNTIME === "edge") {
    warnOnce("next-edge", "The edge runtime is not traced by tracewire (Node.js runtime only); edge code runs as is.");
  } else {
    warnOnce(
      "next-no-runtime",
      "register() from tracewire/next is meant for Next's instrumentation.ts (NEXT_RUNTIME is not set); use init() elsewhere.",
    );
  }
  return undefined;
}

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

// biome-ignore lint/suspicious/noExplicitAny: a wrapper must accept any handler signature.
type AnyFunction = (...args: any[]) => any;

type RequestLike = { method: string; url: string; headers: unknown };
type ResponseLike = {
  status: number;
  statusText?: string;
  headers?: { get(name: string): string | null };
  body: unknown;
};
type AfterFn = (task: () => unknown) => void;
type RequestContext = { get?: () => { waitUntil?: (promise: Promise<unknown>) => void } | undefined };

function isRequest(value: unknown): value is RequestLike {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v.method === "string" && typeof v.url === "string" && typeof v.headers === "object";
}

function isResponse(value: unknown): value is ResponseLike {
  if (value === null || typeof value !== "object") return false;
  return typeof (value as ResponseLike).status === "number" && "body" in value;
}

let nextServer: Promise<{ after?: AfterFn } | undefined> | undefined;

/** `after` from `next/server`, when this runs inside Next (resolved by the app's bundler, so it is the app's copy). */
function loadAfter(): Promise<AfterFn | undefined> {
  // `as string` keeps TypeScript from loading Next's (and React's) types; bundlers still see the literal.
  nextServer ??= import("next/server.js" as string).then(
    (m) => m as { after?: AfterFn },
    () => undefined,
  );
  return nextServer.then((m) => (typeof m?.after === "function" ? m.after : undefined));
}

/** The platform's `waitUntil`: Next's request context, else Vercel's (what `@vercel/functions` reads). */
function platformWaitUntil(): ((promise: Promise<unknown>) => void) | undefined {
  for (const key of ["@next/request-context", "@vercel/request-context"]) {
    try {
      const holder = (globalThis as Record<symbol, RequestContext | undefined>)[Symbol.for(key)];
      const waitUntil = holder?.get?.()?.waitUntil;
      if (typeof waitUntil === "function") return waitUntil;
    } catch {
      // An odd request context must not cost the request.
    }
  }
  return undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Keeps the invocation alive until `finished` settles and everything is sent: `after()` when Next provides it,
 * else the platform's `waitUntil`, else a flush in the background (a long-running server stays up anyway).
 * `backstop` ends a call whose response body was never read once the response is done.
 */
function scheduleFlush(after: AfterFn | undefined, finished: Promise<void>, backstop: () => void): void {
  const flush = async () => {
    try {
      await Promise.race([finished, sleep(50)]);
      backstop();
      await finished;
      // Let Next end its own request span first, so this flush sends the whole tree.
      await sleep(10);
      await globalState().active?.forceFlush();
    } catch {
      // forceFlush reports its own failures; nothing reaches the request.
    }
  };
  if (after) {
    try {
      after(flush);
      return;
    } catch {
      // Outside a request scope (or an old Next): fall through.
    }
  }
  const waitUntil = platformWaitUntil();
  const pending = flush();
  if (waitUntil) {
    try {
      waitUntil(pending);
    } catch {
      // Ignored: the flush runs anyway.
    }
  }
}

function define(target: object, key: PropertyKey, value: unknown): boolean {
  try {
    Object.defineProperty(target, key, { value, configurable: true, writable: true, enumerable: false });
    return true;
  } catch {
    return false;
  }
}

type Settle = (error?: unknown) => void;

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
      settle();
      return cancel.apply(this, args);
    });
}

/**
 * Resolves when a web ReadableStream has been read to its end (rejects when it errors), without changing it: the
 * ways of reading it are wrapped on the instance only, so the Response and its body stay the very same objects.
 */
function watchStream(stream: Record<PropertyKey, unknown>, settle: Settle): boolean {
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
      result.then(
        () => settle(),
        (err: unknown) => settle(err ?? new Error("stream aborted")),
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
          settle();
          return ret.apply(this, a);
        });
      return iterator;
    };
    define(stream, "values", iterate);
    define(stream, Symbol.asyncIterator, iterate);
  }
  return true;
}

/** The route pattern Next put on its active span (`next.route`), when the SDK span exposes its attributes. */
function activeRoute(): string | undefined {
  const span = trace.getActiveSpan() as { attributes?: Record<string, unknown> } | undefined;
  const route = span?.attributes?.["next.route"];
  return typeof route === "string" && route !== "" ? route : undefined;
}

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
 * The handler's Response (or return value) comes back unchanged, its errors are rethrown unchanged, and tracewire's
 * own failures never reach the handler. With tracing off (edge runtime, not configured) the handler runs as is.
 */
export function withTracing<F extends AnyFunction>(handler: F, options: WithTracingOptions = {}): F {
  if (typeof handler !== "function") throw new TypeError("withTracing(handler): handler must be a function.");
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
      state.active?.diagnostics.error("next-wrap", `withTracing could not trace the request: ${String(err)}`);
      return call();
    }
  };
  Object.defineProperty(wrapped, "name", { value: handler.name, configurable: true });
  return wrapped as unknown as F;
}

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
    let result: unknown;
    try {
      result = await call();
    } catch (err) {
      handOverError(err);
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
      const settle: Settle = (error) => {
        if (settled) return;
        settled = true;
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
  const [finished] = traced.invoke(request ? inputs : (inputs as never));
  const done = (finished as Promise<unknown>).then(
    () => undefined,
    () => undefined,
  );
  scheduleFlush(after, done, () => backstop());
  return given;
}
