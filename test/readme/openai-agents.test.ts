/**
 * The "Tracing the OpenAI Agents SDK" snippets of docs/agent-frameworks.md, run verbatim with the real `@openai/agents` (Node ≥ 22): the
 * SDK's default client points at the loopback stand-in (what `OPENAI_API_KEY` would choose in an app), `tools` are
 * the two the stand-in asks for. `addTraceProcessor(tracewireTraceProcessor())` records the tree the section
 * describes; `setTraceProcessors([tracewireTraceProcessor()])` records it as the only processor.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as tracewireAgents from "../../src/instrument/openai-agents.js";
import { TIME_SCHEMA, WEATHER, WEATHER_SCHEMA } from "../openai-agents/support.js";
import { startAgentsServer } from "../support/agents-server.js";
import { RESPONSE_TEXT } from "../support/openai-responses-server.js";
import type { OpenAIServer } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { docBlock, runBlock } from "./snippets.js";

const HAS_AGENTS = Number(process.versions.node.split(".")[0]) >= 22;
const session = setupSessionPerTest();

describe.skipIf(!HAS_AGENTS)("docs/agent-frameworks.md: Tracing the OpenAI Agents SDK", () => {
  let agents: typeof import("@openai/agents");
  let stand: OpenAIServer;

  beforeAll(async () => {
    agents = await import("@openai/agents");
    const OpenAI = (await import("openai7")).default;
    stand = await startAgentsServer();
    agents.setDefaultOpenAIClient(new OpenAI({ apiKey: "sk-test", baseURL: stand.baseURL, maxRetries: 0 }) as never);
    agents.setTracingDisabled(false);
  });
  afterEach(() => agents.setTraceProcessors([]));
  afterAll(async () => {
    await stand?.close();
  });

  function tools() {
    return [
      agents.tool({
        name: "get_weather",
        description: "The weather in a city",
        parameters: WEATHER_SCHEMA,
        strict: true,
        execute: async () => WEATHER,
      }),
      agents.tool({
        name: "get_time",
        description: "The time in a zone",
        parameters: TIME_SCHEMA,
        strict: true,
        execute: async () => "12:00",
      }),
    ];
  }

  async function opNames() {
    await session.tracing.flush();
    return [...session.double.calls.values()].map((c) => String(c.start?.op_name)).sort();
  }

  it("addTraceProcessor(tracewireTraceProcessor()): the run as workflow, task, agent, turns, model and tool calls", async () => {
    agents.setTraceProcessors([]);
    await runBlock(
      docBlock("docs/agent-frameworks.md", "## Tracing the OpenAI Agents SDK (`tracewire/openai-agents`)"),
      { tools: tools() },
      {
        "@openai/agents": agents,
        "tracewire/openai-agents": tracewireAgents,
      },
    );
    expect(await opNames()).toEqual([
      "Agent workflow",
      "openai_agents.agent",
      "openai_agents.response",
      "openai_agents.response",
      "openai_agents.task",
      "openai_agents.tool",
      "openai_agents.tool",
      "openai_agents.turn",
      "openai_agents.turn",
    ]);
    const workflow = session.double.callsNamed("Agent workflow")[0]!;
    expect(workflow.end?.output).toBe(RESPONSE_TEXT);
  });

  it("setTraceProcessors([tracewireTraceProcessor()]): tracewire as the only processor", async () => {
    await runBlock(
      docBlock("docs/agent-frameworks.md", "### Keeping traces away from OpenAI's dashboard"),
      {},
      {
        "@openai/agents": agents,
        "tracewire/openai-agents": tracewireAgents,
      },
    );
    await agents.run(new agents.Agent({ name: "Weather", tools: tools() }), "Weather in Lyon?");
    expect((await opNames()).filter((n) => n === "openai_agents.response")).toHaveLength(2);
  });
});
