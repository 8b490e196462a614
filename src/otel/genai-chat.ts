/**
 * Provider-neutral mapping of an OpenAI-format chat completion to the GenAI semantic conventions (v1.41.1,
 * standards §3.2–3.3): request parameters → `gen_ai.request.*`, a completion → `gen_ai.response.*` and
 * `gen_ai.usage.*`, streamed chunks → one reassembled completion, and the opt-in content attributes
 * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.tool.definitions`) as JSON strings.
 *
 * Shared by `wrapOpenAI` (instrument/) and tracewire's own inference and training clients (api/), so every chat
 * span looks the same whichever client made it. Nothing here starts or ends spans (see genai-span.ts).
 */
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_TYPE,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_CHOICE_COUNT,
  ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY,
  ATTR_GEN_AI_REQUEST_SEED,
  ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_K,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_DEFINITIONS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  GEN_AI_OPERATION,
} from "./semconv.js";

// ---- attribute names beyond the GenAI registry ----------------------------------------------------------------

/** `true` when the caller stopped the call (abort, `break`, an abandoned stream) — not an error. */
export const ATTR_TRACEWIRE_CANCELLED = "tracewire.cancelled";
/** Why a cancelled call stopped: `abort` (AbortSignal / controller), `break` (iteration stopped early), `abandoned`. */
export const ATTR_TRACEWIRE_CANCEL_REASON = "tracewire.cancel.reason";
/** `true` when the caller read the raw HTTP response (`asResponse()`), so the body was not seen by tracewire. */
export const ATTR_TRACEWIRE_RESPONSE_RAW = "tracewire.response.raw";
/** Engine scheduling priority of the request (training service / vLLM `priority`). */
export const ATTR_TRACEWIRE_REQUEST_PRIORITY = "tracewire.request.priority";
/** The engine request id the caller chose (training service / vLLM `request_id`). */
export const ATTR_TRACEWIRE_REQUEST_ID = "tracewire.request.id";
/** OpenAI-specific attributes of the semantic conventions (`openai.md`). */
export const ATTR_OPENAI_REQUEST_SERVICE_TIER = "openai.request.service_tier";
export const ATTR_OPENAI_RESPONSE_SERVICE_TIER = "openai.response.service_tier";
export const ATTR_OPENAI_RESPONSE_SYSTEM_FINGERPRINT = "openai.response.system_fingerprint";

/**
 * `gen_ai.provider.name` values tracewire reports. `openai` and `azure.ai.openai` are the well-known semconv values;
 * the inference and training services get names of their own (stable: dashboards may filter on them).
 */
export const GEN_AI_PROVIDER = {
  openai: "openai",
  azureOpenai: "azure.ai.openai",
  inference: "tracewire.inference",
  training: "tracewire.training",
} as const;

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null;
const isNum = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

// ---- provider and server ---------------------------------------------------------------------------------------

/** Where a chat request goes: `server.address` / `server.port` and the provider name. */
export interface ChatEndpoint {
  provider: string;
  address?: string;
  port?: number;
}

/** Well-known OpenAI-compatible hosts (exact host or a subdomain of it) → semconv provider names. */
const KNOWN_HOSTS: [suffix: string, provider: string][] = [
  ["openai.azure.com", GEN_AI_PROVIDER.azureOpenai],
  ["cognitiveservices.azure.com", GEN_AI_PROVIDER.azureOpenai],
  ["api.openai.com", GEN_AI_PROVIDER.openai],
  ["api.groq.com", "groq"],
  ["api.deepseek.com", "deepseek"],
  ["api.x.ai", "x_ai"],
  ["api.mistral.ai", "mistral_ai"],
  ["api.perplexity.ai", "perplexity"],
  ["generativelanguage.googleapis.com", "gcp.gemini"],
];

