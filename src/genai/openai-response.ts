/**
 * The answer side of the GenAI chat mapping (see openai-chat.ts for the request side): a completion (or a reassembled
 * stream) → `gen_ai.response.*`, `gen_ai.usage.*` and the OpenAI response attributes; a failure → `error.type`; and
 * the completion as recorded, without the engine's token id arrays.
 */
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
} from "../semconv.js";
import { isNum, isObj } from "./guards.js";
import { ATTR_OPENAI_RESPONSE_SERVICE_TIER, ATTR_OPENAI_RESPONSE_SYSTEM_FINGERPRINT } from "./openai-chat.js";

/**
 * Response and usage attributes of a completion (or of a reassembled stream). `gen_ai.usage.input_tokens` is
 * `prompt_tokens`, which already includes cached tokens, as the conventions ask.
 */
export function chatResponseAttributes(completion: unknown, attributes: Attributes = {}): Attributes {
  if (!isObj(completion)) return attributes;
  if (typeof completion.id === "string") attributes[ATTR_GEN_AI_RESPONSE_ID] = completion.id;
  if (typeof completion.model === "string") attributes[ATTR_GEN_AI_RESPONSE_MODEL] = completion.model;
  if (typeof completion.system_fingerprint === "string")
    attributes[ATTR_OPENAI_RESPONSE_SYSTEM_FINGERPRINT] = completion.system_fingerprint;
  if (typeof completion.service_tier === "string")
    attributes[ATTR_OPENAI_RESPONSE_SERVICE_TIER] = completion.service_tier;
  const choices = completion.choices;
  if (Array.isArray(choices) && choices.length > 0) {
    const reasons: string[] = [];
    for (const choice of choices) {
      const reason = isObj(choice) ? choice.finish_reason : undefined;
      if (typeof reason === "string") reasons.push(reason);
    }
    if (reasons.length > 0) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = reasons;
  }
  usageAttributes(completion.usage, attributes);
  return attributes;
}

/** The field names of an OpenAI usage object: chat completions' by default, the Responses API's their own. */
export interface UsageFields {
  input: string;
  output: string;
  inputDetails: string;
  outputDetails: string;
}

const CHAT_USAGE: UsageFields = {
  input: "prompt_tokens",
  output: "completion_tokens",
  inputDetails: "prompt_tokens_details",
  outputDetails: "completion_tokens_details",
};

/** `gen_ai.usage.*` (input, output, cached input, reasoning output tokens) from an OpenAI usage object. */
export function usageAttributes(usage: unknown, attributes: Attributes, fields: UsageFields = CHAT_USAGE): void {
  if (!isObj(usage)) return;
  const input = usage[fields.input];
  const output = usage[fields.output];
  if (isNum(input)) attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = input;
  if (isNum(output)) attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = output;
  const inputDetails = usage[fields.inputDetails];
  if (isObj(inputDetails) && isNum(inputDetails.cached_tokens))
    attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = inputDetails.cached_tokens;
  const outputDetails = usage[fields.outputDetails];
  if (isObj(outputDetails) && isNum(outputDetails.reasoning_tokens))
    attributes[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = outputDetails.reasoning_tokens;
}

/**
 * The completion without the engine's token id arrays (`prompt_token_ids`, per-choice `token_ids`): they are not
 * content a person reads, and can be longer than the text. Returns the same object when there are none.
 */
export function withoutTokenIds(completion: unknown): unknown {
  if (!isObj(completion)) return completion;
  const choices = Array.isArray(completion.choices) ? completion.choices : [];
  const choiceHasIds = choices.some((c) => isObj(c) && "token_ids" in c);
  if (!("prompt_token_ids" in completion) && !choiceHasIds) return completion;
  const { prompt_token_ids: _prompt, ...rest } = completion;
  if (choiceHasIds) {
    rest.choices = choices.map((choice) => {
      if (!isObj(choice) || !("token_ids" in choice)) return choice;
      const { token_ids: _ids, ...other } = choice;
      return other;
    });
  }
  return rest;
}

/** The first error code (`ECONNRESET`, `UND_ERR_SOCKET`, a provider's `code`) on `err` or its chain of causes. */
function codeOf(err: unknown): string | undefined {
  let current = err;
  for (let depth = 0; depth < 5 && isObj(current); depth++) {
    if (typeof current.code === "string" && current.code !== "") return current.code;
    current = current.cause;
  }
  return undefined;
}

/**
 * `error.type`: the HTTP status, else the error code (the provider's, or for a connection cut the socket's, read
 * through the error's `cause` chain), else the provider's error type, else the error class, else `_OTHER`.
 */
export function errorTypeOf(err: unknown): string {
  if (isObj(err)) {
    if (isNum(err.status) && err.status > 0) return String(err.status);
    const code = codeOf(err);
    if (code !== undefined) return code;
    if (typeof err.type === "string" && err.type !== "") return err.type;
    const ctor = (err as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof ctor === "string" && ctor !== "" && ctor !== "Error" && ctor !== "Object") return ctor;
    if (typeof err.name === "string" && err.name !== "" && err.name !== "Error") return err.name;
  }
  return "_OTHER";
}
