/**
 * The span → call mapping of OTLP ingestion, as the tracing service applies it (DESIGN §2.1): call id = span id,
 * trace id = trace id, parent id = parent span id, op name = span name. Inputs, outputs, usage and promoted
 * attributes come from the first attribute key of each family that is present (GenAI, OpenInference, Vercel AI,
 * Traceloop, …); `wandb.*` keys carry display name, thread, turn and call attributes (tracewire's portable mode).
 */
import type { CallEnd, CallStart } from "../api/types/calls.js";
import type { JsonObject, LlmUsage } from "../api/types/common.js";
import { parseExactJson } from "./exact-json.js";
import type { AttributeMap, OtlpSpan } from "./otlp-decode.js";
import { displayNameOf, opNameOf } from "./short-names.js";

const INPUT_KEYS = [
  "ai.prompt",
  "gen_ai.prompt",
  "input.value",
  "mlflow.spanInputs",
  "gen_ai.input.messages",
  "pydantic_ai.all_messages",
  "traceloop.entity.input",
  "gcp.vertex.agent.tool_call_args",
  "gcp.vertex.agent.llm_request",
  "input",
  "inputs",
];
const OUTPUT_KEYS = [
  "ai.response",
  "gen_ai.completion",
  "output.value",
  "gen_ai.output.messages",
  "mlflow.spanOutputs",
  "final_result",
  "gen_ai.content.completion",
  "traceloop.entity.output",
  "gcp.vertex.agent.tool_response",
  "gcp.vertex.agent.llm_response",
  "output",
  "outputs",
];
const USAGE_KEYS: Record<string, string[]> = {
  input_tokens: ["gen_ai.usage.input_tokens"],
  prompt_tokens: ["gen_ai.usage.prompt_tokens", "llm.token_count.prompt", "ai.usage.promptTokens"],
  completion_tokens: ["gen_ai.usage.completion_tokens", "llm.token_count.completion", "ai.usage.completionTokens"],
  output_tokens: ["gen_ai.usage.output_tokens"],
  total_tokens: ["llm.usage.total_tokens", "llm.token_count.total"],
  cache_read_input_tokens: ["gen_ai.usage.cache_read.input_tokens"],
  cache_creation_input_tokens: ["gen_ai.usage.cache_creation.input_tokens"],
};
const ATTRIBUTE_KEYS: Record<string, string[]> = {
  system: ["gen_ai.system", "llm.system", "gen_ai.system_instructions", "system_prompt"],
  kind: ["weave.span.kind", "traceloop.span.kind", "openinference.span.kind"],
  model: ["gen_ai.response.model", "gen_ai.request.model", "llm.model_name", "ai.model.id"],
  provider: ["gen_ai.provider.name", "llm.provider", "ai.model.provider"],
  model_parameters: ["gen_ai.request", "llm.invocation_parameters"],
  agent: ["gen_ai.agent.name"],
  tools: ["gen_ai.agent.tools"],
  operation: ["gen_ai.operation.name"],
};
const STATUS_ERROR = 2;

/** A span the service refuses, with the reason it gives in `partial_success.error_message`. */
export class RejectedSpan extends Error {}

/**
 * Dotted keys become nested objects (`a.b: 1` → `{a: {b: 1}}`), and objects whose keys are exactly `0..n-1`
 * become arrays (`gen_ai.prompt.0.role`). A key that is both a value and a prefix (`a` and `a.b`) is a conflict.
 */
export function unflatten(attributes: AttributeMap): JsonObject {
  const root: JsonObject = {};
  const leaves = new Set<object>();
  for (const [key, value] of Object.entries(attributes)) {
    const parts = key.split(".");
    let node = root;
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1) {
        if (part in node) throw new RejectedSpan(`attribute ${JSON.stringify(key)} conflicts with a longer key`);
        node[part] = value;
        continue;
      }
      const next = node[part];
      if (next === undefined) node[part] = {};
      else if (typeof next !== "object" || next === null || leaves.has(next) || Array.isArray(next))
        throw new RejectedSpan(
          `attribute ${JSON.stringify(key)} conflicts with ${JSON.stringify(parts.slice(0, i + 1).join("."))}`,
        );
      node = node[part] as JsonObject;
    }
    if (typeof value === "object" && value !== null) leaves.add(value);
  }
  return listify(root) as JsonObject;
}

function listify(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const entries = Object.entries(value).map(([k, v]) => [k, listify(v)] as const);
  const isList = entries.length > 0 && entries.every(([k], i) => k === String(i));
  return isList ? entries.map(([, v]) => v) : Object.fromEntries(entries);
}

/** The value at a dotted key: the flat attribute itself, else the subtree of the unflattened attributes. */
function lookup(flat: AttributeMap, tree: JsonObject, key: string): unknown {
  if (key in flat) return flat[key];
  let node: unknown = tree;
  for (const part of key.split(".")) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = (node as JsonObject)[part];
  }
  return node;
}