function parseUrl(url: string | undefined): URL | undefined {
  if (typeof url !== "string" || url === "") return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** The origin of a URL setting, or undefined when it is missing or malformed. */
export function originOf(url: string | undefined): string | undefined {
  return parseUrl(url)?.origin;
}

/**
 * The endpoint of a client whose base URL is `baseUrl`. The provider is, in order: `providerName` when given; our
 * inference / training service when the base URL has the same origin as `known.inference` / `known.training`; a
 * well-known host (`api.openai.com` → `openai`, `*.openai.azure.com` → `azure.ai.openai`, …); otherwise `openai`,
 * the API every OpenAI-compatible server speaks.
 */
export function chatEndpoint(
  baseUrl: string | undefined,
  providerName: string | undefined,
  known: { inference?: string | undefined; training?: string | undefined } = {},
): ChatEndpoint {
  const url = parseUrl(baseUrl);
  const endpoint: ChatEndpoint = { provider: providerName ?? GEN_AI_PROVIDER.openai };
  if (!url) return endpoint;
  endpoint.address = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  endpoint.port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  if (providerName !== undefined) return endpoint;
  if (known.inference !== undefined && url.origin === known.inference) endpoint.provider = GEN_AI_PROVIDER.inference;
  else if (known.training !== undefined && url.origin === known.training) endpoint.provider = GEN_AI_PROVIDER.training;
  else {
    const host = url.hostname.toLowerCase();
    for (const [suffix, provider] of KNOWN_HOSTS) {
      if (host === suffix || host.endsWith(`.${suffix}`)) {
        endpoint.provider = provider;
        break;
      }
    }
  }
  return endpoint;
}

// ---- request ---------------------------------------------------------------------------------------------------

/** `chat {model}` (or `chat` without a model), the span name the conventions ask for. */
export function chatSpanName(params: Obj): string {
  const model = params.model;
  return typeof model === "string" && model !== "" ? `${GEN_AI_OPERATION.chat} ${model}` : GEN_AI_OPERATION.chat;
}

function outputType(params: Obj): string | undefined {
  const format = params.response_format;
  if (isObj(format)) {
    if (format.type === "text") return "text";
    if (format.type === "json_object" || format.type === "json_schema") return "json";
  }
  const modalities = params.modalities;
  if (Array.isArray(modalities) && modalities.includes("audio")) return "speech";
  return undefined;
}

/**
 * The attributes known when the request starts (the sampling-relevant ones included): operation, provider, model,
 * server, stream flag and request parameters, plus the training engine's `priority` and `request_id`.
 */
export function chatRequestAttributes(params: Obj, endpoint: ChatEndpoint, streaming: boolean): Attributes {
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.chat,
    [ATTR_GEN_AI_PROVIDER_NAME]: endpoint.provider,
  };
  if (typeof params.model === "string") attributes[ATTR_GEN_AI_REQUEST_MODEL] = params.model;
  if (endpoint.address !== undefined) {
    attributes[ATTR_SERVER_ADDRESS] = endpoint.address;
    if (endpoint.port !== undefined) attributes[ATTR_SERVER_PORT] = endpoint.port;
  }
  if (streaming) attributes[ATTR_GEN_AI_REQUEST_STREAM] = true;
  if (isNum(params.n) && params.n !== 1) attributes[ATTR_GEN_AI_REQUEST_CHOICE_COUNT] = params.n;
  if (isNum(params.seed)) attributes[ATTR_GEN_AI_REQUEST_SEED] = params.seed;
  if (isNum(params.temperature)) attributes[ATTR_GEN_AI_REQUEST_TEMPERATURE] = params.temperature;
  if (isNum(params.top_p)) attributes[ATTR_GEN_AI_REQUEST_TOP_P] = params.top_p;
  if (isNum(params.top_k)) attributes[ATTR_GEN_AI_REQUEST_TOP_K] = params.top_k;
  if (isNum(params.frequency_penalty)) attributes[ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY] = params.frequency_penalty;
  if (isNum(params.presence_penalty)) attributes[ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY] = params.presence_penalty;
  const maxTokens = isNum(params.max_completion_tokens) ? params.max_completion_tokens : params.max_tokens;
  if (isNum(maxTokens)) attributes[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = maxTokens;
  const stop = params.stop;
  if (typeof stop === "string") attributes[ATTR_GEN_AI_REQUEST_STOP_SEQUENCES] = [stop];
  else if (Array.isArray(stop) && stop.every((s) => typeof s === "string"))
    attributes[ATTR_GEN_AI_REQUEST_STOP_SEQUENCES] = stop as string[];
  const type = outputType(params);
  if (type !== undefined) attributes[ATTR_GEN_AI_OUTPUT_TYPE] = type;
  if (typeof params.service_tier === "string") attributes[ATTR_OPENAI_REQUEST_SERVICE_TIER] = params.service_tier;
  if (isNum(params.priority)) attributes[ATTR_TRACEWIRE_REQUEST_PRIORITY] = params.priority;
  if (typeof params.request_id === "string") attributes[ATTR_TRACEWIRE_REQUEST_ID] = params.request_id;
  return attributes;
}

// ---- response --------------------------------------------------------------------------------------------------

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

function usageAttributes(usage: unknown, attributes: Attributes): void {
  if (!isObj(usage)) return;
  if (isNum(usage.prompt_tokens)) attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = usage.prompt_tokens;
  if (isNum(usage.completion_tokens)) attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = usage.completion_tokens;
  const prompt = usage.prompt_tokens_details;
  if (isObj(prompt) && isNum(prompt.cached_tokens))
    attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = prompt.cached_tokens;
  const completion = usage.completion_tokens_details;
  if (isObj(completion) && isNum(completion.reasoning_tokens))
    attributes[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = completion.reasoning_tokens;
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

/** `error.type`: the HTTP status, else the provider's error code or type, else the error class, else `_OTHER`. */
export function errorTypeOf(err: unknown): string {
  if (isObj(err)) {
    if (isNum(err.status) && err.status > 0) return String(err.status);
    if (typeof err.code === "string" && err.code !== "") return err.code;
    if (typeof err.type === "string" && err.type !== "") return err.type;
    const ctor = (err as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof ctor === "string" && ctor !== "" && ctor !== "Error" && ctor !== "Object") return ctor;
    if (typeof err.name === "string" && err.name !== "" && err.name !== "Error") return err.name;
  }
  return "_OTHER";
}

// ---- streaming ------------------------------------------------------------------------------------------------

interface ToolCallState {
  id: string | undefined;
  type: string | undefined;
  name: string;
  arguments: string;
}

interface ChoiceState {
  index: number;
  role: string | undefined;
  content: string | undefined;
  refusal: string | undefined;
  reasoning: string | undefined;
  reasoningKey: string;
  toolCalls: ToolCallState[] | undefined;
  functionCall: { name: string; arguments: string } | undefined;
  finishReason: string | null;
  stopReason: unknown;
  logprobs: unknown[] | undefined;
  tokenIds: number[] | undefined;
}

/**
 * Reassembles streamed chunks into the completion a non-streamed request would have returned: per choice
 * `index`, and within a choice per `tool_call.index`, so parallel tool calls keep their ids, names and arguments
 * apart however their deltas interleave. Text is concatenated as it arrives; nothing is serialized per chunk.
 * Token id arrays are only kept when asked for.
 */
export class ChatChunkAccumulator {
  /** Chunks seen (including any hidden from the consumer). */
  chunks = 0;
  private id: string | undefined;
  private created: number | undefined;
  private model: string | undefined;
  private systemFingerprint: string | undefined;
  private serviceTier: string | undefined;
  private usage: Obj | undefined;
  private promptTokenIds: unknown;
  private readonly choices: (ChoiceState | undefined)[] = [];

  constructor(private readonly keepTokenIds = false) {}

  add(chunk: unknown): void {
    if (!isObj(chunk)) return;
    this.chunks++;
    if (this.id === undefined && typeof chunk.id === "string") this.id = chunk.id;
    if (this.created === undefined && isNum(chunk.created)) this.created = chunk.created;
    if (this.model === undefined && typeof chunk.model === "string" && chunk.model !== "") this.model = chunk.model;
    if (typeof chunk.system_fingerprint === "string") this.systemFingerprint = chunk.system_fingerprint;
    if (typeof chunk.service_tier === "string") this.serviceTier = chunk.service_tier;
    if (isObj(chunk.usage)) this.usage = chunk.usage;
    if (this.keepTokenIds && chunk.prompt_token_ids != null) this.promptTokenIds = chunk.prompt_token_ids;
    const choices = chunk.choices;
    if (!Array.isArray(choices)) return;
    for (const choice of choices) if (isObj(choice)) this.addChoice(choice);
  }

  private addChoice(choice: Obj): void {
    const index = isNum(choice.index) ? choice.index : 0;
    let state = this.choices[index];
    if (!state) {
      state = {
        index,
        role: undefined,
        content: undefined,
        refusal: undefined,
        reasoning: undefined,
        reasoningKey: "reasoning_content",
        toolCalls: undefined,
        functionCall: undefined,
        finishReason: null,
        stopReason: undefined,
        logprobs: undefined,
        tokenIds: undefined,
      };
      this.choices[index] = state;
    }
    if (typeof choice.finish_reason === "string") state.finishReason = choice.finish_reason;
    if (choice.stop_reason !== undefined) state.stopReason = choice.stop_reason;
    const logprobs = choice.logprobs;
    if (isObj(logprobs) && Array.isArray(logprobs.content)) {
      state.logprobs ??= [];
      for (const entry of logprobs.content) state.logprobs.push(entry);
    }
    if (this.keepTokenIds && Array.isArray(choice.token_ids)) {
      state.tokenIds ??= [];
      for (const id of choice.token_ids) state.tokenIds.push(id as number);
    }
    const delta = choice.delta;
    if (!isObj(delta)) return;
    if (typeof delta.role === "string") state.role = delta.role;
    if (typeof delta.content === "string") state.content = (state.content ?? "") + delta.content;
    if (typeof delta.refusal === "string") state.refusal = (state.refusal ?? "") + delta.refusal;
    if (typeof delta.reasoning_content === "string") {
      state.reasoning = (state.reasoning ?? "") + delta.reasoning_content;
    } else if (typeof delta.reasoning === "string") {
      state.reasoning = (state.reasoning ?? "") + delta.reasoning;
      state.reasoningKey = "reasoning";
    }
    const fn = delta.function_call;
    if (isObj(fn)) {
      state.functionCall ??= { name: "", arguments: "" };
      if (typeof fn.name === "string" && fn.name !== "") state.functionCall.name = fn.name;
      if (typeof fn.arguments === "string") state.functionCall.arguments += fn.arguments;
    }
    const toolCalls = delta.tool_calls;
    if (Array.isArray(toolCalls)) {
      state.toolCalls ??= [];
      for (const call of toolCalls) {
        if (!isObj(call)) continue;
        const at = isNum(call.index) ? call.index : state.toolCalls.length;
        let tool = state.toolCalls[at];
        if (!tool) {
          tool = { id: undefined, type: undefined, name: "", arguments: "" };
          state.toolCalls[at] = tool;
        }
        // Like the openai package's own accumulator: ids and names replace, arguments concatenate.
        if (typeof call.id === "string" && call.id !== "") tool.id = call.id;
        if (typeof call.type === "string") tool.type = call.type;
        const f = call.function;
        if (isObj(f)) {
          if (typeof f.name === "string" && f.name !== "") tool.name = f.name;
          if (typeof f.arguments === "string") tool.arguments += f.arguments;
        }
      }
    }
  }

  /** Whether every choice seen so far has a finish reason (the answer is complete even without `[DONE]`). */
  get finished(): boolean {
    let any = false;
    for (const choice of this.choices) {
      if (!choice) continue;
      any = true;
      if (choice.finishReason === null) return false;
    }
    return any;
  }

  /** The completion the chunks add up to (`object: "chat.completion"`), in choice order. */
  completion(): Obj {
    const completion: Obj = {
      id: this.id ?? null,
      object: "chat.completion",
      created: this.created ?? null,
      model: this.model ?? null,
      choices: [],
    };
    const choices = completion.choices as Obj[];
    for (const state of this.choices) {
      if (!state) continue;
      const message: Obj = { role: state.role ?? "assistant", content: state.content ?? null };
      if (state.refusal !== undefined) message.refusal = state.refusal;
      if (state.reasoning !== undefined) message[state.reasoningKey] = state.reasoning;
      if (state.functionCall) message.function_call = { ...state.functionCall };
      if (state.toolCalls) {
        const calls: Obj[] = [];
        for (const tool of state.toolCalls) {
          if (!tool) continue;
          calls.push({
            id: tool.id ?? null,
            type: tool.type ?? "function",
            function: { name: tool.name, arguments: tool.arguments },
          });
        }
        message.tool_calls = calls;
      }
      const choice: Obj = {
        index: state.index,
        message,
        finish_reason: state.finishReason,
        logprobs: state.logprobs ? { content: state.logprobs } : null,
      };
      if (state.stopReason !== undefined) choice.stop_reason = state.stopReason;
      if (state.tokenIds) choice.token_ids = state.tokenIds;
      choices.push(choice);
    }
    if (this.usage) completion.usage = this.usage;
    if (this.systemFingerprint !== undefined) completion.system_fingerprint = this.systemFingerprint;
    if (this.serviceTier !== undefined) completion.service_tier = this.serviceTier;
    if (this.promptTokenIds !== undefined) completion.prompt_token_ids = this.promptTokenIds;
    return completion;
  }
}

// ---- content attributes (opt-in) --------------------------------------------------------------------------------

type Part = Obj;

function textParts(content: unknown): Part[] {
  if (typeof content === "string") return [{ type: "text", content }];
  if (!Array.isArray(content)) return [];
  const parts: Part[] = [];
  for (const item of content) {
    if (!isObj(item)) continue;
    switch (item.type) {
      case "text":
        parts.push({ type: "text", content: item.text });
        break;
      case "refusal":
        parts.push({ type: "refusal", content: item.refusal });
        break;
      case "image_url": {
        const url = isObj(item.image_url) ? item.image_url.url : undefined;
        parts.push(mediaPart("image", url));
        break;
      }
      case "input_audio": {
        const audio = isObj(item.input_audio) ? item.input_audio : {};
        parts.push({
          type: "blob",
          modality: "audio",
          mime_type: typeof audio.format === "string" ? `audio/${audio.format}` : undefined,
          content: audio.data,
        });
        break;
      }
      case "video_url":
        parts.push(mediaPart("video", isObj(item.video_url) ? item.video_url.url : undefined));
        break;
      case "audio_url":
        parts.push(mediaPart("audio", isObj(item.audio_url) ? item.audio_url.url : undefined));
        break;
      case "file": {
        const file = isObj(item.file) ? item.file : {};
        if (typeof file.file_id === "string") parts.push({ type: "file", modality: "document", file_id: file.file_id });
        else parts.push({ type: "blob", modality: "document", content: file.file_data });
        break;
      }
      default:
        parts.push({ ...item });
    }
  }
  return parts;
}

function mediaPart(modality: string, url: unknown): Part {
  if (typeof url === "string" && url.startsWith("data:")) {
    const comma = url.indexOf(",");
    const header = url.slice(5, comma === -1 ? undefined : comma);
    return {
      type: "blob",
      modality,
      mime_type: header.split(";")[0] || undefined,
      content: comma === -1 ? "" : url.slice(comma + 1),
    };
  }
  return { type: "uri", modality, uri: url };
}

function toolCallParts(message: Obj): Part[] {
  const parts: Part[] = [];
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isObj(call)) continue;
      const fn = isObj(call.function) ? call.function : isObj(call.custom) ? call.custom : {};
      parts.push({ type: "tool_call", id: call.id, name: fn.name, arguments: fn.arguments ?? fn.input });
    }
  }
  if (isObj(message.function_call)) {
    parts.push({ type: "tool_call", name: message.function_call.name, arguments: message.function_call.arguments });
  }
  return parts;
}

