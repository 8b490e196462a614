/**
 * OpenAI chat-completions wire types, shared by the inference service, the training service's chat endpoint and
 * the instrumentation. Field names are the wire's own. Response objects stay open (`[key: string]: unknown`) so
 * that engine extras — vLLM's `stop_reason`, `reasoning_content`, `token_ids`, `prompt_token_ids`,
 * `kv_transfer_params` — survive untouched; the ones every OpenAI-compatible engine we talk to sends are typed.
 */
import type { JsonObject } from "./common.js";

// ---- request: messages ----------------------------------------------------------------------------------------

/** `{type: "text"}` content part. */
export interface ChatCompletionContentPartText {
  type: "text";
  text: string;
}
/** `{type: "image_url"}` content part: an https URL or a `data:` URL. */
export interface ChatCompletionContentPartImage {
  type: "image_url";
  image_url: { url: string; detail?: "auto" | "low" | "high" };
}
/** `{type: "input_audio"}` content part: base64 audio. */
export interface ChatCompletionContentPartInputAudio {
  type: "input_audio";
  input_audio: { data: string; format: "wav" | "mp3" };
}
/** `{type: "file"}` content part. */
export interface ChatCompletionContentPartFile {
  type: "file";
  file: { file_data?: string; file_id?: string; filename?: string };
}
/** `{type: "refusal"}` content part (assistant messages only). */
export interface ChatCompletionContentPartRefusal {
  type: "refusal";
  refusal: string;
}
/** `{type: "video_url"}` / `{type: "audio_url"}` parts: accepted by vLLM-based engines, not by OpenAI. */
export interface ChatCompletionContentPartMediaUrl {
  type: "video_url" | "audio_url";
  video_url?: { url: string };
  audio_url?: { url: string };
}
/** Any content part of a user message. */
export type ChatCompletionContentPart =
  | ChatCompletionContentPartText
  | ChatCompletionContentPartImage
  | ChatCompletionContentPartInputAudio
  | ChatCompletionContentPartFile
  | ChatCompletionContentPartMediaUrl;

/** A tool call the assistant made: a function call with JSON-encoded `arguments`, or a custom tool's free text. */
export type ChatCompletionMessageToolCall =
  | { id: string; type: "function"; function: { name: string; arguments: string } }
  | { id: string; type: "custom"; custom: { name: string; input: string } };

/** Instructions that the model follows regardless of user messages (o1 and later; `system` elsewhere). */
export interface ChatCompletionDeveloperMessageParam {
  role: "developer";
  content: string | ChatCompletionContentPartText[];
  name?: string;
}
/** System instructions. */
export interface ChatCompletionSystemMessageParam {
  role: "system";
  content: string | ChatCompletionContentPartText[];
  name?: string;
}
/** A user turn: text or multi-part content. */
export interface ChatCompletionUserMessageParam {
  role: "user";
  content: string | ChatCompletionContentPart[];
  name?: string;
}
/** An assistant turn sent back as history (or as the prefix to continue, see `continue_final_message`). */
export interface ChatCompletionAssistantMessageParam {
  role: "assistant";
  content?: string | (ChatCompletionContentPartText | ChatCompletionContentPartRefusal)[] | null;
  name?: string;
  refusal?: string | null;
  tool_calls?: ChatCompletionMessageToolCall[];
  /** @deprecated Use `tool_calls`. */
  function_call?: { name: string; arguments: string } | null;
  audio?: { id: string } | null;
  /** vLLM: the reasoning text of an earlier turn, for templates that render it. */
  reasoning_content?: string | null;
}
/** The result of a tool call, answering `tool_call_id`. */
export interface ChatCompletionToolMessageParam {
  role: "tool";
  content: string | ChatCompletionContentPartText[];
  tool_call_id: string;
}
/** @deprecated The result of a legacy function call; use tool messages. */
export interface ChatCompletionFunctionMessageParam {
  role: "function";
  content: string | null;
  name: string;
}
/** Any message of a chat request. */
export type ChatCompletionMessageParam =
  | ChatCompletionDeveloperMessageParam
  | ChatCompletionSystemMessageParam
  | ChatCompletionUserMessageParam
  | ChatCompletionAssistantMessageParam
  | ChatCompletionToolMessageParam
  | ChatCompletionFunctionMessageParam;

// ---- request: tools and options -------------------------------------------------------------------------------

