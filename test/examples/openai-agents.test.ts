/**
 * `npm run example:openai-agents` (examples/openai-agents/index.mjs, Node ≥ 22) run as written — tracing settings
 * from the environment, pointed at the local tracing service, and the SDK talking to the examples' own stand-in since
 * no OPENAI_API_KEY is set — then its calls read back from the service: two runs of the weather desk, each a
 * workflow with its agent, guardrail, turns, model calls with usage, and the tool call with the `forecast` op under it.
 */
import { describe, expect, it } from "vitest";
import { runExampleAsWritten } from "./support.js";

const HAS_AGENTS = Number(process.versions.node.split(".")[0]) >= 22;

describe.skipIf(!HAS_AGENTS)("examples/openai-agents", () => {
  const example = runExampleAsWritten("openai-agents/index.mjs", "demo/openai-agents");

  // The example's first import loads the SDK cold: slow on a loaded machine.
  it("answers twice and records each run as a tree under the desk op", { timeout: 60_000 }, async () => {
    const { printed, calls } = await example.run();
    expect(printed.slice(0, 2)).toEqual([
      'Right now: {"city":"Lisbon","celsius":21,"sky":"clear"}. Enjoy your day!',
      'Right now: {"city":"Porto","celsius":21,"sky":"clear"}. Enjoy your day!',
    ]);
    expect(JSON.parse(printed[2]!.replace(/^stats: /, ""))).toMatchObject({ internalErrors: 0 });

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
