/**
 * OpenAI embeddings (`POST /v1/embeddings`) as a {@link CallFormat}: a GenAI `embeddings {model}` span with
 * `gen_ai.operation.name=embeddings`, the requested `dimensions` and `encoding_format`, the number of inputs
 * ({@link ATTR_TRACEWIRE_EMBEDDINGS_INPUT_COUNT}), the response model, the dimension count of the vectors returned
 * and `gen_ai.usage.input_tokens`. The vectors themselves are never recorded: the call's output is
 * `{object, model, count, dimensions, usage}`.
 */
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_EMBEDDINGS_DIMENSION_COUNT,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_ENCODING_FORMATS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_OPERATION,
} from "../semconv.js";
import { type CallFormat, OPENAI_CHAT_FORMAT } from "./call-format.js";
import { isNum, isObj, type Obj } from "./guards.js";
import { type ChatEndpoint, chatRequestAttributes } from "./openai-chat.js";

/** How many inputs an embeddings request sent (a string is one; a list of strings or of token arrays, its length). */
export const ATTR_TRACEWIRE_EMBEDDINGS_INPUT_COUNT = "tracewire.embeddings.input_count";

/** `embeddings {model}`, the span name the conventions ask for. */
export function embeddingsSpanName(params: Obj): string {
  const model = params.model;
  const operation = GEN_AI_OPERATION.embeddings;
  return typeof model === "string" && model !== "" ? `${operation} ${model}` : operation;
}

/** How many inputs `input` holds: a string or one token array is one, a list of strings or token arrays its length. */
export function embeddingsInputCount(input: unknown): number | undefined {
  if (typeof input === "string") return 1;
  if (!Array.isArray(input)) return undefined;
  return input.length > 0 && input.every(isNum) ? 1 : input.length;
}

/** The request attributes of an embeddings request. */
export function embeddingsRequestAttributes(params: Obj, endpoint: ChatEndpoint): Attributes {
  const attributes = chatRequestAttributes({ model: params.model }, endpoint, false);
  attributes[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION.embeddings;
  if (isNum(params.dimensions)) attributes[ATTR_GEN_AI_EMBEDDINGS_DIMENSION_COUNT] = params.dimensions;
  if (typeof params.encoding_format === "string")
    attributes[ATTR_GEN_AI_REQUEST_ENCODING_FORMATS] = [params.encoding_format];
  const count = embeddingsInputCount(params.input);
  if (count !== undefined) attributes[ATTR_TRACEWIRE_EMBEDDINGS_INPUT_COUNT] = count;
  return attributes;
}

/** The length of one vector: floats, or a base64 string of float32 values. */
function dimensionsOf(embedding: unknown): number | undefined {
  if (Array.isArray(embedding) || ArrayBuffer.isView(embedding)) return (embedding as ArrayLike<unknown>).length;
  if (typeof embedding !== "string") return undefined;
  const padding = embedding.endsWith("==") ? 2 : embedding.endsWith("=") ? 1 : 0;
  return Math.floor(((embedding.length * 3) / 4 - padding) / 4);
}

/** What an embeddings call records as output: everything but the vectors. */
export function embeddingsSummary(response: unknown): unknown {
  if (!isObj(response)) return response;
  const data = Array.isArray(response.data) ? response.data : [];
  const first = isObj(data[0]) ? data[0].embedding : undefined;
  const summary: Obj = { object: response.object, model: response.model, count: data.length };
  const dimensions = dimensionsOf(first);
  if (dimensions !== undefined) summary.dimensions = dimensions;
  if (response.usage !== undefined) summary.usage = response.usage;
  return summary;
}

/** Response attributes of an embeddings response: model, dimension count, input tokens. */
export function embeddingsResponseAttributes(response: unknown, attributes: Attributes): void {
  if (!isObj(response)) return;
  if (typeof response.model === "string") attributes[ATTR_GEN_AI_RESPONSE_MODEL] = response.model;
  const data = Array.isArray(response.data) ? response.data : [];
  const dimensions = dimensionsOf(isObj(data[0]) ? data[0].embedding : undefined);
  if (dimensions !== undefined) attributes[ATTR_GEN_AI_EMBEDDINGS_DIMENSION_COUNT] = dimensions;
  const usage = response.usage;
  if (isObj(usage) && isNum(usage.prompt_tokens)) attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = usage.prompt_tokens;
}

/** The embeddings format (see the module comment). Never streamed. */
export const OPENAI_EMBEDDINGS_FORMAT: CallFormat = {
  spanName: embeddingsSpanName,
  requestAttributes: embeddingsRequestAttributes,
  responseAttributes: embeddingsResponseAttributes,
  recordedOutput: embeddingsSummary,
  inputContent: () => ({}),
  outputContent: () => ({}),
  accumulator: OPENAI_CHAT_FORMAT.accumulator,
  injectsStreamUsage: false,
};
