/**
 * The OpenAI Responses API (`POST /v1/responses`) as a {@link CallFormat}: request parameters → GenAI request
 * attributes (`max_output_tokens` → `gen_ai.request.max_tokens`, `text.format` → `gen_ai.output.type`,
 * `openai.api.type=responses`), a response → `gen_ai.response.*` and usage (`input_tokens`, `output_tokens`,
 * cached and reasoning tokens), and its streamed events → the one response a non-streamed request returns
 * ({@link ResponseEventAccumulator}). A response whose `status` is `failed`, and an `error` event inside a stream,
 * end the call as failed ({@link ResponseFailure}). Content attributes: openai-responses-content.ts.
 */
import type { Attributes } from "@opentelemetry/api";
import { describeAs } from "../own-objects.js";
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OUTPUT_TYPE,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
} from "../semconv.js";
import type { CallFormat, StreamAccumulator } from "./call-format.js";
import { isNum, isObj, type Obj } from "./guards.js";
import {
  ATTR_OPENAI_API_TYPE,
  ATTR_OPENAI_RESPONSE_SERVICE_TIER,
  type ChatEndpoint,
  chatRequestAttributes,
  chatSpanName,
} from "./openai-chat.js";
import { type UsageFields, usageAttributes } from "./openai-response.js";
import { responseFinishReason, responsesInputContent, responsesOutputContent } from "./openai-responses-content.js";

/** A failure the Responses API reports inside a 200 answer: a `failed` response or a stream's `error` event. */
export class ResponseFailure extends Error {
  /** The provider's error code (`server_error`, `rate_limit_exceeded`, …): the span's `error.type`. */
  readonly code: string | undefined;
  constructor(code: unknown, message: unknown) {
    super(typeof message === "string" && message !== "" ? message : "The response failed");
    this.name = "ResponseFailure";
    this.code = typeof code === "string" && code !== "" ? code : undefined;
  }
}

/** The failure a response reports (`status: "failed"`, with its `error`), or undefined. */
export function responseFailureOf(response: unknown): ResponseFailure | undefined {
  if (!isObj(response) || response.status !== "failed") return undefined;
  const error = isObj(response.error) ? response.error : {};
  return new ResponseFailure(error.code ?? "failed", error.message);
}

// ---- request -----------------------------------------------------------------------------------------------------

/** The request attributes of a Responses request (the chat ones, from its own parameter names). */
export function responsesRequestAttributes(params: Obj, endpoint: ChatEndpoint, streaming: boolean): Attributes {
  // The parameters the two APIs share (model, temperature, top_p, service_tier) map the same way.
  const shared: Obj = { model: params.model, service_tier: params.service_tier };
  const attributes = chatRequestAttributes(shared, endpoint, streaming);
  attributes[ATTR_OPENAI_API_TYPE] = "responses";
  if (isNum(params.temperature)) attributes[ATTR_GEN_AI_REQUEST_TEMPERATURE] = params.temperature;
  if (isNum(params.top_p)) attributes[ATTR_GEN_AI_REQUEST_TOP_P] = params.top_p;
  if (isNum(params.max_output_tokens)) attributes[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = params.max_output_tokens;
  const format = isObj(params.text) && isObj(params.text.format) ? params.text.format.type : undefined;
  if (format === "text") attributes[ATTR_GEN_AI_OUTPUT_TYPE] = "text";
  else if (format === "json_schema" || format === "json_object") attributes[ATTR_GEN_AI_OUTPUT_TYPE] = "json";
  const conversation = isObj(params.conversation) ? params.conversation.id : params.conversation;
  if (typeof conversation === "string" && conversation !== "") attributes[ATTR_GEN_AI_CONVERSATION_ID] = conversation;
  return attributes;
}

// ---- response ----------------------------------------------------------------------------------------------------

/** Response and usage attributes of a response (or of a reassembled stream). */
export function responsesResponseAttributes(response: unknown, attributes: Attributes): void {
  if (!isObj(response)) return;
  if (typeof response.id === "string") attributes[ATTR_GEN_AI_RESPONSE_ID] = response.id;
  if (typeof response.model === "string") attributes[ATTR_GEN_AI_RESPONSE_MODEL] = response.model;
  if (typeof response.service_tier === "string") attributes[ATTR_OPENAI_RESPONSE_SERVICE_TIER] = response.service_tier;
  const reason = responseFinishReason(response);
  if (reason !== undefined) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [reason];
  usageAttributes(response.usage, attributes, RESPONSES_USAGE);
}

const RESPONSES_USAGE: UsageFields = {
  input: "input_tokens",
  output: "output_tokens",
  inputDetails: "input_tokens_details",
  outputDetails: "output_tokens_details",
};

// ---- stream ------------------------------------------------------------------------------------------------------

/** Largest output, content or summary index reassembled; real streams use a handful. */
const MAX_INDEX = 1024;

function slot(value: unknown): number | undefined {
  return isNum(value) && Number.isInteger(value) && value >= 0 && value < MAX_INDEX ? value : undefined;
}

/** The events that end a streamed response (`response.completed` and `response.incomplete` carry the usage). */
const TERMINAL_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);

