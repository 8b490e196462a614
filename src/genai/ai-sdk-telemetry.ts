/**
 * The tracewire telemetry integration of the Vercel AI SDK 7 (`registerTelemetry(tracewireTelemetry())`): the SDK
 * calls it at each lifecycle event of an operation, and each event opens or closes one tracewire call
 * (call-span.ts), keyed by the operation's `callId`, its step, and each tool call's `toolCallId`. The tree and what
 * each call records are in ai-sdk-shapes.ts.
 *
 * The operation starts in the caller's context, so it nests under the caller's op or span. `executeLanguageModelCall`
 * and `executeTool` run the provider request and each tool inside their call's context: HTTP instrumentation nests
 * under the model call, and a traced function (or another `generateText`) inside a tool nests under the tool call.
 *
 * Nothing here throws into the SDK: each event is guarded, and a failure is logged (rate-limited) and counted as
 * lost for that call only. What each event records, and how `recordInputs` / `recordOutputs` are honoured, is in
 * ai-sdk-events.ts; the payloads then go through tracewire's own serialization and redaction like every other call's.
 */
import { context, SpanKind } from "@opentelemetry/api";
import type { JsonObject } from "../api/types/common.js";
import { describeError } from "../otel/diagnostics.js";
import { reportInternalError } from "../otel/state.js";
import { describeAs } from "../own-objects.js";
import { ATTR_GEN_AI_OPERATION_NAME } from "../semconv.js";
import {
  embeddingsOutput,
  failure,
  modelInputs,
  type Operation,
  objectStepOutput,
  operationInputs,
  operationOutput,
  outputIf,
  pick,
  recordingOf,
  STREAM_ERROR,
  stepInputs,
  stepOutput,
  timeOf,
  toolInputs,
} from "./ai-sdk-events.js";
import {
  contentOutput,
  metadataAttributes,
  modelCallOpName,
  operationOpName,
  requestAttributes,
  responseAttributes,
  settingsOf,
  TOOL_CALL_OP,
  toolAttributes,
  usageAttributes,
} from "./ai-sdk-shapes.js";
import { type CallSpanEnd, endCallSpan, startCallSpan } from "./call-span.js";
import { isObj, type Obj } from "./guards.js";

/** Operations are dropped (ended as abandoned) past this many in flight, so a leak of ours stays bounded. */
const MAX_OPERATIONS = 10_000;

function internalError(where: string, err: unknown): void {
  reportInternalError(
    `ai-sdk-${where}`,
    `Internal error while tracing an AI SDK call (${where}; the call itself is unaffected): ${describeError(err)}`,
  );
}

/**
 * Implements the `Telemetry` interface of `ai` 7 (structurally: this file never loads `ai`). Create it with
 * {@link tracewireTelemetry}.
 */
export class TracewireTelemetry {
  private readonly operations = new Map<string, Operation>();

  /** An operation begins (generateText, streamText, generateObject, streamObject, embed, embedMany, …). */
  onStart(raw: object): void {
    const event = raw as Obj;
    this.guard("start", () => {
      if (this.operations.size >= MAX_OPERATIONS) this.evictOldest();
      const operationId = typeof event.operationId === "string" ? event.operationId : "ai.operation";
      const metadata = metadataAttributes(event.runtimeContext);
      const recording = recordingOf(event);
      const ai: JsonObject = { operation_id: operationId };
      if (typeof event.functionId === "string") ai.function_id = event.functionId;
      if (typeof event.provider === "string") ai.provider = event.provider;
      if (typeof event.modelId === "string") ai.model = event.modelId;
      const root = startCallSpan({
        spanName: operationId,
        opName: operationOpName(operationId, event.functionId),
        inputs: operationInputs(event, recording),
        attributes: { ...metadata, ai },
        parent: context.active(),
        startTime: timeOf(event),
      });
      if (!root) return;
      this.operations.set(String(event.callId), {
        operationId,
        provider: event.provider,
        modelId: event.modelId,
        root,
        step: undefined,
        stepPrompt: undefined,
        model: undefined,
        tools: new Map(),
        attributes: metadata,
        settings: settingsOf(event),
        recording,
      });
    });
  }

  /** A step (one model call and the tools it asked for) begins. */
  onStepStart(raw: object): void {
    const event = raw as Obj;
    this.guard("step-start", () => {
      const op = this.operations.get(String(event.callId));
      if (!op) return;
      if (op.step) this.endStep(op, { cancelled: "superseded" });
      const inputs = stepInputs(event, op.recording);
      op.stepPrompt = pick(event, ["promptMessages", "stepTools", "stepToolChoice"]);
      op.step = startCallSpan({
        spanName: `${op.operationId}.step`,
        opName: `${op.operationId}.step`,
        displayName: `step ${Number(inputs.stepNumber) + 1}`,
        inputs,
        attributes: op.attributes,
        parent: op.root.context,
        startTime: timeOf(event),
      });
    });
  }

  /** The provider call of a step begins. */
  onLanguageModelCallStart(raw: object): void {
    const event = raw as Obj;
    this.guard("model-start", () => {
      const op = this.operations.get(String(event.callId));
      if (op) this.startModelCall(op, event, modelInputs(event, op.stepPrompt, op.recording));
    });
  }

