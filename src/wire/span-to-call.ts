/**
 * How a span maps to the service's call records (DESIGN §2.1): call id = span id, trace id = trace id, parent id =
 * parent span id, ISO times, usage keyed by model from the GenAI attributes, the error text. The same mapping the
 * service applies to spans it receives over OTLP, so both routes build one tree. call-encode.ts writes the records;
 * the portable attributes carry a tracewire call's fields over OTLP.
 */
import { type Attributes, type HrTime, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { JsonObject, LlmUsage } from "../api/types/common.js";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_TRACEWIRE_CANCEL_REASON,
  ATTR_TRACEWIRE_CANCELLED,
  ATTR_TRACEWIRE_RESPONSE_RAW,
} from "../semconv.js";
import { wellFormedJson } from "./json-writer.js";

/**
 * Start data of a tracewire call: what it knows beyond OTel attributes. It rides to the processor on the context
 * (otel/span-data.ts) and becomes the call start record here and in call-encode.ts.
 */
export interface CallStartData {
  opName: string;
  displayName?: string;
  /** Serialised, redacted inputs. */
  inputs: JsonObject;
  /** Call attributes (from `withAttributes` and the op's own), as JSON. */
  attributes: JsonObject;
  threadId?: string;
  /** The turn this call belongs to; `"self"` makes the call its own turn. */
  turnId?: string;
  /**
   * `"calls"`: always send this call natively, whatever the export mode or route hook says. Evaluations need it:
   * the service's UI reads their refs from real JSON inputs, which only the calls route carries.
   */
  route?: "calls";
}

/** End data of a tracewire call. */
export interface CallEndData {
  /** Serialised, redacted output; absent when the call returned nothing worth keeping. */
  output?: unknown;
  /** Usage keyed by model, for a span that reports it other than as `gen_ai.usage.*` (an adapted span). */
  usage?: Record<string, LlmUsage>;
  /**
   * How an adapted span really ended, when its own status says otherwise: cancelled with this reason (a framework
   * that records a user's abort as an error), or failed with this text (one that records a failure as a success).
   */
  cancelled?: string;
  exception?: string;
}

let cachedSecond = -1;
let cachedPrefix = "";

/**
 * HrTime → ISO-8601 with millisecond precision, the service's timestamp format. Runs twice per call on the caller's
 * path, so the `YYYY-MM-DDTHH:MM:SS.` prefix is formatted once per second and reused.
 */
