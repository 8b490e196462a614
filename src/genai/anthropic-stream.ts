/**
 * Reassembly of a streamed Anthropic Message: the events a `stream: true` request delivers (`message_start`,
 * `content_block_start` / `_delta` / `_stop`, `message_delta`, `message_stop`) → the Message a non-streamed request
 * would have returned, which is what a streamed call records as its output and maps to response attributes.
 */
import { describeAs } from "../own-objects.js";
import type { StreamAccumulator } from "./call-format.js";
import { isNum, isObj, type Obj } from "./guards.js";

/** Largest content-block index reassembled; real streams use a handful. */
const MAX_INDEX = 1024;

interface BlockState {
  block: Obj;
  /** The `input_json_delta` pieces of a tool-use block, concatenated. */
  json: string | undefined;
}

/**
 * Reassembles Anthropic stream events per content-block `index`, so parallel tool uses keep their ids, names and
 * inputs apart: text, thinking and signature deltas are concatenated, a tool use's `partial_json` pieces are joined
 * and parsed once at the end (kept as the raw string when they do not parse: a stream cut mid-input). Usage is
 * `message_start`'s, updated by the cumulative counts of `message_delta`.
 */
export class MessageAccumulator implements StreamAccumulator {
  chunks = 0;
  private message: Obj | undefined;
  private usage: Obj | undefined;
  private stopReason: unknown = null;
  private stopSequence: unknown = null;
  private stopped = false;
  private readonly blocks: (BlockState | undefined)[] = [];

  add(event: unknown): void {
    if (!isObj(event)) return;
    this.chunks++;
    switch (event.type) {
      case "message_start":
        if (isObj(event.message)) {
          this.message = event.message;
          if (isObj(event.message.usage)) this.usage = { ...event.message.usage };
        }
        break;
      case "content_block_start":
        this.start(event.index, event.content_block);
        break;
      case "content_block_delta":
        this.delta(event.index, event.delta);
        break;
      case "message_delta": {
        const delta = event.delta;
        if (isObj(delta)) {
          if (delta.stop_reason != null) this.stopReason = delta.stop_reason;
          if (delta.stop_sequence != null) this.stopSequence = delta.stop_sequence;
        }
        if (isObj(event.usage)) {
          // Cumulative counts: a number replaces the one message_start gave; a null leaves it as it was.
          this.usage ??= {};
          for (const [key, value] of Object.entries(event.usage)) if (value != null) this.usage[key] = value;
        }
        break;
      }
      case "message_stop":
        this.stopped = true;
        break;
    }
  }

  private slot(index: unknown): number | undefined {
    return isNum(index) && Number.isInteger(index) && index >= 0 && index < MAX_INDEX ? index : undefined;
  }

  private start(index: unknown, block: unknown): void {
    const at = this.slot(index);
    if (at === undefined || !isObj(block)) return;
    this.blocks[at] = { block: { ...block }, json: undefined };
  }

  private delta(index: unknown, delta: unknown): void {
    const at = this.slot(index);
    if (at === undefined || !isObj(delta)) return;
    let state = this.blocks[at];
    if (!state) {
      // A delta without its start (a server that skips it): a block of the delta's kind.
      state = { block: { type: delta.type === "input_json_delta" ? "tool_use" : "text" }, json: undefined };
      this.blocks[at] = state;
    }
    const block = state.block;
    switch (delta.type) {
      case "text_delta":
        append(block, "text", delta.text);
        break;
      case "input_json_delta":
        if (typeof delta.partial_json === "string") state.json = (state.json ?? "") + delta.partial_json;
        break;
      case "thinking_delta":
        append(block, "thinking", delta.thinking);
        break;
      case "signature_delta":
        append(block, "signature", delta.signature);
        break;
      case "citations_delta":
        if (delta.citation !== undefined) {
          const citations = Array.isArray(block.citations) ? block.citations : [];
          block.citations = [...citations, delta.citation];
        }
        break;
    }
  }

  addUsage(usage: Obj): void {
    this.usage = { ...usage };
  }

  get hasUsage(): boolean {
    return this.usage !== undefined;
  }

  /** A stop reason arrived (`message_delta`) or the message ended (`message_stop`). */
  get finished(): boolean {
    return this.stopReason !== null || this.stopped;
  }

  completion(): Obj {
    const content: Obj[] = [];
    for (const state of this.blocks) {
      if (!state) continue;
      const block = { ...state.block };
      if (state.json !== undefined) block.input = parseInput(state.json);
      content.push(block);
    }
    const message: Obj = {
      id: null,
      type: "message",
      role: "assistant",
      model: null,
      ...this.message,
      content,
      stop_reason: this.stopReason,
      stop_sequence: this.stopSequence,
    };
    if (this.usage) message.usage = this.usage;
    return message;
  }
}

/** Appends a text piece to `block[key]` (a function, not a closure per event: a stream has hundreds). */
function append(block: Obj, key: string, piece: unknown): void {
  if (typeof piece === "string") block[key] = (typeof block[key] === "string" ? block[key] : "") + piece;
}

/** A tool use's input: the joined JSON parsed, `{}` for none, the raw text when it does not parse. */
function parseInput(json: string): unknown {
  if (json.trim() === "") return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it is ever read.
describeAs(MessageAccumulator, "MessageAccumulator");
