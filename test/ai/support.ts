/**
 * What the AI SDK tests share: the tools both majors are given (the stand-in answers any request offering tools with
 * two parallel calls, `get_weather` and `get_time`, then text once it sees their results), what those tools return,
 * and helpers to read the recorded tree.
 */
import type { JSONSchema7 } from "ai6";
import { afterEach, expect } from "vitest";
import { setupOpenAIServer } from "../instrument/support.js";
import { endedOnce } from "../support/call-tree.js";
import { MODEL_SUFFIX, USAGE } from "../support/openai-server.js";
import type { TracingDouble } from "../support/tracing-double.js";
import { setupSessionPerTest } from "../support/tracing-session.js";

export const MODEL = "gpt-4o-mini";
export const WEATHER_SCHEMA: JSONSchema7 = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};
export const TIME_SCHEMA: JSONSchema7 = {
  type: "object",
  properties: { tz: { type: "string" } },
  required: ["tz"],
  additionalProperties: false,
};
export const WEATHER = { city: "Paris", celsius: 21 };
export const TIME = "12:00";

/**
 * The usage `requests` stand-in requests record, keyed by the model that answered (one by default: a model call's;
 * an operation's is that of all its model calls, rolled up).
 */
export function usageOf(responseModel: string, requests = 1) {
  return {
    [responseModel]: {
      prompt_tokens: requests * USAGE.prompt_tokens,
      completion_tokens: requests * USAGE.completion_tokens,
      total_tokens: requests * (USAGE.prompt_tokens + USAGE.completion_tokens),
      requests,
      cache_read_input_tokens: requests * USAGE.prompt_tokens_details.cached_tokens,
      reasoning_tokens: requests * USAGE.completion_tokens_details.reasoning_tokens,
    },
  };
}

export { named, type Recorded } from "../support/call-tree.js";

/** Every call of the trace, by op name, ended exactly once (fails otherwise). */
export const recorded = (double: TracingDouble) => endedOnce(double);

/** The model the stand-in answers as (the requested one plus its dated suffix). */
export const RESPONSE_MODEL = `${MODEL}${MODEL_SUFFIX}`;
export const EMBEDDING_MODEL = "text-embedding-3-small";
/** The object schema of the `generateObject` / `streamObject` tests. */
export const CITY_SCHEMA: JSONSchema7 = {
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number" } },
  required: ["city", "celsius"],
  additionalProperties: false,
};

/** What every AI SDK test file starts: the loopback chat stand-in and a traced session per test. */
export function setupAiStandIn() {
  const ctx = setupOpenAIServer();
  const session = setupSessionPerTest();
  afterEach(() => {
    ctx.server.server.requests.length = 0;
  });
  // The SDK's own warnings (e.g. an unsupported setting of the stand-in provider) are not what these tests read.
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
  return { ctx, session };
}

/**
 * The `createOpenAICompatible` settings of the stand-in provider (either major's package takes them): the loopback
 * server, the usage chunk asked for, plus `extra`.
 */
export function standinProvider(ctx: { server: { baseURL: string } }, extra: Record<string, unknown> = {}) {
  return { name: "standin", baseURL: ctx.server.baseURL, apiKey: "sk-test", includeUsage: true, ...extra };
}