/**
 * Whether an event closes a part of the output (`response.output_text.done`, `response.content_part.done`,
 * `response.output_item.done`, `response.function_call_arguments.done`, …). Every part ends with such an event, and
 * after the last one only further `.done` events and the terminal event follow: a consumer that stops right after one
 * may have the whole output, which the events that come next tell.
 */
function closesPart(type: unknown): boolean {
  return typeof type === "string" && type.endsWith(".done");
}

/** One output item being streamed: our own copies, never the SDK's objects (its helpers mutate those). */
interface ItemState {
  item: Obj;
  parts: (Obj | undefined)[];
  summary: (Obj | undefined)[];
  arguments: string | undefined;
  /** The whole item from `response.output_item.done`: replaces what the deltas built. */
  done: Obj | undefined;
}

/**
 * Reassembles the typed events of a streamed response into the response a non-streamed request returns: the one
 * `response.completed` (or `response.incomplete` / `response.failed`) carries when it arrives; until then, the
 * `response.created` snapshot with its output items built from `output_item`, `content_part`, `output_text`,
 * `refusal`, `function_call_arguments` and `reasoning_summary` events, per `output_index` (so parallel function
 * calls stay apart), `content_index` and `summary_index`. Nothing the consumer receives is modified. It also tells
 * when the output may be complete before `response.completed` ({@link closing}), so that a consumer that stops there
 * still has that event, and its usage, recorded (chat-stream.ts reads on for it).
 */
export class ResponseEventAccumulator implements StreamAccumulator {
  chunks = 0;
  failure: ResponseFailure | undefined;
  private base: Obj | undefined;
  private final: Obj | undefined;
  private readonly items: (ItemState | undefined)[] = [];
  /** The latest event closed a part of the output (see {@link closesPart}). */
  private closed = false;

  add(event: unknown): void {
    if (!isObj(event)) return;
    this.chunks++;
    this.closed = closesPart(event.type);
    const type = event.type;
    if (typeof type !== "string") return;
    switch (type) {
      case "response.created":
      case "response.queued":
      case "response.in_progress":
        if (isObj(event.response)) this.base = event.response;
        return;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        if (isObj(event.response)) {
          this.final = event.response;
          this.failure = responseFailureOf(event.response);
        }
        return;
      case "error":
        this.failure = new ResponseFailure(event.code ?? "error", event.message);
        return;
    }
    const state = this.itemAt(event.output_index, type === "response.output_item.added" ? event.item : undefined);
    if (!state) return;
    switch (type) {
      case "response.output_item.done":
        if (isObj(event.item)) state.done = event.item;
        break;
      case "response.content_part.added":
        setAt(state.parts, event.content_index, event.part);
        break;
      case "response.output_text.delta":
        appendAt(state.parts, event.content_index, "output_text", "text", event.delta);
        break;
      case "response.refusal.delta":
        appendAt(state.parts, event.content_index, "refusal", "refusal", event.delta);
        break;
      case "response.reasoning_summary_part.added":
        setAt(state.summary, event.summary_index, event.part);
        break;
      case "response.reasoning_summary_text.delta":
        appendAt(state.summary, event.summary_index, "summary_text", "text", event.delta);
        break;
      case "response.function_call_arguments.delta":
        if (typeof event.delta === "string") state.arguments = (state.arguments ?? "") + event.delta;
        break;
      case "response.function_call_arguments.done":
        if (typeof event.arguments === "string") state.arguments = event.arguments;
        break;
    }
  }

