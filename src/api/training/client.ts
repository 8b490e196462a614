import { type ClientOptions, ENV, envOf, MODEL_SERVICE_TIMEOUT_MS, resolveTransport } from "../../config.js";
import { InternalServerError, ProtocolError } from "../../errors.js";
import { ChatTracing } from "../../genai/client.js";
import { GEN_AI_PROVIDER } from "../../genai/openai-chat.js";
import type { ChatTraceOptions } from "../../genai/options.js";
import { readAll } from "../../http/request-parts.js";
import { HttpTransport } from "../../http/transport.js";
import { describeAs } from "../../own-objects.js";
import { bytesToText } from "../../runtime.js";
import { type CallOptions, checkClientOptions, withCall } from "../base.js";
import type { JsonObject } from "../types/common.js";
import type { SystemCheckBody, SystemCheckResult } from "../types/training.js";
import { TrainingChatCompletions } from "./chat.js";
import { TrainingJobs } from "./jobs.js";
import { TrainingModels } from "./models.js";

/** Options of {@link TrainingClient}. `baseUrl` (env `TRACEWIRE_TRAINING_BASE_URL`) is the host; a trailing `/v1` is dropped. */
export interface TrainingClientOptions extends ClientOptions {
  /**
   * Trace chat completions as GenAI `chat {model}` spans (provider `tracewire.training`) when tracing is on.
   * Default true; `false` turns it off; an object sets the {@link ChatTraceOptions} (`captureTokenIds` keeps the
   * engine's token id arrays in the recorded output).
   */
  trace?: boolean | ChatTraceOptions;
}

/** Keys of a system-check answer: a 503 whose JSON has none of them is an outage, not a check result. */
const CHECK_KEYS = ["api", "database", "cpu_queue", "gpu_queue"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Typed client of the training service (DESIGN §2.3): chat completions on the engine it embeds, models and
 * checkpoints, RL and SFT training jobs with their event streams, and health checks. Every path starts with `/v1`.
 *
 * Retries: the service's POSTs carry no idempotency key, so a POST is retried only when it cannot have been
 * processed — the connection never opened, or 429/503 *with* `Retry-After`. Reads and DELETEs are retried on
 * connection failures, 408, 429, 500, 502, 503 and 504.
 */
export class TrainingClient {
  /** `client.chat.completions.create(...)`. */
  readonly chat: { readonly completions: TrainingChatCompletions };
  /** Models, checkpoints and trajectory logging. */
  readonly models: TrainingModels;
  /** RL and SFT training jobs and their events. */
  readonly jobs: TrainingJobs;
  private readonly transport: HttpTransport;

  constructor(options: TrainingClientOptions = {}) {
    checkClientOptions("TrainingClient", options);
    const transportOptions = resolveTransport(
      {
        client: "TrainingClient",
        baseUrlEnv: ENV.trainingBaseUrl,
        nonIdempotent: "refused-with-retry-after",
        defaultTimeoutMs: MODEL_SERVICE_TIMEOUT_MS,
        // Users often copy the base URL with its `/v1` from the docs; our paths already carry `/v1`.
        normalizeUrl: (url) => url.replace(/\/v1$/, ""),
      },
      options,
    );
    this.transport = new HttpTransport(transportOptions);
    const tracing = ChatTracing.resolve(options.trace, {
      name: "TrainingClient",
      baseUrl: transportOptions.baseUrl,
      provider: GEN_AI_PROVIDER.training,
      env: envOf(options.env),
    });
    this.chat = { completions: new TrainingChatCompletions(this.transport, tracing) };
    this.models = new TrainingModels(this.transport);
    this.jobs = new TrainingJobs(this.transport);
  }

  /** `GET /v1/health`: resolves when the service is up (its JSON body, unspecified). */
  async health(options?: CallOptions): Promise<JsonObject> {
    const body = await this.transport.json<JsonObject | undefined>(
      withCall({ method: "GET", path: "/v1/health" }, options),
    );
    return body ?? {};
  }

  /**
   * `GET /v1/system-check`: the state of the API, database and CPU/GPU queues. The service answers 503 when any
   * check fails; that answer is **returned** (`ok: false, status: 503, body`), not thrown. Anything else that
   * fails (other statuses, a 503 without a check body, network errors) throws as usual.
   */
  async systemCheck(options?: CallOptions): Promise<SystemCheckResult> {
    // idempotent: false because a 503 here is the answer, not a hiccup: as an idempotent GET the transport would
    // retry it with backoff and keep the caller waiting seconds for the same result. Under this client's
    // "refused-with-retry-after" mode a non-idempotent request is still retried when the connection never opened,
    // or on 429/503 that carry Retry-After (a proxy's explicit "come back later").
    const request = withCall({ method: "GET", path: "/v1/system-check", idempotent: false }, options);
    try {
      const response = await this.transport.stream(request);
      const text = bytesToText(await readAll(response.body));
      let body: unknown;
      try {
        body = text === "" ? {} : JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (!isRecord(body)) {
        throw new ProtocolError(`GET /v1/system-check answered ${response.status} without a JSON object body.`);
      }
      return { ok: response.status >= 200 && response.status < 300, status: response.status, body };
    } catch (err) {
      if (err instanceof InternalServerError && err.status === 503 && isRecord(err.body)) {
        const body = err.body;
        if (CHECK_KEYS.some((key) => key in body)) return { ok: false, status: 503, body: body as SystemCheckBody };
      }
      throw err;
    }
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
describeAs(TrainingClient, "TrainingClient");
