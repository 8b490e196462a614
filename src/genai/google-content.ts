/**
 * Gemini content (`@google/genai`'s `Content` and `Part`, the Gemini REST API's JSON) for the call format in
 * google-generate.ts: the request's `contents` as the list of turns the SDK sends (`normalizeContents`, what its
 * `tContents` makes of a string, a part list or one Content), and the opt-in GenAI content attributes (semantic
 * conventions v1.41.1 §3.3): system instruction, input messages, tool definitions and one output message per
 * candidate (for a blocked prompt, which has none, one that says so), with Gemini's parts mapped to the semconv part
 * types and its finish reasons to the semconv enum.
 */
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_DEFINITIONS,
} from "../semconv.js";
import { isObj, type Obj } from "./guards.js";

/** Whether a value is a Content (a turn: `parts`, and a `role` when it has one), not a Part. */
function isContent(value: unknown): value is Obj {
  return isObj(value) && !Array.isArray(value) && (Array.isArray(value.parts) || typeof value.role === "string");
}

/** A string or a Part as a Part. */
function asPart(value: unknown): Obj {
  return typeof value === "string" ? { text: value } : isObj(value) ? value : { text: String(value) };
}

/**
 * The turns a request's `contents` stand for: a string or a Part is one user turn; a list of Contents is itself;
 * a list of strings and Parts is one user turn of those parts (mixed lists keep each Content and group the parts
 * between them). The SDK does the same before sending (its `tContents`); a value of no known shape gives `[]`.
 */
export function normalizeContents(contents: unknown): Obj[] {
  if (contents === undefined || contents === null) return [];
  if (!Array.isArray(contents)) {
    if (isContent(contents)) return [contents];
    return [{ role: "user", parts: [asPart(contents)] }];
  }
  const turns: Obj[] = [];
  let pending: Obj[] | undefined;
  for (const item of contents) {
    if (isContent(item)) {
      pending = undefined;
      turns.push(item);
    } else {
      if (!pending) {
        pending = [];
        turns.push({ role: "user", parts: pending });
      }
      pending.push(asPart(item));
    }
  }
  return turns;
}

/** The modality of a MIME type, for `blob` / `uri` parts. */
function modalityOf(mimeType: unknown): string {
  if (typeof mimeType === "string") {
    if (mimeType.startsWith("image/")) return "image";
    if (mimeType.startsWith("video/")) return "video";
    if (mimeType.startsWith("audio/")) return "audio";
  }
  return "document";
}

/** One Gemini Part as a semconv message part. */
function partOf(part: Obj): Obj {
  if (typeof part.text === "string") return { type: part.thought === true ? "reasoning" : "text", content: part.text };
  const call = part.functionCall;
  if (isObj(call)) return { type: "tool_call", id: call.id, name: call.name, arguments: call.args };
  const response = part.functionResponse;
  if (isObj(response)) return { type: "tool_call_response", id: response.id, response: response.response };
  const inline = part.inlineData;
  if (isObj(inline))
    return { type: "blob", modality: modalityOf(inline.mimeType), mime_type: inline.mimeType, content: inline.data };
  const file = part.fileData;
  if (isObj(file))
    return { type: "uri", modality: modalityOf(file.mimeType), mime_type: file.mimeType, uri: file.fileUri };
  if (isObj(part.executableCode)) return { type: "executable_code", ...part.executableCode };
  if (isObj(part.codeExecutionResult)) return { type: "code_execution_result", ...part.codeExecutionResult };
  // Anything newer: named by its first field, kept as it is.
  const key = Object.keys(part).find((k) => k !== "thought" && k !== "thoughtSignature");
  return { type: key ?? "unknown", ...part };
}

function partsOf(parts: unknown): Obj[] {
  if (!Array.isArray(parts)) return [];
  return parts.map((p) => partOf(asPart(p)));
}

/** A turn's semconv role: `model` is the assistant; a user turn of function responses only is a tool message. */
function roleOf(content: Obj, parts: Obj[]): string {
  const role = typeof content.role === "string" ? content.role : "user";
  if (role === "model") return "assistant";
  if (parts.length > 0 && parts.every((p) => p.type === "tool_call_response")) return "tool";
  return role;
}

function messagesOf(turns: Obj[]): Obj[] {
  return turns.map((content) => {
    const parts = partsOf(content.parts);
    return { role: roleOf(content, parts), parts };
  });
}

