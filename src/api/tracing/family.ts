/**
 * The few moves every endpoint family of the tracing service makes: send a JSON request, read an NDJSON stream,
 * fill the default project. Families extend {@link EndpointFamily} so each method is one line of intent.
 */
import type { RequestOptions } from "../../http/transport.js";
import { describeAs } from "../../own-objects.js";
import { type CallOptions, ndjsonRequest, type ServiceContext, withCall, withProject } from "../base.js";

export abstract class EndpointFamily {
  constructor(protected readonly context: ServiceContext) {}

  /** Sends one request and parses the JSON answer. */
  protected send<T>(request: RequestOptions, options: CallOptions | undefined): Promise<T> {
    return this.context.transport.json<T>(withCall(request, options));
  }

  /** `POST path` with a JSON body: a write (not retried on 500). */
  protected writeJson<T>(path: string, json: unknown, options: CallOptions | undefined): Promise<T> {
    return this.send<T>({ method: "POST", path, json }, options);
  }

  /**
   * `POST path` with a JSON body that creates something without a client-chosen key: retried only when the
   * service cannot have acted on it (connection refused, 429, 503), since a replay would create it twice.
   */
  protected createJson<T>(path: string, json: unknown, options: CallOptions | undefined): Promise<T> {
    return this.send<T>({ method: "POST", path, json, retry: { nonIdempotent: "refused" } }, options);
  }

  /** `POST path` with a JSON body that only reads: idempotent, so a 500 is retried too. */
  protected readJson<T>(path: string, json: unknown, options: CallOptions | undefined): Promise<T> {
    return this.send<T>({ method: "POST", path, json, idempotent: true }, options);
  }

  /** An NDJSON answer as an async iterable; reads sent by POST are marked idempotent. */
  protected ndjson<T>(request: RequestOptions, options: CallOptions | undefined): AsyncGenerator<T> {
    const idempotent = request.idempotent ?? true;
    return ndjsonRequest<T>(this.context.transport, withCall({ ...request, idempotent }, options));
  }

  /** Fills `project_id` from the client's default (see {@link withProject}). */
  protected fillProject<T extends { project_id?: string }>(body: T, method: string): T & { project_id: string } {
    return withProject(this.context, body, method);
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(EndpointFamily, "EndpointFamily");
