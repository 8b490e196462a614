/**
 * What each LangChain / LangGraph run records as a call (langchain.ts runs the lifecycle). Read structurally: this
 * file never loads `@langchain/core`.
 *
 * - chains and runnables: a call named by the run (`RunnableSequence`, your `RunnableLambda`'s name, …), the inputs
 *   and outputs as JSON; a LangGraph graph is kind `graph`, a graph node kind `node`, named by the node, with the
 *   step, node, triggers, path and checkpoint namespace as the `langgraph` call attribute;
 * - chat models and LLMs: GenAI `chat` / `text_completion` calls: the messages (as `{role, content, tool_calls}`),
 *   the model's invocation parameters and tools; the answer's messages with tool calls and finish reason; usage from
 *   `usage_metadata` (cached and reasoning tokens included; else `llmOutput.tokenUsage`) keyed by the model that
 *   answered; time to first token when tokens were streamed;
 * - tools (arguments and result as JSON) and retrievers (the query, the documents) as calls of their own.
 *
 * LangChain messages and documents anywhere in inputs and outputs are recorded compactly (`{role, content, …}`,
 * `{page_content, metadata}`), not as their serialization envelope.
 */
import { type Attributes, SpanKind } from "@opentelemetry/api";
import type { JsonObject } from "../api/types/common.js";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  GEN_AI_OPERATION,
} from "../semconv.js";
import { parseJson } from "./ai-sdk-shapes.js";
import type { CallSpanSpec } from "./call-span.js";
import { ATTR_CALL_KIND, type CallKind } from "./framework-runs.js";
import { isNum, isObj, type Obj } from "./guards.js";

/** The tag LangGraph (and LangSmith) put on internal runs nobody needs to see (channel writes, branches, `__start__`). */
export const HIDDEN_TAG = "langsmith:hidden";

/** LangChain's run metadata keys of a LangGraph step. */
const LANGGRAPH_KEYS: [string, string][] = [
  ["langgraph_step", "step"],
  ["langgraph_node", "node"],
  ["langgraph_triggers", "triggers"],
  ["langgraph_path", "path"],
  ["langgraph_checkpoint_ns", "checkpoint_ns"],
];

/** Serialized LangChain objects (`toJSON()` of a runnable, model, tool) name their class last in `id`. */
export function classNameOf(serialized: unknown): string | undefined {
  if (!isObj(serialized)) return undefined;
  if (typeof serialized.name === "string" && serialized.name !== "") return serialized.name;
  const id = serialized.id;
  return Array.isArray(id) && typeof id.at(-1) === "string" ? (id.at(-1) as string) : undefined;
}

const ROLES: Record<string, string> = {
  human: "user",
  ai: "assistant",
  system: "system",
  developer: "developer",
  tool: "tool",
  function: "function",
};

/** Whether `value` is a LangChain message (an instance of one of its message classes). */
function isMessage(value: Obj): boolean {
  return "content" in value && (typeof value._getType === "function" || typeof value.getType === "function");
}

function messageType(message: Obj): string | undefined {
  if (typeof message.type === "string") return message.type;
  try {
    const fn = (message._getType ?? message.getType) as (() => unknown) | undefined;
    const type = fn?.call(message);
    return typeof type === "string" ? type : undefined;
  } catch {
    return undefined;
  }
}

/** A LangChain tool call (`{name, args, id}`) in the OpenAI shape the viewer and other backends read. */
function toolCallOf(call: unknown): Obj {
  const c = isObj(call) ? call : {};
  return {
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {}) },
  };
}

/** A LangChain message as `{role, content, tool_calls?, tool_call_id?, name?}`. */
export function messageOf(message: Obj): Obj {
  const type = messageType(message);
  const role = (type && ROLES[type]) ?? (typeof message.role === "string" ? message.role : (type ?? "user"));
  const out: Obj = { role, content: message.content };
  if (typeof message.name === "string" && message.name !== "") out.name = message.name;
  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0)
    out.tool_calls = message.tool_calls.map(toolCallOf);
  if (typeof message.tool_call_id === "string") out.tool_call_id = message.tool_call_id;
  return out;
}

