/**
 * One chat-completions request of tracewire's own model-service clients (inference and training): `POST` the
 * body, resolve to a `ChatStream` of chunks for `stream: true` or to the completion, traced as a GenAI chat span
 * when the client has tracing on. The clients differ only in their checks, path and op name.
 */

import { type ChatTracing, traceChatRequest } from "../genai/client.js";
import type { HttpTransport } from "../http/transport.js";
import { type CallOptions, withCall } from "./base.js";
import { type ChatStream, openChatStream } from "./stream.js";
import type { ChatCompletion, ChatCompletionChunk } from "./types/chat.js";

export interface ChatRequestTarget {
  transport: HttpTransport;
  tracing: ChatTracing | undefined;
  /** e.g. `/chat/completions`. */
  path: string;
  /** The traced call's op name. */
  opName: string;
}

/** Sends already-checked chat params to `target` (see the module comment). */
export function sendChatCompletion(
  target: ChatRequestTarget,
  params: { stream?: boolean | null },
  options: CallOptions | undefined,
): Promise<ChatStream<ChatCompletionChunk> | ChatCompletion> {
  const body = params as object as Record<string, unknown>;
  const send = (json: object): Promise<ChatStream<ChatCompletionChunk> | ChatCompletion> => {
    const request = withCall({ method: "POST", path: target.path, json }, options);
    return params.stream === true
      ? openChatStream<ChatCompletionChunk>(target.transport, request)
      : target.transport.json<ChatCompletion>(request);
  };
  const call = target.tracing?.start(target.opName, body, options?.signal);
  return traceChatRequest(call, send, body);
}
