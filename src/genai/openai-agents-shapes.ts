/**
 * What each span of the OpenAI Agents SDK records as a call (openai-agents.ts runs the lifecycle). The tree:
 *
 *   workflow (the trace: op name = workflow name, group id = thread id, metadata = call attributes)
 *   └─ task (one `Runner.run`; aggregate usage)
 *      └─ agent (name, output type; output = its last answer, its tools and handoffs)
 *         ├─ guardrail (triggered or not)   ├─ handoff (from → to)
 *         └─ turn (aggregate usage)
 *            ├─ response / generation (a GenAI chat call: messages in, answer out, usage keyed by model)
 *            ├─ tool (`function` span: arguments and result as JSON, MCP data kept)
 *            └─ mcp_tools, custom, transcription, speech … (their data as inputs and output)
 *
 * Every call carries the call attribute `kind` (framework-runs.ts) and GenAI attributes where the conventions have
 * them (`invoke_agent`, `execute_tool`, `chat`). Errors come as the SDK's `{message, data}`: the message (and
 * `data.error`) become the exception, `error.type` the HTTP status or error class found in them.
 */
import { type Attributes, SpanKind } from "@opentelemetry/api";
import type { JsonObject } from "../api/types/common.js";
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_TOOL_NAME,
  GEN_AI_OPERATION,
} from "../semconv.js";
import { serializeAttributes } from "../tracing/context.js";
import { parseJson } from "./ai-sdk-shapes.js";
import type { CallSpanSpec } from "./call-span.js";
import { ATTR_CALL_KIND, type CallKind } from "./framework-runs.js";
import { isNum, isObj, type Obj } from "./guards.js";
import { chatResponseAttributes, usageAttributes } from "./openai-response.js";
import { responsesRequestAttributes, responsesResponseAttributes } from "./openai-responses.js";

const OP_PREFIX = "openai_agents";
const PROVIDER = "openai";

/** The call start data of a span of type `type` with data `data` (as the SDK has filled it in so far). */
export function spanStart(type: string, data: Obj): Omit<CallSpanSpec, "parent"> {
  const name = typeof data.name === "string" ? data.name : undefined;
  const opName = `${OP_PREFIX}.${type === "function" ? "tool" : type}`;
  const base = (kind: CallKind, displayName: string | undefined, inputs: Obj, spanAttributes?: Attributes) => ({
    spanName: displayName ? `${type} ${displayName}` : type,
    opName,
    displayName,
    inputs,
    attributes: { [ATTR_CALL_KIND]: kind } as JsonObject,
    spanAttributes,
  });
  switch (type) {
    case "agent":
      return {
        // Its tools and handoffs are known only once the SDK collected them, after the agent started: its output.
        ...base("agent", name, pick(data, ["name", "output_type"]), {
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.invokeAgent,
          ...(name ? { [ATTR_GEN_AI_AGENT_NAME]: name } : {}),
        }),
        spanName: `${GEN_AI_OPERATION.invokeAgent} ${name ?? "agent"}`,
      };
    case "function": {
      const inputs: Obj = { name, arguments: parseJson(data.input) };
      if (data.input === "" || data.input === undefined) delete inputs.arguments;
      if (data.mcp_data !== undefined && data.mcp_data !== null) inputs.mcp_data = data.mcp_data;
      return {
        ...base("tool", name, inputs, {
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.executeTool,
          ...(name ? { [ATTR_GEN_AI_TOOL_NAME]: name } : {}),
        }),
        spanName: `${GEN_AI_OPERATION.executeTool} ${name ?? "tool"}`,
      };
    }
    case "generation":
      return generationStart(data, opName);
    case "response":
      return responseStart(data, opName);
    case "handoff": {
      const to = typeof data.to_agent === "string" ? data.to_agent : undefined;
      const from = typeof data.from_agent === "string" ? data.from_agent : undefined;
      return base("handoff", `${from ?? "?"} → ${to ?? "?"}`, pick(data, ["from_agent", "to_agent"]));
    }
    case "guardrail":
      return base("guardrail", name, pick(data, ["name"]));
    case "custom":
      return base("custom", name, pick(data, ["name", "data"]));
    case "mcp_tools":
      return base("mcp", typeof data.server === "string" ? data.server : undefined, pick(data, ["server"]));
    case "task":
      return base("task", name, pick(data, ["name"]));
    case "turn":
      return base("turn", isNum(data.turn) ? `turn ${data.turn}` : "turn", pick(data, ["turn", "agent_name"]));
    case "transcription":
    case "speech":
    case "speech_group":
      return base("speech", typeof data.model === "string" ? data.model : undefined, publicFields(data, ["output"]));
    default:
      return base("custom", name, publicFields(data, []));
  }
}

