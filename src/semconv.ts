/**
 * GenAI semantic-convention attribute names (OpenTelemetry semantic conventions v1.41.1, the last release with
 * GenAI content; `@opentelemetry/semantic-conventions` now marks these deprecated and recommends copying them).
 * Kept here, in one place, so spans from every instrumentation use exactly the same keys.
 */
export const ATTR_GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const ATTR_GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
export const ATTR_GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id";
export const ATTR_GEN_AI_OUTPUT_TYPE = "gen_ai.output.type";
export const ATTR_GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
export const ATTR_GEN_AI_REQUEST_CHOICE_COUNT = "gen_ai.request.choice.count";
export const ATTR_GEN_AI_REQUEST_SEED = "gen_ai.request.seed";
export const ATTR_GEN_AI_REQUEST_STREAM = "gen_ai.request.stream";
export const ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY = "gen_ai.request.frequency_penalty";
export const ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY = "gen_ai.request.presence_penalty";
export const ATTR_GEN_AI_REQUEST_TEMPERATURE = "gen_ai.request.temperature";
export const ATTR_GEN_AI_REQUEST_TOP_P = "gen_ai.request.top_p";
export const ATTR_GEN_AI_REQUEST_TOP_K = "gen_ai.request.top_k";
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens";
export const ATTR_GEN_AI_REQUEST_STOP_SEQUENCES = "gen_ai.request.stop_sequences";
export const ATTR_GEN_AI_RESPONSE_ID = "gen_ai.response.id";
export const ATTR_GEN_AI_RESPONSE_MODEL = "gen_ai.response.model";
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons";
/** Seconds from request to the first streamed chunk. */
export const ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK = "gen_ai.response.time_to_first_chunk";
/** Includes cached tokens. */
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = "gen_ai.usage.cache_read.input_tokens";
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = "gen_ai.usage.cache_creation.input_tokens";
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = "gen_ai.usage.reasoning.output_tokens";
/** Opt-in content attributes: JSON strings (SDK 2.x accepts only primitive attribute values). */
export const ATTR_GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages";
export const ATTR_GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages";
export const ATTR_GEN_AI_SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions";
export const ATTR_GEN_AI_TOOL_DEFINITIONS = "gen_ai.tool.definitions";
export const ATTR_GEN_AI_TOOL_NAME = "gen_ai.tool.name";
export const ATTR_GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id";
/** Embeddings: the number of dimensions of each vector (requested, or as returned). */
export const ATTR_GEN_AI_EMBEDDINGS_DIMENSION_COUNT = "gen_ai.embeddings.dimension.count";
/** Embeddings: the encoding formats the request asked for (`float`, `base64`). */
export const ATTR_GEN_AI_REQUEST_ENCODING_FORMATS = "gen_ai.request.encoding_formats";
export const ATTR_ERROR_TYPE = "error.type";
export const ATTR_SERVER_ADDRESS = "server.address";
export const ATTR_SERVER_PORT = "server.port";

// tracewire's own attributes on chat spans, read by the pipeline too (the call record's summary, span-to-call.ts).
/** `true` when the caller stopped the call (abort, `break`, an abandoned stream) — not an error. */
export const ATTR_TRACEWIRE_CANCELLED = "tracewire.cancelled";
/** Why a cancelled call stopped: `abort` (AbortSignal / controller), `break` (iteration stopped early), `abandoned`. */
export const ATTR_TRACEWIRE_CANCEL_REASON = "tracewire.cancel.reason";
/** `true` when the caller read the raw HTTP response (`asResponse()`), so the body was not seen by tracewire. */
export const ATTR_TRACEWIRE_RESPONSE_RAW = "tracewire.response.raw";

/** Well-known `gen_ai.operation.name` values used by tracewire. */
export const GEN_AI_OPERATION = {
  chat: "chat",
  /** Multimodal content generation, such as Gemini's `generateContent` (the semconv well-known value). */
  generateContent: "generate_content",
  embeddings: "embeddings",
  executeTool: "execute_tool",
  invokeAgent: "invoke_agent",
} as const;
