/**
 * Gemini's `generateContent` (the `@google/genai` SDK, Gemini Developer API and Vertex AI alike) as a call format
 * (call-format.ts): the request → `gen_ai.request.*` (`model` and the `config` sampling settings), a
 * `GenerateContentResponse` (or a reassembled stream, google-stream.ts) → `gen_ai.response.*` and `gen_ai.usage.*`,
 * and the opt-in content attributes (google-content.ts).
 *
 * Semantic conventions v1.41.1: operation `generate_content` (the well-known value for "multimodal content
 * generation such as Gemini Generate Content"), provider `gcp.gemini` or `gcp.vertex_ai`. Gemini reports thinking
 * and tool-use prompt tokens apart from the candidates and prompt tokens; the conventions count reasoning tokens in
 * `output_tokens` and cached tokens in `input_tokens`, so `input_tokens` = prompt + tool-use prompt tokens (the
 * cached ones are already part of the prompt count) and `output_tokens` = candidates + thoughts tokens: together
 * Gemini's `totalTokenCount`.
 *
 * A blocked prompt (`promptFeedback.blockReason`, no candidates) is an answer, not a failure: the SDK returns it, and
 * its block reason stands in for the finish reason no candidate carries (`SAFETY`, `OTHER`, …). OpenTelemetry's
 * Python instrumentation puts it in `error.type` (`BLOCKED_SAFETY`) instead; that would mark as failed a call whose
 * request succeeded, and a backend filtering on finish reasons (as on OpenAI's `content_filter`) would miss it.
 */
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_TYPE,
  ATTR_GEN_AI_REQUEST_CHOICE_COUNT,
  ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY,
  ATTR_GEN_AI_REQUEST_SEED,
  ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_K,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  GEN_AI_OPERATION,
} from "../semconv.js";
import type { CallFormat } from "./call-format.js";
import { blockReasonOf, geminiInputContent, geminiOutputContent } from "./google-content.js";
import { GeminiStreamAccumulator } from "./google-stream.js";
import { usageOf } from "./google-usage.js";
import { isNum, isObj, type Obj } from "./guards.js";
import { type ChatEndpoint, chatStartAttributes } from "./openai-chat.js";

/** `gen_ai.provider.name` of the two backends the SDK speaks to (semconv well-known values). */
export const GOOGLE_PROVIDER = {
  /** The Gemini Developer API (`generativelanguage.googleapis.com`). */
  gemini: "gcp.gemini",
  /** Vertex AI (`vertexai: true`). */
  vertex: "gcp.vertex_ai",
} as const;

// ---- request ---------------------------------------------------------------------------------------------------

/** `generate_content {model}`, the span name the conventions ask for. */
function geminiSpanName(params: Obj): string {
  const model = params.model;
  const operation = GEN_AI_OPERATION.generateContent;
  return typeof model === "string" && model !== "" ? `${operation} ${model}` : operation;
}

function outputType(config: Obj): string | undefined {
  const modalities = config.responseModalities;
  if (Array.isArray(modalities)) {
    if (modalities.includes("IMAGE")) return "image";
    if (modalities.includes("AUDIO")) return "speech";
  }
  if (
    config.responseMimeType === "application/json" ||
    config.responseSchema != null ||
    config.responseJsonSchema != null
  )
    return "json";
  if (config.responseMimeType === "text/plain") return "text";
  return undefined;
}

