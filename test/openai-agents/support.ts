/**
 * What the OpenAI Agents SDK tests share (Node ≥ 22: the SDK needs openai 7): the SDK loaded where it runs, the
 * loopback stand-in with its handoff model, a traced session per test, the tools the stand-in asks for
 * (`get_weather`, `get_time`), and helpers to read the recorded tree.
 */
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import type { TracewireTraceProcessor } from "../../src/instrument/openai-agents.js";
import { startAgentsServer } from "../support/agents-server.js";
import type { OpenAIServer } from "../support/openai-server.js";
import type { StoredCall } from "../support/tracing-double.js";
import { setupSessionPerTest } from "../support/tracing-session.js";

/** The SDK needs openai 7, which needs Node ≥ 22. */
export const HAS_AGENTS = Number(process.versions.node.split(".")[0]) >= 22;

export type Agents = typeof import("@openai/agents");
export type Recorded = StoredCall & { start: Record<string, unknown>; end: Record<string, unknown> };

export const WEATHER = { city: "Lyon", celsius: 19 };
export const WEATHER_SCHEMA = {
  type: "object" as const,
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false as const,
};
export const TIME_SCHEMA = {
  type: "object" as const,
  properties: { tz: { type: "string" } },
  required: ["tz"],
  additionalProperties: false as const,
};

/** The SDK, the stand-in and a session per test; each test installs its processors with `setTraceProcessors`. */
export function setupAgents() {
  const session = setupSessionPerTest();
  const state: { agents?: Agents; server?: OpenAIServer; OpenAI?: typeof import("openai7").default } = {};
  beforeAll(async () => {
    if (!HAS_AGENTS) return;
    state.agents = await import("@openai/agents");
    state.OpenAI = (await import("openai7")).default;
    state.server = await startAgentsServer();
    // vitest sets NODE_ENV=test, under which the SDK turns its tracing off.
    state.agents.setTracingDisabled(false);
  });
  afterEach(() => {
    state.agents?.setTraceProcessors([]);
    if (state.server) state.server.server.requests.length = 0;
  });
  afterAll(async () => {
    await state.server?.close();
  });
  return {
    session,
    get agents(): Agents {
      return state.agents as Agents;
    },
    get server(): OpenAIServer {
      return state.server as OpenAIServer;
    },
    /** openai 7's client class (for clients with options of their own). */
    get OpenAIClass(): typeof import("openai7").default {
      return state.OpenAI as typeof import("openai7").default;
    },
    /** An openai 7 client on the stand-in (no retries: one request per model call). */
    client() {
      const OpenAI = state.OpenAI as typeof import("openai7").default;
      return new OpenAI({ apiKey: "sk-test", baseURL: (state.server as OpenAIServer).baseURL, maxRetries: 0 });
    },
    /** A runner whose model provider uses `client` (the Responses API unless `chat`). */
    runner(client: unknown, options: Record<string, unknown> = {}, chat = false) {
      const agents = state.agents as Agents;
      // The SDK types its client as its own openai 7; the tests pass openai 7 clients (wrapped or not).
      const provider = new agents.OpenAIProvider({ openAIClient: client as never, useResponses: !chat });
      return new agents.Runner({ modelProvider: provider, ...options });
    },
    /** `get_weather` (calls `lookup`) and `get_time`, the tools the stand-in asks for. */
    tools(lookup: (city: string) => Promise<unknown> = async () => WEATHER) {
      const agents = state.agents as Agents;
      return [
        agents.tool({
          name: "get_weather",
          description: "The weather in a city",
          parameters: WEATHER_SCHEMA,
          strict: true,
          execute: async (input: unknown) => lookup((input as { city: string }).city),
        }),
        agents.tool({
          name: "get_time",
          description: "The time in a zone",
          parameters: TIME_SCHEMA,
          strict: true,
          execute: async () => "12:00",
        }),
      ];
    },
    /** Installs `processor` as the only one (the SDK's exporter to OpenAI removed). */
    use(processor: TracewireTraceProcessor) {
      (state.agents as Agents).setTraceProcessors([processor]);
    },
  };
}

/** Every call recorded, each started and ended exactly once (fails otherwise). */
export async function recorded(session: {
  tracing: { flush(): Promise<void> };
  double: { calls: Map<string, StoredCall> };
}) {
  await session.tracing.flush();
  const calls = [...session.double.calls.values()];
  for (const call of calls) {
    expect(call.starts, `starts of ${String(call.start?.op_name)}`).toBe(1);
    expect(call.ends, `ends of ${String(call.start?.op_name)}`).toBe(1);
  }
  return calls as Recorded[];
}

/** The calls named `opName` (under `parent` when given), in start order. */
export function named(calls: Recorded[], opName: string, parent?: Recorded): Recorded[] {
  return calls
    .filter((c) => c.start.op_name === opName && (!parent || c.start.parent_id === parent.start.id))
    .sort(
      (a, b) =>
        String(a.start.started_at).localeCompare(String(b.start.started_at)) || (a.startSeq ?? 0) - (b.startSeq ?? 0),
    );
}

/** The children of `parent`, in start order. */
export function childrenOf(calls: Recorded[], parent: Recorded): Recorded[] {
  return calls
    .filter((c) => c.start.parent_id === parent.start.id)
    .sort(
      (a, b) =>
        String(a.start.started_at).localeCompare(String(b.start.started_at)) || (a.startSeq ?? 0) - (b.startSeq ?? 0),
    );
}

/** The only call named `opName` (under `parent`); fails when there are none or several. */
export function one(calls: Recorded[], opName: string, parent?: Recorded): Recorded {
  const found = named(calls, opName, parent);
  expect(found, `calls named ${opName}`).toHaveLength(1);
  return found[0] as Recorded;
}

export function summaryOf(call: Recorded): Record<string, unknown> {
  return (call.end.summary ?? {}) as Record<string, unknown>;
}
