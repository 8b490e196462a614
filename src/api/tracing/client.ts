import { type ClientOptions, ENV, readProject, resolveTransport } from "../../config.js";
import { HttpTransport } from "../../http/transport.js";
import type { ServiceContext } from "../base.js";
import { CallsApi } from "./calls.js";

/** Options of {@link TracingClient}. */
export interface TracingClientOptions extends ClientOptions {
  /** Default `entity/project` for request bodies that omit `project_id`. Env: `TRACEWIRE_PROJECT`. */
  project?: string;
}

/**
 * Typed client for every endpoint of the tracing service, grouped by family (`client.calls.start(...)`,
 * `client.feedback.create(...)`, …) plus project-scoped v2 resources (`client.project("acme", "demo")`).
 *
 * Retries: connection failures, 408, 429, 502, 503 and 504 are retried for every endpoint (writes are keyed by
 * client-chosen ids, so a replay is harmless); 500 only for reads.
 */
export class TracingClient {
  /** `entity/project` used when a request omits `project_id`. */
  readonly project: string | undefined;
  /** Calls: write path, reads, queries, usage, scoring. */
  readonly calls: CallsApi;
  private readonly transport: HttpTransport;

  constructor(options: TracingClientOptions = {}) {
    const transportOptions = resolveTransport(
      { client: "TracingClient", baseUrlEnv: ENV.baseUrl, nonIdempotent: "replay" },
      options,
    );
    this.project = readProject("project", ENV.project, options.project, options.env ?? process.env);
    this.transport = new HttpTransport(transportOptions);
    const context: ServiceContext = { transport: this.transport, project: this.project };
    this.calls = new CallsApi(context);
  }

  /** Closes the client's idle connections. In-flight requests finish first. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
