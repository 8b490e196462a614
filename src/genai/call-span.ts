/**
 * One tracewire call driven by events rather than by a function's own life: what an SDK telemetry integration (the
 * AI SDK's, ai-sdk-telemetry.ts) needs to open a call when one event arrives and close it when another does. The
 * call is a span of tracewire's tracer with its start data on the context given to `startSpan`, exactly like op()
 * and chat-call.ts make theirs, so it takes the native route with real JSON inputs and output, nests under `parent`
 * (the caller's op or span, or another such call), and joins the enclosing `withThread` turn and `withAttributes`.
 */
import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { JsonObject } from "../api/types/common.js";
import { describeError, exceptionFields } from "../otel/diagnostics.js";
import { CALL_START_KEY, type CallStartData, setCallEndData, spanRoute } from "../otel/span-data.js";
import { globalState } from "../otel/state.js";
import { ATTR_ERROR_TYPE, ATTR_TRACEWIRE_CANCEL_REASON, ATTR_TRACEWIRE_CANCELLED } from "../semconv.js";
import { currentAttributes, currentThread, withTurn } from "../tracing/context.js";
import { preparePayload } from "../tracing/payload.js";
import { TRACER_NAME, VERSION } from "../version.js";
import { portableEndAttributes } from "../wire/span-to-call.js";
import { isObj } from "./guards.js";
import { errorTypeOf } from "./openai-response.js";

/** What a call needs to start. */
export interface CallSpanSpec {
  /** The span's own name (what other OpenTelemetry backends show). */
  spanName: string;
  /** The call's op name. */
  opName: string;
  displayName?: string | undefined;
  /** The call's inputs, raw (serialized and redacted here); `undefined` records `{}`. */
  inputs?: Record<string, unknown> | undefined;
  /** Call attributes of this call, over those of the enclosing `withAttributes`. */
  attributes?: JsonObject | undefined;
  /** OpenTelemetry attributes of the span (GenAI semantic conventions). */
  spanAttributes?: Attributes | undefined;
  kind?: SpanKind | undefined;
  /** The context the call starts in: its parent span, thread and call attributes. */
  parent: Context;
  /** When the call started, ms since the epoch (events reported late carry their own time). */
  startTime?: number | undefined;
}

/** A started call: its span, and the context to run its body in (its children nest under it). */
export interface CallSpan {
  span: Span;
  context: Context;
  opName: string;
}

/** How a call ended: its output (absent: none recorded), a failure, or a cancellation with its reason. */
export interface CallSpanEnd {
  output?: { value: unknown } | undefined;
  error?: unknown;
  /** `error.type` of a failure; default: derived from `error` (its HTTP status, code or class). */
  errorType?: string | undefined;
  cancelled?: string | undefined;
  /** Attributes set on the span just before it ends (usage, response facts). */
  spanAttributes?: Attributes | undefined;
  endTime?: number | undefined;
}

/**
 * Starts a call, or returns undefined when nothing records it (no tracer provider, sampled out), the span then
 * already ended. Throws what tracing throws; callers guard.
 */
export function startCallSpan(spec: CallSpanSpec): CallSpan | undefined {
  // Read from the parent itself, not the active context: a context bridge (run-context.ts) may make another one
  // active meanwhile.
  const state = globalState();
  const thread = currentThread(spec.parent);
  let startContext = spec.parent;
  if (state.active) {
    const inputs = spec.inputs === undefined ? {} : preparePayload(spec.inputs, "inputs", spec.opName);
    const data: CallStartData = {
      opName: spec.opName,
      inputs:
        isObj(inputs) && !Array.isArray(inputs)
          ? (inputs as JsonObject)
          : inputs === undefined
            ? {}
            : { value: inputs },
      attributes: { ...currentAttributes(spec.parent), ...spec.attributes },
    };
    if (spec.displayName) data.displayName = spec.displayName;
    if (thread) {
      data.threadId = thread.threadId;
      data.turnId = thread.turnId ?? "self";
    }
    startContext = spec.parent.setValue(CALL_START_KEY, data);
  }
  const tracer = state.tracer ?? trace.getTracer(TRACER_NAME, VERSION);
  const span = tracer.startSpan(
    spec.spanName,
    {
      kind: spec.kind ?? SpanKind.INTERNAL,
      ...(spec.spanAttributes ? { attributes: spec.spanAttributes } : {}),
      ...(spec.startTime === undefined ? {} : { startTime: spec.startTime }),
    },
    startContext,
  );
  if (!span.isRecording()) {
    span.end();
    return undefined;
  }
  let body = trace.setSpan(spec.parent, span);
  if (thread && thread.turnId === undefined) body = withTurn(body, thread, span.spanContext().spanId);
  return { span, context: body, opName: spec.opName };
}

/**
 * Ends a call once: records its output (serialized and redacted), failure (with `error.type`) or cancellation, then
 * `span.end()`.
 */
export function endCallSpan(call: CallSpan, end: CallSpanEnd): void {
  const { span, opName } = call;
  try {
    const attributes: Attributes = { ...end.spanAttributes };
    if (end.cancelled !== undefined) {
      attributes[ATTR_TRACEWIRE_CANCELLED] = true;
      attributes[ATTR_TRACEWIRE_CANCEL_REASON] = end.cancelled;
    } else if (end.error !== undefined) {
      // Masked at the source (a refused key's error can quote the key): every exporter of the span sees them masked.
      span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(end.error) });
      attributes[ATTR_ERROR_TYPE] = end.errorType ?? errorTypeOf(end.error);
      span.recordException(exceptionFields(end.error));
    }
    if (globalState().active) {
      const payload = end.output ? preparePayload(end.output.value, "output", opName) : undefined;
      setCallEndData(span, payload === undefined ? {} : { output: payload });
      if (payload !== undefined && spanRoute(span) === "otlp")
        Object.assign(attributes, portableEndAttributes(payload, span));
    }
    span.setAttributes(attributes);
  } finally {
    span.end(end.endTime);
  }
}
