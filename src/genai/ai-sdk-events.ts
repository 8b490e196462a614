/**
 * What each `ai` 7 telemetry event records (ai-sdk-telemetry.ts dispatches the events; the shapes shared with the
 * `ai` 6 span mapping are in ai-sdk-shapes.ts). Pure functions from an event to a call's inputs or output.
 *
 * The SDK itself blanks the content fields of its events under `recordInputs: false` / `recordOutputs: false`
 * (`messages: []`, `text: ""`, …); these functions then record no content at all rather than those blanks: an
 * operation keeps its settings, a model call its model, a step its number, a tool call its id and name, and every
 * output (and each embedding count, which a blank would falsify) is left out. Usage and finish reasons are not
 * content and stay.
 *
 * Also here: the state of one operation in flight, which the integration keys by the SDK's `callId`.
 */
import type { JsonObject } from "../api/types/common.js";
import { contentOutput, parseJson, settingsOf, toolCallOf, toolSetOf } from "./ai-sdk-shapes.js";
import type { CallSpan, CallSpanEnd } from "./call-span.js";
import { isObj, type Obj } from "./guards.js";

/** What an operation records of its caller's telemetry settings. */
export interface Recording {
  inputs: boolean;
  outputs: boolean;
}

/** One operation in flight: its calls, and what its children repeat. */
export interface Operation {
  operationId: string;
  provider: unknown;
  modelId: unknown;
  root: CallSpan;
  step: CallSpan | undefined;
  /** The step's prompt as sent to the model (`promptMessages`, `stepTools`, `stepToolChoice`). */
  stepPrompt: Obj | undefined;
  model: CallSpan | undefined;
  /** Open tool calls by `toolCallId`, and open embedding model calls by `embed:<embedCallId>`. */
  tools: Map<string, CallSpan>;
  /** Call attributes of every call of the operation: the caller's metadata. */
  attributes: JsonObject;
  settings: Obj | undefined;
  recording: Recording;
}

/** The output to record, unless the caller turned output recording off. */
export function outputIf(op: Operation, value: () => unknown): CallSpanEnd {
  return op.recording.outputs ? { output: { value: value() } } : {};
}

/** The recording settings an event carries (the SDK adds `recordInputs` / `recordOutputs` to each). */
export function recordingOf(event: Obj): Recording {
  return { inputs: event.recordInputs !== false, outputs: event.recordOutputs !== false };
}

/** The event's own time (events reported after the fact carry one), as span time input. */
export function timeOf(event: Obj): number | undefined {
  return typeof event.timestamp === "number" && Number.isFinite(event.timestamp) ? event.timestamp : undefined;
}

/** The fields of `event` that are set, among `keys`. */
export function pick(event: Obj, keys: string[]): Obj {
  const out: Obj = {};
  for (const key of keys) if (event[key] !== undefined && event[key] !== null) out[key] = event[key];
  return out;
}

/** An operation's inputs: the prompt as the SDK reports it, the tools, the output schema, the settings. */
export function operationInputs(event: Obj, recording: Recording): Obj {
  const settings = settingsOf(event);
  if (!recording.inputs) return settings ? { settings } : {};
  const inputs: Obj = pick(event, ["instructions", "system", "prompt", "messages", "value", "values"]);
  const tools = toolSetOf(event.tools);
  if (tools && Object.keys(tools).length > 0) inputs.tools = tools;
  if (event.toolChoice !== undefined) inputs.toolChoice = event.toolChoice;
  // generateText's `output` is an Output object; generateObject's is the output kind ("object", "array", …).
  if (isObj(event.output) && typeof event.output.name === "string") inputs.output = event.output.name;
  else if (typeof event.output === "string") inputs.output = event.output;
  Object.assign(inputs, pick(event, ["schema", "schemaName", "schemaDescription"]));
  if (settings) inputs.settings = settings;
  return inputs;
}

/** A model call's inputs: the messages, tools and tool choice of its step's prompt as sent to the model. */
export function modelInputs(event: Obj, stepPrompt: Obj | undefined, recording: Recording): Obj {
  if (!recording.inputs) return { model: event.modelId };
  const prompt = stepPrompt ?? {};
  const inputs: Obj = { model: event.modelId, messages: prompt.promptMessages ?? event.messages };
  const tools = prompt.stepTools ?? event.tools;
  if (Array.isArray(tools) && tools.length > 0) inputs.tools = tools;
  if (prompt.stepToolChoice !== undefined) inputs.toolChoice = prompt.stepToolChoice;
  return inputs;
}

/** A step's inputs: its number, and the instructions and messages it started from. */
export function stepInputs(event: Obj, recording: Recording): Obj {
  const stepNumber = typeof event.stepNumber === "number" ? event.stepNumber : 0;
  return recording.inputs ? { stepNumber, ...pick(event, ["instructions", "messages"]) } : { stepNumber };
}

/** A tool call's inputs: its id, name and (unless inputs are not recorded) input. */
export function toolInputs(toolCall: Obj, recording: Recording): Obj {
  const call = toolCallOf(toolCall);
  if (!recording.inputs) delete call.input;
  return call;
}

/** A step's output: what the model produced, then the results of the tools it ran. */
export function stepOutput(event: Obj): Obj {
  const output: Obj = contentOutput(event.content, event.finishReason);
  if (Array.isArray(event.toolResults) && event.toolResults.length > 0)
    output.toolResults = event.toolResults.filter(isObj).map((r) => pick(r, ["toolCallId", "toolName", "output"]));
  return output;
}

/** A generateObject / streamObject model call's output: the object it answered (parsed from its text). */
export function objectStepOutput(event: Obj): Obj {
  return { object: parseJson(event.objectText), finishReason: event.finishReason };
}

/** How many vectors an embedding call returned and their size: never the vectors themselves. */
export function embeddingsOutput(vectors: unknown[]): Obj {
  const first = vectors[0];
  return { embeddings: vectors.length, dimensions: Array.isArray(first) ? first.length : 0 };
}

/** An operation's output: the object, the embeddings count, or the text, tool calls, finish reason and usage. */
export function operationOutput(operationId: string, event: Obj): Obj {
  if ("object" in event) return { object: event.object, finishReason: event.finishReason };
  if ("embedding" in event || "embeddings" in event) {
    // `embedding` is one vector for embed, the vectors for embedMany.
    const vectors = Array.isArray(event.embeddings)
      ? event.embeddings
      : operationId === "ai.embedMany" && Array.isArray(event.embedding)
        ? event.embedding
        : [event.embedding];
    return embeddingsOutput(vectors);
  }
  const output: Obj = { text: event.text };
  if (Array.isArray(event.toolCalls) && event.toolCalls.length > 0)
    output.toolCalls = event.toolCalls.filter(isObj).map(toolCallOf);
  output.finishReason = event.finishReason;
  if (isObj(event.usage)) output.usage = event.usage;
  if (Array.isArray(event.steps)) output.steps = event.steps.length;
  return output;
}

/** What a model call whose stream carried an error records: the SDK gives telemetry its finish reason only. */
export const STREAM_ERROR = "The model's response stream reported an error (finish reason: error)";

/**
 * How a call that threw ends: cancelled for an abort (a `generateText` whose `abortSignal` fired rejects with the
 * signal's AbortError, where an aborted `streamText` reports `onAbort`), else failed with the error. A `timeout`
 * (a TimeoutError) is a failure.
 */
export function failure(error: unknown): CallSpanEnd {
  try {
    if (isObj(error) && error.name === "AbortError") return { cancelled: "abort" };
  } catch {
    // an error whose name cannot be read is a failure
  }
  return { error };
}