  /**
   * The provider answered (before any tool runs): output, usage keyed by the response model. A stream that carried an
   * error (an error event after HTTP 200) ends with finish reason `error`: the SDK streams the error to the consumer
   * and tells telemetry nothing more, so the model call ends failed with that, rather than as a success.
   */
  onLanguageModelCallEnd(raw: object): void {
    const event = raw as Obj;
    this.guard("model-end", () => {
      const op = this.operations.get(String(event.callId));
      if (!op) return;
      const failed = event.finishReason === "error" ? { error: STREAM_ERROR, errorType: "_OTHER" } : {};
      this.endModelCall(
        op,
        event,
        () => contentOutput(event.content, event.finishReason),
        { ...usageAttributes(event.usage, event.modelId), ...responseAttributes(event.responseId, event.finishReason) },
        failed,
      );
    });
  }

  /**
   * generateObject / streamObject: their one model call begins (they report no step and no language model call
   * events; the model call sits directly under the operation, as in `ai` 6).
   */
  onObjectStepStart(raw: object): void {
    const event = raw as Obj;
    this.guard("object-step-start", () => {
      const op = this.operations.get(String(event.callId));
      if (op) this.startModelCall(op, event, modelInputs(event, pick(event, ["promptMessages"]), op.recording));
    });
  }

  /** The model answered the object: the object, usage keyed by the response model, the response id. */
  onObjectStepEnd(raw: object): void {
    const event = raw as Obj;
    this.guard("object-step-end", () => {
      const op = this.operations.get(String(event.callId));
      if (!op) return;
      const response = isObj(event.response) ? event.response : {};
      this.endModelCall(op, event, () => objectStepOutput(event), {
        ...usageAttributes(event.usage, response.modelId ?? event.modelId),
        ...responseAttributes(response.id, event.finishReason),
      });
    });
  }

  /** A tool's `execute` begins; parallel tool calls are kept apart by their `toolCallId`. */
  onToolExecutionStart(raw: object): void {
    const event = raw as Obj;
    this.guard("tool-start", () => {
      const op = this.operations.get(String(event.callId));
      const toolCall = event.toolCall;
      if (!op || !isObj(toolCall)) return;
      const call = toolInputs(toolCall, op.recording);
      const span = startCallSpan({
        spanName: `execute_tool ${String(call.toolName)}`,
        opName: TOOL_CALL_OP,
        displayName: typeof call.toolName === "string" ? call.toolName : undefined,
        inputs: call,
        attributes: op.attributes,
        spanAttributes: toolAttributes(call.toolName, call.toolCallId),
        parent: (op.step ?? op.root).context,
        startTime: timeOf(event),
      });
      if (span) op.tools.set(String(call.toolCallId), span);
    });
  }

  /** A tool's `execute` finished: its result, or its error. */
  onToolExecutionEnd(raw: object): void {
    const event = raw as Obj;
    this.guard("tool-end", () => {
      const op = this.operations.get(String(event.callId));
      const toolCall = event.toolCall;
      if (!op || !isObj(toolCall)) return;
      const id = String(toolCall.toolCallId);
      const span = op.tools.get(id);
      if (!span) return;
      op.tools.delete(id);
      const result = isObj(event.toolOutput) ? event.toolOutput : {};
      if (result.type === "tool-error")
        endCallSpan(span, { error: result.error ?? "tool error", endTime: timeOf(event) });
      else endCallSpan(span, { ...outputIf(op, () => result.output), endTime: timeOf(event) });
    });
  }

  /** A step finished: what it produced, then the tools it ran. */
  onStepEnd(raw: object): void {
    const event = raw as Obj;
    this.guard("step-end", () => {
      const op = this.operations.get(String(event.callId));
      if (op?.step) this.endStep(op, { ...outputIf(op, () => stepOutput(event)), endTime: timeOf(event) });
    });
  }

  /** A step failed before it produced a result. */
  onStepError(raw: object): void {
    const event = raw as Obj;
    this.guard("step-error", () => {
      const op = this.operations.get(String(event.callId));
      if (!op) return;
      const end = failure(event.error);
      if (op.model) endCallSpan(op.model, end);
      op.model = undefined;
      if (op.step) this.endStep(op, end);
    });
  }

  /** An embedding model call (one per chunk of `embedMany`) begins: a GenAI `embeddings` call. */
  onEmbedStart(raw: object): void {
    const event = raw as Obj;
    this.guard("embed-start", () => {
      const op = this.operations.get(String(event.callId));
      if (!op) return;
      const values = Array.isArray(event.values) ? event.values : [];
      const span = startCallSpan({
        spanName: `embeddings ${String(op.modelId)}`,
        opName: `${op.operationId}.doEmbed`,
        inputs: op.recording.inputs ? { values } : {},
        attributes: op.attributes,
        spanAttributes: {
          ...requestAttributes(op.provider, op.modelId, undefined),
          [ATTR_GEN_AI_OPERATION_NAME]: "embeddings",
        },
        kind: SpanKind.CLIENT,
        parent: op.root.context,
      });
      if (span) op.tools.set(`embed:${String(event.embedCallId)}`, span);
    });
  }

