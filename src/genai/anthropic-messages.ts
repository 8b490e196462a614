/**
 * The Anthropic Messages API (`POST /v1/messages`) as a call format (call-format.ts): request → `gen_ai.request.*`,
 * a Message (or a reassembled stream, anthropic-stream.ts) → `gen_ai.response.*` and `gen_ai.usage.*` (cache
 * creation and read tokens included), and the opt-in content attributes (system prompt, messages, tools, output).
 * Semantic conventions v1.41.1 (`anthropic.md`): `gen_ai.usage.input_tokens` is `input_tokens` plus the cache
 * read and cache creation tokens, since Anthropic reports them apart.
 */
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_TYPE,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_K,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_DEFINITIONS,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
} from "../semconv.js";
import { MessageAccumulator } from "./anthropic-stream.js";
import type { CallFormat } from "./call-format.js";
import { isNum, isObj, type Obj } from "./guards.js";
import { type ChatEndpoint, chatSpanName, chatStartAttributes } from "./openai-chat.js";

/** `gen_ai.provider.name` of the Anthropic API (the semconv well-known value). */
export const ANTHROPIC_PROVIDER = "anthropic";
/** The service tier the request asked for (`service_tier`). */
export const ATTR_ANTHROPIC_REQUEST_SERVICE_TIER = "anthropic.request.service_tier";
/** The service tier that served the request (`usage.service_tier`). */
export const ATTR_ANTHROPIC_RESPONSE_SERVICE_TIER = "anthropic.response.service_tier";

// ---- request ---------------------------------------------------------------------------------------------------

