/**
 * The Vercel AI SDK 6 (and earlier) emits its own OpenTelemetry spans under `experimental_telemetry: { isEnabled:
 * true }`, from the tracer named `ai`. They reach tracewire's processor like any foreign span; this adapter (a
 * `CallAdapter` of otel/call-adapters.ts, installed by `init()` and by `tracewire/otel`'s processor) makes each a first-class call on the native route — the
 * same op names, inputs, outputs and call attributes as the `ai` 7 integration records (ai-sdk-shapes.ts), read
 * from the span's `ai.*` attributes:
 *
 * - `ai.generateText` / `ai.streamText` / `ai.generateObject` / `ai.streamObject` / `ai.embed` / `ai.embedMany` →
 *   the operation (`functionId` as op name; `ai.prompt` and `ai.settings.*` as inputs);
 * - `….doGenerate` / `….doStream` → the model call (`ai.prompt.messages`, `.tools`, `.toolChoice`; the response);
 *   its `gen_ai.*` attributes give the GenAI attributes and usage keyed by the response model;
 * - `ai.toolCall` → the tool call (`ai.toolCall.args` → input, `.result` → output).
 *
 * `ai.telemetry.metadata.*` become call attributes. `ai` 6 has no step span: model and tool calls sit directly under
 * the operation. Embedding calls record counts and dimensions, never vectors, and their `ai.usage.tokens` as usage.
 * Two things ai 6 leaves undone are done here (`OpenOperations`): tool arguments dropped under `recordInputs: false`,
 * and a model call span it never ends (an aborted stream) ended with its operation, as cancelled. Why here and not in the service's OTLP mapping: the processor is the one exit every span passes
 * (whoever registered the provider), and on the native route the payloads get tracewire's own serialization,
 * redaction and `captureContent`.
 */
import type { Attributes, Span } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { JsonObject } from "../api/types/common.js";
import { registerCallAdapter } from "../otel/call-adapters.js";
import type { CallEndData, CallStartData } from "../otel/span-data.js";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_TRACEWIRE_CANCEL_REASON,
  ATTR_TRACEWIRE_CANCELLED,
} from "../semconv.js";
import { currentAttributes, currentThread } from "../tracing/context.js";
import { preparePayload } from "../tracing/payload.js";
import { genAiStartAttributes, usageFromAttributes } from "../wire/span-to-call.js";
import { embeddingsOutput, STREAM_ERROR } from "./ai-sdk-events.js";
import {
  metadataAttributes,
  operationOpName,
  parseJson,
  providerName,
  TOOL_CALL_OP,
  toolCallOf,
} from "./ai-sdk-shapes.js";
import { isObj, type Obj } from "./guards.js";

/** The tracer name the AI SDK 6 creates its spans with. */
export const AI_SDK_TRACER = "ai";

type Kind = "operation" | "model" | "embed" | "tool";

function kindOf(span: ReadableSpan): Kind | undefined {
  if (span.instrumentationScope.name !== AI_SDK_TRACER || !span.name.startsWith("ai.")) return undefined;
  if (span.name === "ai.toolCall") return "tool";
  if (/\.do(Generate|Stream)$/.test(span.name)) return "model";
  if (span.name.endsWith(".doEmbed")) return "embed";
  return span.name.split(".").length === 2 ? "operation" : undefined;
}

/** `prefix.*` attributes as an object (`ai.settings.temperature` → `{temperature}`), or undefined when none. */
function withPrefix(attributes: Attributes, prefix: string): Obj | undefined {
  let out: Obj | undefined;
  // A for…in over the span's own attributes: Object.entries made a pair per attribute, three times per span.
  for (const key in attributes) {
    if (!key.startsWith(prefix) || !Object.hasOwn(attributes, key)) continue;
    const value = attributes[key];
    if (value === undefined) continue;
    out ??= {};
    out[key.slice(prefix.length)] = value;
  }
  return out;
}

function opNameOf(span: ReadableSpan, kind: Kind): string {
  if (kind === "tool") return TOOL_CALL_OP;
  if (kind === "operation") return operationOpName(span.name, span.attributes["ai.telemetry.functionId"]);
  return span.name;
}

