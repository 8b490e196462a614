/**
 * What a chat span records when it starts and when it ends, beyond its lifecycle (chat-call.ts): the call's start
 * data and request attributes, then the response attributes, the outcome, the call's output (the calls route, or
 * portable attributes on the OTLP route) and the opt-in content attributes. Inputs and output are serialized and
 * redacted once, by `preparePayload`, and only when something will record them.
 */
import { type Attributes, type Context, context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { JsonObject } from "../api/types/common.js";
import { describeError, exceptionFields } from "../otel/diagnostics.js";
import { CALL_START_KEY, type CallStartData, setCallEndData, spanRoute } from "../otel/span-data.js";
import { globalState } from "../otel/state.js";
import { ATTR_ERROR_TYPE, ATTR_GEN_AI_CONVERSATION_ID } from "../semconv.js";
import { currentAttributes, currentThread } from "../tracing/context.js";
import { payloadSettings, preparePayload } from "../tracing/payload.js";
import type { JsonValue } from "../tracing/serialize.js";
import { TRACER_NAME, VERSION } from "../version.js";
import { portableEndAttributes } from "../wire/span-to-call.js";
import { type CallFormat, OPENAI_CHAT_FORMAT } from "./call-format.js";
import { isObj, type Obj } from "./guards.js";
import { ATTR_TRACEWIRE_CANCEL_REASON, ATTR_TRACEWIRE_CANCELLED, type ChatEndpoint } from "./openai-chat.js";
import { errorTypeOf } from "./openai-response.js";
import type { ResolvedChatTraceOptions } from "./options.js";

/** What a chat call needs to start. */
export interface ChatCallSpec {
  /** The call's op name, e.g. `openai.chat.completions.create`. */
  opName: string;
  /** The request parameters as the caller passed them. */
  params: Obj;
  endpoint: ChatEndpoint;
  options: ResolvedChatTraceOptions;
  /** The caller's AbortSignal: when it fired, a failure is a cancellation, not an error. */
  signal?: AbortSignal | undefined;
  /** Never add `stream_options` to this request (its server is known to refuse it). */
  noUsageInjection?: boolean | undefined;
  /** What kind of call this is and how it is recorded. Default {@link OPENAI_CHAT_FORMAT}. */
  format?: CallFormat | undefined;
  /**
   * Whether the answer is streamed, for APIs that say so by method rather than by a parameter. Default: the request's
   * `stream: true`.
   */
  streaming?: boolean | undefined;
}

/** How a chat call ended, and what it delivered (`output` is absent when nothing was seen). */
export interface ChatEnd {
  kind: "ok" | "error" | "cancel";
  output: { value: unknown } | undefined;
  /** The failure, for `error`. */
  err?: unknown;
  /** Why it was cancelled, for `cancel`. */
  reason?: string | undefined;
}

/** Whether the opt-in content attributes are recorded: asked for, and content capture is on. */
function contentAttributesOn(options: ResolvedChatTraceOptions): boolean {
  return options.contentAttributes && payloadSettings().captureContent;
}

/**
 * Starts the span of one chat request, with the call's start data on the context given to `startSpan` (like op()
 * does, so the calls route sees real JSON inputs). Returns undefined, with the span already ended, when nothing
 * records it. `parent` is the context it starts in (default: the active one). Throws what tracing throws; the caller
 * decides what that costs.
 */
export function startChatSpan(
  spec: ChatCallSpec,
  parent: Context = context.active(),
): { span: Span; parent: Context } | undefined {
  const state = globalState();
  const { params, opName } = spec;
  const contentAttributes = contentAttributesOn(spec.options);
  let inputs: JsonValue | undefined;
  if (state.active || contentAttributes) inputs = preparePayload(params, "inputs", opName, true);
  let startContext = parent;
  const thread = currentThread(parent);
  if (state.active) {
    const data: CallStartData = {
      opName,
      inputs:
        isObj(inputs) && !Array.isArray(inputs)
          ? (inputs as JsonObject)
          : inputs === undefined
            ? {}
            : { value: inputs },
      attributes: { ...currentAttributes(parent) },
    };
    if (thread) {
      data.threadId = thread.threadId;
      data.turnId = thread.turnId ?? "self";
    }
    startContext = parent.setValue(CALL_START_KEY, data);
  }
  const format = spec.format ?? OPENAI_CHAT_FORMAT;
  const attributes = format.requestAttributes(params, spec.endpoint, spec.streaming ?? params.stream === true);
  // The conversation a chat call belongs to is the withThread() thread it runs in.
  if (thread) attributes[ATTR_GEN_AI_CONVERSATION_ID] = thread.threadId;
  const tracer = state.tracer ?? trace.getTracer(TRACER_NAME, VERSION);
  const span = tracer.startSpan(format.spanName(params), { kind: SpanKind.CLIENT, attributes }, startContext);
  if (!span.isRecording()) {
    span.end();
    return undefined;
  }
  if (contentAttributes && inputs !== undefined) span.setAttributes(format.inputContent(inputs));
  return { span, parent };
}

/**
 * Records how a chat call ended on its span (attributes, status, exception, the call's end data); does not end the
 * span. `opName`, `options` and `format` are the call's. Throws what tracing throws; the caller ends the span
 * regardless.
 */
export function recordChatEnd(
  span: Span,
  end: ChatEnd,
  options: ResolvedChatTraceOptions,
  opName: string,
  format: CallFormat = OPENAI_CHAT_FORMAT,
): void {
  const { kind, output, err, reason } = end;
  const attributes: Attributes = {};
  if (output) format.responseAttributes(output.value, attributes);
  if (kind === "cancel") {
    attributes[ATTR_TRACEWIRE_CANCELLED] = true;
    if (reason) attributes[ATTR_TRACEWIRE_CANCEL_REASON] = reason;
  } else if (kind === "error") {
    // Status first: reading the error's own fields (getters, a Proxy) may throw, and the call must still fail.
    // Both texts masked here, at the source (a refused key's error can quote the key): every exporter of the span,
    // not only tracewire's, sees them masked.
    span.setStatus({ code: SpanStatusCode.ERROR, message: describeError(err) });
    try {
      attributes[ATTR_ERROR_TYPE] = errorTypeOf(err);
      span.recordException(exceptionFields(err));
    } catch {
      attributes[ATTR_ERROR_TYPE] = "_OTHER";
    }
  }
  const state = globalState();
  const contentAttributes = contentAttributesOn(options);
  let payload: JsonValue | undefined;
  if (output && (state.active || contentAttributes)) {
    payload = preparePayload(format.recordedOutput(output.value, options), "output", opName, true);
  }
  if (state.active) {
    setCallEndData(span, payload === undefined ? {} : { output: payload });
    if (payload !== undefined && spanRoute(span) === "otlp")
      Object.assign(attributes, portableEndAttributes(payload, span));
  }
  if (contentAttributes && payload !== undefined)
    Object.assign(attributes, format.outputContent(payload, kind === "cancel" ? "cancelled" : "error"));
  span.setAttributes(attributes);
}