function reasoningParts(message: Obj): Part[] {
  const reasoning = message.reasoning_content ?? message.reasoning;
  return typeof reasoning === "string" && reasoning !== "" ? [{ type: "reasoning", content: reasoning }] : [];
}

/** `gen_ai.input.messages` (JSON) for an OpenAI-format message list, in the order sent. */
export function inputMessagesJson(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const out: Obj[] = [];
  for (const message of messages) {
    if (!isObj(message)) continue;
    const role = typeof message.role === "string" ? message.role : "user";
    let parts: Part[];
    if (role === "tool") {
      parts = [{ type: "tool_call_response", id: message.tool_call_id, response: message.content }];
    } else if (role === "function") {
      parts = [{ type: "tool_call_response", id: message.name, response: message.content }];
    } else {
      parts = [...reasoningParts(message), ...textParts(message.content), ...toolCallParts(message)];
    }
    const entry: Obj = { role, parts };
    if (typeof message.name === "string" && role !== "function") entry.name = message.name;
    out.push(entry);
  }
  return JSON.stringify(out);
}

/** Semconv finish reasons: `tool_calls`/`function_call` → `tool_call`; a choice that never finished → `error`. */
function semconvFinishReason(reason: unknown): string {
  if (reason === "tool_calls" || reason === "function_call") return "tool_call";
  return typeof reason === "string" && reason !== "" ? reason : "error";
}

