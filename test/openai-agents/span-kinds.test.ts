/**
 * The Agents SDK's other spans as calls of their own: a handoff (from → to) with the agent it handed to running after
 * it; input guardrails, triggered or not (a triggered one fails its agent with the SDK's error class as `error.type`);
 * custom spans with their data; an MCP server's tool listing and an MCP tool call (MCP data kept).
 */
import { describe, expect, it } from "vitest";
import { tracewireTraceProcessor } from "../../src/instrument/openai-agents.js";
import { HANDOFF_MODEL } from "../support/agents-server.js";
import { RESPONSE_TEXT } from "../support/openai-responses-server.js";
import { HAS_AGENTS, named, one, recorded, setupAgents, summaryOf, TIME_SCHEMA, WEATHER_SCHEMA } from "./support.js";

const t = setupAgents();

describe.skipIf(!HAS_AGENTS)("OpenAI Agents SDK: handoffs, guardrails, custom spans, MCP", () => {
  function guardrail(triggered: boolean) {
    return {
      name: "no_secrets",
      execute: async () => ({ outputInfo: { checked: true }, tripwireTriggered: triggered }),
    };
  }

  it("a handoff and a guardrail that passed", async () => {
    t.use(tracewireTraceProcessor());
    const billing = new t.agents.Agent({
      name: "Billing",
      instructions: "Answer billing questions.",
      model: "gpt-4o-mini",
    });
    const triage = new t.agents.Agent({
      name: "Triage",
      model: HANDOFF_MODEL,
      handoffs: [billing],
      inputGuardrails: [guardrail(false)],
    });
    const result = await t.runner(t.client()).run(triage, "My invoice is wrong");
    expect(result.finalOutput).toBe(RESPONSE_TEXT);
    const calls = await recorded(t.session);
    const [triageCall, billingCall] = named(calls, "openai_agents.agent");
    expect(triageCall!.start.display_name).toBe("Triage");
    expect(triageCall!.start.inputs).toEqual({ name: "Triage", output_type: "text" });
    expect(triageCall!.end.output).toEqual({ tools: [], handoffs: ["Billing"] });
    expect(billingCall!.start.display_name).toBe("Billing");

    const handoff = one(calls, "openai_agents.handoff");
    expect(handoff.start.display_name).toBe("Triage → Billing");
    expect(handoff.start.inputs).toEqual({ from_agent: "Triage", to_agent: "Billing" });
    expect(handoff.start.attributes).toEqual({ kind: "handoff" });
    expect(String(handoff.start.started_at) < String(billingCall!.start.started_at)).toBe(true);

    const check = one(calls, "openai_agents.guardrail", triageCall);
    expect(check.start.display_name).toBe("no_secrets");
    expect(check.start.attributes).toEqual({ kind: "guardrail" });
    expect(check.end.output).toEqual({ triggered: false });
    expect(check.end.exception).toBeUndefined();
    // The agent that answered carries the answer; the one that handed off none.
    expect(billingCall!.end.output).toEqual({ answer: RESPONSE_TEXT, tools: [], handoffs: [] });
    expect(one(calls, "Agent workflow").end.output).toBe(RESPONSE_TEXT);
  });

  it("a guardrail that tripped: recorded as triggered, its agent fails with the SDK's error class", async () => {
    t.use(tracewireTraceProcessor());
    const agent = new t.agents.Agent({ name: "Guarded", model: "gpt-4o-mini", inputGuardrails: [guardrail(true)] });
    await expect(t.runner(t.client()).run(agent, "the password is hunter2")).rejects.toThrow(
      /Input guardrail triggered/,
    );
    await new Promise((resolve) => setImmediate(resolve));
    const calls = await recorded(t.session);
    const check = one(calls, "openai_agents.guardrail");
    expect(check.end.output).toEqual({ triggered: true });
    const agentCall = one(calls, "openai_agents.agent");
    expect(agentCall.end.exception).toMatch(/^Error in agent run: InputGuardrailTripwireTriggered: Input guardrail/);
    expect((summaryOf(agentCall).gen_ai as { error_type: string }).error_type).toBe("InputGuardrailTripwireTriggered");
  });

  it("a custom span with its data", async () => {
    t.use(tracewireTraceProcessor());
    await t.agents.withTrace("custom-flow", async () => {
      await t.agents.withCustomSpan(
        async (span) => {
          span.spanData.data.step = "indexed";
        },
        { data: { name: "index-docs", data: { docs: 3 } } },
      );
    });
    const calls = await recorded(t.session);
    const custom = one(calls, "openai_agents.custom", one(calls, "custom-flow"));
    expect(custom.start.display_name).toBe("index-docs");
    expect(custom.start.attributes).toEqual({ kind: "custom" });
    // Recorded when it ended (nothing ran inside it needing its context): the data as it was then.
    expect(custom.start.inputs).toEqual({ name: "index-docs", data: { docs: 3, step: "indexed" } });
  });

  it("an MCP server: its tool listing and an MCP tool call, with the MCP data", async () => {
    t.use(tracewireTraceProcessor());
    const server = {
      name: "weather-mcp",
      cacheToolsList: false,
      async connect() {},
      async close() {},
      async invalidateToolsCache() {},
      async listTools() {
        return [
          { name: "get_weather", description: "The weather in a city", inputSchema: WEATHER_SCHEMA },
          { name: "get_time", description: "The time in a zone", inputSchema: TIME_SCHEMA },
        ];
      },
      async callTool(name: string) {
        return [{ type: "text", text: name === "get_weather" ? '{"city":"Lyon","celsius":19}' : "12:00" }];
      },
    };
    const agent = new t.agents.Agent({ name: "Weather", model: "gpt-4o-mini", mcpServers: [server as never] });
    const result = await t.runner(t.client()).run(agent, "Weather in Lyon?");
    expect(result.finalOutput).toBe(RESPONSE_TEXT);
    const calls = await recorded(t.session);
    const listings = named(calls, "openai_agents.mcp_tools");
    expect(listings.length).toBeGreaterThan(0);
    expect(listings[0]!.start.display_name).toBe("weather-mcp");
    expect(listings[0]!.start.attributes).toEqual({ kind: "mcp" });
    expect(listings[0]!.start.inputs).toMatchObject({ server: "weather-mcp" });
    const weather = named(calls, "openai_agents.tool").find((c) => c.start.display_name === "get_weather")!;
    expect(weather.start.inputs).toMatchObject({
      name: "get_weather",
      arguments: { city: "Lyon" },
      mcp_data: { server: "weather-mcp" },
    });
  });
});