/** A function the model may call. `parameters` is a JSON Schema object. */
export interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: JsonObject;
  strict?: boolean | null;
}
/** A function tool. */
export interface ChatCompletionFunctionTool {
  type: "function";
  function: FunctionDefinition;
}
/** A custom (free-text input) tool. OpenAI only. */
export interface ChatCompletionCustomTool {
  type: "custom";
  custom: { name: string; description?: string; format?: JsonObject };
}
/** Any tool of a chat request. */
export type ChatCompletionTool = ChatCompletionFunctionTool | ChatCompletionCustomTool;

/** Which tool the model must (or may) call. */
export type ChatCompletionToolChoiceOption =
  | "none"
  | "auto"
  | "required"
  | { type: "function"; function: { name: string } }
  | { type: "custom"; custom: { name: string } }
  | { type: "allowed_tools"; allowed_tools: { mode: "auto" | "required"; tools: JsonObject[] } };

/** The output format: free text, any JSON object, or JSON that follows a schema. */
export type ChatCompletionResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; json_schema: { name: string; description?: string; schema?: JsonObject; strict?: boolean } };

/** Options of a streamed answer. */
export interface ChatCompletionStreamOptions {
  /** Send one extra last chunk with `usage` and `choices: []`. */
  include_usage?: boolean;
  /** Pad chunks with random `obfuscation` text (OpenAI only). */
  include_obfuscation?: boolean;
}

/** Body of `POST /chat/completions`, as in the OpenAI API. */
export interface ChatCompletionCreateParamsBase {
  model: string;
  messages: ChatCompletionMessageParam[];
  audio?: { format: string; voice: string } | null;
  frequency_penalty?: number | null;
  /** @deprecated Use `tool_choice`. */
  function_call?: "none" | "auto" | { name: string };
  /** @deprecated Use `tools`. */
  functions?: FunctionDefinition[];
  logit_bias?: Record<string, number> | null;
  logprobs?: boolean | null;
  max_completion_tokens?: number | null;
  /** @deprecated Use `max_completion_tokens`. */
  max_tokens?: number | null;
  metadata?: Record<string, string> | null;
  modalities?: ("text" | "audio")[] | null;
  n?: number | null;
  parallel_tool_calls?: boolean;
  prediction?: { type: "content"; content: string | ChatCompletionContentPartText[] } | null;
  presence_penalty?: number | null;
  prompt_cache_key?: string;
  reasoning_effort?: "minimal" | "low" | "medium" | "high" | null;
  response_format?: ChatCompletionResponseFormat;
  safety_identifier?: string;
  seed?: number | null;
  service_tier?: "auto" | "default" | "flex" | "scale" | "priority" | null;
  stop?: string | string[] | null;
  store?: boolean | null;
  stream?: boolean | null;
  stream_options?: ChatCompletionStreamOptions | null;
  temperature?: number | null;
  tool_choice?: ChatCompletionToolChoiceOption;
  tools?: ChatCompletionTool[];
  top_logprobs?: number | null;
  top_p?: number | null;
  user?: string;
  verbosity?: "low" | "medium" | "high" | null;
  web_search_options?: JsonObject;
}
/** A request answered by a stream of {@link ChatCompletionChunk}s. */
export type ChatCompletionCreateParamsStreaming = ChatCompletionCreateParamsBase & { stream: true };
/** A request answered by one {@link ChatCompletion}. */
export type ChatCompletionCreateParamsNonStreaming = ChatCompletionCreateParamsBase & { stream?: false | null };
/** Either kind of request. */
export type ChatCompletionCreateParams = ChatCompletionCreateParamsStreaming | ChatCompletionCreateParamsNonStreaming;

// ---- responses ------------------------------------------------------------------------------------------------

/** Why generation stopped. vLLM adds `abort`, `error` and `repetition`; other engines may add more. */
export type ChatCompletionFinishReason =
  | "stop"
  | "length"
  | "tool_calls"
  | "content_filter"
  | "function_call"
  | (string & {});

/** Log probability of one token, with its most likely alternatives. */
export interface ChatCompletionTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: { token: string; logprob: number; bytes: number[] | null }[];
}
/** Log probabilities of a choice. */
export interface ChatCompletionChoiceLogprobs {
  content: ChatCompletionTokenLogprob[] | null;
  refusal?: ChatCompletionTokenLogprob[] | null;
  [key: string]: unknown;
}

