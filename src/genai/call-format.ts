/**
 * What one kind of model call records, as a {@link CallFormat}: how a request becomes span name and request
 * attributes, how an answer (or a stream's reassembled answer) becomes response attributes and recorded output, and
 * the opt-in content attributes. {@link ChatCall} (chat-call.ts) runs the lifecycle — start, stream observation,
 * end exactly once — the same way for every format; the default is {@link OPENAI_CHAT_FORMAT}, the
 * chat-completions shape. The Responses API and embeddings have their own (openai-responses.ts,
 * openai-embeddings.ts).
 */
import type { Attributes } from "@opentelemetry/api";
import type { Obj } from "./guards.js";
import { ATTR_OPENAI_API_TYPE, type ChatEndpoint, chatRequestAttributes, chatSpanName } from "./openai-chat.js";
import { ChatChunkAccumulator } from "./openai-chunks.js";
import { inputContentAttributes, outputContentAttributes } from "./openai-content.js";
import { chatResponseAttributes, withoutTokenIds } from "./openai-response.js";
import type { ResolvedChatTraceOptions } from "./options.js";

/** Reassembles the items of a stream into the one answer a non-streamed request would have returned. */
export interface StreamAccumulator {
  /** Items seen so far. */
  readonly chunks: number;
  /** Adds one streamed item. */
  add(item: unknown): void;
  /** Records usage that reached tracewire outside the items (chat completions only). */
  addUsage(usage: Obj): void;
  /** Whether usage has been seen. */
  readonly hasUsage: boolean;
  /** Whether the answer is complete (a consumer that stops now stopped after the end, not before it). */
  readonly finished: boolean;
  /** The answer the items add up to so far. */
  completion(): Obj;
  /** What the stream itself reported as a failure (an `error` event, a failed response), if anything. */
  readonly failure?: unknown;
  /**
   * For a format whose stream ends with a terminal item that carries the usage, after items that close each part of
   * the answer (the Responses API: `.done` events, then `response.completed`): whether the latest item closed a part
   * and the terminal one has not come — the answer may be complete, and a consumer that stops now has the stream read
   * on for that terminal item (chat-stream.ts). Chat completions leave it out: their usage chunk is awaited when
   * tracewire asked for it and every choice finished.
   */
  readonly closing?: boolean;
  /**
   * With {@link closing}: whether `item`, read after the consumer stopped, still belongs to the close of the answer (a
   * closing or terminal item). One that does not (another item begins) shows the consumer stopped before the end.
   */
  closes?(item: unknown): boolean;
}

/** How one kind of model call is named, described and recorded (see the module comment). */
export interface CallFormat {
  /** The span name for a request, e.g. `chat gpt-4o-mini`. */
  spanName(params: Obj): string;
  /** The attributes known when the request starts. */
  requestAttributes(params: Obj, endpoint: ChatEndpoint, streaming: boolean): Attributes;
  /** Adds the response and usage attributes of an answer to `attributes`. */
  responseAttributes(answer: unknown, attributes: Attributes): void;
  /** The answer as recorded (what is left out, e.g. token ids or vectors, never reaches the serializer). */
  recordedOutput(answer: unknown, options: ResolvedChatTraceOptions): unknown;
  /** The opt-in content attributes of the (serialized, redacted) request. */
  inputContent(inputs: unknown): Attributes;
  /** The opt-in content attributes of the (serialized, redacted) answer; `unfinished` as a finish reason. */
  outputContent(output: unknown, unfinished: string): Attributes;
  /** A fresh accumulator for a streamed answer; `params` are the request's (what was sent). */
  accumulator(options: ResolvedChatTraceOptions, params: Obj): StreamAccumulator;
  /** Whether streamed requests get `stream_options.include_usage` (chat completions). */
  readonly injectsStreamUsage: boolean;
  /** What a complete answer reports as a failure (e.g. a Responses `status: "failed"`), if anything. */
  failureOf?(answer: unknown): unknown;
}

/** The OpenAI chat-completions format: the default of every chat call. */
export const OPENAI_CHAT_FORMAT: CallFormat = {
  spanName: chatSpanName,
  requestAttributes: chatRequestAttributes,
  responseAttributes: (answer, attributes) => {
    chatResponseAttributes(answer, attributes);
  },
  recordedOutput: (answer, options) => (options.captureTokenIds ? answer : withoutTokenIds(answer)),
  inputContent: inputContentAttributes,
  outputContent: outputContentAttributes,
  accumulator: (options) => new ChatChunkAccumulator(options.captureTokenIds),
  injectsStreamUsage: true,
};

/**
 * `wrapOpenAI`'s chat completions: the default format, with `openai.api.type=chat_completions` (the OpenAI
 * conventions tell the two OpenAI APIs apart; the Responses format says `responses`).
 */
export const OPENAI_CHAT_COMPLETIONS_FORMAT: CallFormat = {
  ...OPENAI_CHAT_FORMAT,
  requestAttributes: (params, endpoint, streaming) => {
    const attributes = chatRequestAttributes(params, endpoint, streaming);
    attributes[ATTR_OPENAI_API_TYPE] = "chat_completions";
    return attributes;
  },
};