function geminiRequestAttributes(params: Obj, endpoint: ChatEndpoint, streaming: boolean): Attributes {
  const attributes = chatStartAttributes(params, endpoint, streaming);
  attributes[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION.generateContent;
  const config = params.config;
  if (!isObj(config)) return attributes;
  if (isNum(config.temperature)) attributes[ATTR_GEN_AI_REQUEST_TEMPERATURE] = config.temperature;
  if (isNum(config.topP)) attributes[ATTR_GEN_AI_REQUEST_TOP_P] = config.topP;
  if (isNum(config.topK)) attributes[ATTR_GEN_AI_REQUEST_TOP_K] = config.topK;
  if (isNum(config.maxOutputTokens)) attributes[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = config.maxOutputTokens;
  if (isNum(config.seed)) attributes[ATTR_GEN_AI_REQUEST_SEED] = config.seed;
  if (isNum(config.candidateCount) && config.candidateCount !== 1)
    attributes[ATTR_GEN_AI_REQUEST_CHOICE_COUNT] = config.candidateCount;
  if (isNum(config.presencePenalty)) attributes[ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY] = config.presencePenalty;
  if (isNum(config.frequencyPenalty)) attributes[ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY] = config.frequencyPenalty;
  const stop = config.stopSequences;
  if (Array.isArray(stop) && stop.length > 0 && stop.every((s) => typeof s === "string"))
    attributes[ATTR_GEN_AI_REQUEST_STOP_SEQUENCES] = stop as string[];
  const type = outputType(config);
  if (type !== undefined) attributes[ATTR_GEN_AI_OUTPUT_TYPE] = type;
  return attributes;
}

// ---- answer ----------------------------------------------------------------------------------------------------

function geminiResponseAttributes(response: unknown, attributes: Attributes): void {
  if (!isObj(response)) return;
  if (typeof response.responseId === "string") attributes[ATTR_GEN_AI_RESPONSE_ID] = response.responseId;
  if (typeof response.modelVersion === "string") attributes[ATTR_GEN_AI_RESPONSE_MODEL] = response.modelVersion;
  const candidates = response.candidates;
  if (Array.isArray(candidates)) {
    const reasons: string[] = [];
    for (const candidate of candidates)
      if (isObj(candidate) && typeof candidate.finishReason === "string") reasons.push(candidate.finishReason);
    if (reasons.length > 0) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = reasons;
  }
  // A blocked prompt has no candidate to carry a finish reason: its block reason is the one reason there is, kept as
  // Gemini names it, like the candidates' own (the opt-in output messages map it to `content_filter`).
  const blocked = blockReasonOf(response);
  if (blocked !== undefined) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [blocked];
  const usage = usageOf(response);
  if (!isObj(usage)) return;
  const count = (key: string): number | undefined => (isNum(usage[key]) ? usage[key] : undefined);
  const prompt = count("promptTokenCount");
  const toolUse = count("toolUsePromptTokenCount");
  const candidatesTokens = count("candidatesTokenCount");
  const thoughts = count("thoughtsTokenCount");
  if (prompt !== undefined || toolUse !== undefined)
    attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = (prompt ?? 0) + (toolUse ?? 0);
  if (candidatesTokens !== undefined || thoughts !== undefined)
    attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = (candidatesTokens ?? 0) + (thoughts ?? 0);
  const cached = count("cachedContentTokenCount");
  if (cached !== undefined) attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = cached;
  if (thoughts !== undefined) attributes[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = thoughts;
}

/**
 * The response as recorded: its own fields, without `sdkHttpResponse` (the HTTP headers the SDK attaches, not part
 * of the answer), and with `usageMetadata.initialPromptTokenCount` — the prompt tokens of the first request when the
 * SDK resumed a generation (automatic continuation) — which the SDK defines as a non-enumerable getter that a JSON
 * copy would lose.
 */
function geminiRecordedOutput(response: unknown): unknown {
  if (!isObj(response) || Array.isArray(response)) return response;
  const out: Obj = {};
  for (const key of Object.keys(response)) if (key !== "sdkHttpResponse") out[key] = response[key];
  const usage = response.usageMetadata;
  // Own and enumerable only when the SDK made the usage object from a plain one; otherwise a getter to copy.
  if (isObj(usage) && !Object.prototype.propertyIsEnumerable.call(usage, "initialPromptTokenCount")) {
    let initial: unknown;
    try {
      initial = usage.initialPromptTokenCount;
    } catch {
      // A getter that throws: recorded without it.
    }
    if (isNum(initial)) out.usageMetadata = { ...usage, initialPromptTokenCount: initial };
  }
  return out;
}

/** Whether a tool is a `CallableTool` (what `mcpToTool()` returns): the SDK runs it itself. */
function isCallableTool(tool: unknown): tool is Obj {
  return isObj(tool) && typeof tool.callTool === "function";
}

/**
 * The request as recorded: `params` itself, or — when `config.tools` holds `CallableTool`s — a copy in which each of
 * them is `{_type: <its class>}`. A CallableTool is code, not data: an MCP one holds its MCP clients and their
 * transports (a stdio server's command line and environment among them), none of which belongs in a trace.
 */
export function geminiRecordedParams(params: Obj): Obj {
  const config = params.config;
  if (!isObj(config) || !Array.isArray(config.tools) || !config.tools.some(isCallableTool)) return params;
  const tools = config.tools.map((tool) => {
    if (!isCallableTool(tool)) return tool;
    const name = (Object.getPrototypeOf(tool) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return { _type: typeof name === "string" && name !== "" && name !== "Object" ? name : "CallableTool" };
  });
  return { ...params, config: { ...config, tools } };
}

/** Gemini's `generateContent` (streamed or not) as a call format. */
export const GEMINI_GENERATE_CONTENT: CallFormat = {
  spanName: geminiSpanName,
  requestAttributes: geminiRequestAttributes,
  responseAttributes: geminiResponseAttributes,
  recordedOutput: geminiRecordedOutput,
  inputContent: geminiInputContent,
  outputContent: geminiOutputContent,
  accumulator: (_options, params) => new GeminiStreamAccumulator(params),
  // Gemini streams carry usage in their chunks: nothing to ask for.
  injectsStreamUsage: false,
};