function inputsOf(span: ReadableSpan, kind: Kind): Obj {
  const a = span.attributes;
  if (kind === "tool") {
    const call = toolCallOf({
      toolCallId: a["ai.toolCall.id"],
      toolName: a["ai.toolCall.name"],
      input: a["ai.toolCall.args"],
    });
    // ai 6 records a tool's arguments even under `recordInputs: false`; its operation tells (no `ai.prompt`).
    if (openOperations.of(span)?.recordsInputs === false) delete call.input;
    return call;
  }
  if (kind === "model") {
    const inputs: Obj = { model: a["ai.model.id"], messages: parseJson(a["ai.prompt.messages"]) };
    const tools = a["ai.prompt.tools"];
    if (Array.isArray(tools) && tools.length > 0) inputs.tools = tools.map(parseJson);
    if (a["ai.prompt.toolChoice"] !== undefined) inputs.toolChoice = parseJson(a["ai.prompt.toolChoice"]);
    return inputs;
  }
  if (kind === "embed") return { values: Array.isArray(a["ai.values"]) ? a["ai.values"].map(parseJson) : [] };
  const prompt = parseJson(a["ai.prompt"]);
  const inputs: Obj = isObj(prompt) && !Array.isArray(prompt) ? { ...prompt } : {};
  if (a["ai.value"] !== undefined) inputs.value = parseJson(a["ai.value"]);
  if (Array.isArray(a["ai.values"])) inputs.values = a["ai.values"].map(parseJson);
  const settings = withPrefix(a, "ai.settings.");
  if (settings) inputs.settings = settings;
  return inputs;
}

function outputOf(span: ReadableSpan, kind: Kind): { value: unknown } | undefined {
  const a = span.attributes;
  if (kind === "tool")
    return a["ai.toolCall.result"] === undefined ? undefined : { value: parseJson(a["ai.toolCall.result"]) };
  // Embeddings: how many vectors and their size, never the vectors (doEmbed and embedMany: `ai.embeddings`, one JSON
  // text per vector; embed: `ai.embedding`, one JSON text).
  const vectors = Array.isArray(a["ai.embeddings"])
    ? a["ai.embeddings"]
    : a["ai.embedding"] !== undefined
      ? [a["ai.embedding"]]
      : undefined;
  if (kind === "embed" || (kind === "operation" && vectors)) {
    if (!vectors) return undefined;
    const first = parseJson(vectors[0]);
    return { value: embeddingsOutput(vectors.length > 0 ? [first, ...vectors.slice(1)] : []) };
  }
  if (a["ai.response.object"] !== undefined)
    return { value: { object: parseJson(a["ai.response.object"]), finishReason: a["ai.response.finishReason"] } };
  if (a["ai.response.text"] === undefined && a["ai.response.toolCalls"] === undefined) return undefined;
  const output: Obj = { text: a["ai.response.text"] ?? "" };
  if (typeof a["ai.response.reasoning"] === "string" && a["ai.response.reasoning"])
    output.reasoning = a["ai.response.reasoning"];
  const toolCalls = parseJson(a["ai.response.toolCalls"]);
  if (Array.isArray(toolCalls) && toolCalls.length > 0) output.toolCalls = toolCalls.filter(isObj).map(toolCallOf);
  if (a["ai.response.finishReason"] !== undefined) output.finishReason = a["ai.response.finishReason"];
  if (kind === "operation") {
    const usage = withPrefix(a, "ai.usage.");
    if (usage) output.usage = usage;
  }
  return { value: output };
}

/**
 * Where ai 6's own span status misreports the outcome, as the ai 7 integration records it (ai-sdk-events.ts): an
 * aborted `generateText` (its span failed with the signal's AbortError) ends cancelled (`abort`), and a model stream
 * that carried an error event (finish reason `error`, no status of its own) ends failed.
 */
function outcomeOf(span: ReadableSpan, kind: Kind, data: CallEndData): void {
  if (kind !== "operation" && kind !== "model") return;
  const exception = span.events.find((e) => e.name === "exception");
  if (exception?.attributes?.["exception.type"] === "AbortError") data.cancelled = "abort";
  else if (kind === "model" && !exception && span.attributes["ai.response.finishReason"] === "error")
    data.exception = STREAM_ERROR;
}

/** An `ai` 6 operation span in flight: whether it records inputs, and its model calls still open. */
interface OpenOperation {
  recordsInputs: boolean;
  models: Set<ReadableSpan>;
}

/**
 * The operations in flight, by span id, and the operation of each open model call. Two things ai 6 does not do
 * itself: honour `recordInputs: false` on tool spans, and end a model call span when its stream is aborted (it never
 * does). When an operation ends, its model calls still open end with it, as cancelled (`unfinished`), so no call
 * stays open forever. Bounded: past {@link MAX_OPEN} the oldest is forgotten.
 */
class OpenOperations {
  private readonly operations = new Map<string, OpenOperation>();
  private readonly modelOperation = new Map<string, OpenOperation>();

  /** The operation `span` runs under (its parent, or its parent model call's). */
  of(span: ReadableSpan): OpenOperation | undefined {
    const parent = span.parentSpanContext?.spanId;
    return parent === undefined ? undefined : (this.operations.get(parent) ?? this.modelOperation.get(parent));
  }

