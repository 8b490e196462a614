/**
 * The Vercel AI SDK 6 (and earlier) emits its own OpenTelemetry spans under `experimental_telemetry: { isEnabled:
 * true }`, from the tracer named `ai`. They reach tracewire's processor like any foreign span; this adapter (a
 * `CallAdapter` of otel/state.ts, installed by `init()`) makes each a first-class call on the native route — the
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
 * the operation. Why here and not in the service's OTLP mapping: the processor is the one exit every span passes
 * (whoever registered the provider), and on the native route the payloads get tracewire's own serialization,
 * redaction and `captureContent`.
 */
import type { Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { JsonObject } from "../api/types/common.js";
import type { CallEndData, CallStartData } from "../otel/span-data.js";
import { registerCallAdapter } from "../otel/state.js";
import { ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_PROVIDER_NAME } from "../semconv.js";
import { currentAttributes, currentThread } from "../tracing/context.js";
import { preparePayload } from "../tracing/payload.js";
import { genAiStartAttributes } from "../wire/span-to-call.js";
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
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(prefix) || value === undefined) continue;
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
  if (kind === "tool")
    return toolCallOf({
      toolCallId: a["ai.toolCall.id"],
      toolName: a["ai.toolCall.name"],
      input: a["ai.toolCall.args"],
    });
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
  if (kind === "embed") {
    const vectors = a["ai.embeddings"];
    return Array.isArray(vectors) ? { value: { embeddings: vectors.length } } : undefined;
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

/** The adapter: start and end data of the AI SDK's spans; undefined (not ours) for every other span. */
export const aiSdkCallAdapter = {
  start(span: ReadableSpan): CallStartData | undefined {
    const kind = kindOf(span);
    if (!kind) return undefined;
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
    const output = kind ? outputOf(span, kind) : undefined;
    if (!kind || !output) return {};
    const payload = preparePayload(output.value, "output", opNameOf(span, kind));
    return payload === undefined ? {} : { output: payload };
  },
};

/** Lets the processor map the AI SDK's spans to calls (idempotent; `init()` calls it). */
export function installAiSdkSpans(): void {
  registerCallAdapter("ai-sdk", aiSdkCallAdapter);
}
