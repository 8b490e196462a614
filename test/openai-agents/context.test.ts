/**
 * Context bridging for the Agents SDK: inside a span, `context.active()` is that span's call, so spans of other
 * OpenTelemetry instrumentation nest under the agent's calls (a foreign span a tool starts, under the tool; one
 * around the model's HTTP request, under the turn the model call belongs to), and a run started by an op that a tool
 * called nests under that op (the deeper context wins), with its own model calls under its own agent.
 */
import { trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { tracewireTraceProcessor } from "../../src/instrument/openai-agents.js";
import { RESPONSE_TEXT } from "../support/openai-responses-server.js";
import { HAS_AGENTS, named, one, recorded, setupAgents, WEATHER } from "./support.js";

const t = setupAgents();

describe.skipIf(!HAS_AGENTS)("OpenAI Agents SDK: the current span is the active context", () => {
  it("other instrumentation's spans nest under the tool's call and under the model call's turn", async () => {
    t.use(tracewireTraceProcessor());
    const other = trace.getTracer("other-instrumentation");
    const lookup = async () => {
      const span = other.startSpan("db.query");
      span.end();
      return WEATHER;
    };
    // A fetch that an HTTP instrumentation would wrap: a foreign span around each model request.
    const http = new t.OpenAIClass({
      apiKey: "sk-test",
      baseURL: t.server.baseURL,
      maxRetries: 0,
      fetch: async (url: string | URL | Request, init?: RequestInit) => {
        const span = other.startSpan("POST /responses");
        try {
          return await fetch(url, init);
        } finally {
          span.end();
        }
      },
    });
    const agent = new t.agents.Agent({ name: "Weather", model: "gpt-4o-mini", tools: t.tools(lookup) });
    expect((await t.runner(http).run(agent, "Weather in Lyon?")).finalOutput).toBe(RESPONSE_TEXT);
    const calls = await recorded(t.session);
    const spans = t.session.double.spans;
    const weather = named(calls, "openai_agents.tool").find((c) => c.start.display_name === "get_weather")!;
    const query = spans.find((s) => s.name === "db.query");
    expect(query?.parentSpanId, "a foreign span a tool starts nests under the tool's call").toBe(weather.start.id);
    expect(query?.traceId).toBe(weather.start.trace_id);
    const requests = spans.filter((s) => s.name === "POST /responses");
    expect(requests).toHaveLength(2);
    const turns = named(calls, "openai_agents.turn");
    expect(requests.map((s) => s.parentSpanId)).toEqual(turns.map((c) => c.start.id));
  });

  it("a run started by an op a tool called nests under that op", async () => {
    t.use(tracewireTraceProcessor());
    // The stand-in asks any agent with tools for both tools, then answers: the researcher gets plain ones.
    const researcher = new t.agents.Agent({ name: "Researcher", model: "gpt-4o-mini", tools: t.tools() });
    const client = t.client();
    const research = op(async function research(city: string) {
      const result = await t.runner(client).run(researcher, `Research ${city}`);
      return { city, summary: result.finalOutput };
    });
    const agent = new t.agents.Agent({ name: "Weather", model: "gpt-4o-mini", tools: t.tools(research) });
    await t.runner(client).run(agent, "Weather in Lyon?");
    const calls = await recorded(t.session);
    const weather = named(calls, "openai_agents.tool").find((c) => c.start.display_name === "get_weather")!;
    const researchCall = one(calls, "research", weather);
    // The nested run belongs to the same trace (the SDK reuses the current one): its task nests under the op.
    const [outerTask, innerTask] = named(calls, "openai_agents.task");
    expect(outerTask!.start.parent_id).toBe(one(calls, "Agent workflow").start.id);
    expect(innerTask!.start.parent_id).toBe(researchCall.start.id);
    const inner = one(calls, "openai_agents.agent", innerTask);
    expect(inner.start.display_name).toBe("Researcher");
    const [innerTurn] = named(calls, "openai_agents.turn", inner);
    expect(one(calls, "openai_agents.response", innerTurn!).start.inputs).toMatchObject({
      input: [{ role: "user", content: "Research Lyon" }],
    });
    expect(researchCall.end.output).toEqual({ city: "Lyon", summary: RESPONSE_TEXT });
  });
});
