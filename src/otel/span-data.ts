/**
 * What tracewire knows about its own spans beyond OTel attributes, and how it travels to the processor.
 *
 * - Start data (real JSON inputs, op name, thread/turn, call attributes) rides on the *context* passed to
 *   `tracer.startSpan`, because the processor's `onStart` runs inside `startSpan`, before the caller could attach
 *   anything to the span. Keys are `Symbol.for` based, so copies of this module bundled twice agree.
 * - End data (the JSON output) is attached to the span object under a global symbol just before `span.end()`.
 */
import { type Context, createContextKey } from "@opentelemetry/api";

import type { CallEndData, CallStartData } from "../wire/span-to-call.js";

export type { CallEndData, CallStartData };

export const CALL_START_KEY = createContextKey("tracewire.call.start");
const CALL_END = Symbol.for("tracewire.call.end");

/** The start data op() put on the context given to `startSpan`, if any. */
export function callStartData(context: Context): CallStartData | undefined {
  return context.getValue(CALL_START_KEY) as CallStartData | undefined;
}

/** Attaches end data to a span before it ends. */
export function setCallEndData(span: object, data: CallEndData): void {
  (span as { [CALL_END]?: CallEndData })[CALL_END] = data;
}

/** Reads end data from an ended span. */
export function callEndData(span: object): CallEndData | undefined {
  return (span as { [CALL_END]?: CallEndData })[CALL_END];
}

/**
 * Where the processor sent a span: `"none"` when it was filtered or not sampled; `"calls-dropped"` /
 * `"calls-rejected"` when its call's start was dropped (queue full, shut down) or refused (could not be encoded),
 * so that the end is counted the same way instead of vanishing; `"closed"` when the processor shut down while the
 * span ran and sent its end as cancelled itself, so that the span's own end, whenever it comes, sends nothing more;
 * `"calls-at-end"` for another instrumentation's span on the calls route, whose start record is written at its end.
 */
export type SpanRouteMark = "calls" | "calls-at-end" | "otlp" | "none" | "calls-dropped" | "calls-rejected" | "closed";
const ROUTE = Symbol.for("tracewire.route");

/** The route the processor chose for a span at its start (undefined if no tracewire processor saw it start). */
export function spanRoute(span: object): SpanRouteMark | undefined {
  return (span as { [ROUTE]?: SpanRouteMark })[ROUTE];
}

/** Records the route chosen for a span. */
export function setSpanRoute(span: object, route: SpanRouteMark): void {
  (span as { [ROUTE]?: SpanRouteMark })[ROUTE] = route;
}

/**
 * What ends a running call of tracewire's own as cancelled when the processor shuts down before the call ended: the
 * call's owner (a chat call keeps what its stream delivered so far, and stops watching the stream). Its `cancel` ends
 * the span through the owner's usual path, once, so the owner's own later end is a no-op.
 */
export interface CallCloser {
  cancel(reason: "shutdown"): void;
}
const CLOSER = Symbol.for("tracewire.call.closer");

/** Registers the owner that ends `span`'s call at shutdown (see {@link CallCloser}). */
export function setCallCloser(span: object, closer: CallCloser): void {
  (span as { [CLOSER]?: CallCloser })[CLOSER] = closer;
}

/** The owner registered with {@link setCallCloser}, if any. */
export function callCloser(span: object): CallCloser | undefined {
  return (span as { [CLOSER]?: CallCloser })[CLOSER];
}
