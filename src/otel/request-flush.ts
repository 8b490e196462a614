/**
 * Per-request flush, for servers that may be frozen or stopped once a response is done (serverless functions, and
 * Next.js however it is hosted): when the root span of a request ends, wait — at most {@link REQUEST_WAIT_MS} — for
 * the spans still open under it (an LLM stream being cancelled after the client left, a call whose response body is
 * still being read), then flush both routes. The platform's `waitUntil`, read when the request starts, keeps the
 * invocation alive until that flush is done.
 *
 * A request root is a span started without a local parent (no parent, or a remote one from `traceparent`) that is
 * either Next.js's request span (`next.span_type` = `BaseServer.handleRequest`, set when the span starts), or any
 * such span started while the platform offers a `waitUntil` (`@vercel/request-context`, `@next/request-context`,
 * which is what `@vercel/otel` does; on Cloudflare Workers, `cloudflare:workers`' own, for every root span). A plain long-running server without either keeps batching on the timer.
 *
 * Spans belong to a request when their parent is one of the request's open spans, so two requests of one trace
 * (Next's middleware pass and its render pass) are told apart. Memory is bounded by the open spans.
 */
import type { Span } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { runtimeWaitUntil } from "./runtime-wait-until.js";

/** How long a request's flush waits for spans still open under it once its root span has ended, in ms. */
export const REQUEST_WAIT_MS = 1000;

/** The `next.span_type` of the span Next.js starts for each request it handles. */
export const NEXT_REQUEST_SPAN_TYPE = "BaseServer.handleRequest";

type WaitUntil = (promise: Promise<unknown>) => void;
type RequestContextHolder = { get?: () => { waitUntil?: unknown } | undefined };

// Looked up once: every root span asks (most processes have neither).
const VERCEL_CONTEXT = Symbol.for("@vercel/request-context");
const NEXT_CONTEXT = Symbol.for("@next/request-context");

/**
 * The platform's `waitUntil` for the request running now: Vercel's request context, else Next's, else the
 * runtime's own (`cloudflare:workers` on Workers).
 */
export function platformWaitUntil(): WaitUntil | undefined {
  const holders = globalThis as Record<symbol, RequestContextHolder | undefined>;
  return contextWaitUntil(holders[VERCEL_CONTEXT]) ?? contextWaitUntil(holders[NEXT_CONTEXT]) ?? runtimeWaitUntil();
}

function contextWaitUntil(holder: RequestContextHolder | undefined): WaitUntil | undefined {
  if (holder === undefined) return undefined;
  try {
    const context = holder.get?.();
    const waitUntil = context?.waitUntil;
    if (typeof waitUntil === "function") return (promise) => waitUntil.call(context, promise);
  } catch {
    // An odd request context must not cost the request.
  }
  return undefined;
}

/** One request: its root span, the spans open under it, and what settles its `waitUntil`. */
interface Request {
  readonly rootId: string;
  readonly open: Set<string>;
  /** Called when the last open span under an ended root ends. */
  drained: (() => void) | undefined;
  /** Settles the promise handed to the platform's `waitUntil` (a no-op without one). */
  release: () => void;
}

export class RequestFlusher {
  /** Open span id → its request; roots included. */
  private readonly spans = new Map<string, Request>();

  /** `flush` sends everything queued (the processor's `forceFlush`); `onError` reports an internal failure. */
  constructor(
    private readonly flush: () => Promise<void>,
    private readonly onError: (where: string, err: unknown) => void,
    private readonly waitMs = REQUEST_WAIT_MS,
  ) {}

  /** Notes a request root, or a span started under one of a request's open spans. */
  onStart(span: Span | ReadableSpan): void {
    // Every span passes here: the common cases (a child when no request is open, a root outside any request) return
    // before anything else is read.
    const parent = (span as ReadableSpan).parentSpanContext;
    if (parent && !parent.isRemote) {
      if (this.spans.size === 0) return;
      const request = this.spans.get(parent.spanId);
      if (request) {
        const { spanId } = span.spanContext();
        request.open.add(spanId);
        this.spans.set(spanId, request);
      }
      return;
    }
    const waitUntil = platformWaitUntil();
    const type = (span as ReadableSpan).attributes?.["next.span_type"];
    if (!waitUntil && type !== NEXT_REQUEST_SPAN_TYPE) return;
    const { spanId } = span.spanContext();
    let release = () => {};
    if (waitUntil) {
      // Handed over now, while the request's context is current: the platform then waits for this request's flush.
      const kept = new Promise<void>((resolve) => (release = resolve));
      try {
        waitUntil(kept);
      } catch (err) {
        this.onError("request-wait-until", err);
      }
    }
    this.spans.set(spanId, { rootId: spanId, open: new Set(), drained: undefined, release });
  }

  /** Ends a span of a request; when it is the root, the request's flush begins (after its own onEnd). */
  onEnd(span: ReadableSpan): void {
    if (this.spans.size === 0) return;
    const { spanId } = span.spanContext();
    const request = this.spans.get(spanId);
    if (!request) return;
    if (request.rootId !== spanId) {
      this.spans.delete(spanId);
      request.open.delete(spanId);
      if (request.open.size === 0) request.drained?.();
      return;
    }
    // After this onEnd has queued the root itself.
    setTimeout(() => void this.finish(request), 0);
  }

  /** Waits (bounded) for the request's open spans, then flushes and lets the platform go. */
  private async finish(request: Request): Promise<void> {
    try {
      if (request.open.size > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          request.drained = resolve;
          timer = setTimeout(resolve, this.waitMs);
        });
        clearTimeout(timer);
      }
      // Spans still open after the wait are no longer this request's: they go with a later batch.
      for (const id of request.open) this.spans.delete(id);
      this.spans.delete(request.rootId);
      await this.flush();
    } catch (err) {
      this.onError("request-flush", err);
    } finally {
      request.release();
    }
  }
}
