/**
 * What an evaluation needs from tracing: the active processor (from `init()`, or started here from the environment
 * when the app has none), a `TracingClient` for the objects that reaches the same service with the same settings,
 * and the link to an evaluation (the local viewer for `tracewire dev`, the hosted UI for the hosted service).
 */
import { TracingClient } from "../api/tracing/client.js";
import { isLoopbackHost } from "../config.js";
import { ConfigError } from "../errors.js";
import { type ActiveProcessor, globalState, type ServiceOptions } from "../otel/state.js";
import { init } from "../tracing/init.js";
import { Publisher } from "./objects.js";

/** The tracing an evaluation records into. */
export interface EvalSession {
  processor: ActiveProcessor;
  service: ServiceOptions;
  client: TracingClient;
  publisher: Publisher;
  close(): Promise<void>;
}

/** The active processor, starting tracing from the environment when nothing is set up yet. */
export function activeProcessor(what: string): ActiveProcessor {
  let processor = globalState().active;
  if (!processor) {
    init();
    processor = globalState().active;
  }
  if (!processor) {
    throw new ConfigError(
      "baseUrl (env TRACEWIRE_BASE_URL)",
      undefined,
      `a tracing service to record ${what} in: call init() first, or set TRACEWIRE_BASE_URL (and TRACEWIRE_PROJECT, TRACEWIRE_API_KEY); \`npx tracewire dev\` starts a local one`,
    );
  }
  return processor;
}

/** Opens a session on the active processor's service. */
export function openSession(what: string): EvalSession {
  const processor = activeProcessor(what);
  const service = processor.serviceOptions?.();
  if (!service) {
    throw new ConfigError(
      "tracewire",
      undefined,
      "one copy of tracewire: the running processor comes from an older copy that cannot say where it sends",
    );
  }
  const client = new TracingClient({
    baseUrl: service.baseUrl,
    project: service.project,
    allowInsecureHttp: service.allowInsecureHttp,
    ...(service.apiKey === undefined ? {} : { apiKey: service.apiKey }),
  });
  return {
    processor,
    service,
    client,
    publisher: new Publisher(client, service.project),
    close: () => client.close(),
  };
}

/**
 * The page of an evaluation: the local viewer (`tracewire dev`, any loopback service), the hosted UI for
 * `https://trace.wandb.ai` and `https://<host>/traces`; undefined for a service whose UI is unknown.
 */
export function evaluationUrl(baseUrl: string, project: string, callId: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  const [entity, name] = project.split("/");
  if (isLoopbackHost(url.hostname)) {
    const hash = new URLSearchParams({ project, view: "evals", eval: callId });
    return `${baseUrl.replace(/\/+$/, "")}/#${hash.toString()}`;
  }
  if (url.hostname === "trace.wandb.ai") return `https://wandb.ai/${entity}/${name}/weave/calls/${callId}`;
  if (url.pathname.replace(/\/+$/, "").endsWith("/traces")) {
    const root = `${url.origin}${url.pathname.replace(/\/+$/, "").slice(0, -"/traces".length)}`;
    return `${root}/${entity}/${name}/weave/calls/${callId}`;
  }
  return undefined;
}
