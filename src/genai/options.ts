/**
 * The `trace` settings of a chat client (`wrapOpenAI` options, the inference and training clients' `trace` option):
 * what they mean, their defaults and how they are checked.
 */
import { type Env, kindOf, readBoolean, unknownOption } from "../config.js";
import { ConfigError } from "../errors.js";

/** How chat calls are traced. Every field is optional; see each for its default. */
export interface ChatTraceOptions {
  /**
   * `gen_ai.provider.name` for every call. Default: detected from the base URL (our inference and training
   * services, `api.openai.com` → `openai`, Azure OpenAI → `azure.ai.openai`, a few well-known hosts; anything else
   * is reported as `openai`, the API it speaks).
   */
  providerName?: string;
  /**
   * Add `stream_options.include_usage: true` to streamed requests that do not set it themselves, so token usage
   * is recorded for streams too. The extra usage chunk (and the `usage: null` the server then adds to every other
   * chunk) is hidden from your code. Default true.
   */
  includeStreamUsage?: boolean;
  /**
   * Also record message content as the opt-in GenAI attributes `gen_ai.input.messages`, `gen_ai.output.messages`
   * and `gen_ai.tool.definitions` (JSON strings), for other OpenTelemetry backends. Default false, or true when
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. Never recorded when content capture is off
   * (`init({captureContent: false})`); always redacted by your `redact` hook first. The call's own inputs and output
   * (the calls route) follow `captureContent` alone.
   */
  contentAttributes?: boolean;
  /**
   * Keep the engine's token id arrays (`prompt_token_ids`, `token_ids`, sent with `return_token_ids`) in the
   * recorded output. Default false: they are not text, and can be longer than it.
   */
  captureTokenIds?: boolean;
}

/** {@link ChatTraceOptions} with every default applied. */
export interface ResolvedChatTraceOptions {
  providerName: string | undefined;
  includeStreamUsage: boolean;
  contentAttributes: boolean;
  captureTokenIds: boolean;
}

/** The environment variable the contrib GenAI instrumentations read to opt in to content capture. */
export const ENV_CAPTURE_MESSAGE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/** The options {@link resolveChatTraceOptions} reads, and `env` (where a wrapper reads the environment). */
const CHAT_OPTIONS = {
  providerName: true,
  includeStreamUsage: true,
  contentAttributes: true,
  captureTokenIds: true,
  env: true,
} as const satisfies Record<keyof ChatTraceOptions | "env", true>;

/** The options of `wrapAnthropic` and `wrapGoogleGenAI`. */
export const PROVIDER_WRAPPER_OPTIONS = { providerName: true, contentAttributes: true, env: true } as const;

/** Options of `init()` that users pass to a wrapper instead, and other likely slips, by their loose name. */
const OTHER_NAMES: Record<string, string> = {
  capturecontent: "init({ captureContent }): content capture is set for every call there",
  redactkeys: "init({ redactKeys })",
  redact: "init({ redact })",
  provider: "providerName",
  streamusage: "includeStreamUsage",
  includeusage: "includeStreamUsage",
  tokenids: "captureTokenIds",
};

/**
 * Throws a `ConfigError` for an option `where` does not read, naming the one it probably meant: a wrapper's options
 * object is as unchecked in JavaScript as `init()`'s, and `wrapOpenAI(client, { captureContent: false })` would
 * otherwise record content without a word.
 */
export function checkChatOptions(
  options: object,
  where: string,
  known: Readonly<Record<string, true>> = CHAT_OPTIONS,
): void {
  const unknown = unknownOption(options, known, OTHER_NAMES);
  if (!unknown) return;
  const { key, hint } = unknown;
  throw new ConfigError(
    `${where}.${key}`,
    kindOf((options as Record<string, unknown>)[key]),
    `a known option (${Object.keys(known).join(", ")})${hint ? `; did you mean ${hint}?` : ""}`,
  );
}

/** Applies defaults and checks types; a bad value is a `ConfigError` naming the option (`where` prefixes it). */
export function resolveChatTraceOptions(options: ChatTraceOptions, env: Env, where: string): ResolvedChatTraceOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options))
    throw new ConfigError(where, typeof options, "an options object");
  checkChatOptions(options, where);
  const flag = (name: keyof ChatTraceOptions, fallback: boolean): boolean => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== "boolean") throw new ConfigError(`${where}.${name}`, JSON.stringify(value), "true or false");
    return value;
  };
  const provider = options.providerName;
  if (provider !== undefined && (typeof provider !== "string" || provider.trim() === ""))
    throw new ConfigError(`${where}.providerName`, JSON.stringify(provider), "a non-empty string such as openai");
  // The contrib instrumentations also accept span_only / span_and_event here (standards §3.3).
  const raw = env[ENV_CAPTURE_MESSAGE_CONTENT]?.trim().toLowerCase();
  const fromEnv =
    raw === "span_only" || raw === "span_and_event"
      ? true
      : raw === "event_only" || raw === "no_content"
        ? false
        : (readBoolean("contentAttributes", ENV_CAPTURE_MESSAGE_CONTENT, undefined, env) ?? false);
  return {
    providerName: provider,
    includeStreamUsage: flag("includeStreamUsage", true),
    contentAttributes: flag("contentAttributes", fromEnv),
    captureTokenIds: flag("captureTokenIds", false),
  };
}