  /** An embedding model call finished: how many vectors and their size, never the vectors; usage. */
  onEmbedEnd(raw: object): void {
    const event = raw as Obj;
    this.guard("embed-end", () => {
      const op = this.operations.get(String(event.callId));
      const key = `embed:${String(event.embedCallId)}`;
      const span = op?.tools.get(key);
      if (!op || !span) return;
      op.tools.delete(key);
      const tokens = isObj(event.usage) && typeof event.usage.tokens === "number" ? event.usage.tokens : undefined;
      endCallSpan(span, {
        ...outputIf(op, () => embeddingsOutput(Array.isArray(event.embeddings) ? event.embeddings : [])),
        spanAttributes: usageAttributes({ inputTokens: tokens }, op.modelId),
      });
    });
  }

  /** The operation finished: its result. */
  onEnd(raw: object): void {
    const event = raw as Obj;
    this.guard("end", () => {
      const callId = String(event.callId);
      const op = this.operations.get(callId);
      if (!op) return;
      this.operations.delete(callId);
      this.closeChildren(op, { cancelled: "unfinished" });
      endCallSpan(op.root, { ...outputIf(op, () => operationOutput(op.operationId, event)), endTime: timeOf(event) });
    });
  }

  /** A streaming operation was aborted: every open call of it ends as cancelled. */
  onAbort(raw: object): void {
    const event = raw as Obj;
    this.guard("abort", () => this.finish(String(event.callId), { cancelled: "abort" }));
  }

  /** The operation failed: every open call of it ends with the error. */
  onError(event: unknown): void {
    this.guard("error", () => {
      if (!isObj(event) || event.callId === undefined) return;
      this.finish(String(event.callId), failure(event.error ?? event));
    });
  }

  /** Runs the provider request inside the model call (HTTP instrumentation nests under it). */
  executeLanguageModelCall<T>(options: { callId: string; execute: () => PromiseLike<T> }): PromiseLike<T> {
    const op = this.operations.get(String(options.callId));
    const target = op?.model ?? op?.step;
    return target ? context.with(target.context, options.execute) : options.execute();
  }

  /** Runs a tool inside its tool call (what it traces nests under it). */
  executeTool<T>(options: { callId: string; toolCallId: string; execute: () => PromiseLike<T> }): PromiseLike<T> {
    const span = this.operations.get(String(options.callId))?.tools.get(String(options.toolCallId));
    return span ? context.with(span.context, options.execute) : options.execute();
  }

  /** Opens the model call of the current step (or of the operation, which has no step for objects). */
  private startModelCall(op: Operation, event: Obj, inputs: Obj): void {
    if (op.model) endCallSpan(op.model, { cancelled: "superseded" });
    op.model = startCallSpan({
      spanName: `chat ${String(event.modelId)}`,
      opName: modelCallOpName(op.operationId),
      inputs,
      attributes: op.attributes,
      spanAttributes: requestAttributes(event.provider, event.modelId, settingsOf(event) ?? op.settings),
      kind: SpanKind.CLIENT,
      parent: (op.step ?? op.root).context,
      startTime: timeOf(event),
    });
  }

  private endModelCall(
    op: Operation,
    event: Obj,
    output: () => unknown,
    spanAttributes: CallSpanEnd["spanAttributes"],
    failed: Pick<CallSpanEnd, "error" | "errorType"> = {},
  ) {
    const model = op.model;
    if (!model) return;
    op.model = undefined;
    endCallSpan(model, { ...outputIf(op, output), spanAttributes, endTime: timeOf(event), ...failed });
  }

  private endStep(op: Operation, end: CallSpanEnd): void {
    const step = op.step;
    op.step = undefined;
    op.stepPrompt = undefined;
    if (step) endCallSpan(step, end);
  }

  /** Ends the calls below the operation that are still open (innermost first). */
  private closeChildren(op: Operation, end: CallSpanEnd): void {
    for (const span of op.tools.values()) endCallSpan(span, end);
    op.tools.clear();
    if (op.model) endCallSpan(op.model, end);
    op.model = undefined;
    this.endStep(op, end);
  }

  private finish(callId: string, end: CallSpanEnd): void {
    const op = this.operations.get(callId);
    if (!op) return;
    this.operations.delete(callId);
    this.closeChildren(op, end);
    endCallSpan(op.root, end);
  }

  private evictOldest(): void {
    const oldest = this.operations.keys().next();
    if (!oldest.done) this.finish(oldest.value, { cancelled: "abandoned" });
  }

  private guard(where: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      internalError(where, err);
    }
  }
}

// Recorded, logged or inspected as a short summary: the calls in flight are never read.
describeAs(TracewireTelemetry, "TracewireTelemetry");

/** For `registerTelemetry(tracewireTelemetry())`: a fresh integration (one per process is enough). */
export function tracewireTelemetry(): TracewireTelemetry {
  return new TracewireTelemetry();
}