  private itemAt(index: unknown, added: unknown): ItemState | undefined {
    const at = slot(index);
    if (at === undefined) return undefined;
    let state = this.items[at];
    if (!state) {
      const item = isObj(added) ? added : {};
      const copy = { ...item };
      state = {
        item: copy,
        parts: copies(item.content),
        summary: copies(item.summary),
        arguments: undefined,
        done: undefined,
      };
      this.items[at] = state;
    }
    return state;
  }

  /** Streamed responses carry their usage in `response.completed`: nothing arrives outside the events. */
  addUsage(_usage: Obj): void {}

  get hasUsage(): boolean {
    return isObj(this.final?.usage);
  }

  /** Whether the response reached its terminal event (completed, incomplete or failed). */
  get finished(): boolean {
    return this.final !== undefined;
  }

  /** The latest event closed a part of the output and the terminal event has not come: the output may be complete. */
  get closing(): boolean {
    return this.closed && this.final === undefined && this.failure === undefined;
  }

  /** Whether an event read after the consumer stopped still belongs to the close: a `.done` or terminal event. */
  closes(event: unknown): boolean {
    const type = isObj(event) ? event.type : undefined;
    return closesPart(type) || (typeof type === "string" && TERMINAL_EVENTS.has(type));
  }

  /** The response: the terminal event's, else the snapshot so far (status as last reported). */
  completion(): Obj {
    if (this.final) return this.final;
    const output: Obj[] = [];
    for (const state of this.items) {
      if (!state) continue;
      if (state.done) {
        output.push(state.done);
        continue;
      }
      const item: Obj = { ...state.item };
      if (state.parts.length > 0 || Array.isArray(item.content)) item.content = state.parts.filter(isObj);
      if (state.summary.length > 0 || Array.isArray(item.summary)) item.summary = state.summary.filter(isObj);
      if (state.arguments !== undefined) item.arguments = state.arguments;
      output.push(item);
    }
    return { ...(this.base ?? { object: "response" }), output };
  }
}

function copies(list: unknown): (Obj | undefined)[] {
  return Array.isArray(list) ? list.map((entry) => (isObj(entry) ? { ...entry } : undefined)) : [];
}

function setAt(list: (Obj | undefined)[], index: unknown, part: unknown): void {
  const at = slot(index);
  if (at !== undefined && isObj(part)) list[at] = { ...part };
}

/** Appends a text delta to `list[index][key]`, creating a `{type}` part when none was announced. */
function appendAt(list: (Obj | undefined)[], index: unknown, type: string, key: string, delta: unknown): void {
  const at = slot(index);
  if (at === undefined || typeof delta !== "string") return;
  const part = list[at] ?? { type, [key]: "" };
  list[at] = part;
  part[key] = (typeof part[key] === "string" ? part[key] : "") + delta;
}

/** The Responses API format (see the module comment). */
export const OPENAI_RESPONSES_FORMAT: CallFormat = {
  spanName: chatSpanName,
  requestAttributes: responsesRequestAttributes,
  responseAttributes: responsesResponseAttributes,
  recordedOutput: (answer) => answer,
  inputContent: responsesInputContent,
  outputContent: responsesOutputContent,
  accumulator: () => new ResponseEventAccumulator(),
  injectsStreamUsage: false,
  failureOf: responseFailureOf,
};

// Recorded, logged or inspected as a short summary: nothing inside it is ever read.
describeAs(ResponseEventAccumulator, "ResponseEventAccumulator");