function anthropicRequestAttributes(params: Obj, endpoint: ChatEndpoint, streaming: boolean): Attributes {
  const attributes = chatStartAttributes(params, endpoint, streaming);
  if (isNum(params.max_tokens)) attributes[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = params.max_tokens;
  if (isNum(params.temperature)) attributes[ATTR_GEN_AI_REQUEST_TEMPERATURE] = params.temperature;
  if (isNum(params.top_p)) attributes[ATTR_GEN_AI_REQUEST_TOP_P] = params.top_p;
  if (isNum(params.top_k)) attributes[ATTR_GEN_AI_REQUEST_TOP_K] = params.top_k;
  const stop = params.stop_sequences;
  if (Array.isArray(stop) && stop.length > 0 && stop.every((s) => typeof s === "string"))
    attributes[ATTR_GEN_AI_REQUEST_STOP_SEQUENCES] = stop as string[];
  const config = params.output_config;
  if (isObj(config) && isObj(config.format) && config.format.type === "json_schema")
    attributes[ATTR_GEN_AI_OUTPUT_TYPE] = "json";
  if (typeof params.service_tier === "string") attributes[ATTR_ANTHROPIC_REQUEST_SERVICE_TIER] = params.service_tier;
  return attributes;
}

// ---- answer ----------------------------------------------------------------------------------------------------

function anthropicResponseAttributes(message: unknown, attributes: Attributes): Attributes {
  if (!isObj(message)) return attributes;
  if (typeof message.id === "string") attributes[ATTR_GEN_AI_RESPONSE_ID] = message.id;
  if (typeof message.model === "string") attributes[ATTR_GEN_AI_RESPONSE_MODEL] = message.model;
  if (typeof message.stop_reason === "string") attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [message.stop_reason];
  const usage = message.usage;
  if (!isObj(usage)) return attributes;
  const read = isNum(usage.cache_read_input_tokens) ? usage.cache_read_input_tokens : undefined;
  const created = isNum(usage.cache_creation_input_tokens) ? usage.cache_creation_input_tokens : undefined;
  if (isNum(usage.input_tokens))
    attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = usage.input_tokens + (read ?? 0) + (created ?? 0);
  if (isNum(usage.output_tokens)) attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = usage.output_tokens;
  if (read !== undefined) attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = read;
  if (created !== undefined) attributes[ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = created;
  const details = usage.output_tokens_details;
  if (isObj(details) && isNum(details.thinking_tokens))
    attributes[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = details.thinking_tokens;
  if (typeof usage.service_tier === "string") attributes[ATTR_ANTHROPIC_RESPONSE_SERVICE_TIER] = usage.service_tier;
  return attributes;
}

// ---- content attributes ----------------------------------------------------------------------------------------

type Part = Obj;

/** Message parts of Anthropic content (a string, or a list of content blocks). */
function parts(content: unknown): Part[] {
  if (typeof content === "string") return [{ type: "text", content }];
  if (!Array.isArray(content)) return [];
  const out: Part[] = [];
  for (const block of content) {
    if (!isObj(block)) continue;
    switch (block.type) {
      case "text":
        out.push({ type: "text", content: block.text });
        break;
      case "thinking":
        out.push({ type: "reasoning", content: block.thinking });
        break;
      case "tool_use":
      case "server_tool_use":
        out.push({ type: "tool_call", id: block.id, name: block.name, arguments: block.input });
        break;
      case "tool_result":
        out.push({ type: "tool_call_response", id: block.tool_use_id, response: block.content });
        break;
      case "image":
      case "document": {
        const modality = block.type === "image" ? "image" : "document";
        const source = isObj(block.source) ? block.source : {};
        if (source.type === "base64")
          out.push({ type: "blob", modality, mime_type: source.media_type, content: source.data });
        else if (source.type === "url") out.push({ type: "uri", modality, uri: source.url });
        else if (source.type === "file") out.push({ type: "file", modality, file_id: source.file_id });
        else out.push({ ...block });
        break;
      }
      default:
        out.push({ ...block });
    }
  }
  return out;
}

/** Semconv finish reasons for `gen_ai.output.messages`; a message that never finished gets `unfinished`. */
function finishReason(reason: unknown, unfinished: string): string {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "max_tokens":
      return "length";
    case "tool_use":
      return "tool_call";
    case "refusal":
      return "content_filter";
    default:
      return typeof reason === "string" && reason !== "" ? reason : unfinished;
  }
}

function inputContent(params: unknown): Attributes {
  const attributes: Attributes = {};
  if (!isObj(params)) return attributes;
  const system = parts(params.system);
  if (system.length > 0) attributes[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS] = JSON.stringify(system);
  if (Array.isArray(params.messages)) {
    const messages = params.messages
      .filter(isObj)
      .map((m) => ({ role: typeof m.role === "string" ? m.role : "user", parts: parts(m.content) }));
    attributes[ATTR_GEN_AI_INPUT_MESSAGES] = JSON.stringify(messages);
  }
  if (Array.isArray(params.tools) && params.tools.length > 0) {
    const tools = params.tools.filter(isObj).map((tool) => {
      // Custom tools have no type (or `custom`); server tools (`web_search_…`) are named by theirs.
      const custom = tool.type === undefined || tool.type === "custom";
      const entry: Obj = { type: custom ? "function" : tool.type, name: tool.name };
      if (tool.description !== undefined) entry.description = tool.description;
      if (tool.input_schema !== undefined) entry.parameters = tool.input_schema;
      return entry;
    });
    attributes[ATTR_GEN_AI_TOOL_DEFINITIONS] = JSON.stringify(tools);
  }
  return attributes;
}

function outputContent(message: unknown, unfinished: string): Attributes {
  if (!isObj(message)) return {};
  const entry = {
    role: typeof message.role === "string" ? message.role : "assistant",
    parts: parts(message.content),
    finish_reason: finishReason(message.stop_reason, unfinished),
  };
  return { [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify([entry]) };
}

/** The Anthropic Messages API as a call format. */
export const ANTHROPIC_MESSAGES: CallFormat = {
  spanName: chatSpanName,
  requestAttributes: anthropicRequestAttributes,
  responseAttributes: anthropicResponseAttributes,
  recordedOutput: (message) => message,
  accumulator: () => new MessageAccumulator(),
  inputContent,
  outputContent,
  // Anthropic streams always carry usage (message_start, message_delta): nothing to ask for.
  injectsStreamUsage: false,
};
