/**
 * What a Vercel AI SDK call records, whichever major reported it: `ai` 7 through its telemetry events
 * (ai-sdk-telemetry.ts), `ai` 6 through its `ai.*` spans (ai-sdk-spans.ts). One tree of calls:
 *
 *   operation (`functionId`, else `ai.generateText` / `ai.streamText` / …)
 *   ├─ step (`ai.generateText.step`; `ai` 7 only, `ai` 6 has no step span)
 *   │  ├─ model call (`ai.generateText.doGenerate` / `ai.streamText.doStream`: GenAI `chat` attributes, usage)
 *   │  └─ tool call (`ai.toolCall`, one per tool call, parallel ones apart)
 *
 * Inputs are the prompt as the SDK reports it (instructions or system, prompt or messages), the tools and settings;
 * model calls get the messages, tools and tool choice sent to the model; outputs are text, tool calls, the object
 * and the finish reason. The telemetry `metadata` (`ai` 6) or included `runtimeContext` (`ai` 7) are call attributes.
 */
import type { Attributes } from "@opentelemetry/api";
import type { JsonObject } from "../api/types/common.js";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY,
  ATTR_GEN_AI_REQUEST_SEED,
  ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_K,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
} from "../semconv.js";
import { serializeAttributes } from "../tracing/context.js";
import { isObj, type Obj } from "./guards.js";

/** The op name of every tool call. */
export const TOOL_CALL_OP = "ai.toolCall";

/** The op name of an operation: its telemetry `functionId`, else the SDK's operation id. */
export function operationOpName(operationId: string, functionId: unknown): string {
  return typeof functionId === "string" && functionId.trim() !== "" ? functionId : operationId;
}

/** Streaming operations call the model with `doStream`, the others with `doGenerate` (the SDK's span names). */
export function modelCallOpName(operationId: string): string {
  return `${operationId}.${/^ai\.stream/.test(operationId) ? "doStream" : "doGenerate"}`;
}

/** `gen_ai.provider.name` from the SDK's provider id (`openai.chat` → `openai`). */
export function providerName(provider: unknown): string | undefined {
  if (typeof provider !== "string" || provider === "") return undefined;
  return provider.split(".")[0];
}

const SETTINGS = [
  "maxOutputTokens",
  "temperature",
  "topP",
  "topK",
  "presencePenalty",
  "frequencyPenalty",
  "stopSequences",
  "seed",
  "maxRetries",
  "reasoning",
] as const;

/** The call settings an event carries (the ones set). */
export function settingsOf(event: Obj): Obj | undefined {
  const settings: Obj = {};
  for (const key of SETTINGS) if (event[key] !== undefined && event[key] !== null) settings[key] = event[key];
  return Object.keys(settings).length > 0 ? settings : undefined;
}

/** The GenAI request attributes of a model call from its settings. */
export function requestAttributes(provider: unknown, modelId: unknown, settings: Obj | undefined): Attributes {
  const attributes: Attributes = { [ATTR_GEN_AI_OPERATION_NAME]: "chat" };
  const name = providerName(provider);
  if (name) attributes[ATTR_GEN_AI_PROVIDER_NAME] = name;
  if (typeof modelId === "string") attributes[ATTR_GEN_AI_REQUEST_MODEL] = modelId;
  const s = settings ?? {};
  const put = (key: string, value: unknown) => {
    if (typeof value === "number" || (Array.isArray(value) && value.every((v) => typeof v === "string")))
      attributes[key] = value as number | string[];
  };
  put(ATTR_GEN_AI_REQUEST_MAX_TOKENS, s.maxOutputTokens);
  put(ATTR_GEN_AI_REQUEST_TEMPERATURE, s.temperature);
  put(ATTR_GEN_AI_REQUEST_TOP_P, s.topP);
  put(ATTR_GEN_AI_REQUEST_TOP_K, s.topK);
  put(ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY, s.presencePenalty);
  put(ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY, s.frequencyPenalty);
  put(ATTR_GEN_AI_REQUEST_STOP_SEQUENCES, s.stopSequences);
  put(ATTR_GEN_AI_REQUEST_SEED, s.seed);
  return attributes;
}

