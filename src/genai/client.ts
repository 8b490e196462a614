/**
 * Chat tracing for tracewire's own clients (`InferenceClient`, `TrainingClient`): their `trace` option, resolved
 * once per client, and the run of one request under its {@link ChatCall}. (`wrapOpenAI` drives ChatCall itself,
 * around the openai package's own promise and stream types: see instrument/openai.ts.)
 */
import { context } from "@opentelemetry/api";
import type { Env } from "../config.js";
import { ConfigError } from "../errors.js";
import { describeAs } from "../own-objects.js";
import { ChatCall } from "./chat-call.js";
import { isObj, type Obj } from "./guards.js";
import { type ChatEndpoint, chatEndpoint } from "./openai-chat.js";
import { type ChatTraceOptions, type ResolvedChatTraceOptions, resolveChatTraceOptions } from "./options.js";
import { controllerSignal } from "./stream-tap.js";

/**
 * Runs one request of tracewire's own clients under `call` (if any): the request runs inside the span's context;
 * a completion ends the span, a stream (`ChatStream`) is observed until it ends; a rejection ends it as failed or
 * cancelled and is passed on unchanged.
 */
export function traceChatRequest<T>(
  call: ChatCall | undefined,
  run: (body: Obj) => Promise<T>,
  params: Obj,
): Promise<T> {
  if (!call) return run(params);
  let promise: Promise<T>;
  try {
    promise = context.with(call.context, () => run(call.body));
  } catch (err) {
    call.fail(err);
    throw err;
  }
  return promise.then(
    (result) => {
      if (call.streaming) {
        if (isObj(result)) call.observeStream(result, Symbol.asyncIterator, controllerSignal(result));
        else call.complete(result);
      } else {
        call.complete(result);
      }
      return result;
    },
    (err: unknown) => {
      call.fail(err);
      throw err;
    },
  );
}

/**
 * The tracing settings of one of tracewire's own chat clients (`InferenceClient`, `TrainingClient`): their `trace`
 * option resolved once, at construction.
 */
export class ChatTracing {
  private constructor(
    readonly endpoint: ChatEndpoint,
    readonly options: ResolvedChatTraceOptions,
  ) {}

  /**
   * Resolves a client's `trace` option: `undefined` or `true` trace with defaults, `false` turns tracing off
   * (returns undefined), an object sets {@link ChatTraceOptions}. Anything else is a `ConfigError`.
   */
  static resolve(
    option: boolean | ChatTraceOptions | undefined,
    client: { name: string; baseUrl: string; provider: string; env: Env },
  ): ChatTracing | undefined {
    if (option === false) return undefined;
    if (option !== undefined && option !== true && (option === null || typeof option !== "object")) {
      throw new ConfigError(`${client.name} option trace`, JSON.stringify(option), "true, false or an options object");
    }
    const options = resolveChatTraceOptions(
      option === true || option === undefined ? {} : option,
      client.env,
      `${client.name} option trace`,
    );
    return new ChatTracing(chatEndpoint(client.baseUrl, options.providerName ?? client.provider), options);
  }

  /** Starts the span of one request (undefined when nothing records it). */
  start(opName: string, params: Obj, signal: AbortSignal | undefined): ChatCall | undefined {
    return ChatCall.start({ opName, params, endpoint: this.endpoint, options: this.options, signal });
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(ChatTracing, "ChatTracing");
