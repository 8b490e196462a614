/**
 * The opt-in GenAI content attributes (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.tool.definitions`)
 * as JSON strings: OpenAI-format messages, completions and tool lists → the conventions' message parts. Built from
 * the already serialized and redacted payloads, never from the caller's raw objects.
 */
import type { Attributes } from "@opentelemetry/api";
import { ATTR_GEN_AI_INPUT_MESSAGES, ATTR_GEN_AI_OUTPUT_MESSAGES, ATTR_GEN_AI_TOOL_DEFINITIONS } from "../semconv.js";
import { isObj, type Obj } from "./guards.js";

type Part = Obj;

function textParts(content: unknown): Part[] {
  if (typeof content === "string") return [{ type: "text", content }];
  if (!Array.isArray(content)) return [];
  const parts: Part[] = [];
  for (const item of content) {
    if (!isObj(item)) continue;
    switch (item.type) {
      case "text":
        parts.push({ type: "text", content: item.text });
        break;
      case "refusal":
        parts.push({ type: "refusal", content: item.refusal });
        break;
      case "image_url": {
        const url = isObj(item.image_url) ? item.image_url.url : undefined;
        parts.push(mediaPart("image", url));
        break;
      }
      case "input_audio": {
        const audio = isObj(item.input_audio) ? item.input_audio : {};
        parts.push({
          type: "blob",
          modality: "audio",
          mime_type: typeof audio.format === "string" ? `audio/${audio.format}` : undefined,
          content: audio.data,
        });
        break;
      }
      case "video_url":
        parts.push(mediaPart("video", isObj(item.video_url) ? item.video_url.url : undefined));
        break;
      case "audio_url":
        parts.push(mediaPart("audio", isObj(item.audio_url) ? item.audio_url.url : undefined));
        break;
      case "file": {
        const file = isObj(item.file) ? item.file : {};
        if (typeof file.file_id === "string") parts.push({ type: "file", modality: "document", file_id: file.file_id });
        else parts.push({ type: "blob", modality: "document", content: file.file_data });
        break;
      }
      default:
        parts.push({ ...item });
    }
  }
  return parts;
}

function mediaPart(modality: string, url: unknown): Part {
  if (typeof url === "string" && url.startsWith("data:")) {
    const comma = url.indexOf(",");
    const header = url.slice(5, comma === -1 ? undefined : comma);
    return {
      type: "blob",
      modality,
      mime_type: header.split(";")[0] || undefined,
      content: comma === -1 ? "" : url.slice(comma + 1),
    };
  }
  return { type: "uri", modality, uri: url };
}

function toolCallParts(message: Obj): Part[] {
  const parts: Part[] = [];
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isObj(call)) continue;
      const fn = isObj(call.function) ? call.function : isObj(call.custom) ? call.custom : {};
      parts.push({ type: "tool_call", id: call.id, name: fn.name, arguments: fn.arguments ?? fn.input });
    }
  }
  if (isObj(message.function_call)) {
    parts.push({ type: "tool_call", name: message.function_call.name, arguments: message.function_call.arguments });
  }
  return parts;
}

function reasoningParts(message: Obj): Part[] {
  const reasoning = message.reasoning_content ?? message.reasoning;
  return typeof reasoning === "string" && reasoning !== "" ? [{ type: "reasoning", content: reasoning }] : [];
}

/** `gen_ai.input.messages` (JSON) for an OpenAI-format message list, in the order sent. */
export function inputMessagesJson(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const out: Obj[] = [];
  for (const message of messages) {
    if (!isObj(message)) continue;
    const role = typeof message.role === "string" ? message.role : "user";
    let parts: Part[];
    if (role === "tool") {
      parts = [{ type: "tool_call_response", id: message.tool_call_id, response: message.content }];
    } else if (role === "function") {
      parts = [{ type: "tool_call_response", id: message.name, response: message.content }];
    } else {
      parts = [...reasoningParts(message), ...textParts(message.content), ...toolCallParts(message)];
    }
    const entry: Obj = { role, parts };
    if (typeof message.name === "string" && role !== "function") entry.name = message.name;
    out.push(entry);
  }
  return JSON.stringify(out);
}

/**
 * Semconv finish reasons: `tool_calls`/`function_call` → `tool_call`; a choice that never finished → `unfinished`
 * (`error` for a failed call, `cancelled` for one the caller stopped).
 */
function semconvFinishReason(reason: unknown, unfinished: string): string {
  if (reason === "tool_calls" || reason === "function_call") return "tool_call";
  return typeof reason === "string" && reason !== "" ? reason : unfinished;
}

/** `gen_ai.output.messages` (JSON): one message per choice, each with its finish reason (see semconvFinishReason). */
export function outputMessagesJson(completion: unknown, unfinished = "error"): string | undefined {
  if (!isObj(completion) || !Array.isArray(completion.choices)) return undefined;
  const out: Obj[] = [];
  for (const choice of completion.choices) {
    if (!isObj(choice)) continue;
    const message = isObj(choice.message) ? choice.message : {};
    const parts = [...reasoningParts(message), ...textParts(message.content), ...toolCallParts(message)];
    if (typeof message.refusal === "string") parts.push({ type: "refusal", content: message.refusal });
    out.push({
      role: typeof message.role === "string" ? message.role : "assistant",
      parts,
      finish_reason: semconvFinishReason(choice.finish_reason, unfinished),
    });
  }
  return JSON.stringify(out);
}

/** `gen_ai.tool.definitions` (JSON) for an OpenAI-format `tools` list. */
export function toolDefinitionsJson(tools: unknown): string | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  const out: Obj[] = [];
  for (const tool of tools) {
    if (!isObj(tool)) continue;
    const type = typeof tool.type === "string" ? tool.type : "function";
    const spec = isObj(tool[type]) ? (tool[type] as Obj) : {};
    const entry: Obj = { type, name: spec.name };
    if (spec.description !== undefined) entry.description = spec.description;
    if (spec.parameters !== undefined) entry.parameters = spec.parameters;
    out.push(entry);
  }
  return JSON.stringify(out);
}

/** The content attributes of a request, from its (already serialized and redacted) parameters. */
export function inputContentAttributes(params: unknown): Attributes {
  const attributes: Attributes = {};
  if (!isObj(params)) return attributes;
  const messages = inputMessagesJson(params.messages);
  if (messages !== undefined) attributes[ATTR_GEN_AI_INPUT_MESSAGES] = messages;
  const tools = toolDefinitionsJson(params.tools);
  if (tools !== undefined) attributes[ATTR_GEN_AI_TOOL_DEFINITIONS] = tools;
  return attributes;
}

/** The content attributes of a completion (already serialized and redacted); `unfinished` as in outputMessagesJson. */
export function outputContentAttributes(completion: unknown, unfinished = "error"): Attributes {
  const messages = outputMessagesJson(completion, unfinished);
  return messages === undefined ? {} : { [ATTR_GEN_AI_OUTPUT_MESSAGES]: messages };
}