const MAX_DEPTH = 12;
const MAX_ITEMS = 1000;

/**
 * `value` with LangChain messages and documents replaced by their compact form (plain objects and arrays are copied
 * on the way down, to a bounded depth; anything else is left for the serializer). Never throws.
 *
 * Each object is copied once (`copies`): an object reached again, through a cycle or shared by siblings (a graph
 * state that points back at itself), gets the same copy, so a wide self-reference costs one copy per object instead
 * of one per path (exponential in the depth: a 6-key self-referencing node output ran the process out of memory), and
 * the serializer still sees the cycle and marks it. A value whose fields cannot be read (a throwing getter, a hostile
 * Proxy, a BigInt in tool-call arguments) is handed to the serializer as it is, which marks just the unreadable part:
 * the run's call is recorded either way, instead of being lost with the calls under it.
 */
export function compact(value: unknown): unknown {
  return compactIn(value, 0, new Map());
}

function compactIn(value: unknown, depth: number, copies: Map<object, unknown>): unknown {
  if (!isObj(value) || depth > MAX_DEPTH) return value;
  if (copies.has(value)) return copies.get(value);
  try {
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      copies.set(value, out);
      for (const item of value.slice(0, MAX_ITEMS)) out.push(compactIn(item, depth + 1, copies));
      return out;
    }
    if (isMessage(value)) {
      const message = messageOf(value);
      copies.set(value, message);
      return message;
    }
    if (typeof value.pageContent === "string") {
      const doc: Obj = { page_content: value.pageContent, metadata: value.metadata };
      if (value.id !== undefined) doc.id = value.id;
      copies.set(value, doc);
      return doc;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    const out: Obj = {};
    copies.set(value, out);
    for (const key of Object.keys(value).slice(0, MAX_ITEMS)) out[key] = compactIn(value[key], depth + 1, copies);
    return out;
  } catch {
    // Left to the serializer, which marks exactly what cannot be read.
    copies.set(value, value);
    return value;
  }
}

