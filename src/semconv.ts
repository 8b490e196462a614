/**
 * GenAI semantic-convention attribute names (OpenTelemetry semantic conventions v1.41.1, the last release with
 * GenAI content; `@opentelemetry/semantic-conventions` now marks these deprecated and recommends copying them).
 * Kept here, in one place, so spans from every instrumentation use exactly the same keys.
 */
/** The operation: `chat`, `embeddings`, `execute_tool`, `invoke_agent`, … (see {@link GEN_AI_OPERATION}). */
export const ATTR_GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
/** The provider that served the request (`openai`, `anthropic`, `azure.ai.openai`, …). */
export const ATTR_GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
/** The conversation (thread) the call belongs to. */
export const ATTR_GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id";
/** The output type the request asked for: `text`, `json`, `image`, `speech`. */
export const ATTR_GEN_AI_OUTPUT_TYPE = "gen_ai.output.type";
/** The model the request named. */
export const ATTR_GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
/** How many choices the request asked for (`n`), when not 1. */
export const ATTR_GEN_AI_REQUEST_CHOICE_COUNT = "gen_ai.request.choice.count";
/** The request's sampling seed. */
export const ATTR_GEN_AI_REQUEST_SEED = "gen_ai.request.seed";
/** Whether the request asked for a streamed response. */
export const ATTR_GEN_AI_REQUEST_STREAM = "gen_ai.request.stream";
/** The request's frequency penalty. */
export const ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY = "gen_ai.request.frequency_penalty";
/** The request's presence penalty. */
export const ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY = "gen_ai.request.presence_penalty";
/** The request's sampling temperature. */
export const ATTR_GEN_AI_REQUEST_TEMPERATURE = "gen_ai.request.temperature";
/** The request's nucleus-sampling `top_p`. */
export const ATTR_GEN_AI_REQUEST_TOP_P = "gen_ai.request.top_p";
/** The request's `top_k`. */
export const ATTR_GEN_AI_REQUEST_TOP_K = "gen_ai.request.top_k";
/** The most tokens the request lets the model generate. */
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens";
/** The request's stop sequences. */
export const ATTR_GEN_AI_REQUEST_STOP_SEQUENCES = "gen_ai.request.stop_sequences";
/** The id the provider gave the response. */
export const ATTR_GEN_AI_RESPONSE_ID = "gen_ai.response.id";
/** The model that answered (may differ from the requested one, e.g. a dated version). */
export const ATTR_GEN_AI_RESPONSE_MODEL = "gen_ai.response.model";
/** Why generation stopped, one reason per choice (`stop`, `length`, `tool_calls`, …). */
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons";
/** Seconds from request to the first streamed chunk. */
export const ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK = "gen_ai.response.time_to_first_chunk";
/** Tokens of the prompt; includes cached tokens. */
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
/** Tokens the model generated. */
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
/** Input tokens served from the provider's prompt cache (included in the input tokens). */
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = "gen_ai.usage.cache_read.input_tokens";
/** Input tokens written to the provider's prompt cache (included in the input tokens). */
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = "gen_ai.usage.cache_creation.input_tokens";
/** Output tokens spent on reasoning (included in the output tokens). */
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = "gen_ai.usage.reasoning.output_tokens";
/**
 * Opt-in content: the input messages, as a JSON string. The content attributes are JSON strings because SDK 2.x
 * accepts only primitive attribute values.
 */
export const ATTR_GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages";
/** Opt-in content: the model's output messages, as a JSON string. */
export const ATTR_GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages";
/** Opt-in content: the system instructions, as a JSON string. */
export const ATTR_GEN_AI_SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions";
/** Opt-in content: the tools the request offered the model, as a JSON string. */
export const ATTR_GEN_AI_TOOL_DEFINITIONS = "gen_ai.tool.definitions";
/** The name of the tool a tool-execution span ran. */
export const ATTR_GEN_AI_TOOL_NAME = "gen_ai.tool.name";
/** The agent an `invoke_agent` span runs (agent frameworks). */
export const ATTR_GEN_AI_AGENT_NAME = "gen_ai.agent.name";
/** The id of the model's tool call that a tool-execution span answers. */
export const ATTR_GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id";
/** Embeddings: the number of dimensions of each vector (requested, or as returned). */
export const ATTR_GEN_AI_EMBEDDINGS_DIMENSION_COUNT = "gen_ai.embeddings.dimension.count";
/** Embeddings: the encoding formats the request asked for (`float`, `base64`). */
export const ATTR_GEN_AI_REQUEST_ENCODING_FORMATS = "gen_ai.request.encoding_formats";
/** The class of error a failed operation ended with (an error code or class name). */
export const ATTR_ERROR_TYPE = "error.type";
/** The host name of the server the request went to. */
export const ATTR_SERVER_ADDRESS = "server.address";
/** The port of the server the request went to. */
export const ATTR_SERVER_PORT = "server.port";

// tracewire's own attributes on chat spans, read by the pipeline too (the call record's summary, span-to-call.ts).
/** `true` when the call stopped before it finished (abort, `break`, an abandoned stream, shutdown) — not an error. */
export const ATTR_TRACEWIRE_CANCELLED = "tracewire.cancelled";
/**
 * Why a cancelled call stopped: `abort` (AbortSignal / controller), `break` (iteration stopped early), `abandoned`,
 * `shutdown` (still running when the processor shut down).
 */
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
