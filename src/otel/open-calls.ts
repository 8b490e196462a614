/**
 * The calls still running, so that `shutdown()` can end them: a call whose start the service already has (calls
 * route), or a span of tracewire's own that the service would otherwise never get (OTLP route), must not be left
 * open — a stream the app has not finished reading, a request still waiting on the model, an op() still awaiting.
 *
 * Cost on the caller's path: one `Set` add at a tracked span's start and one delete at its end (no allocation per
 * call; the set's table grows with the calls running at once). Foreign spans on the OTLP route, the bulk of the
 * spans in most apps, are never tracked.
 *
 * Memory: a span nobody ends (an op() whose returned stream is dropped unread, a foreign instrumentation that forgets
 * `end()`) would stay in the set, so the set keeps at most {@link MAX_OPEN_CALLS}; past that the oldest is let go
 * (logged once) — it is then simply not ended at shutdown, as before this existed.
 *
 * How a running call ends at shutdown: when its owner registered a closer (span-data.ts: a chat call, which records
 * what its stream delivered so far), the owner ends it. Otherwise the span is left to its owner — other span
 * processors still see it end when its owner ends it — and the processor sends a view of it ended now as cancelled
 * ({@link closingView}); the span is marked `closed`, so its own end later sends nothing more.
 */
import type { Attributes, HrTime } from "@opentelemetry/api";
import type { ReadableSpan, Span } from "@opentelemetry/sdk-trace-base";
import { ATTR_TRACEWIRE_CANCEL_REASON, ATTR_TRACEWIRE_CANCELLED } from "../semconv.js";
import type { Diagnostics } from "./diagnostics.js";
import { callCloser, type SpanRouteMark, setSpanRoute, spanRoute } from "./span-data.js";

/** Most calls tracked as running at once (see the module comment). */
export const MAX_OPEN_CALLS = 10_000;

/** The running calls of one processor. */
export class OpenCalls {
  private readonly spans = new Set<Span>();
  private closed = false;

  /** `diagnostics` hears (rate-limited) that the oldest running call was let go to stay within the limit. */
  constructor(private readonly diagnostics: Diagnostics) {}

  /** A call started. Not tracked once the processor has taken the running calls (it is shutting down). */
  add(span: Span): void {
    if (this.closed) return;
    const spans = this.spans;
    if (spans.size >= MAX_OPEN_CALLS) {
      const oldest = spans.values().next().value;
      if (oldest !== undefined) spans.delete(oldest);
      this.diagnostics.warn(
        "open-calls",
        `More than ${MAX_OPEN_CALLS} calls are running at once; the oldest will not be ended at shutdown if it still runs then.`,
      );
    }
    spans.add(span);
  }

  /** A call ended. */
  delete(span: ReadableSpan): void {
    this.spans.delete(span as Span);
  }

  /** How many calls are tracked as running. */
  get size(): number {
    return this.spans.size;
  }

  /**
   * Ends every call still running as cancelled for `reason`, newest first (a child before its parent, so its usage
   * rolls up into the parent's end); with `stop` (shutdown), calls that start later are no longer tracked. A call whose owner registered a closer is ended by it (its
   * span's end then reaches the processor as usual); any other is marked `closed` and `send` gets a view of it ended
   * now, with the route its end goes by. `failed` hears of a failure to close one (the others still close).
   */
  closeAll(
    reason: "shutdown",
    send: (span: Span, ended: ReadableSpan, route: SpanRouteMark) => void,
    failed: (err: unknown) => void,
    stop: boolean,
  ): void {
    if (stop) this.closed = true;
    const spans = [...this.spans].reverse();
    this.spans.clear();
    for (const span of spans) {
      try {
        if (span.ended) continue;
        callCloser(span)?.cancel(reason);
        if (span.ended) continue; // its owner ended it: the processor's onEnd sent the end
        const route = spanRoute(span);
        if (route !== "calls" && route !== "otlp" && route !== "calls-at-end") continue;
        setSpanRoute(span, "closed");
        send(span, closingView(span, reason), route);
      } catch (err) {
        failed(err);
      }
    }
  }
}

const toMillis = (t: HrTime): number => t[0] * 1e3 + t[1] / 1e6;
function toHrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1e3);
  return [seconds, Math.min(999_999_999, Math.round((ms - seconds * 1e3) * 1e6))];
}

/**
 * A view of running `span` as if it ended now, cancelled for `reason`: `tracewire.cancelled`, the reason, status left
 * as it is (UNSET unless the owner set one), end time now (never before its start). The span itself is not changed.
 */
export function closingView(span: Span, reason: string): ReadableSpan {
  const start = toMillis(span.startTime);
  const end = Math.max(Date.now(), start);
  const attributes: Attributes = {
    ...span.attributes,
    [ATTR_TRACEWIRE_CANCELLED]: true,
    [ATTR_TRACEWIRE_CANCEL_REASON]: reason,
  };
  // A view, not a copy (as span-redact.ts makes them): every other field and method reads through to the span.
  return Object.create(span, {
    attributes: { value: attributes },
    endTime: { value: toHrTime(end) },
    duration: { value: toHrTime(end - start) },
    ended: { value: true },
  }) as ReadableSpan;
}