/** What a model span recorded: its answer and the GenAI response attributes (usage keyed by model). */
export interface ModelEnd {
  output: { value: unknown } | undefined;
  spanAttributes: Attributes;
  /** The text the model answered, when it answered text. */
  answer: string | undefined;
  /** The model call ended with neither an answer nor an error while the SDK records data: the run was cancelled. */
  cut: boolean;
}

/** The output of a non-model span at its end, if it has one beyond its start data. */
export function spanOutput(type: string, data: Obj, startedEarly: boolean): { value: unknown } | undefined {
  switch (type) {
    case "function":
      return data.output === undefined || data.output === "" ? undefined : { value: parseJson(data.output) };
    case "guardrail":
      return { value: { triggered: data.triggered === true } };
    case "handoff":
      return startedEarly ? { value: pick(data, ["to_agent"]) } : undefined;
    case "mcp_tools":
      return data.result === undefined ? undefined : { value: { tools: data.result } };
    case "custom":
      return startedEarly && data.data !== undefined ? { value: data.data } : undefined;
    case "transcription":
    case "speech":
    case "speech_group":
      return data.output === undefined ? undefined : { value: data.output };
    default:
      return undefined;
  }
}

/** An agent's output: its last answer, and the tools and handoffs the SDK gave it. */
export function agentOutput(data: Obj, answer: string | undefined): { value: unknown } {
  const value: Obj = answer === undefined ? {} : { answer };
  Object.assign(value, pick(data, ["tools", "handoffs"]));
  return { value };
}

/** Whether the span is a model call (recorded as a GenAI chat call). */
export function isModelSpan(type: string): boolean {
  return type === "generation" || type === "response";
}

function generationStart(data: Obj, opName: string): Omit<CallSpanSpec, "parent"> {
  const model = typeof data.model === "string" ? data.model : undefined;
  const config = isObj(data.model_config) ? data.model_config : {};
  const spanAttributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.chat,
    [ATTR_GEN_AI_PROVIDER_NAME]: PROVIDER,
  };
  if (model) spanAttributes[ATTR_GEN_AI_REQUEST_MODEL] = model;
  const put = (key: string, value: unknown) => {
    if (isNum(value)) spanAttributes[key] = value;
  };
  put(ATTR_GEN_AI_REQUEST_TEMPERATURE, config.temperature);
  put(ATTR_GEN_AI_REQUEST_TOP_P, config.top_p);
  put(ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY, config.frequency_penalty);
  put(ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY, config.presence_penalty);
  const inputs: Obj = { messages: data.input };
  if (model) inputs.model = model;
  if (data.model_config !== undefined) inputs.model_config = data.model_config;
  return {
    spanName: model ? `${GEN_AI_OPERATION.chat} ${model}` : GEN_AI_OPERATION.chat,
    opName,
    displayName: model,
    inputs,
    attributes: { [ATTR_CALL_KIND]: "llm" },
    spanAttributes,
    kind: SpanKind.CLIENT,
  };
}

function responseStart(data: Obj, opName: string): Omit<CallSpanSpec, "parent"> {
  // The Responses API echoes the request's parameters in its response: they stand for the request.
  const response = isObj(data._response) ? data._response : {};
  const model = typeof response.model === "string" ? response.model : undefined;
  const spanAttributes = responsesRequestAttributes(response, { provider: PROVIDER }, false);
  const inputs: Obj = { input: data._input };
  if (response.instructions !== undefined && response.instructions !== null)
    inputs.instructions = response.instructions;
  if (Array.isArray(response.tools) && response.tools.length > 0) inputs.tools = response.tools;
  if (model) inputs.model = model;
  return {
    spanName: model ? `${GEN_AI_OPERATION.chat} ${model}` : GEN_AI_OPERATION.chat,
    opName,
    displayName: model,
    inputs,
    attributes: { [ATTR_CALL_KIND]: "llm" },
    spanAttributes,
    kind: SpanKind.CLIENT,
  };
}

const AGENTS_USAGE = {
  input: "input_tokens",
  output: "output_tokens",
  inputDetails: "input_tokens_details",
  outputDetails: "output_tokens_details",
};