/** Token usage as the SDK reports it (`LanguageModelUsage`) → `gen_ai.usage.*` (usage keyed by model). */
export function usageAttributes(usage: unknown, responseModel: unknown): Attributes {
  const attributes: Attributes = {};
  if (typeof responseModel === "string" && responseModel) attributes[ATTR_GEN_AI_RESPONSE_MODEL] = responseModel;
  if (!isObj(usage)) return attributes;
  const put = (key: string, value: unknown) => {
    if (typeof value === "number" && Number.isFinite(value)) attributes[key] = value;
  };
  put(ATTR_GEN_AI_USAGE_INPUT_TOKENS, usage.inputTokens);
  put(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, usage.outputTokens);
  const input = isObj(usage.inputTokenDetails) ? usage.inputTokenDetails : {};
  const output = isObj(usage.outputTokenDetails) ? usage.outputTokenDetails : {};
  put(ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, input.cacheReadTokens ?? usage.cachedInputTokens);
  put(ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, input.cacheWriteTokens);
  put(ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS, output.reasoningTokens ?? usage.reasoningTokens);
  return attributes;
}

/** The GenAI response facts of a model call. */
export function responseAttributes(responseId: unknown, finishReason: unknown): Attributes {
  const attributes: Attributes = {};
  if (typeof responseId === "string") attributes[ATTR_GEN_AI_RESPONSE_ID] = responseId;
  if (typeof finishReason === "string") attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [finishReason];
  return attributes;
}

/** The GenAI attributes of a tool call. */
export function toolAttributes(toolName: unknown, toolCallId: unknown): Attributes {
  const attributes: Attributes = { [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool" };
  if (typeof toolName === "string") attributes[ATTR_GEN_AI_TOOL_NAME] = toolName;
  if (typeof toolCallId === "string") attributes[ATTR_GEN_AI_TOOL_CALL_ID] = toolCallId;
  return attributes;
}

/** A tool set as the caller declared it (`{name: tool}`): each tool's description and input schema, no code. */
export function toolSetOf(tools: unknown): Obj | undefined {
  if (!isObj(tools)) return undefined;
  const out: Obj = {};
  for (const [name, tool] of Object.entries(tools)) {
    if (!isObj(tool)) continue;
    const entry: Obj = {};
    if (typeof tool.description === "string") entry.description = tool.description;
    const schema = tool.inputSchema ?? tool.parameters;
    // A Schema object holds its JSON schema under `jsonSchema`; a plain JSON schema is kept as is.
    if (isObj(schema)) entry.inputSchema = isObj(schema.jsonSchema) ? schema.jsonSchema : schema;
    if (typeof tool.type === "string") entry.type = tool.type;
    out[name] = entry;
  }
  return out;
}

/** A tool call as recorded: id, name and input (a provider's raw JSON argument text is parsed). */
export function toolCallOf(part: Obj): Obj {
  return { toolCallId: part.toolCallId, toolName: part.toolName, input: parseJson(part.input ?? part.args) };
}

/** What a model answered, from its content parts: text, reasoning, tool calls, finish reason. */
export function contentOutput(content: unknown, finishReason: unknown): Obj {
  const parts = Array.isArray(content) ? content.filter(isObj) : [];
  const output: Obj = {
    text: parts
      .filter((p) => p.type === "text")
      .map((p) => String(p.text ?? ""))
      .join(""),
  };
  const reasoning = parts.filter((p) => p.type === "reasoning").map((p) => String(p.text ?? ""));
  if (reasoning.length > 0) output.reasoning = reasoning.join("");
  const toolCalls = parts.filter((p) => p.type === "tool-call").map(toolCallOf);
  if (toolCalls.length > 0) output.toolCalls = toolCalls;
  if (finishReason !== undefined) output.finishReason = finishReason;
  return output;
}

/** The JSON a text holds, or the text itself when it holds none (attributes carry JSON as strings). */
export function parseJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Call attributes from the caller's telemetry metadata / included runtime context (as JSON, credentials masked). */
export function metadataAttributes(metadata: unknown): JsonObject {
  return isObj(metadata) ? serializeAttributes(metadata) : {};
}
