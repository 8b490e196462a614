import { ValidationError } from "../../errors.js";
import type { ChatTracing } from "../../genai/client.js";
import type { HttpTransport } from "../../http/transport.js";
import { describeAs } from "../../own-objects.js";
import type { CallOptions } from "../base.js";
import { sendChatCompletion } from "../chat-request.js";
import type { ChatStream } from "../stream.js";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from "../types/chat.js";

/** Rejects what no server could accept (not an object, no model, no messages) before anything is sent. */
function checkRequest(params: ChatCompletionCreateParams): void {
  const method = "chat.completions.create";
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    throw new ValidationError(`${method} expects a request object, got ${params === null ? "null" : typeof params}.`);
  }
  if (typeof params.model !== "string" || params.model.trim() === "") {
    throw new ValidationError(
      `${method}: model must be a non-empty string, got ${JSON.stringify(params.model)}.`,
      "model",
    );
  }
  if (!Array.isArray(params.messages)) {
    throw new ValidationError(`${method}: messages must be an array of chat messages.`, "messages");
  }
}

/** Op name of a traced inference chat request. */
const OP_NAME = "inference.chat.completions.create";

/**
 * `POST /chat/completions` of the inference service. The request is sent as given (the library never renames or
 * drops wire fields; tracing may add `stream_options.include_usage`, see `ChatTraceOptions`). Retries: 429
 * (concurrency limit) and 503 (overloaded) with backoff; a request whose connection broke after it was sent is not
 * repeated, since it may already be generating (and billing). Traced as a GenAI chat span unless the client was
 * built with `trace: false`.
 */
export class InferenceChatCompletions {
  constructor(
    private readonly transport: HttpTransport,
    private readonly tracing?: ChatTracing,
  ) {}

  /**
   * Creates a chat completion. With `stream: true` resolves to a {@link ChatStream} of chunks once the response
   * headers arrive; otherwise to the whole {@link ChatCompletion}. A malformed request throws a `ValidationError`
   * synchronously, before anything is sent.
   */
  create(params: ChatCompletionCreateParamsStreaming, options?: CallOptions): Promise<ChatStream<ChatCompletionChunk>>;
  create(params: ChatCompletionCreateParamsNonStreaming, options?: CallOptions): Promise<ChatCompletion>;
  create(
    params: ChatCompletionCreateParams,
    options?: CallOptions,
  ): Promise<ChatStream<ChatCompletionChunk> | ChatCompletion>;
  create(
    params: ChatCompletionCreateParams,
    options?: CallOptions,
  ): Promise<ChatStream<ChatCompletionChunk> | ChatCompletion> {
    checkRequest(params);
    return sendChatCompletion(
      { transport: this.transport, tracing: this.tracing, path: "/chat/completions", opName: OP_NAME },
      params,
      options,
    );
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(InferenceChatCompletions, "InferenceChatCompletions");