/** `config.systemInstruction` (a string, a Part, a list of them, or a Content) as semconv parts. */
function systemParts(instruction: unknown): Obj[] {
  if (instruction === undefined || instruction === null) return [];
  if (isContent(instruction)) return partsOf(instruction.parts);
  return partsOf(Array.isArray(instruction) ? instruction : [instruction]);
}

/** `config.tools` as semconv tool definitions: one per function declaration, built-in tools by their kind. */
function toolDefinitions(tools: unknown): Obj[] {
  if (!Array.isArray(tools)) return [];
  const out: Obj[] = [];
  for (const tool of tools) {
    if (!isObj(tool)) continue;
    const declarations = tool.functionDeclarations;
    if (Array.isArray(declarations)) {
      for (const d of declarations) {
        if (!isObj(d)) continue;
        const entry: Obj = { type: "function", name: d.name };
        if (d.description !== undefined) entry.description = d.description;
        const parameters = d.parametersJsonSchema ?? d.parameters;
        if (parameters !== undefined) entry.parameters = parameters;
        out.push(entry);
      }
      continue;
    }
    for (const key of Object.keys(tool)) out.push({ type: key });
  }
  return out;
}

/** The opt-in content attributes of a (serialized, redacted) `generateContent` request. */
export function geminiInputContent(params: unknown): Attributes {
  const attributes: Attributes = {};
  if (!isObj(params)) return attributes;
  const config = isObj(params.config) ? params.config : {};
  const system = systemParts(config.systemInstruction);
  if (system.length > 0) attributes[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS] = JSON.stringify(system);
  attributes[ATTR_GEN_AI_INPUT_MESSAGES] = JSON.stringify(messagesOf(normalizeContents(params.contents)));
  const tools = toolDefinitions(config.tools);
  if (tools.length > 0) attributes[ATTR_GEN_AI_TOOL_DEFINITIONS] = JSON.stringify(tools);
  return attributes;
}

/** Gemini finish reasons that mean the answer was blocked or cut by a safety or policy filter. */
const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);

/** The semconv finish reason of a candidate; one that never finished (a cut stream) gets `unfinished`. */
function finishReasonOf(reason: unknown, parts: Obj[], unfinished: string): string {
  if (typeof reason !== "string" || reason === "" || reason === "FINISH_REASON_UNSPECIFIED") return unfinished;
  if (reason === "STOP") return parts.some((p) => p.type === "tool_call") ? "tool_call" : "stop";
  if (reason === "MAX_TOKENS") return "length";
  if (FILTERED.has(reason)) return "content_filter";
  if (reason === "MALFORMED_FUNCTION_CALL" || reason === "UNEXPECTED_TOOL_CALL") return "error";
  return reason.toLowerCase();
}

/**
 * Why Gemini refused the prompt itself (`promptFeedback.blockReason`: `SAFETY`, `OTHER`, `BLOCKLIST`, …), when it did:
 * then the response has no candidates, and this is the one account of why the answer is empty. Undefined when the
 * response has candidates (a block reason only comes without them) or no block reason.
 */
export function blockReasonOf(response: Obj): string | undefined {
  if (Array.isArray(response.candidates) && response.candidates.length > 0) return undefined;
  const feedback = response.promptFeedback;
  const reason = isObj(feedback) ? feedback.blockReason : undefined;
  return typeof reason === "string" && reason !== "" ? reason : undefined;
}

/**
 * The opt-in output attribute of a (serialized, redacted) response: one assistant message per candidate. A blocked
 * prompt has none; it is one message without parts whose finish reason is `content_filter` (whatever the block
 * reason: every one of them is a filter refusing the prompt), so the output says why nothing came, as an answer
 * refused by a filter says it (the conventions' output message requires a finish reason).
 */
export function geminiOutputContent(response: unknown, unfinished: string): Attributes {
  if (!isObj(response)) return {};
  if (blockReasonOf(response) !== undefined) {
    const blocked = [{ role: "assistant", parts: [], finish_reason: "content_filter" }];
    return { [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify(blocked) };
  }
  if (!Array.isArray(response.candidates)) return {};
  const messages = response.candidates.filter(isObj).map((candidate) => {
    const content = isObj(candidate.content) ? candidate.content : {};
    const parts = partsOf(content.parts);
    return { role: "assistant", parts, finish_reason: finishReasonOf(candidate.finishReason, parts, unfinished) };
  });
  return { [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify(messages) };
}
