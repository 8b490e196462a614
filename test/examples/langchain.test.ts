/**
 * `npm run example:langchain` (examples/langchain/index.mjs, Node ≥ 22 for `@langchain/openai`) run as written —
 * tracing settings from the environment, pointed at the local tracing service, and ChatOpenAI talking to the
 * examples' own stand-in since no OPENAI_API_KEY is set — then its calls read back from the service: the desk op,
 * the graph in the example's thread, its nodes, two ChatOpenAI calls with usage, and the tool call with the
 * `forecast` op under it.
 */
import { describe, expect, it } from "vitest";
import { runExampleAsWritten } from "./support.js";

const HAS_NODE22 = Number(process.versions.node.split(".")[0]) >= 22;

describe.skipIf(!HAS_NODE22)("examples/langchain", () => {
  const example = runExampleAsWritten("langchain/index.mjs", "demo/langchain");

  // The example's first import loads the SDK cold: slow on a loaded machine.
  it("answers and records the graph as a tree under the desk op", { timeout: 60_000 }, async () => {
    const { printed, calls } = await example.run();
    expect(printed[0]).toBe('Right now: {"city":"Lisbon","celsius":21,"sky":"clear"}. Enjoy your day!');
    expect(JSON.parse(printed[1]!.replace(/^stats: /, ""))).toMatchObject({ internalErrors: 0 });

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
