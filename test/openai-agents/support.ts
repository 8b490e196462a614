/**
 * What the OpenAI Agents SDK tests share (Node ≥ 22: the SDK needs openai 7): the SDK loaded where it runs, the
 * loopback stand-in with its handoff model, a traced session per test, the tools the stand-in asks for
 * (`get_weather`, `get_time`), and helpers to read the recorded tree.
 */
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import type { TracewireTraceProcessor } from "../../src/instrument/openai-agents.js";
import { startAgentsServer } from "../support/agents-server.js";
import { type Recorded, summaryOf } from "../support/call-tree.js";
import type { OpenAIServer } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";

/** The SDK needs openai 7, which needs Node ≥ 22. */
export { childrenOf, named, one, type Recorded, recorded, summaryOf } from "../support/call-tree.js";

export const HAS_AGENTS = Number(process.versions.node.split(".")[0]) >= 22;

export type Agents = typeof import("@openai/agents");

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

export type UsageByModel = Record<string, Record<string, number>>;

/** `usages` summed field by field, keyed by model (undefined when none has usage). */
export function sumUsage(usages: (UsageByModel | undefined)[]): UsageByModel | undefined {
  let out: UsageByModel | undefined;
  for (const usage of usages) {
    if (!usage) continue;
    out ??= {};
    for (const [model, fields] of Object.entries(usage)) {
      const entry = out[model] ?? {};
      out[model] = entry;
      for (const [field, value] of Object.entries(fields)) entry[field] = (entry[field] ?? 0) + value;
    }
  }
  return out;
}

/**
 * Checks that every request is counted exactly once on the calls route (the rollup, issue #22) and returns the calls
 * that recorded a request: those with usage and no usage anywhere under them. Every other call's `summary.usage` must
 * be the sum of those requests under it (none when there are none): a call that recorded usage of its own on top of
 * what its children rolled up (an aggregate counted again) fails here.
 */
export function requestsCountedOnce(calls: Recorded[]): Recorded[] {
  const children = new Map<unknown, Recorded[]>();
  for (const call of calls) {
    const siblings = children.get(call.start.parent_id) ?? [];
    siblings.push(call);
    children.set(call.start.parent_id, siblings);
  }
  const usageOf = (call: Recorded) => summaryOf(call).usage as UsageByModel | undefined;
  const requests: Recorded[] = [];
  /** The requests in `call`'s subtree (itself included). */
  const visit = (call: Recorded): Recorded[] => {
    const below = (children.get(call.start.id) ?? []).flatMap(visit);
    if (below.length === 0) {
      if (usageOf(call) === undefined) return [];
      requests.push(call);
      return [call];
    }
    expect(usageOf(call), `usage of ${String(call.start.op_name)}: the requests under it, each once`).toEqual(
      sumUsage(below.map(usageOf)),
    );
    return below;
  };
  const ids = new Set(calls.map((c) => c.start.id));
  for (const root of calls.filter((c) => !ids.has(c.start.parent_id))) visit(root);
  return requests;
}
