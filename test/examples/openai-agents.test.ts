/**
 * `npm run example:openai-agents` (examples/openai-agents/index.mjs, Node ≥ 22) run as written — tracing settings
 * from the environment, pointed at the local tracing service, and the SDK talking to the examples' own stand-in since
 * no OPENAI_API_KEY is set — then its calls read back from the service: two runs of the weather desk, each a
 * workflow with its agent, guardrail, turns, model calls with usage, and the tool call with the `forecast` op under it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type CallSchema, TracingClient } from "../../src/api/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";
import { TRACING_KEY } from "./support.js";

const HAS_AGENTS = Number(process.versions.node.split(".")[0]) >= 22;
const PROJECT = "demo/openai-agents";
const ENV_KEYS = ["TRACEWIRE_BASE_URL", "TRACEWIRE_API_KEY", "TRACEWIRE_PROJECT", "OPENAI_API_KEY", "OPENAI_BASE_URL"];

describe.skipIf(!HAS_AGENTS)("examples/openai-agents", () => {
  let service: DevServer;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    service = await startDevServer({
      port: 0,
      storage: "memory",
      apiKey: TRACING_KEY,
      logger: { warn() {}, error() {} },
    });
    for (const key of ENV_KEYS) saved[key] = process.env[key];
    process.env.TRACEWIRE_BASE_URL = service.url;
    process.env.TRACEWIRE_API_KEY = TRACING_KEY;
    process.env.TRACEWIRE_PROJECT = PROJECT;
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
  });
  afterAll(async () => {
    for (const key of ENV_KEYS) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
    await service?.close();
  });

  // The example's first import loads the SDK cold: slow on a loaded machine.
  it("answers twice and records each run as a tree under the desk op", { timeout: 60_000 }, async () => {
    const printed: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      printed.push(args.join(" "));
    });
    try {
      await import(new URL("../../examples/openai-agents/index.mjs", import.meta.url).href);
    } finally {
      log.mockRestore();
    }
    expect(printed.slice(0, 2)).toEqual([
      'Right now: {"city":"Lisbon","celsius":21,"sky":"clear"}. Enjoy your day!',
      'Right now: {"city":"Porto","celsius":21,"sky":"clear"}. Enjoy your day!',
    ]);
    expect(JSON.parse(printed[2]!.replace(/^stats: /, ""))).toMatchObject({ internalErrors: 0 });

    const reader = new TracingClient({ baseUrl: service.url, apiKey: TRACING_KEY, project: PROJECT, env: {} });
    const calls: CallSchema[] = [];
    for await (const call of reader.calls.streamQuery({})) calls.push(call);
    await reader.close();
    const desks = calls.filter((c) => c.op_name === "desk");
    expect(desks).toHaveLength(2);
    for (const desk of desks) {
      const tree = calls.filter((c) => c.trace_id === desk.trace_id);
      const names = tree.map((c) => c.op_name).sort();
      expect(names).toEqual(
        [
          "desk",
          "weather-desk",
          "openai_agents.task",
          "openai_agents.agent",
          "openai_agents.guardrail",
          "openai_agents.turn",
          "openai_agents.turn",
          "openai_agents.response",
          "openai_agents.response",
          "openai_agents.tool",
          "forecast",
        ].sort(),
      );
      const workflow = tree.find((c) => c.op_name === "weather-desk")!;
      expect(workflow.parent_id).toBe(desk.id);
      expect(workflow.thread_id).toBe("example-conversation");
      const tool = tree.find((c) => c.op_name === "openai_agents.tool")!;
      expect(tree.find((c) => c.op_name === "forecast")!.parent_id).toBe(tool.id);
      for (const model of tree.filter((c) => c.op_name === "openai_agents.response"))
        expect(Object.keys((model.summary as { usage: object }).usage)).toEqual(["gpt-4o-mini-local"]);
    }
  });
});