/** Token counts of one request. The `*_details` objects are absent or null when the engine does not report them. */
export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: {
    cached_tokens?: number | null;
    audio_tokens?: number | null;
    [key: string]: unknown;
  } | null;
  completion_tokens_details?: {
    reasoning_tokens?: number | null;
    audio_tokens?: number | null;
    accepted_prediction_tokens?: number | null;
    rejected_prediction_tokens?: number | null;
    [key: string]: unknown;
  } | null;
  [key: string]: unknown;
}

/** The assistant message of a non-streamed choice. */
export interface ChatCompletionMessage {
  role: "assistant";
  content: string | null;
  refusal?: string | null;
  tool_calls?: ChatCompletionMessageToolCall[];
  /** @deprecated Use `tool_calls`. */
  function_call?: { name: string; arguments: string } | null;
  annotations?: JsonObject[];
  audio?: JsonObject | null;
  /** vLLM and other reasoning engines: the model's reasoning, separate from `content`. */
  reasoning_content?: string | null;
  [key: string]: unknown;
}

/** One choice of a {@link ChatCompletion}. */
export interface ChatCompletionChoice {
  index: number;
  message: ChatCompletionMessage;
  finish_reason: ChatCompletionFinishReason;
  logprobs: ChatCompletionChoiceLogprobs | null;
  /** vLLM: the stop string (string) or stop token id (number) that ended generation; null for EOS or length. */
  stop_reason?: number | string | null;
  /** vLLM with `return_token_ids`: the generated token ids. */
  token_ids?: number[] | null;
  [key: string]: unknown;
}

/** Answer of a non-streamed `POST /chat/completions`. */
export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: ChatCompletionChoice[];
  usage?: CompletionUsage;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  /** vLLM with `return_token_ids`: the prompt's token ids. */
  prompt_token_ids?: number[] | null;
  /** vLLM with `prompt_logprobs`: per prompt token, a map of token id to logprob (null for the first token). */
  prompt_logprobs?: (Record<string, JsonObject> | null)[] | null;
  /** vLLM disaggregated serving: parameters to hand to the decode instance. */
  kv_transfer_params?: JsonObject | null;
  [key: string]: unknown;
}

/** A partial tool call inside a streamed delta; fragments with the same `index` belong together. */
export interface ChatCompletionChunkToolCall {
  index: number;
  id?: string;
  type?: "function";
  function?: { name?: string; arguments?: string };
  [key: string]: unknown;
}

/** What a chunk adds to a choice. */
export interface ChatCompletionChunkDelta {
  role?: "developer" | "system" | "user" | "assistant" | "tool";
  content?: string | null;
  refusal?: string | null;
  tool_calls?: ChatCompletionChunkToolCall[];
  /** @deprecated Use `tool_calls`. */
  function_call?: { name?: string; arguments?: string };
  /** vLLM and other reasoning engines: a piece of the model's reasoning. */
  reasoning_content?: string | null;
  [key: string]: unknown;
}

/** One choice of a {@link ChatCompletionChunk}. */
export interface ChatCompletionChunkChoice {
  index: number;
  delta: ChatCompletionChunkDelta;
  finish_reason: ChatCompletionFinishReason | null;
  logprobs?: ChatCompletionChoiceLogprobs | null;
  /** vLLM: see {@link ChatCompletionChoice.stop_reason}; set on the last chunk of a choice. */
  stop_reason?: number | string | null;
  /** vLLM with `return_token_ids`: the token ids of this delta. */
  token_ids?: number[] | null;
  [key: string]: unknown;
}

/**
 * One event of a streamed answer. With `stream_options.include_usage` the last chunk has `choices: []` and
 * `usage` set; vLLM's `continuous_usage_stats` puts cumulative `usage` on every chunk.
 */
export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: ChatCompletionChunkChoice[];
  usage?: CompletionUsage | null;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  /** vLLM with `return_token_ids`: the prompt's token ids, on the first chunk only. */
  prompt_token_ids?: number[] | null;
  [key: string]: unknown;
}

// ---- models ---------------------------------------------------------------------------------------------------

/** One entry of `GET /models`. `root` names the base model a LoRA or alias resolves to. */
export interface Model {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
  root?: string | null;
  [key: string]: unknown;
}

/** Answer of `GET /models`. */
export interface ModelList {
  object: "list";
  data: Model[];
  [key: string]: unknown;
}
