/**
 * `npm run example:langchain` (examples/langchain/index.mjs, Node ≥ 22 for `@langchain/openai`) run as written —
 * tracing settings from the environment, pointed at the local tracing service, and ChatOpenAI talking to the
 * examples' own stand-in since no OPENAI_API_KEY is set — then its calls read back from the service: the desk op,
 * the graph in the example's thread, its nodes, two ChatOpenAI calls with usage, and the tool call with the
 * `forecast` op under it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type CallSchema, TracingClient } from "../../src/api/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";
import { TRACING_KEY } from "./support.js";

const HAS_NODE22 = Number(process.versions.node.split(".")[0]) >= 22;
const PROJECT = "demo/langchain";
const ENV_KEYS = ["TRACEWIRE_BASE_URL", "TRACEWIRE_API_KEY", "TRACEWIRE_PROJECT", "OPENAI_API_KEY", "OPENAI_BASE_URL"];

describe.skipIf(!HAS_NODE22)("examples/langchain", () => {
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
  it("answers and records the graph as a tree under the desk op", { timeout: 60_000 }, async () => {
    const printed: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      printed.push(args.join(" "));
    });
    try {
      await import(new URL("../../examples/langchain/index.mjs", import.meta.url).href);
    } finally {
      log.mockRestore();
    }
    expect(printed[0]).toBe('Right now: {"city":"Lisbon","celsius":21,"sky":"clear"}. Enjoy your day!');
    expect(JSON.parse(printed[1]!.replace(/^stats: /, ""))).toMatchObject({ internalErrors: 0 });

    const reader = new TracingClient({ baseUrl: service.url, apiKey: TRACING_KEY, project: PROJECT, env: {} });
    const calls: CallSchema[] = [];
    for await (const call of reader.calls.streamQuery({})) calls.push(call);
    await reader.close();
    const desk = calls.find((c) => c.op_name === "desk")!;
    const tree = calls.filter((c) => c.trace_id === desk.trace_id);
    expect(tree.map((c) => c.op_name).sort()).toEqual(
      [
        "desk",
        "LangGraph",
        "agent",
        "agent",
        "tools",
        "ChatOpenAI",
        "ChatOpenAI",
        "get_weather",
        "forecast",
        "RunnableLambda",
        "RunnableLambda",
      ].sort(),
    );
    const graph = tree.find((c) => c.op_name === "LangGraph")!;
    expect(graph.parent_id).toBe(desk.id);
    expect(graph.thread_id).toBe("example-conversation");
    const tool = tree.find((c) => c.op_name === "get_weather")!;
    expect(tree.find((c) => c.op_name === "forecast")!.parent_id).toBe(tool.id);
    for (const chat of tree.filter((c) => c.op_name === "ChatOpenAI"))
      expect(Object.keys((chat.summary as { usage: object }).usage)).toEqual(["gpt-4o-mini-local"]);
  });
});
