/**
 * A chat dialect: what one provider's wire format means to a chat span. The span lifecycle (chat-call.ts) and what
 * it records (span-record.ts) are provider-neutral; a dialect says how this provider's request becomes the span
 * name and `gen_ai.request.*`, how its answer becomes `gen_ai.response.*` / `gen_ai.usage.*`, how a stream's events
 * add up to the answer a non-streamed request returns, and how both become the opt-in content attributes.
 *
 * {@link OPENAI_CHAT} (chat completions, the openai-*.ts files) is the default, so every existing caller keeps its
 * behaviour; the Anthropic Messages dialect lives in anthropic-messages.ts.
 */
import type { Attributes } from "@opentelemetry/api";
import type { Obj } from "./guards.js";
import { type ChatEndpoint, chatRequestAttributes, chatSpanName } from "./openai-chat.js";
import { ChatChunkAccumulator } from "./openai-chunks.js";
import { inputContentAttributes, outputContentAttributes } from "./openai-content.js";
import { chatResponseAttributes, withoutTokenIds } from "./openai-response.js";
import type { ResolvedChatTraceOptions } from "./options.js";

/** Reassembles a stream's events into the one answer a non-streamed request would have returned. */
export interface StreamAccumulator {
  /** Events seen (including any hidden from the consumer). */
  readonly chunks: number;
  /** Whether the answer is complete (every choice has its finish reason): a `break` now is not a cancellation. */
  readonly finished: boolean;
  /** Whether the usage has been seen. */
  readonly hasUsage: boolean;
  /** Adds one event (anything it does not know is ignored). */
  add(chunk: unknown): void;
  /** Records usage that reached tracewire outside the events. */
  addUsage(usage: Obj): void;
  /** The answer the events add up to so far. */
  completion(): Obj;
}

/** How one provider's chat wire format maps to a chat span. Every function is pure and may throw (callers guard). */
export interface ChatDialect {
  /** The span name (`chat {model}`). */
  spanName(params: Obj): string;
  /** The attributes known when the request starts: operation, provider, model, server, request parameters. */
  requestAttributes(params: Obj, endpoint: ChatEndpoint, streaming: boolean): Attributes;
  /** Adds the response and usage attributes of an answer (or a reassembled stream) to `attributes`. */
  responseAttributes(answer: unknown, attributes: Attributes): Attributes;
  /** The answer as the call records it (e.g. without token id arrays unless `captureTokenIds`). */
  recordedOutput(answer: unknown, options: ResolvedChatTraceOptions): unknown;
  /** A fresh accumulator for one stream. */
  accumulator(options: ResolvedChatTraceOptions): StreamAccumulator;
  /** The opt-in content attributes of a request, from its serialized and redacted parameters. */
  inputContentAttributes(inputs: unknown): Attributes;
  /** The opt-in content attributes of an answer; `unfinished` is the finish reason of an answer that never finished. */
  outputContentAttributes(output: unknown, unfinished: string): Attributes;
}

/** OpenAI chat completions (and every OpenAI-compatible server): the default dialect. */
export const OPENAI_CHAT: ChatDialect = {
  spanName: chatSpanName,
  requestAttributes: chatRequestAttributes,
  responseAttributes: chatResponseAttributes,
  recordedOutput: (answer, options) => (options.captureTokenIds ? answer : withoutTokenIds(answer)),
  accumulator: (options) => new ChatChunkAccumulator(options.captureTokenIds),
  inputContentAttributes,
  outputContentAttributes,
};