/** What a model span ended with: its answer, usage keyed by the model that answered. */
export function modelEnd(type: string, data: Obj, failed: boolean): ModelEnd {
  const spanAttributes: Attributes = {};
  if (type === "response") {
    const response = data._response;
    if (isObj(response)) {
      responsesResponseAttributes(response, spanAttributes);
      return { output: { value: response }, spanAttributes, answer: responseText(response), cut: false };
    }
    return { output: undefined, spanAttributes, answer: undefined, cut: !failed && data._input !== undefined };
  }
  const outputs = Array.isArray(data.output) ? data.output : undefined;
  const first = outputs?.length === 1 ? outputs[0] : undefined;
  if (isObj(first) && Array.isArray(first.choices)) {
    chatResponseAttributes(first, spanAttributes);
    return { output: { value: first }, spanAttributes, answer: completionText(first), cut: false };
  }
  // Another provider's model (an adapter): its output as given, usage as the SDK reports it.
  if (isObj(data.usage)) {
    usageAttributes(data.usage, spanAttributes, AGENTS_USAGE);
    usageAttributes(data.usage, spanAttributes);
  }
  const output = outputs === undefined ? undefined : { value: outputs.length === 1 ? outputs[0] : outputs };
  return {
    output,
    spanAttributes,
    answer: undefined,
    cut: !failed && outputs === undefined && data.input !== undefined,
  };
}

/** The text of a Responses response's message items. */
function responseText(response: Obj): string | undefined {
  const items = Array.isArray(response.output) ? response.output : [];
  const texts: string[] = [];
  for (const item of items) {
    if (!isObj(item) || item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const part of item.content) if (isObj(part) && typeof part.text === "string") texts.push(part.text);
  }
  return texts.length > 0 ? texts.join("") : undefined;
}

/** The text of a chat completion's first choice. */
function completionText(completion: Obj): string | undefined {
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  const message = isObj(choice) ? choice.message : undefined;
  return isObj(message) && typeof message.content === "string" && message.content !== "" ? message.content : undefined;
}

/** A span's error as the exception text to record (the SDK's message and detail), and its `error.type`. */
export function spanFailure(error: unknown): { error: string; errorType: string } | undefined {
  if (!isObj(error)) return undefined;
  const message = typeof error.message === "string" && error.message !== "" ? error.message : "error";
  const data = isObj(error.data) ? error.data : {};
  const detail = typeof data.error === "string" ? data.error : undefined;
  const errorType = errorTypeOfText(message, detail);
  return { error: detail && !message.includes(detail) ? `${message}: ${detail}` : message, errorType };
}

/** Stable `error.type` values for the failures the SDK reports in its own words. */
const KNOWN_FAILURES: [RegExp, string][] = [
  [/^Guardrail tripwire triggered/i, "guardrail_tripwire"],
  [/^Error running tool/i, "tool_error"],
  [/^Multiple handoffs requested/i, "multiple_handoffs"],
  [/^Max turns/i, "max_turns_exceeded"],
];

/**
 * The HTTP status in the text, else the error class its detail starts with (`ModelBehaviorError: …`), else a known
 * SDK failure, else `_OTHER`.
 */
function errorTypeOfText(message: string, detail: string | undefined): string {
  for (const text of [message, detail]) {
    const status = text === undefined ? null : /^(?:[A-Za-z]*Error: )?([1-5]\d\d)\b/.exec(text);
    if (status) return status[1] as string;
  }
  const named = detail === undefined ? null : /^([A-Z][\w$]*): /.exec(detail);
  if (named && named[1] !== "Error") return named[1] as string;
  for (const [pattern, type] of KNOWN_FAILURES) if (pattern.test(message)) return type;
  return "_OTHER";
}

/** The fields of `data` named in `keys` that are set. */
function pick(data: Obj, keys: string[]): Obj {
  const out: Obj = {};
  for (const key of keys) if (data[key] !== undefined && data[key] !== null) out[key] = data[key];
  return out;
}

/** The SDK's public data fields (not `type`, not its `_private` ones, not `omit`). */
function publicFields(data: Obj, omit: string[]): Obj {
  const out: Obj = {};
  for (const [key, value] of Object.entries(data))
    if (key !== "type" && !key.startsWith("_") && !omit.includes(key) && value !== undefined) out[key] = value;
  return out;
}

/** What the SDK's trace object carries that the workflow call records. */
export interface AgentsTraceData {
  traceId: string;
  name?: string | undefined;
  groupId?: string | null | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** The call start data of a trace: the workflow, under the caller's op or span. */
export function workflowStart(trace: AgentsTraceData): Omit<CallSpanSpec, "parent"> {
  const name = typeof trace.name === "string" && trace.name.trim() !== "" ? trace.name : "Agent workflow";
  const agents: JsonObject = { trace_id: String(trace.traceId) };
  const groupId = typeof trace.groupId === "string" && trace.groupId !== "" ? trace.groupId : undefined;
  if (groupId) agents.group_id = groupId;
  return {
    spanName: `workflow ${name}`,
    opName: name,
    inputs: {},
    attributes: {
      ...(isObj(trace.metadata) ? serializeAttributes(trace.metadata) : {}),
      [ATTR_CALL_KIND]: "workflow",
      openai_agents: agents,
    },
    spanAttributes: groupId ? { [ATTR_GEN_AI_CONVERSATION_ID]: groupId } : undefined,
  };
}
