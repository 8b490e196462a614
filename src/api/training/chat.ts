import type { ChatTracing } from "../../genai/client.js";
import type { HttpTransport } from "../../http/transport.js";
import { describeAs } from "../../own-objects.js";
import type { CallOptions } from "../base.js";
import { sendChatCompletion } from "../chat-request.js";
import type { ChatStream } from "../stream.js";
import type { ChatCompletion, ChatCompletionChunk } from "../types/chat.js";
import type {
  TrainingChatCompletionCreateParams,
  TrainingChatCompletionCreateParamsNonStreaming,
  TrainingChatCompletionCreateParamsStreaming,
} from "./chat-params.js";
import { validateTrainingChatParams } from "./validate-chat.js";

/** Op name of a traced training-service chat request. */
const OP_NAME = "training.chat.completions.create";

/**
 * `POST /v1/chat/completions` of the training service: OpenAI's chat format plus the engine's extensions (see
 * {@link TrainingChatCompletionCreateParams}). Trained checkpoints are addressed as
 * `wandb-artifact:///{entity}/{project}/{model}:step{N}`. Engine errors, including an error event inside a 200
 * stream, arrive as typed errors carrying the engine's message. Traced as a GenAI chat span unless the client was
 * built with `trace: false`: `priority` and `request_id` become span attributes, and the token id arrays
 * (`prompt_token_ids`, `token_ids`) stay out of the recorded output unless `trace.captureTokenIds` is set.
 */
export class TrainingChatCompletions {
  constructor(
    private readonly transport: HttpTransport,
    private readonly tracing?: ChatTracing,
  ) {}

  /**
   * Creates a chat completion; with `stream: true` resolves to a {@link ChatStream} once the headers arrive (with
   * `return_token_ids`, the first chunk carries `prompt_token_ids` and each choice its `token_ids`). Requests the
   * engine is known to reject (e.g. `continue_final_message` without `add_generation_prompt: false`) throw a
   * `ValidationError` synchronously and nothing is sent. Not retried once the request may have reached the
   * server; 429/503 with `Retry-After` are.
   */
  create(
    params: TrainingChatCompletionCreateParamsStreaming,
    options?: CallOptions,
  ): Promise<ChatStream<ChatCompletionChunk>>;
  create(params: TrainingChatCompletionCreateParamsNonStreaming, options?: CallOptions): Promise<ChatCompletion>;
  create(
    params: TrainingChatCompletionCreateParams,
    options?: CallOptions,
  ): Promise<ChatStream<ChatCompletionChunk> | ChatCompletion>;
  create(
    params: TrainingChatCompletionCreateParams,
    options?: CallOptions,
  ): Promise<ChatStream<ChatCompletionChunk> | ChatCompletion> {
    validateTrainingChatParams(params);
    return sendChatCompletion(
      { transport: this.transport, tracing: this.tracing, path: "/v1/chat/completions", opName: OP_NAME },
      params,
      options,
    );
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(TrainingChatCompletions, "TrainingChatCompletions");
