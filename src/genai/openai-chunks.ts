/**
 * Reassembly of a streamed chat completion: the chunks a stream delivers → the one completion a non-streamed request
 * would have returned, which is what a streamed call records as its output and maps to response attributes.
 */

import { describeAs } from "../own-objects.js";
import { isNum, isObj, type Obj } from "./guards.js";

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
  /** The log probabilities: the first chunk's object, with the `content` and `refusal` lists of every chunk. */
  logprobs: Obj | undefined;
  /** A spoken answer (`modalities: ["audio"]`): `transcript` and `data` concatenate, `id` and `expires_at` replace. */
  audio: Obj | undefined;
  tokenIds: number[] | undefined;
  /**
   * Azure OpenAI's content filter verdict: each content chunk's choice carries the one on its text, the finishing
   * chunk an empty object; the last non-empty one is kept, where a non-streamed completion's choice has it.
   */
  contentFilterResults: Obj | undefined;
}

/** Appends the entries of `list` (when it is one) to `target[key]`, starting that list if needed. */
function appendList(target: Obj, key: string, list: unknown): void {
  if (!Array.isArray(list)) return;
  const current = Array.isArray(target[key]) ? (target[key] as unknown[]) : [];
  for (const entry of list) current.push(entry);
  target[key] = current;
}

/** Adds one chunk's `delta.audio` to the answer's audio, as the openai package's own stream accumulator does. */
function addAudio(audio: Obj, delta: Obj): void {
  if (delta.id != null) audio.id = delta.id;
  if (typeof delta.data === "string") audio.data = (typeof audio.data === "string" ? audio.data : "") + delta.data;
  if (typeof delta.transcript === "string")
    audio.transcript = (typeof audio.transcript === "string" ? audio.transcript : "") + delta.transcript;
  if (delta.expires_at != null) audio.expires_at = delta.expires_at;
}

/**
 * Reassembles streamed chunks into the completion a non-streamed request would have returned: per choice
 * `index`, and within a choice per `tool_call.index`, so parallel tool calls keep their ids, names and arguments
 * apart however their deltas interleave. Text is concatenated as it arrives; nothing is serialized per chunk.
 * Token id arrays are only kept when asked for.
 */
/** Largest choice or tool-call index reassembled; real streams use a handful. */
const MAX_INDEX = 1024;

/** A usable array index, or undefined for negative, fractional or absurd ones. */
function slot(value: unknown): number | undefined {
  return isNum(value) && Number.isInteger(value) && value >= 0 && value < MAX_INDEX ? value : undefined;
}

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
  /** Azure OpenAI's content filter results for the prompt (its first chunk), kept as a completion keeps them. */
  private promptFilterResults: unknown[] | undefined;
  private readonly choices: (ChoiceState | undefined)[] = [];

  constructor(private readonly keepTokenIds = false) {}

  /** Adds one chunk (anything that is not an object is ignored). */
  add(chunk: unknown): void {
    if (!isObj(chunk)) return;
    this.chunks++;
    // Not from Azure OpenAI's prompt filter chunk, whose id is "" and created 0: the answer's own chunks say them.
    if (this.id === undefined && typeof chunk.id === "string" && chunk.id !== "") this.id = chunk.id;
    if (this.created === undefined && isNum(chunk.created) && chunk.created > 0) this.created = chunk.created;
    if (Array.isArray(chunk.prompt_filter_results)) this.promptFilterResults = chunk.prompt_filter_results;
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
    const index = choice.index === undefined ? 0 : slot(choice.index);
    if (index === undefined) return; // a malformed index: not ours to reassemble, and never a huge sparse array
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
        audio: undefined,
        tokenIds: undefined,
        contentFilterResults: undefined,
      };
      this.choices[index] = state;
    }
    if (typeof choice.finish_reason === "string") state.finishReason = choice.finish_reason;
    if (choice.stop_reason !== undefined) state.stopReason = choice.stop_reason;
    const filter = choice.content_filter_results;
    if (filter !== undefined && isObj(filter) && Object.keys(filter).length > 0) state.contentFilterResults = filter;
    const logprobs = choice.logprobs;
    if (isObj(logprobs)) {
      // Like the openai package's accumulator: the first object's fields, then every chunk's lists appended (copies:
      // the chunks the consumer holds are never changed).
      if (!state.logprobs) {
        state.logprobs = { ...logprobs };
        for (const key of ["content", "refusal"]) if (Array.isArray(logprobs[key])) state.logprobs[key] = [];
      }
      appendList(state.logprobs, "content", logprobs.content);
      appendList(state.logprobs, "refusal", logprobs.refusal);
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
    if (isObj(delta.audio)) {
      state.audio ??= {};
      addAudio(state.audio, delta.audio);
    }
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
      for (const call of toolCalls) {
        if (!isObj(call)) continue;
        const at = call.index === undefined ? (state.toolCalls?.length ?? 0) : slot(call.index);
        if (at === undefined) continue;
        state.toolCalls ??= [];
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

  /** Records usage that reached tracewire outside the chunks (cut out of the SSE body before the SDK parsed it). */
  addUsage(usage: Obj): void {
    this.usage = usage;
  }

  /** Whether the usage has been seen. */
  get hasUsage(): boolean {
    return this.usage !== undefined;
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
      if (state.audio !== undefined) message.audio = state.audio;
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
        logprobs: state.logprobs ?? null,
      };
      if (state.stopReason !== undefined) choice.stop_reason = state.stopReason;
      if (state.tokenIds) choice.token_ids = state.tokenIds;
      if (state.contentFilterResults) choice.content_filter_results = state.contentFilterResults;
      choices.push(choice);
    }
    if (this.usage) completion.usage = this.usage;
    if (this.systemFingerprint !== undefined) completion.system_fingerprint = this.systemFingerprint;
    if (this.serviceTier !== undefined) completion.service_tier = this.serviceTier;
    if (this.promptTokenIds !== undefined) completion.prompt_token_ids = this.promptTokenIds;
    if (this.promptFilterResults !== undefined) completion.prompt_filter_results = this.promptFilterResults;
    return completion;
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(ChatChunkAccumulator, "ChatChunkAccumulator");
