/**
 * Reassembly of a streamed Gemini answer: the `GenerateContentResponse` chunks `generateContentStream` yields → the
 * response a non-streamed request would have returned, which a streamed call records as its output and maps to
 * response attributes.
 *
 * - Candidates are merged by their `index`: consecutive text parts of the same kind (thought or not) are joined,
 *   every other part (function calls, inline data, …) is kept in order; the latest `finishReason`, safety ratings
 *   and other candidate fields win.
 * - Usage: each chunk's `usageMetadata` is the running total of its request (the SDK already adds up the requests
 *   of a resumed generation, its automatic continuation), so the latest one is kept, never a sum of chunks.
 * - Automatic function calling: the SDK runs the tools the model asked for and streams the next round in the same
 *   iterator, after one chunk of its own holding the function responses (a candidate whose content has role
 *   `user`). That chunk ends a round: the round's model turn and the function responses go into
 *   `automaticFunctionCallingHistory` (after the request's contents, as the non-streamed response has it), the
 *   round's usage is added to the call's total, and the answer starts afresh.
 */
import { describeAs } from "../own-objects.js";
import type { StreamAccumulator } from "./call-format.js";
import { normalizeContents } from "./google-content.js";
import { addUsage, setTotalUsage } from "./google-usage.js";
import { isNum, isObj, type Obj } from "./guards.js";

/** Largest candidate index reassembled; real requests ask for a handful. */
const MAX_INDEX = 64;

/** Top-level chunk fields that are not kept as they come (the latest wins for every other one). */
const OWN_FIELDS = new Set(["candidates", "usageMetadata", "sdkHttpResponse", "automaticFunctionCallingHistory"]);

interface CandidateState {
  /** Every field of the candidate but `content` (the latest value of each). */
  fields: Obj;
  role: unknown;
  parts: Obj[];
}

/** Whether a part is plain text (or thought text) that the next text part of the same kind continues. */
function joinable(last: Obj | undefined, part: Obj): last is Obj {
  return (
    last !== undefined &&
    typeof last.text === "string" &&
    typeof part.text === "string" &&
    (last.thought === true) === (part.thought === true)
  );
}

/** Reassembles Gemini stream chunks (see the module comment). */
export class GeminiStreamAccumulator implements StreamAccumulator {
  chunks = 0;
  private candidates: (CandidateState | undefined)[] = [];
  private meta: Obj = {};
  /** The latest `usageMetadata` of the current round (a running total). */
  private usage: unknown;
  /** Usage of the rounds before the current one (automatic function calling). */
  private earlier: Obj | undefined;
  private history: Obj[] | undefined;
  /**
   * The request's `contents` as sent: read now, because the SDK's automatic function calling replaces
   * `params.contents` with the longer conversation before each later round.
   */
  private readonly contents: unknown;

  constructor(params: Obj) {
    this.contents = params.contents;
  }

  add(chunk: unknown): void {
    if (!isObj(chunk)) return;
    this.chunks++;
    const candidates = chunk.candidates;
    if (Array.isArray(candidates) && candidates.length === 1) {
      const content = isObj(candidates[0]) ? candidates[0].content : undefined;
      if (isObj(content) && content.role === "user") {
        this.nextRound(content);
        return;
      }
    }
    for (const key of Object.keys(chunk)) if (!OWN_FIELDS.has(key)) this.meta[key] = chunk[key];
    if (isObj(chunk.usageMetadata)) this.usage = chunk.usageMetadata;
    if (!Array.isArray(candidates)) return;
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i];
      if (!isObj(candidate)) continue;
      const index = isNum(candidate.index) ? candidate.index : i;
      if (!Number.isInteger(index) || index < 0 || index >= MAX_INDEX) continue;
      this.merge(index, candidate);
    }
  }

  private merge(index: number, candidate: Obj): void {
    let state = this.candidates[index];
    if (!state) {
      state = { fields: {}, role: undefined, parts: [] };
      this.candidates[index] = state;
    }
    for (const key of Object.keys(candidate)) if (key !== "content") state.fields[key] = candidate[key];
    const content = candidate.content;
    if (!isObj(content)) return;
    if (content.role !== undefined) state.role = content.role;
    if (!Array.isArray(content.parts)) return;
    const parts = state.parts;
    for (const part of content.parts) {
      if (!isObj(part)) continue;
      const last = parts[parts.length - 1];
      if (joinable(last, part)) {
        // Copied when first kept, so the SDK's chunk objects are never changed.
        for (const key of Object.keys(part)) if (key !== "text") last[key] = part[key];
        last.text = (last.text as string) + (part.text as string);
      } else parts.push({ ...part });
    }
  }

  /** The SDK's function-response turn: the round before it is complete (see the module comment). */
  private nextRound(responses: Obj): void {
    this.history ??= [...normalizeContents(this.contents)];
    const model = this.candidates[0];
    if (model) this.history.push({ role: model.role ?? "model", parts: model.parts });
    this.history.push(responses);
    this.earlier = addUsage(this.earlier, this.usage);
    this.usage = undefined;
    this.candidates = [];
  }

  addUsage(usage: Obj): void {
    this.usage = usage;
  }

  get hasUsage(): boolean {
    return this.usage !== undefined;
  }

  /** Every candidate seen has a finish reason (or the prompt was blocked: no candidate will come). */
  get finished(): boolean {
    const seen = this.candidates.filter((c) => c !== undefined);
    if (seen.length === 0) return isObj(this.meta.promptFeedback) && this.meta.promptFeedback.blockReason != null;
    return seen.every((c) => c.fields.finishReason != null);
  }

  completion(): Obj {
    const response: Obj = {};
    const candidates: Obj[] = [];
    for (const state of this.candidates) {
      if (!state) continue;
      const content: Obj = { parts: state.parts.map((p) => ({ ...p })) };
      if (state.role !== undefined) content.role = state.role;
      candidates.push({ content, ...state.fields });
    }
    if (candidates.length > 0) response.candidates = candidates;
    Object.assign(response, this.meta);
    if (this.usage !== undefined) response.usageMetadata = this.usage;
    if (this.history) response.automaticFunctionCallingHistory = [...this.history];
    if (this.earlier) setTotalUsage(response, addUsage(addUsage(undefined, this.earlier), this.usage) as Obj);
    return response;
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it is ever read.
describeAs(GeminiStreamAccumulator, "GeminiStreamAccumulator");
