/**
 * `tracewireTraceProcessor()` with the real `@openai/agents` (Node ≥ 22) against the loopback stand-in, decoded
 * field by field on the tracing double: a run under the caller's op becomes workflow → task → agent → turn → model
 * call / tool calls, with the workflow name, group id as thread, metadata as attributes, messages in and answer out,
 * usage keyed by the model that answered and counted once, tool arguments and results as JSON, and an op a tool calls
 * nested under that tool's call.
 */
import { describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { tracewireTraceProcessor } from "../../src/instrument/openai-agents.js";
import { RESPONSE_TEXT, RESPONSE_USAGE } from "../support/openai-responses-server.js";
import { MODEL_SUFFIX } from "../support/openai-server.js";
import {
  childrenOf,
  HAS_AGENTS,
  named,
  one,
  type Recorded,
  recorded,
  setupAgents,
  summaryOf,
  WEATHER,
} from "./support.js";

const t = setupAgents();
const MODEL = "gpt-4o-mini";
const RESPONSE_MODEL = `${MODEL}${MODEL_SUFFIX}`;

/** The usage one stand-in Responses request records, keyed by the model that answered. */
const ONE_RESPONSE = {
  [RESPONSE_MODEL]: {
    prompt_tokens: RESPONSE_USAGE.input_tokens,
    completion_tokens: RESPONSE_USAGE.output_tokens,
    total_tokens: RESPONSE_USAGE.input_tokens + RESPONSE_USAGE.output_tokens,
    requests: 1,
    cache_read_input_tokens: RESPONSE_USAGE.input_tokens_details.cached_tokens,
    reasoning_tokens: RESPONSE_USAGE.output_tokens_details.reasoning_tokens,
  },
};

describe.skipIf(!HAS_AGENTS)("OpenAI Agents SDK: the run as a tree of calls", () => {
  async function weatherRun(stream: boolean) {
    t.use(tracewireTraceProcessor());
    const lookups: string[] = [];
    const lookup = op(async function lookup(city: string) {
      lookups.push(city);
      return WEATHER;
    });
    const agent = new t.agents.Agent({
      name: "Weather",
      instructions: "Be brief.",
      model: MODEL,
      tools: t.tools(lookup),
    });
    const runner = t.runner(t.client(), {
      workflowName: "weather-flow",
      groupId: "conv-1",
      traceMetadata: { user: "u-1" },
    });
    const handle = op(async function handle(question: string) {
      if (!stream) return (await runner.run(agent, question)).finalOutput;
      const result = await runner.run(agent, question, { stream: true });
      for await (const _event of result) {
        // consumed to the end
      }
      await result.completed;
      return result.finalOutput;
    });
    const answer = await handle("Weather in Lyon?");
    expect(answer).toBe(RESPONSE_TEXT);
    expect(lookups).toEqual(["Lyon"]);
    return recorded(t.session);
  }

  function checkTree(calls: Recorded[]) {
    const handle = one(calls, "handle");
    const workflow = one(calls, "weather-flow", handle);
    expect(workflow.start.thread_id).toBe("conv-1");
    expect(workflow.start.turn_id).toBe(workflow.start.id);
    expect(workflow.start.attributes).toMatchObject({ user: "u-1", kind: "workflow" });
    expect((workflow.start.attributes as { openai_agents: { trace_id: string } }).openai_agents.trace_id).toMatch(
      /^trace_[0-9a-f]{32}$/,
    );
    expect(workflow.end.output).toBe(RESPONSE_TEXT);

    const task = one(calls, "openai_agents.task", workflow);
    expect(task.start.display_name).toBe("weather-flow");
    const agent = one(calls, "openai_agents.agent", task);
    expect(agent.start.display_name).toBe("Weather");
    expect(agent.start.attributes).toEqual({ kind: "agent", operation: "invoke_agent" });
    expect(agent.start.inputs).toEqual({ name: "Weather", output_type: "text" });
    expect(agent.end.output).toEqual({ answer: RESPONSE_TEXT, tools: ["get_weather", "get_time"], handoffs: [] });

    const turns = named(calls, "openai_agents.turn", agent);
    expect(turns.map((c) => c.start.display_name)).toEqual(["turn 1", "turn 2"]);
    const [first, second] = turns as [Recorded, Recorded];
    expect(childrenOf(calls, first).map((c) => c.start.op_name)).toEqual([
      "openai_agents.response",
      "openai_agents.tool",
      "openai_agents.tool",
    ]);

    // The model call: a GenAI chat call with the input items, the instructions, the response, usage by model.
    const model = one(calls, "openai_agents.response", first);
    expect(model.start.display_name).toBe(RESPONSE_MODEL);
    expect(model.start.attributes).toMatchObject({ kind: "llm", operation: "chat", provider: "openai" });
    expect(model.start.inputs).toMatchObject({
      input: [{ type: "message", role: "user", content: "Weather in Lyon?" }],
      instructions: "Be brief.",
    });
    expect((model.end.output as { output: { type: string }[] }).output.map((i) => i.type)).toEqual([
      "reasoning",
      "function_call",
      "function_call",
    ]);
    expect(summaryOf(model).usage).toEqual(ONE_RESPONSE);
    expect(summaryOf(model).gen_ai).toMatchObject({ response_model: RESPONSE_MODEL, response_id: "resp_standin_1" });

    // Tools: arguments and result as JSON; the op the tool called nests under the tool's call.
    const [weather, time] = named(calls, "openai_agents.tool", first) as [Recorded, Recorded];
    const byName = Object.fromEntries([weather, time].map((c) => [c.start.display_name, c]));
    expect(byName.get_weather!.start.inputs).toEqual({ name: "get_weather", arguments: { city: "Lyon" } });
    expect(byName.get_weather!.start.attributes).toMatchObject({ kind: "tool", operation: "execute_tool" });
    expect(byName.get_weather!.end.output).toEqual(WEATHER);
    expect(byName.get_time!.start.inputs).toEqual({ name: "get_time", arguments: { tz: "Europe/Paris" } });
    expect(byName.get_time!.end.output).toBe("12:00");
    const lookup = one(calls, "lookup");
    expect(lookup.start.parent_id, "an op a tool calls nests under that tool's call").toBe(
      byName.get_weather!.start.id,
    );

    const answer = one(calls, "openai_agents.response", second);
    expect((answer.start.inputs as { input: unknown[] }).input.at(-1)).toMatchObject({ type: "function_call_result" });
    expect(summaryOf(answer).usage).toEqual(ONE_RESPONSE);

    // Turns and the task carry the SDK's aggregate usage as output; none of it is counted again as their usage.
    for (const turn of turns) {
      expect(turn.end.output).toEqual({
        usage: { input_tokens: 23, output_tokens: 12, cached_input_tokens: 7, cache_write_input_tokens: 0 },
      });
      expect(summaryOf(turn).usage).toBeUndefined();
    }
    expect((task.end.output as { usage: Record<string, number> }).usage).toMatchObject({
      input_tokens: 46,
      output_tokens: 24,
      requests: 2,
    });
    expect(summaryOf(task).usage).toBeUndefined();
    const withUsage = calls.filter((c) => summaryOf(c).usage !== undefined).map((c) => c.start.op_name);
    expect(withUsage).toEqual(["openai_agents.response", "openai_agents.response"]);

    // One trace, every call inside the thread's turn.
    expect(new Set(calls.map((c) => c.start.trace_id)).size).toBe(1);
    for (const call of calls.filter((c) => c !== handle))
      expect(call.start.thread_id, String(call.start.op_name)).toBe("conv-1");
  }

  it("a non-streamed run", async () => {
    checkTree(await weatherRun(false));
  });

  it("a streamed run consumed to the end", async () => {
    checkTree(await weatherRun(true));
  });

  it("without the SDK's sensitive data: the turns' usage is recorded once, where no model call recorded it", async () => {
    t.use(tracewireTraceProcessor());
    const agent = new t.agents.Agent({ name: "Weather", model: MODEL, tools: t.tools() });
    await t.runner(t.client(), { traceIncludeSensitiveData: false }).run(agent, "Weather in Lyon?");
    const calls = await recorded(t.session);
    // The SDK then puts neither the input, the response nor usage on its model spans…
    for (const model of named(calls, "openai_agents.response")) {
      expect(model.start.inputs).toEqual({});
      expect(summaryOf(model).usage).toBeUndefined();
    }
    // …so each turn's aggregate usage is recorded as the turn's own, and the task (which aggregates the turns) adds
    // nothing: the run's tokens are counted exactly once.
    const turns = named(calls, "openai_agents.turn");
    expect(turns).toHaveLength(2);
    for (const turn of turns)
      expect(summaryOf(turn).usage).toEqual({
        unknown: {
          prompt_tokens: RESPONSE_USAGE.input_tokens,
          completion_tokens: RESPONSE_USAGE.output_tokens,
          total_tokens: RESPONSE_USAGE.input_tokens + RESPONSE_USAGE.output_tokens,
          requests: 1,
          cache_read_input_tokens: RESPONSE_USAGE.input_tokens_details.cached_tokens,
        },
      });
    expect(summaryOf(one(calls, "openai_agents.task")).usage).toBeUndefined();
  });
});