  started(span: ReadableSpan, kind: Kind): void {
    const id = span.spanContext().spanId;
    if (kind === "operation") {
      const a = span.attributes;
      const recordsInputs = a["ai.prompt"] !== undefined || a["ai.value"] !== undefined || a["ai.values"] !== undefined;
      bounded(this.operations).set(id, { recordsInputs, models: new Set() });
    } else if (kind === "model" || kind === "embed") {
      const operation = this.of(span);
      if (!operation) return;
      operation.models.add(span);
      bounded(this.modelOperation).set(id, operation);
    }
  }

  ended(span: ReadableSpan, kind: Kind): void {
    const id = span.spanContext().spanId;
    if (kind === "model" || kind === "embed") {
      this.modelOperation.get(id)?.models.delete(span);
      this.modelOperation.delete(id);
      return;
    }
    if (kind !== "operation") return;
    const operation = this.operations.get(id);
    this.operations.delete(id);
    for (const model of operation?.models ?? []) {
      this.modelOperation.delete(model.spanContext().spanId);
      const open = model as unknown as Span;
      if (typeof open.isRecording !== "function" || !open.isRecording()) continue;
      open.setAttributes({ [ATTR_TRACEWIRE_CANCELLED]: true, [ATTR_TRACEWIRE_CANCEL_REASON]: "unfinished" });
      open.end();
    }
  }
}

const MAX_OPEN = 10_000;

function bounded<V>(map: Map<string, V>): Map<string, V> {
  if (map.size >= MAX_OPEN) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  return map;
}

const openOperations = new OpenOperations();

/** The adapter: start and end data of the AI SDK's spans; undefined (not ours) for every other span. */
export const aiSdkCallAdapter = {
  start(span: ReadableSpan): CallStartData | undefined {
    const kind = kindOf(span);
    if (!kind) return undefined;
    openOperations.started(span, kind);
    const opName = opNameOf(span, kind);
    const inputs = preparePayload(inputsOf(span, kind), "inputs", opName);
    const attributes: JsonObject = {
      ...currentAttributes(),
      ...metadataAttributes(withPrefix(span.attributes, "ai.telemetry.metadata.")),
    };
    if (kind === "model" || kind === "tool" || kind === "embed") {
      // The GenAI facts as the ai 7 integration records them (ai 6 sets no `gen_ai.operation.name` of its own).
      const operation = kind === "model" ? "chat" : kind === "tool" ? "execute_tool" : "embeddings";
      const provider = providerName(span.attributes["ai.model.provider"]);
      Object.assign(
        attributes,
        genAiStartAttributes({
          // ai 6's doEmbed span names its model only as `ai.model.id`.
          [ATTR_GEN_AI_REQUEST_MODEL]: span.attributes["ai.model.id"],
          ...span.attributes,
          [ATTR_GEN_AI_OPERATION_NAME]: operation,
          ...(provider ? { [ATTR_GEN_AI_PROVIDER_NAME]: provider } : {}),
        }),
      );
    }
    if (kind === "operation") {
      const ai: JsonObject = { operation_id: span.name };
      const functionId = span.attributes["ai.telemetry.functionId"];
      if (typeof functionId === "string") ai.function_id = functionId;
      const provider = span.attributes["ai.model.provider"];
      if (typeof provider === "string") ai.provider = provider;
      const model = span.attributes["ai.model.id"];
      if (typeof model === "string") ai.model = model;
      attributes.ai = ai;
    }
    const data: CallStartData = {
      opName,
      inputs: isObj(inputs) && !Array.isArray(inputs) ? (inputs as JsonObject) : {},
      attributes,
    };
    if (kind === "tool" && typeof span.attributes["ai.toolCall.name"] === "string")
      data.displayName = span.attributes["ai.toolCall.name"];
    const thread = currentThread();
    if (thread) {
      data.threadId = thread.threadId;
      data.turnId = thread.turnId ?? "self";
    }
    return data;
  },
  end(span: ReadableSpan): CallEndData {
    const kind = kindOf(span);
    if (!kind) return {};
    openOperations.ended(span, kind);
    const data: CallEndData = {};
    if (kind === "embed") {
      // ai 6 reports embedding usage as `ai.usage.tokens` only: keyed by the model here, as for ai 7.
      const usage = usageFromAttributes({
        [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: span.attributes["ai.usage.tokens"],
        [ATTR_GEN_AI_REQUEST_MODEL]: span.attributes["ai.model.id"],
      });
      if (usage) data.usage = usage;
    }
    const output = outputOf(span, kind);
    const payload = output ? preparePayload(output.value, "output", opNameOf(span, kind)) : undefined;
    if (payload !== undefined) data.output = payload;
    outcomeOf(span, kind, data);
    return data;
  },
};

/** Lets the processor map the AI SDK's spans to calls (idempotent; `init()` calls it). */
export function installAiSdkSpans(): void {
  registerCallAdapter("ai-sdk", aiSdkCallAdapter);
}