/** The `langgraph` call attribute of a run in a LangGraph step, from its metadata. */
function langgraphAttributes(metadata: Obj | undefined): JsonObject | undefined {
  if (!metadata) return undefined;
  const out: JsonObject = {};
  for (const [key, name] of LANGGRAPH_KEYS) {
    const value = metadata[key];
    if (typeof value === "string" || isNum(value)) out[name] = value;
    else if (Array.isArray(value)) out[name] = value.filter((v) => typeof v === "string" || isNum(v)) as string[];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A chain run: a graph, a graph node, or a chain. */
export function chainStart(
  serialized: unknown,
  inputs: unknown,
  metadata: Obj | undefined,
  runName: string | undefined,
): Omit<CallSpanSpec, "parent"> {
  const className = classNameOf(serialized);
  const name = runName ?? className ?? "chain";
  const id = isObj(serialized) && Array.isArray(serialized.id) ? serialized.id.map(String) : [];
  const isGraph = id.some((part) => /^(Compiled\w*Graph|Pregel)$/.test(part)) || id[0] === "langgraph";
  const node = metadata?.langgraph_node;
  const kind: CallKind = node === name && !isGraph ? "node" : isGraph ? "graph" : "chain";
  const attributes: JsonObject = { [ATTR_CALL_KIND]: kind };
  if (kind === "node") {
    const langgraph = langgraphAttributes(metadata);
    if (langgraph) attributes.langgraph = langgraph;
  }
  return {
    spanName: name,
    opName: name,
    inputs: inputsOf(inputs),
    attributes,
  };
}

/** Inputs as a call records them: an object as is, anything else under `input`. */
function inputsOf(value: unknown): Obj {
  const compacted = compact(value);
  return isObj(compacted) && !Array.isArray(compacted) ? compacted : { input: compacted };
}

/** What a model run's metadata (`ls_*`) and parameters say about the request. */
function requestAttributes(operation: string, metadata: Obj | undefined, params: Obj): Attributes {
  const attributes: Attributes = { [ATTR_GEN_AI_OPERATION_NAME]: operation };
  const provider = metadata?.ls_provider;
  if (typeof provider === "string") attributes[ATTR_GEN_AI_PROVIDER_NAME] = provider;
  const model = metadata?.ls_model_name ?? params.model ?? params.model_name;
  if (typeof model === "string") attributes[ATTR_GEN_AI_REQUEST_MODEL] = model;
  const temperature = metadata?.ls_temperature ?? params.temperature;
  if (isNum(temperature)) attributes[ATTR_GEN_AI_REQUEST_TEMPERATURE] = temperature;
  const maxTokens = metadata?.ls_max_tokens ?? params.max_tokens ?? params.max_completion_tokens;
  if (isNum(maxTokens)) attributes[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = maxTokens;
  return attributes;
}

/** A chat model or LLM run: a GenAI `chat` (messages) or `text_completion` (prompt) call. */
export function modelStart(
  serialized: unknown,
  prompt: { messages: unknown[] } | { prompt: unknown },
  extraParams: Obj | undefined,
  metadata: Obj | undefined,
  runName: string | undefined,
): Omit<CallSpanSpec, "parent"> {
  const params = isObj(extraParams?.invocation_params) ? extraParams.invocation_params : {};
  const chat = "messages" in prompt;
  const operation = chat ? GEN_AI_OPERATION.chat : "text_completion";
  const spanAttributes = requestAttributes(operation, metadata, params);
  const model = spanAttributes[ATTR_GEN_AI_REQUEST_MODEL] as string | undefined;
  const inputs: Obj = chat ? { messages: compact(prompt.messages) } : { prompt: prompt.prompt };
  if (model) inputs.model = model;
  const { tools, ...parameters } = params;
  if (Array.isArray(tools) && tools.length > 0) inputs.tools = tools;
  if (Object.keys(parameters).length > 0) inputs.parameters = parameters;
  const name = runName ?? classNameOf(serialized) ?? (chat ? "chat_model" : "llm");
  return {
    spanName: model ? `${operation} ${model}` : operation,
    opName: name,
    displayName: model,
    inputs,
    attributes: { [ATTR_CALL_KIND]: "llm" },
    spanAttributes,
    kind: SpanKind.CLIENT,
  };
}

/** What a model run answered: its output (one entry per generation) and the GenAI response attributes. */
export function modelEnd(result: unknown, chat: boolean): { output: { value: unknown }; spanAttributes: Attributes } {
  const r = isObj(result) ? result : {};
  const generations = (Array.isArray(r.generations) ? r.generations : []).flat().filter(isObj);
  const spanAttributes: Attributes = {};
  const reasons: string[] = [];
  const output: unknown[] = [];
  let usage: Obj | undefined;
  for (const generation of generations) {
    const info = isObj(generation.generationInfo) ? generation.generationInfo : {};
    const message = isObj(generation.message) ? generation.message : undefined;
    const metadata = message && isObj(message.response_metadata) ? message.response_metadata : {};
    const reason = info.finish_reason ?? metadata.finish_reason ?? metadata.stop_reason;
    if (typeof reason === "string") reasons.push(reason);
    if (message) {
      const entry = messageOf(message);
      if (typeof reason === "string") entry.finish_reason = reason;
      output.push(entry);
      usage ??= isObj(message.usage_metadata) ? message.usage_metadata : undefined;
      const model = metadata.model_name ?? metadata.model;
      if (typeof model === "string") spanAttributes[ATTR_GEN_AI_RESPONSE_MODEL] = model;
      if (typeof message.id === "string") spanAttributes[ATTR_GEN_AI_RESPONSE_ID] = message.id;
    } else output.push(chat ? { role: "assistant", content: generation.text } : generation.text);
  }
  if (reasons.length > 0) spanAttributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = reasons;
  if (usage) usageAttributes(usage, spanAttributes);
  else legacyUsage(r.llmOutput, spanAttributes);
  return { output: { value: !chat && output.length === 1 ? output[0] : output }, spanAttributes };
}

/** `gen_ai.usage.*` from an AIMessage's `usage_metadata`. */
function usageAttributes(usage: Obj, attributes: Attributes): void {
  if (isNum(usage.input_tokens)) attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = usage.input_tokens;
  if (isNum(usage.output_tokens)) attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = usage.output_tokens;
  const input = isObj(usage.input_token_details) ? usage.input_token_details : {};
  const output = isObj(usage.output_token_details) ? usage.output_token_details : {};
  if (isNum(input.cache_read)) attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = input.cache_read;
  if (isNum(input.cache_creation)) attributes[ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = input.cache_creation;
  if (isNum(output.reasoning)) attributes[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = output.reasoning;
}

/** `gen_ai.usage.*` from the older `llmOutput.tokenUsage` (`promptTokens`, `completionTokens`). */
function legacyUsage(llmOutput: unknown, attributes: Attributes): void {
  const usage = isObj(llmOutput) && isObj(llmOutput.tokenUsage) ? llmOutput.tokenUsage : undefined;
  if (!usage) return;
  if (isNum(usage.promptTokens)) attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = usage.promptTokens;
  if (isNum(usage.completionTokens)) attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = usage.completionTokens;
}

/** A tool run: `execute_tool`, the arguments as JSON. */
export function toolStart(
  serialized: unknown,
  input: unknown,
  runName: string | undefined,
  toolCallId: unknown,
): Omit<CallSpanSpec, "parent"> {
  const name = runName ?? classNameOf(serialized) ?? "tool";
  const spanAttributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.executeTool,
    [ATTR_GEN_AI_TOOL_NAME]: name,
  };
  if (typeof toolCallId === "string") spanAttributes[ATTR_GEN_AI_TOOL_CALL_ID] = toolCallId;
  const inputs: Obj = { input: parseJson(input) };
  if (typeof toolCallId === "string") inputs.tool_call_id = toolCallId;
  return {
    spanName: `${GEN_AI_OPERATION.executeTool} ${name}`,
    opName: name,
    inputs,
    attributes: { [ATTR_CALL_KIND]: "tool" },
    spanAttributes,
  };
}

/** A tool's result: a ToolMessage's content (parsed when it is JSON text), or the value it returned. */
export function toolOutput(output: unknown): { value: unknown } {
  if (isObj(output) && isMessage(output)) {
    const value: Obj = { content: parseJson(output.content) };
    if (output.artifact !== undefined) value.artifact = compact(output.artifact);
    return { value: output.artifact === undefined ? value.content : value };
  }
  return { value: compact(parseJson(output)) };
}

/** A retriever run: the query in, the documents out. */
export function retrieverStart(
  serialized: unknown,
  query: unknown,
  runName: string | undefined,
): Omit<CallSpanSpec, "parent"> {
  const name = runName ?? classNameOf(serialized) ?? "retriever";
  return {
    spanName: `retrieve ${name}`,
    opName: name,
    inputs: { query },
    attributes: { [ATTR_CALL_KIND]: "retriever" },
  };
}

/** Errors that are LangGraph's control flow (an interrupt, a command to a parent graph), not failures. */
const CONTROL_FLOW: Record<string, string> = {
  GraphInterrupt: "interrupt",
  NodeInterrupt: "interrupt",
  ParentCommand: "parent_command",
  GraphBubbleUp: "bubble_up",
};

/** How a run that threw ends: cancelled (an abort, LangGraph control flow) with its reason, or failed. */
export function failureOf(err: unknown): { cancelled: string } | { error: unknown } {
  try {
    const e = isObj(err) ? err : {};
    const name = typeof e.name === "string" ? e.name : undefined;
    const ctor = (err as { constructor?: { name?: unknown } } | undefined)?.constructor?.name;
    for (const n of [name, ctor]) if (typeof n === "string" && CONTROL_FLOW[n]) return { cancelled: CONTROL_FLOW[n] };
    // LangChain rejects an aborted run with the signal's reason (an AbortError) or "Aborted"; LangGraph with "Abort".
    if (name === "AbortError" || ctor === "APIUserAbortError" || e.message === "Aborted" || e.message === "Abort")
      return { cancelled: "abort" };
  } catch {
    // an error whose fields cannot be read is a failure
  }
  return { error: err };
}
