/**
 * The chat request of the training service's embedded OpenAI-compatible engine (vLLM): the OpenAI fields it
 * honours plus its own extensions. Defaults are the engine's; "model default" means the model's
 * `generation_config.json` when it has one. Unknown fields are ignored by the engine (with a server-side warning).
 */
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionResponseFormat,
} from "../types/chat.js";
import type { JsonObject } from "../types/common.js";

/** vLLM's structured-output constraints. Use at most one of `json`, `regex`, `choice`. */
export interface StructuredOutputsParams {
  /** Output follows this JSON Schema (object or JSON string). */
  json?: string | JsonObject | null;
  /** Output matches this regular expression. */
  regex?: string | null;
  /** Output is exactly one of these strings. */
  choice?: string[] | null;
  /** Output follows this context-free grammar (EBNF / GBNF, by backend). */
  grammar?: string | null;
  /** Output is some JSON object. */
  json_object?: boolean | null;
  /** Output follows this structural-tag spec (a JSON string). */
  structural_tag?: string | null;
  /** Default false. */
  disable_any_whitespace?: boolean;
  /** Default false. */
  disable_additional_properties?: boolean;
  /** Overrides the whitespace pattern of JSON output. */
  whitespace_pattern?: string | null;
  /** Older engines: fail instead of falling back to another backend. Default false. */
  disable_fallback?: boolean;
}

/** vLLM's `response_format` adds `structural_tag` to OpenAI's three kinds. */
export type TrainingResponseFormat =
  | ChatCompletionResponseFormat
  | {
      type: "structural_tag";
      structures: { begin: string; schema?: JsonObject; end: string }[];
      triggers: string[];
    };

/** Body of `POST /v1/chat/completions` on the training service. */
export interface TrainingChatCompletionCreateParamsBase {
  // ---- OpenAI fields ----
  /** Served model, e.g. a base model or `wandb-artifact:///entity/project/name:step12`. Required. */
  model: string;
  /** The conversation. Required. */
  messages: ChatCompletionMessageParam[];
  /** Penalises tokens by how often they appeared, in [-2, 2]. Default 0. */
  frequency_penalty?: number | null;
  /** Token id (as a string) → bias added to its logit. Default none. */
  logit_bias?: Record<string, number> | null;
  /** Return logprobs of the sampled tokens. Default false. */
  logprobs?: boolean | null;
  /** Alternatives per token with `logprobs: true`. Default 0. */
  top_logprobs?: number | null;
  /** @deprecated Use `max_completion_tokens`. Default: up to the context length. */
  max_tokens?: number | null;
  /** Most tokens to generate. Default: up to the context length. */
  max_completion_tokens?: number | null;
  /** Choices to generate (the beam width with `use_beam_search`). Default 1. */
  n?: number | null;
  /** Penalises tokens that already appeared, in [-2, 2]. Default 0. */
  presence_penalty?: number | null;
  /** Output format. Default free text. */
  response_format?: TrainingResponseFormat | null;
  /** Sampling seed (int64). Default random. */
  seed?: number | null;
  /** Stop strings (not included in the output unless `include_stop_str_in_output`). Default `[]`. */
  stop?: string | string[] | null;
  /** Answer as server-sent events. Default false. */
  stream?: boolean | null;
  /**
   * Only with `stream: true`. Once present, `include_usage` defaults to **true** (unlike OpenAI);
   * `continuous_usage_stats` (default false) puts cumulative usage on every chunk.
   */
  stream_options?: { include_usage?: boolean | null; continuous_usage_stats?: boolean | null } | null;
  /** Sampling temperature, >= 0. Default: model default, else 1. */
  temperature?: number | null;
  /** Nucleus sampling, in (0, 1]. Default: model default, else 1. */
  top_p?: number | null;
  /** Function tools. Default none. */
  tools?: ChatCompletionFunctionTool[] | null;
  /** Default `"none"`, or `"auto"` when `tools` are given (`"auto"` needs server flags). */
  tool_choice?: "none" | "auto" | "required" | { type: "function"; function: { name: string } } | null;
  /** For reasoning models whose template reads it. Default none. */
  reasoning_effort?: "low" | "medium" | "high" | null;
  /** Return the reasoning (`reasoning_content`). Default true. */
  include_reasoning?: boolean;
  /** Allow more than one tool call per answer (the model decides). Default: engine-dependent. */
  parallel_tool_calls?: boolean | null;
  /** Ignored by the engine. */
  user?: string | null;

