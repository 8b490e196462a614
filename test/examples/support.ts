/**
 * What the example tests share: the local tracing service (with an API key), the example's own chat stand-in and
 * `init()` pointed at the service, started before and stopped after a file's tests; and reading a trace back the way
 * any client would. The examples are plain JavaScript, loaded by URL (`loadExample`).
 */
import { afterAll, beforeAll, vi } from "vitest";
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

/** What {@link runExampleAsWritten} gives back: the lines the example printed, and every call it recorded. */
export interface ExampleRun {
  printed: string[];
  calls: CallSchema[];
}

/**
 * For an example that sets tracing up from the environment itself (`init()` with no options): before the file's
 * tests, starts the service and points `TRACEWIRE_*` at it (with no `OPENAI_*`, so the example starts its own
 * stand-in); after them, restores the environment. `run()` imports the example (relative to examples/), keeps what
 * it printed with `console.log`, and reads back every call of `project`.
 */
export function runExampleAsWritten(path: string, project: string): { run(): Promise<ExampleRun> } {
  const keys = ["TRACEWIRE_BASE_URL", "TRACEWIRE_API_KEY", "TRACEWIRE_PROJECT", "OPENAI_API_KEY", "OPENAI_BASE_URL"];
  const saved: Record<string, string | undefined> = {};
  let service: DevServer | undefined;
  beforeAll(async () => {
    service = await startDevServer({ port: 0, storage: "memory", apiKey: TRACING_KEY, logger: quiet });
    for (const key of keys) saved[key] = process.env[key];
    process.env.TRACEWIRE_BASE_URL = service.url;
    process.env.TRACEWIRE_API_KEY = TRACING_KEY;
    process.env.TRACEWIRE_PROJECT = project;
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
  });
  afterAll(async () => {
    for (const key of keys) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
    await service?.close();
  });
  return {
    async run() {
      const printed: string[] = [];
      const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
        printed.push(args.join(" "));
      });
      try {
        await loadExample(path);
      } finally {
        log.mockRestore();
      }
      const reader = new TracingClient({ baseUrl: service!.url, apiKey: TRACING_KEY, project, env: {} });
      const calls: CallSchema[] = [];
      for await (const call of reader.calls.streamQuery({})) calls.push(call);
      await reader.close();
      return { printed, calls };
    },
  };
}
