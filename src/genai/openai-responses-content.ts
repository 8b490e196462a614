/**
 * The opt-in GenAI content attributes of a Responses API call, as JSON strings: `instructions` →
 * `gen_ai.system_instructions`, `input` (a string or input items) → `gen_ai.input.messages`, `tools` →
 * `gen_ai.tool.definitions`, and the response's output items → one `gen_ai.output.messages` message. Built from the
 * already serialized and redacted payloads, never from the caller's raw objects.
 */
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_DEFINITIONS,
} from "../semconv.js";
import { isObj, type Obj } from "./guards.js";

/** The message parts of a Responses content list (or a plain string). */
function contentParts(content: unknown): Obj[] {
  if (typeof content === "string") return [{ type: "text", content }];
  if (!Array.isArray(content)) return [];
  const parts: Obj[] = [];
  for (const part of content) {
    if (!isObj(part)) continue;
    switch (part.type) {
      case "input_text":
      case "output_text":
        parts.push({ type: "text", content: part.text });
        break;
      case "refusal":
        parts.push({ type: "refusal", content: part.refusal });
        break;
      case "input_image":
        if (typeof part.file_id === "string") parts.push({ type: "file", modality: "image", file_id: part.file_id });
        else parts.push({ type: "uri", modality: "image", uri: part.image_url });
        break;
      case "input_file":
        if (typeof part.file_id === "string") parts.push({ type: "file", modality: "document", file_id: part.file_id });
        else parts.push({ type: "blob", modality: "document", content: part.file_data ?? part.file_url });
        break;
      default:
        parts.push({ ...part });
    }
  }
  return parts;
}

function reasoningParts(item: Obj): Obj[] {
  const summary = Array.isArray(item.summary) ? item.summary : [];
  return summary
    .filter((part): part is Obj => isObj(part) && typeof part.text === "string")
    .map((part) => ({ type: "reasoning", content: part.text }));
}

/** The parts an output item (also one sent back as input) contributes to an assistant message. */
function itemParts(item: Obj): Obj[] {
  switch (item.type) {
    case "message":
      return contentParts(item.content);
    case "function_call":
      return [{ type: "tool_call", id: item.call_id, name: item.name, arguments: item.arguments }];
    case "reasoning":
      return reasoningParts(item);
    default:
      return [{ type: typeof item.type === "string" ? item.type : "unknown" }];
  }
}

const TERMINAL = new Set<unknown>(["completed", "incomplete", "failed"]);

/**
 * The semconv finish reason of a response: `completed` → `stop` (`tool_call` when it asks for a function call),
 * `incomplete` → `length` (`max_output_tokens`) or its own reason, `failed` → `error`, any other status as is.
 */
export function responseFinishReason(response: Obj): string | undefined {
  const status = response.status;
  if (status === "completed") {
    const output = Array.isArray(response.output) ? response.output : [];
    return output.some((item) => isObj(item) && item.type === "function_call") ? "tool_call" : "stop";
  }
  if (status === "incomplete") {
    const reason = isObj(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    return reason === "max_output_tokens" ? "length" : typeof reason === "string" ? reason : "incomplete";
  }
  if (status === "failed") return "error";
  return typeof status === "string" && status !== "" ? status : undefined;
}

/** `gen_ai.input.messages` (JSON) for a Responses `input`, in the order sent. */
export function responsesInputMessagesJson(input: unknown): string | undefined {
  if (typeof input === "string") return JSON.stringify([{ role: "user", parts: [{ type: "text", content: input }] }]);
  if (!Array.isArray(input)) return undefined;
  const out: Obj[] = [];
  for (const item of input) {
    if (!isObj(item)) continue;
    if (item.type === "function_call_output") {
      out.push({ role: "tool", parts: [{ type: "tool_call_response", id: item.call_id, response: item.output }] });
    } else if (item.type === undefined || item.type === "message") {
      out.push({ role: typeof item.role === "string" ? item.role : "user", parts: contentParts(item.content) });
    } else {
      // An output item sent back (function_call, reasoning, …): the assistant said it.
      const parts = itemParts(item);
      const last = out.at(-1);
      if (last?.role === "assistant" && Array.isArray(last.parts)) last.parts.push(...parts);
      else out.push({ role: "assistant", parts });
    }
  }
  return JSON.stringify(out);
}

/** `gen_ai.tool.definitions` (JSON) for a Responses `tools` list (function tools are flat; built-ins by type). */
export function responsesToolDefinitionsJson(tools: unknown): string | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  const out: Obj[] = [];
  for (const tool of tools) {
    if (!isObj(tool)) continue;
    const type = typeof tool.type === "string" ? tool.type : "function";
    const entry: Obj = { type, name: typeof tool.name === "string" ? tool.name : type };
    if (tool.description !== undefined) entry.description = tool.description;
    if (tool.parameters !== undefined) entry.parameters = tool.parameters;
    out.push(entry);
  }
  return JSON.stringify(out);
}

/** The content attributes of a Responses request (already serialized and redacted). */
export function responsesInputContent(params: unknown): Attributes {
  const attributes: Attributes = {};
  if (!isObj(params)) return attributes;
  if (typeof params.instructions === "string")
    attributes[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS] = JSON.stringify([{ type: "text", content: params.instructions }]);
  const messages = responsesInputMessagesJson(params.input);
  if (messages !== undefined) attributes[ATTR_GEN_AI_INPUT_MESSAGES] = messages;
  const tools = responsesToolDefinitionsJson(params.tools);
  if (tools !== undefined) attributes[ATTR_GEN_AI_TOOL_DEFINITIONS] = tools;
  return attributes;
}

/**
 * The content attributes of a response (already serialized and redacted): its output items as one assistant
 * message, finishing as `responseFinishReason` says (`unfinished` while the response had not finished).
 */
export function responsesOutputContent(response: unknown, unfinished: string): Attributes {
  if (!isObj(response) || !Array.isArray(response.output)) return {};
  const parts: Obj[] = [];
  for (const item of response.output) if (isObj(item)) parts.push(...itemParts(item));
  const finish = TERMINAL.has(response.status) ? (responseFinishReason(response) ?? unfinished) : unfinished;
  return { [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify([{ role: "assistant", parts, finish_reason: finish }]) };
}