/** `gen_ai.output.messages` (JSON): one message per choice, each with its finish reason. */
export function outputMessagesJson(completion: unknown): string | undefined {
  if (!isObj(completion) || !Array.isArray(completion.choices)) return undefined;
  const out: Obj[] = [];
  for (const choice of completion.choices) {
    if (!isObj(choice)) continue;
    const message = isObj(choice.message) ? choice.message : {};
    const parts = [...reasoningParts(message), ...textParts(message.content), ...toolCallParts(message)];
    if (typeof message.refusal === "string") parts.push({ type: "refusal", content: message.refusal });
    out.push({
      role: typeof message.role === "string" ? message.role : "assistant",
      parts,
      finish_reason: semconvFinishReason(choice.finish_reason),
    });
  }
  return JSON.stringify(out);
}

/** `gen_ai.tool.definitions` (JSON) for an OpenAI-format `tools` list. */
export function toolDefinitionsJson(tools: unknown): string | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  const out: Obj[] = [];
  for (const tool of tools) {
    if (!isObj(tool)) continue;
    const type = typeof tool.type === "string" ? tool.type : "function";
    const spec = isObj(tool[type]) ? (tool[type] as Obj) : {};
    const entry: Obj = { type, name: spec.name };
    if (spec.description !== undefined) entry.description = spec.description;
    if (spec.parameters !== undefined) entry.parameters = spec.parameters;
    out.push(entry);
  }
  return JSON.stringify(out);
}

/** The content attributes of a request, from its (already serialized and redacted) parameters. */
export function inputContentAttributes(params: unknown): Attributes {
  const attributes: Attributes = {};
  if (!isObj(params)) return attributes;
  const messages = inputMessagesJson(params.messages);
  if (messages !== undefined) attributes[ATTR_GEN_AI_INPUT_MESSAGES] = messages;
  const tools = toolDefinitionsJson(params.tools);
  if (tools !== undefined) attributes[ATTR_GEN_AI_TOOL_DEFINITIONS] = tools;
  return attributes;
}

/** The content attributes of a completion (already serialized and redacted). */
export function outputContentAttributes(completion: unknown): Attributes {
  const messages = outputMessagesJson(completion);
  return messages === undefined ? {} : { [ATTR_GEN_AI_OUTPUT_MESSAGES]: messages };
}