/** JSON text (OpenInference `input.value`, GenAI messages) is parsed; anything else is kept as is. */
function parsed(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (!/^[[{"]/.test(text)) return value;
  try {
    return parseExactJson(text);
  } catch {
    return value;
  }
}

function first(flat: AttributeMap, tree: JsonObject, keys: string[]): { key: string; value: unknown } | undefined {
  for (const key of keys) {
    const value = lookup(flat, tree, key);
    if (value !== undefined && value !== null && value !== "") return { key, value: parsed(value) };
  }
  return undefined;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The last instant a date can hold (±8.64e15 ms from the epoch). */
const MAX_DATE_NANOS = 8_640_000_000_000_000n * 1_000_000n;

/** Nanoseconds since the epoch → ISO-8601 with milliseconds; a time no date can hold refuses the span. */
export function nanosToIso(nanos: bigint, what = "time"): string {
  if (nanos > MAX_DATE_NANOS) throw new RejectedSpan(`${what} ${nanos} ns is beyond the year 275760`);
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}

function toInt(value: unknown): number | undefined {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? Math.trunc(n) : undefined;
}

function usageOf(flat: AttributeMap, tree: JsonObject, model: unknown): Record<string, LlmUsage> | undefined {
  const usage: LlmUsage = {};
  for (const [field, keys] of Object.entries(USAGE_KEYS)) {
    for (const key of keys) {
      const n = toInt(lookup(flat, tree, key));
      if (n !== undefined) {
        usage[field] = n;
        break;
      }
    }
  }
  if (Object.keys(usage).length === 0) return undefined;
  if (usage.total_tokens === undefined) {
    const prompt = usage.prompt_tokens ?? usage.input_tokens ?? 0;
    const completion = usage.completion_tokens ?? usage.output_tokens ?? 0;
    usage.total_tokens = (prompt ?? 0) + (completion ?? 0);
  }
  usage.requests = 1;
  return { [typeof model === "string" && model ? model : "usage"]: usage };
}

function exceptionOf(span: OtlpSpan): string | undefined {
  const event = span.events.find((e) => e.name === "exception");
  if (span.status.code !== STATUS_ERROR) return undefined;
  if (span.status.message) return span.status.message;
  const type = event?.attributes["exception.type"];
  const message = event?.attributes["exception.message"];
  if (typeof message === "string") return typeof type === "string" ? `${type}: ${message}` : message;
  return "error";
}

const truthy = (v: unknown): boolean => v === true || (typeof v === "string" && v.toLowerCase() === "true");

/** Maps one span to the start and end halves of its call; throws {@link RejectedSpan} for a span it refuses. */
export function spanToCall(span: OtlpSpan, project: string): { start: CallStart; end: CallEnd } {
  if (!/^[0-9a-f]{32}$/.test(span.traceId) || /^0+$/.test(span.traceId))
    throw new RejectedSpan(`invalid trace id ${JSON.stringify(span.traceId)}`);
  if (!/^[0-9a-f]{16}$/.test(span.spanId) || /^0+$/.test(span.spanId))
    throw new RejectedSpan(`invalid span id ${JSON.stringify(span.spanId)}`);
  const flat = span.attributes;
  const tree = unflatten(flat);

  const attributes: JsonObject = {};
  for (const [field, keys] of Object.entries(ATTRIBUTE_KEYS)) {
    const found = first(flat, tree, keys);
    if (found) attributes[field] = found.value;
  }
  // A dict (`wandb.attributes.*` keys), or one JSON string when its keys would conflict once split on dots.
  const custom = parsed(lookup(flat, tree, "wandb.attributes"));
  if (isObject(custom)) Object.assign(attributes, custom);

  const input = first(flat, tree, INPUT_KEYS);
  const output = first(flat, tree, OUTPUT_KEYS);
  const usage = usageOf(flat, tree, attributes.model);
  // Nothing recognised: keep every attribute, so foreign spans (HTTP, DB) still show what they carried.
  if (!input && !output && !usage && Object.keys(attributes).length === 0) Object.assign(attributes, tree);
  if (isObject(attributes.wandb)) delete attributes.wandb;

  const start: CallStart = {
    project_id: project,
    id: span.spanId,
    trace_id: span.traceId,
    op_name: opNameOf(span.name),
    started_at: nanosToIso(span.startTimeUnixNano, "start time"),
    attributes,
    inputs: input ? (isObject(input.value) ? input.value : { [input.key]: input.value }) : {},
  };
  if (span.parentSpanId && !/^0+$/.test(span.parentSpanId)) start.parent_id = span.parentSpanId;
  const displayName = lookup(flat, tree, "wandb.display_name");
  if (typeof displayName === "string" && displayName) start.display_name = displayNameOf(displayName);

  const explicitThread = lookup(flat, tree, "wandb.thread_id") ?? lookup(flat, tree, "gcp.vertex.agent.session_id");
  const conversation = lookup(flat, tree, "gen_ai.conversation.id");
  const thread = explicitThread ?? conversation;
  if (typeof thread === "string" && thread) {
    start.thread_id = thread;
    const isTurn = lookup(flat, tree, "wandb.is_turn");
    // A conversation id alone marks a turn unless `wandb.is_turn: false` opts the span out.
    if (isTurn === undefined ? explicitThread === undefined : truthy(isTurn)) start.turn_id = span.spanId;
  }
  const runId = lookup(flat, tree, "wandb.wb_run_id");
  if (typeof runId === "string" && runId && !/[/:]/.test(runId)) start.wb_run_id = `${project}:${runId}`;
  const runStep = toInt(lookup(flat, tree, "wandb.wb_run_step"));
  if (runStep !== undefined) start.wb_run_step = runStep;

  const end: CallEnd = {
    project_id: project,
    id: span.spanId,
    ended_at: nanosToIso(span.endTimeUnixNano, "end time"),
    summary: usage ? { usage } : {},
  };
  if (output) end.output = output.value;
  const exception = exceptionOf(span);
  if (exception !== undefined) end.exception = exception;
  const runStepEnd = toInt(lookup(flat, tree, "wandb.wb_run_step_end"));
  if (runStepEnd !== undefined) end.wb_run_step_end = runStepEnd;
  return { start, end };
}