  // ---- vLLM sampling parameters ----
  /** Beam search instead of sampling; `n` is the beam width. Default false. */
  use_beam_search?: boolean;
  /** Sample from the k most likely tokens; -1 or 0 disables. Default: model default, else disabled. */
  top_k?: number | null;
  /** Drop tokens below min_p × the top probability, in [0, 1]. Default: model default, else 0. */
  min_p?: number | null;
  /** Penalises repeated tokens (> 1 discourages), > 0. Default: model default, else 1. */
  repetition_penalty?: number | null;
  /** Beam search length penalty. Default 1. */
  length_penalty?: number;
  /** Token ids that stop generation. Default `[]`. */
  stop_token_ids?: number[] | null;
  /** Keep the matched stop string in the output. Default false. */
  include_stop_str_in_output?: boolean;
  /** Keep generating past EOS. Default false. */
  ignore_eos?: boolean;
  /** Generate at least this many tokens before EOS or stop strings count. Default 0. */
  min_tokens?: number;
  /** Drop special tokens from the text. Default true. */
  skip_special_tokens?: boolean;
  /** Put spaces between special tokens in the text. Default true. */
  spaces_between_special_tokens?: boolean;
  /** Keep only the last k prompt tokens (-1: the model's limit). Default: no truncation. */
  truncate_prompt_tokens?: number | null;
  /** Logprobs per prompt token (not with `stream: true`). Default none. */
  prompt_logprobs?: number | null;
  /** Only these token ids may be generated. Default: all. */
  allowed_token_ids?: number[] | null;
  /** Words that must not be generated. Default `[]`. */
  bad_words?: string[];

  // ---- vLLM extra parameters ----
  /** Prepend the last message to the answer when both have the same role. Default false. */
  echo?: boolean;
  /** Add the template's generation prompt (start of an assistant turn). Default **true**. */
  add_generation_prompt?: boolean;
  /**
   * Leave the final message open so the model continues it (prefill). Default false. Needs
   * `add_generation_prompt: false` — this client rejects the request otherwise.
   */
  continue_final_message?: boolean;
  /** Add special tokens (e.g. BOS) on top of the template's. Default false. */
  add_special_tokens?: boolean;
  /** Documents for RAG-aware templates, ideally `{title, text}`. Default none. */
  documents?: Record<string, string>[] | null;
  /** A Jinja chat template to use instead of the tokenizer's. Default: the tokenizer's. */
  chat_template?: string | null;
  /** Extra variables for the template, e.g. `{enable_thinking: false}`. Default none. */
  chat_template_kwargs?: JsonObject | null;
  /** Extra kwargs for the multimodal processor. Default none. */
  mm_processor_kwargs?: JsonObject | null;
  /** Extra kwargs for media loading, keyed by modality. Default none. */
  media_io_kwargs?: Record<string, JsonObject> | null;
  /** Constrained decoding. Default none. */
  structured_outputs?: StructuredOutputsParams | null;
  /** Scheduling priority, lower first; non-zero needs a priority-scheduling server. Default 0. */
  priority?: number;
  /** Request id used in the engine's logs and the response. Default: a random UUID. */
  request_id?: string;
  /** Logits processors by qualified name (only those the server allows). Default none. */
  logits_processors?: (string | { qualname: string; args?: unknown[]; kwargs?: JsonObject })[] | null;
  /** With `logprobs`, report tokens as `token_id:<id>`. Default false. */
  return_tokens_as_token_ids?: boolean | null;
  /** Return token ids: `prompt_token_ids` (first chunk / response) and `token_ids` per choice. Default false. */
  return_token_ids?: boolean | null;
  /** Salt for the prefix cache, a non-empty string (isolates cache reuse). Default none. */
  cache_salt?: string | null;
  /** Disaggregated-serving (KV transfer) parameters. Default none. */
  kv_transfer_params?: JsonObject | null;
  /** Extra parameters for custom engine extensions. Default none. */
  vllm_xargs?: Record<string, string | number | (string | number)[]> | null;
}

/** A training-service chat request answered by a stream. */
export type TrainingChatCompletionCreateParamsStreaming = TrainingChatCompletionCreateParamsBase & { stream: true };
/** A training-service chat request answered by one completion. */
export type TrainingChatCompletionCreateParamsNonStreaming = TrainingChatCompletionCreateParamsBase & {
  stream?: false | null;
};
/** Either kind of training-service chat request. */
export type TrainingChatCompletionCreateParams =
  | TrainingChatCompletionCreateParamsStreaming
  | TrainingChatCompletionCreateParamsNonStreaming;
