/**
 * Provider-neutral mapping of an OpenAI-format chat request to the GenAI semantic conventions (v1.41.1, standards
 * §3.2–3.3): the endpoint (`server.*`, `gen_ai.provider.name`), the span name and the request parameters →
 * `gen_ai.request.*`, plus the attribute names tracewire adds beyond the GenAI registry.
 *
 * The rest of the mapping lives next door: the completion → `gen_ai.response.*` / `gen_ai.usage.*` and `error.type`
 * (openai-response.ts), streamed chunks → one reassembled completion (openai-chunks.ts), and the opt-in content
 * attributes (openai-content.ts). Shared by `wrapOpenAI` (instrument/) and tracewire's own inference and training
 * clients (api/), so every chat span looks the same whichever client made it. Nothing here starts or ends spans
 * (see chat-call.ts).
 */
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_OPERATION_NAME,
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
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_TRACEWIRE_CANCEL_REASON,
  ATTR_TRACEWIRE_CANCELLED,
  ATTR_TRACEWIRE_RESPONSE_RAW,
  GEN_AI_OPERATION,
} from "../semconv.js";
import { isNum, isObj, type Obj } from "./guards.js";

// ---- attribute names beyond the GenAI registry ----------------------------------------------------------------

// Defined next to the GenAI names, since the pipeline reads them too; exported from here with the others.
export { ATTR_TRACEWIRE_CANCEL_REASON, ATTR_TRACEWIRE_CANCELLED, ATTR_TRACEWIRE_RESPONSE_RAW };
/** Engine scheduling priority of the request (training service / vLLM `priority`). */
export const ATTR_TRACEWIRE_REQUEST_PRIORITY = "tracewire.request.priority";
/** The engine request id the caller chose (training service / vLLM `request_id`). */
export const ATTR_TRACEWIRE_REQUEST_ID = "tracewire.request.id";
// OpenAI-specific attributes of the semantic conventions (`openai.md`).
/** Which OpenAI API a span used: `chat_completions` or `responses`. */
export const ATTR_OPENAI_API_TYPE = "openai.api.type";
/** The service tier the request asked for. */
export const ATTR_OPENAI_REQUEST_SERVICE_TIER = "openai.request.service_tier";
/** The service tier that served the request. */
export const ATTR_OPENAI_RESPONSE_SERVICE_TIER = "openai.response.service_tier";
/** The backend configuration fingerprint the response reports. */
export const ATTR_OPENAI_RESPONSE_SYSTEM_FINGERPRINT = "openai.response.system_fingerprint";

/**
 * `gen_ai.provider.name` values tracewire reports. `openai` and `azure.ai.openai` are the well-known semconv values;
 * the inference and training services get names of their own (stable: dashboards may filter on them).
 */
export const GEN_AI_PROVIDER = {
  openai: "openai",
  azureOpenai: "azure.ai.openai",
  azureInference: "azure.ai.inference",
  inference: "tracewire.inference",
  training: "tracewire.training",
} as const;

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
  // Azure AI Foundry: a resource's `/openai/…` path is Azure OpenAI (see foundryProvider), the rest its model
  // inference API, as are serverless deployments' hosts.
  ["services.ai.azure.com", GEN_AI_PROVIDER.azureInference],
  ["models.ai.azure.com", GEN_AI_PROVIDER.azureInference],
  ["inference.ai.azure.com", GEN_AI_PROVIDER.azureInference],
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
 * well-known host (`api.openai.com` → `openai`, `*.openai.azure.com` → `azure.ai.openai`, an Azure AI Foundry resource
 * → `azure.ai.openai` under `/openai`, else `azure.ai.inference`, …); otherwise `openai`,
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
        endpoint.provider =
          suffix === "services.ai.azure.com" && /^\/openai(?:\/|$)/.test(url.pathname)
            ? GEN_AI_PROVIDER.azureOpenai
            : provider;
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
 * What every provider's chat request starts with: operation `chat`, provider, requested model, server address and
 * port, and the stream flag. The provider's own parameters are added by its request mapping.
 */
export function chatStartAttributes(params: Obj, endpoint: ChatEndpoint, streaming: boolean): Attributes {
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
  return attributes;
}

/**
 * The attributes known when the request starts (the sampling-relevant ones included): operation, provider, model,
 * server, stream flag and request parameters, plus the training engine's `priority` and `request_id`.
 */
export function chatRequestAttributes(params: Obj, endpoint: ChatEndpoint, streaming: boolean): Attributes {
  const attributes = chatStartAttributes(params, endpoint, streaming);
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
