/**
 * What the example tests share: the local tracing service (with an API key), the example's own chat stand-in and
 * `init()` pointed at the service, started before and stopped after a file's tests; and reading a trace back the way
 * any client would. The examples are plain JavaScript, loaded by URL (`loadExample`).
 */
import { afterAll, beforeAll } from "vitest";
import { type CallSchema, TracingClient } from "../../src/api/index.js";
import { init, type TracewireHandle } from "../../src/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";

export const TRACING_KEY = "tw-local-key-0123456789abcdef";
const quiet = { warn() {}, error() {} };

export interface ExampleSetup {
  service: DevServer;
  standIn: { url: string; close(): Promise<void> };
  tracing: TracewireHandle;
  /** Every call of trace `traceId`, read back from the service. */
  trace(traceId: string): Promise<CallSchema[]>;
}

/** Loads an example module (relative to examples/), typed by the caller. */
export async function loadExample<T>(path: string): Promise<T> {
  return (await import(new URL(`../../examples/${path}`, import.meta.url).href)) as T;
}

/**
 * Starts the service, the example's stand-in (`standIn`, relative to examples/) and tracing for `project` before the
 * file's tests; stops them after.
 */
export function setupExample(project: string, standIn = "openai/stand-in.mjs"): ExampleSetup {
  const setup = { project } as unknown as ExampleSetup;
  beforeAll(async () => {
    const { startStandIn } = await loadExample<{ startStandIn(): Promise<ExampleSetup["standIn"]> }>(standIn);
    setup.service = await startDevServer({ port: 0, storage: "memory", apiKey: TRACING_KEY, logger: quiet });
    setup.standIn = await startStandIn();
    setup.tracing = init({ baseUrl: setup.service.url, apiKey: TRACING_KEY, project, env: {}, logger: quiet });
  });
  afterAll(async () => {
    await setup.tracing.shutdown();
    await setup.standIn.close();
    await setup.service.close();
  });
  setup.trace = async (traceId) => {
    const reader = new TracingClient({ baseUrl: setup.service.url, apiKey: TRACING_KEY, project, env: {} });
    const calls: CallSchema[] = [];
    for await (const call of reader.calls.streamQuery({ filter: { trace_ids: [traceId] } })) calls.push(call);
    await reader.close();
    return calls;
  };
  return setup;
}
