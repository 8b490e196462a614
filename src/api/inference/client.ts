import {
  type ClientOptions,
  ENV,
  envOf,
  MODEL_SERVICE_TIMEOUT_MS,
  readProject,
  resolveTransport,
} from "../../config.js";
import { ChatTracing } from "../../genai/client.js";
import { GEN_AI_PROVIDER } from "../../genai/openai-chat.js";
import type { ChatTraceOptions } from "../../genai/options.js";
import { HttpTransport } from "../../http/transport.js";
import { describeAs } from "../../own-objects.js";
import { type CallOptions, checkClientOptions, withCall } from "../base.js";
import type { ModelList } from "../types/chat.js";
import { InferenceChatCompletions } from "./chat.js";

/** Options of {@link InferenceClient}. */
export interface InferenceClientOptions extends ClientOptions {
  /**
   * `team/project` that usage is attributed to, sent as the `OpenAI-Project` header. Env:
   * `TRACEWIRE_INFERENCE_PROJECT`, else `TRACEWIRE_PROJECT`. Without one the service uses your default entity
   * and a project named `inference`.
   */
  project?: string;
  /**
   * Trace chat completions as GenAI `chat {model}` spans (provider `tracewire.inference`) when tracing is on.
   * Default true; `false` turns it off; an object sets the {@link ChatTraceOptions}.
   */
  trace?: boolean | ChatTraceOptions;
}

/** `GET /models`. */
export class InferenceModels {
  constructor(private readonly transport: HttpTransport) {}

  /** Lists the models the service hosts (`{object: "list", data: [{id, object, created, owned_by, root}]}`). */
  list(options?: CallOptions): Promise<ModelList> {
    return this.transport.json<ModelList>(withCall({ method: "GET", path: "/models" }, options));
  }
}

/**
 * Typed client of the inference service (DESIGN §2.2), an OpenAI-compatible API whose base URL already ends in
 * `/v1` (option `baseUrl`, env `TRACEWIRE_INFERENCE_BASE_URL`).
 *
 * Retries: 429 (concurrency limit; the service sends no rate headers) and 503 (overloaded) are retried with
 * exponential backoff for every request; connection failures are retried for reads, and for a chat request only
 * when the connection never opened.
 */
export class InferenceClient {
  /** The `team/project` sent as `OpenAI-Project`, if any. */
  readonly project: string | undefined;
  /** `client.chat.completions.create(...)`, as in the `openai` package. */
  readonly chat: { readonly completions: InferenceChatCompletions };
  /** `client.models.list()`. */
  readonly models: InferenceModels;
  private readonly transport: HttpTransport;

  constructor(options: InferenceClientOptions = {}) {
    checkClientOptions("InferenceClient", options);
    const transportOptions = resolveTransport(
      {
        client: "InferenceClient",
        baseUrlEnv: ENV.inferenceBaseUrl,
        nonIdempotent: "refused",
        defaultTimeoutMs: MODEL_SERVICE_TIMEOUT_MS,
      },
      options,
    );
    const env = envOf(options.env);
    this.project =
      readProject("project", ENV.inferenceProject, options.project, env) ??
      readProject("project", ENV.project, undefined, env);
    // The user's own headers come later in the object, so an explicit OpenAI-Project header still wins.
    const headers = { ...(this.project ? { "openai-project": this.project } : {}), ...transportOptions.headers };
    this.transport = new HttpTransport({ ...transportOptions, headers });
    const tracing = ChatTracing.resolve(options.trace, {
      name: "InferenceClient",
      baseUrl: transportOptions.baseUrl,
      provider: GEN_AI_PROVIDER.inference,
      env,
    });
    this.chat = { completions: new InferenceChatCompletions(this.transport, tracing) };
    this.models = new InferenceModels(this.transport);
  }

  /**
   * Closes the client's connections. Requests in flight get their answers first; a response stream still open is
   * ended (reading it then throws a `ConnectionError` saying the client was closed), so read streams to their end
   * before closing. Requests made after `close()` fail at once.
   */
  close(): Promise<void> {
    return this.transport.close();
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(InferenceClient, "InferenceClient");
describeAs(InferenceModels, "InferenceModels");
