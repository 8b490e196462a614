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
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from "../semconv.js";

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
}

/** End data of a tracewire call. */
export interface CallEndData {
  /** Serialised, redacted output; absent when the call returned nothing worth keeping. */
  output?: unknown;
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

/** `summary.usage` keyed by model from `gen_ai.usage.*`, or undefined when the span carries no usage. */
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
  const cached = intAttribute(attributes, ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS);
  if (cached !== undefined) usage.cache_read_input_tokens = cached;
  return { [typeof model === "string" && model ? model : "unknown"]: usage };
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
 * Attributes that carry a tracewire call's start data over OTLP (`export: "otlp"`), under the keys the service's
 * OTLP ingestion maps back to call fields: `input.value` → inputs, `wandb.display_name`, `wandb.thread_id`,
 * `wandb.is_turn`, and `wandb.attributes.*` → attributes. Objects are JSON strings (SDK 2.x takes primitives only).
 *
 * The service rebuilds `wandb.attributes` by splitting keys on dots, so call attributes whose own keys hold a dot
 * could conflict (`release` and `release.channel`: a value and an object at one path, and the span is refused).
 * Such a set travels whole, as one JSON string under `wandb.attributes`, which the service parses back.
 */
export function portableStartAttributes(data: CallStartData): Attributes {
  const attributes: Attributes = { "input.value": JSON.stringify(data.inputs), "input.mime_type": "application/json" };
  if (data.displayName) attributes["wandb.display_name"] = data.displayName;
  if (data.threadId) {
    attributes["wandb.thread_id"] = data.threadId;
    attributes["wandb.is_turn"] = data.turnId === "self";
  }
  const keys = Object.keys(data.attributes);
  if (keys.some((key) => key === "" || key.includes("."))) {
    attributes["wandb.attributes"] = JSON.stringify(data.attributes);
    return attributes;
  }
  for (const [key, value] of Object.entries(data.attributes)) {
    attributes[`wandb.attributes.${key}`] =
      typeof value === "string" || typeof value === "number" || typeof value === "boolean"
        ? value
        : JSON.stringify(value);
  }
  return attributes;
}

/** The output attributes of a tracewire call sent over OTLP (see {@link portableStartAttributes}). */
export function portableEndAttributes(output: unknown): Attributes {
  return { "output.value": JSON.stringify(output), "output.mime_type": "application/json" };
}
