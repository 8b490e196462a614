/**
 * Client-side checks of a training-service chat request: only combinations the engine rejects in every version
 * we know of (its request validators and sampling-parameter checks), so a request never fails here that the
 * server would accept. Each message says what to change.
 */
import { ValidationError } from "../../errors.js";
import { describeValue } from "../base.js";
import type { TrainingChatCompletionCreateParams } from "./chat-params.js";

const METHOD = "chat.completions.create";

function fail(message: string, param: string): never {
  throw new ValidationError(`${METHOD}: ${message}`, param);
}

const isSet = (value: unknown): boolean => value !== undefined && value !== null;
const isNum = (value: unknown): value is number => typeof value === "number";

/** Numeric ranges the engine's sampling parameters enforce (vLLM `SamplingParams._verify_args`). */
const RANGES: { param: string; ok: (v: number) => boolean; expected: string }[] = [
  { param: "n", ok: (v) => Number.isInteger(v) && v >= 1, expected: "an integer >= 1" },
  { param: "presence_penalty", ok: (v) => v >= -2 && v <= 2, expected: "between -2 and 2" },
  { param: "frequency_penalty", ok: (v) => v >= -2 && v <= 2, expected: "between -2 and 2" },
  { param: "repetition_penalty", ok: (v) => v > 0, expected: "> 0 (1 means no penalty)" },
  { param: "temperature", ok: (v) => v >= 0, expected: ">= 0" },
  { param: "top_p", ok: (v) => v > 0 && v <= 1, expected: "in (0, 1]" },
  { param: "min_p", ok: (v) => v >= 0 && v <= 1, expected: "between 0 and 1" },
  { param: "max_tokens", ok: (v) => v >= 1, expected: ">= 1" },
  { param: "max_completion_tokens", ok: (v) => v >= 1, expected: ">= 1" },
  { param: "min_tokens", ok: (v) => v >= 0, expected: ">= 0" },
  {
    param: "top_k",
    ok: (v) => v === -1 || v === 0 || (Number.isInteger(v) && v >= 1),
    expected: "-1 or 0 (off) or an integer >= 1",
  },
  { param: "top_logprobs", ok: (v) => Number.isInteger(v) && v >= 0, expected: "an integer >= 0" },
];

/** Throws a {@link ValidationError} for a request the engine would reject; returns nothing otherwise. */
export function validateTrainingChatParams(params: TrainingChatCompletionCreateParams): void {
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    throw new ValidationError(`${METHOD} expects a request object, got ${params === null ? "null" : typeof params}.`);
  }
  if (typeof params.model !== "string" || params.model.trim() === "") {
    fail(`model must be a non-empty string, got ${JSON.stringify(params.model)}.`, "model");
  }
  if (!Array.isArray(params.messages)) fail("messages must be an array of chat messages.", "messages");

  // add_generation_prompt defaults to true, and the engine (or the chat template) refuses it together with
  // continue_final_message — so "continue" alone is always an error on the server, after a round trip.
  if (params.continue_final_message === true && params.add_generation_prompt !== false) {
    fail(
      "continue_final_message: true requires add_generation_prompt: false (add_generation_prompt defaults to " +
        "true, and the engine cannot both continue the final message and open a new assistant turn). " +
        "Pass { continue_final_message: true, add_generation_prompt: false }.",
      "add_generation_prompt",
    );
  }

  const streamOptions = params.stream_options;
  if (isSet(streamOptions) && Object.keys(streamOptions as object).length > 0 && params.stream !== true) {
    fail(
      "stream_options can only be set with stream: true. Add stream: true or drop stream_options.",
      "stream_options",
    );
  }
  if (params.stream === true && isNum(params.prompt_logprobs) && params.prompt_logprobs !== 0) {
    fail("prompt_logprobs is not available with stream: true. Drop one of the two.", "prompt_logprobs");
  }
  if (isNum(params.top_logprobs) && params.top_logprobs !== 0 && params.logprobs !== true) {
    fail("top_logprobs needs logprobs: true. Add logprobs: true or drop top_logprobs.", "top_logprobs");
  }

  const constraints = params.structured_outputs;
  if (isSet(constraints)) {
    const kinds = (["json", "regex", "choice"] as const).filter((key) => isSet(constraints?.[key]));
    if (kinds.length > 1) {
      fail(
        `structured_outputs takes one kind of constraint, got ${kinds.join(" and ")}. Keep only one of them.`,
        "structured_outputs",
      );
    }
  }

  if (params.cache_salt !== undefined && params.cache_salt !== null) {
    if (typeof params.cache_salt !== "string" || params.cache_salt === "") {
      fail("cache_salt must be a non-empty string when set. Drop it to share the prefix cache.", "cache_salt");
    }
  }

  const choice = params.tool_choice;
  if (isSet(choice) && choice !== "none") {
    if (!Array.isArray(params.tools)) {
      fail(`tool_choice ${JSON.stringify(choice)} needs tools. Pass tools, or tool_choice: "none".`, "tool_choice");
    }
    if (typeof choice === "object" && choice !== null) {
      const name = choice.function?.name;
      if (!params.tools.some((tool) => tool?.function?.name === name)) {
        fail(`tool_choice names the function ${JSON.stringify(name)}, which is not among tools.`, "tool_choice");
      }
    }
  }

  const record = params as unknown as Record<string, unknown>;
  for (const { param, ok, expected } of RANGES) {
    const value = record[param];
    if (isSet(value) && (!isNum(value) || !Number.isFinite(value) || !ok(value))) {
      fail(`${param} must be ${expected}, got ${describeValue(value)}.`, param);
    }
  }
  const maxTokens = params.max_completion_tokens ?? params.max_tokens;
  if (isNum(params.min_tokens) && isNum(maxTokens) && params.min_tokens > maxTokens) {
    fail(`min_tokens (${params.min_tokens}) must not exceed the token limit (${maxTokens}).`, "min_tokens");
  }
  const stops = typeof params.stop === "string" ? [params.stop] : (params.stop ?? []);
  if (Array.isArray(stops) && stops.includes("")) {
    fail("stop must not contain an empty string.", "stop");
  }
}