export function isoTime(time: HrTime): string {
  const second = time[0];
  if (second !== cachedSecond || !Number.isInteger(second)) {
    if (!Number.isInteger(second)) return new Date(second * 1000 + Math.floor(time[1] / 1e6)).toISOString();
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const ms = Math.floor(time[1] / 1e6);
  return `${cachedPrefix}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z`;
}

function intAttribute(attributes: Attributes, key: string): number | undefined {
  const value = attributes[key];
  return typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : undefined;
}

/**
 * `summary.usage` keyed by model from `gen_ai.usage.*`, or undefined when the span carries no usage. Cached and
 * reasoning tokens keep the keys the service's usage rollups read (`cache_read_input_tokens`,
 * `cache_creation_input_tokens`, `reasoning_tokens`).
 */
export function usageFromAttributes(attributes: Attributes): Record<string, LlmUsage> | undefined {
  const input = intAttribute(attributes, ATTR_GEN_AI_USAGE_INPUT_TOKENS);
  const output = intAttribute(attributes, ATTR_GEN_AI_USAGE_OUTPUT_TOKENS);
  if (input === undefined && output === undefined) return undefined;
  const model = attributes[ATTR_GEN_AI_RESPONSE_MODEL] ?? attributes[ATTR_GEN_AI_REQUEST_MODEL];
  const usage: LlmUsage = {
    prompt_tokens: input ?? 0,
    completion_tokens: output ?? 0,
    total_tokens: (input ?? 0) + (output ?? 0),
    requests: 1,
  };
  // The AI SDK 6 reports these under its own keys only (`ai.usage.*`, beside `gen_ai.usage.*`).
  const cached =
    intAttribute(attributes, ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS) ??
    intAttribute(attributes, "ai.usage.cachedInputTokens");
  if (cached !== undefined) usage.cache_read_input_tokens = cached;
  const created = intAttribute(attributes, ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS);
  if (created !== undefined) usage.cache_creation_input_tokens = created;
  const reasoning =
    intAttribute(attributes, ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS) ??
    intAttribute(attributes, "ai.usage.reasoningTokens");
  if (reasoning !== undefined) usage.reasoning_tokens = reasoning;
  return { [typeof model === "string" && model ? model : "unknown"]: usage };
}

const REQUEST_PREFIX = "gen_ai.request.";

/**
 * The request-side facts of a GenAI span as call attributes, under the keys the service's OTLP ingestion promotes
 * GenAI attributes to (`operation`, `provider`, `model`, `model_parameters`: the `gen_ai.request.*` values), plus
 * `server` (`address`, `port`): so a call looks the same whichever route brought it. Empty for other spans.
 */
export function genAiStartAttributes(attributes: Attributes): JsonObject {
  const out: JsonObject = {};
  const operation = attributes[ATTR_GEN_AI_OPERATION_NAME];
  if (typeof operation !== "string") return out;
  out.operation = operation;
  const provider = attributes[ATTR_GEN_AI_PROVIDER_NAME];
  if (typeof provider === "string") out.provider = provider;
  const model = attributes[ATTR_GEN_AI_REQUEST_MODEL];
  if (typeof model === "string") out.model = model;
  let parameters: JsonObject | undefined;
  // Runs for every call start: no entry arrays, and a key without a further dot (nearly all) is not split.
  for (const key of Object.keys(attributes)) {
    if (!key.startsWith(REQUEST_PREFIX)) continue;
    const value = attributes[key];
    if (value === undefined) continue;
    parameters ??= {};
    if (key.indexOf(".", REQUEST_PREFIX.length) === -1) {
      parameters[key.slice(REQUEST_PREFIX.length)] = value as JsonObject[string];
      continue;
    }
    // `choice.count` → `choice: {count}`, as the service splits keys on dots.
    const path = key.slice(REQUEST_PREFIX.length).split(".");
    let node = parameters;
    for (let i = 0; i < path.length - 1; i++) {
      const part = path[i] as string;
      let next = node[part];
      if (typeof next !== "object" || next === null || Array.isArray(next)) {
        next = {};
        node[part] = next;
      }
      node = next as JsonObject;
    }
    node[path[path.length - 1] as string] = value as JsonObject[string];
  }
  if (parameters !== undefined && Object.keys(parameters).length > 0) out.model_parameters = parameters;
  const address = attributes[ATTR_SERVER_ADDRESS];
  if (typeof address === "string") {
    const server: JsonObject = { address };
    const port = attributes[ATTR_SERVER_PORT];
    if (typeof port === "number") server.port = port;
    out.server = server;
  }
  return out;
}

/** `summary.gen_ai` fields and the span attributes they come from. */
const OUTCOME_FACTS: readonly (readonly [string, string])[] = [
  ["response_id", ATTR_GEN_AI_RESPONSE_ID],
  ["response_model", ATTR_GEN_AI_RESPONSE_MODEL],
  ["finish_reasons", ATTR_GEN_AI_RESPONSE_FINISH_REASONS],
  ["time_to_first_chunk", ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK],
  ["error_type", ATTR_ERROR_TYPE],
];

/**
 * The outcome facts of a span for its call's summary, beside `usage`: `gen_ai` (`response_id`, `response_model`,
 * `finish_reasons`, `time_to_first_chunk` in seconds, `error_type`) and `tracewire` (`status: "cancelled"` with
 * `cancel_reason`, or `response_raw`). Empty for spans that carry none of them.
 */
export function outcomeSummary(attributes: Attributes): JsonObject {
  const summary: JsonObject = {};
  const genAi: JsonObject = {};
  for (const [field, key] of OUTCOME_FACTS) {
    const value = attributes[key];
    if (value !== undefined && value !== null) genAi[field] = value as JsonObject[string];
  }
  if (Object.keys(genAi).length > 0) summary.gen_ai = genAi;
  if (attributes[ATTR_TRACEWIRE_CANCELLED] === true) {
    const tracewire: JsonObject = { status: "cancelled" };
    const reason = attributes[ATTR_TRACEWIRE_CANCEL_REASON];
    if (typeof reason === "string") tracewire.cancel_reason = reason;
    summary.tracewire = tracewire;
  } else if (attributes[ATTR_TRACEWIRE_RESPONSE_RAW] === true) summary.tracewire = { response_raw: true };
  return summary;
}

const EXPORTED_NAME = Symbol.for("tracewire.exported_name");

/**
 * The name a span is exported under over OTLP: a tracewire call's op name when the processor set one (the service
 * makes a span's name its `op_name`, so a chat call is `openai.chat.completions.create` on both routes, not
 * `chat gpt-4o-mini`), else the span's own name. Other span processors still see the span's own name.
 */
export function exportedSpanName(span: ReadableSpan): string {
  return (span as { [EXPORTED_NAME]?: string })[EXPORTED_NAME] ?? span.name;
}

/** Sets the name {@link exportedSpanName} gives a span. */
export function setExportedSpanName(span: object, name: string): void {
  (span as { [EXPORTED_NAME]?: string })[EXPORTED_NAME] = name;
}

/** The error text of a failed span: its status message, else its recorded exception, else a generic line. */
export function exceptionOf(span: ReadableSpan): string | undefined {
  const event = span.events.find((e) => e.name === "exception");
  if (span.status.code !== SpanStatusCode.ERROR && !event) return undefined;
  if (span.status.message) return span.status.message;
  const type = event?.attributes?.["exception.type"];
  const message = event?.attributes?.["exception.message"];
  if (typeof message === "string") return typeof type === "string" ? `${type}: ${message}` : message;
  return "error";
}

/**
 * A payload (already made JSON-safe by the serializer) as the JSON text an attribute carries: well-formed, with lone
 * surrogates as U+FFFD, as the calls route writes them (json-writer.ts).
 */
const jsonText = (value: unknown): string => wellFormedJson(JSON.stringify(value) ?? "null");

/**
 * Attributes that carry a tracewire call's start data over OTLP (`export: "otlp"`), under the keys the service's
 * OTLP ingestion maps back to call fields: `input.value` → inputs, `wandb.display_name`, `wandb.thread_id`,
 * `wandb.is_turn`, and `wandb.attributes.*` → attributes. Objects are JSON strings (SDK 2.x takes primitives only).
 *
 * The service rebuilds `wandb.attributes` by splitting keys on dots, so call attributes whose own keys hold a dot
 * could conflict (`release` and `release.channel`: a value and an object at one path, and the span is refused).
 * Such a set travels whole, as one JSON string under `wandb.attributes`, which the service parses back.
 */
export function portableStartAttributes(data: CallStartData, span: object): Attributes {
  const input = jsonText(data.inputs);
  vouch(span, "input.value", input);
  const attributes: Attributes = { "input.value": input, "input.mime_type": "application/json" };
  if (data.displayName) attributes["wandb.display_name"] = data.displayName;
  if (data.threadId) {
    attributes["wandb.thread_id"] = data.threadId;
    attributes["wandb.is_turn"] = data.turnId === "self";
  }
  const keys = Object.keys(data.attributes);
  if (keys.some((key) => key === "" || key.includes("."))) {
    attributes["wandb.attributes"] = jsonText(data.attributes);
    return attributes;
  }
  for (const [key, value] of Object.entries(data.attributes)) {
    attributes[`wandb.attributes.${key}`] =
      typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : jsonText(value);
  }
  return attributes;
}

/** The output attributes of a tracewire call sent over OTLP (see {@link portableStartAttributes}). */
export function portableEndAttributes(output: unknown, span: object): Attributes {
  const text = jsonText(output);
  vouch(span, "output.value", text);
  return { "output.value": text, "output.mime_type": "application/json" };
}

const VOUCHED = Symbol.for("tracewire.vouched_attributes");

/**
 * Attribute values tracewire wrote on a span from a payload the serializer already scrubbed (the JSON text of a
 * call's inputs and output over OTLP), by key. The encoders write such a value without checking it again for
 * credentials — a scan of every key of the JSON text — as long as the span still holds exactly that value: one the
 * app set over it is checked like any other.
 */
export type VouchedValues = Readonly<Record<string, string>>;

function vouch(span: object, key: string, text: string): void {
  const holder = span as { [VOUCHED]?: Record<string, string> };
  holder[VOUCHED] ??= {};
  holder[VOUCHED][key] = text;
}

/** The {@link VouchedValues} of a span (or of a view of it), if any. */
export function vouchedValues(span: object): VouchedValues | undefined {
  return (span as { [VOUCHED]?: VouchedValues })[VOUCHED];
}
