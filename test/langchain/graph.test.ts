/**
 * A LangGraph agent (the real `@langchain/langgraph` and `@langchain/core`, Node 20) traced by tracewire, against the
 * loopback OpenAI stand-in through a real `BaseChatModel` subclass, decoded field by field on the tracing double:
 * graph → node calls (named by node, with step, path and triggers) → the chat model calls (GenAI `chat`: the
 * messages, tools, the answer with its tool calls, usage with cached and reasoning tokens keyed by the model that
 * answered) and the tool calls (arguments and results as JSON); `configurable.thread_id` as the thread; all under
 * the caller's op. Once with the handler passed per call, once with `instrumentLangChain()` and no config.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { instrumentLangChain, TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { MODEL_SUFFIX, OpenAIServer, TEXT, TOOL_CALLS, USAGE } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import {
  agentGraph,
  childrenOf,
  one,
  type Recorded,
  recorded,
  StandInChatModel,
  summaryOf,
  TIME,
  WEATHER,
  weatherTools,
} from "./support.js";

const session = setupSessionPerTest();
const MODEL = "gpt-4o-mini";
const RESPONSE_MODEL = `${MODEL}${MODEL_SUFFIX}`;
const ONE_REQUEST = {
  [RESPONSE_MODEL]: {
    prompt_tokens: USAGE.prompt_tokens,
    completion_tokens: USAGE.completion_tokens,
    total_tokens: USAGE.prompt_tokens + USAGE.completion_tokens,
    requests: 1,
    cache_read_input_tokens: USAGE.prompt_tokens_details.cached_tokens,
    reasoning_tokens: USAGE.completion_tokens_details.reasoning_tokens,
  },
};

describe("LangGraph: the graph as a tree of calls", () => {
  let server: OpenAIServer;
  beforeAll(async () => {
    server = await OpenAIServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  function model() {
    return new StandInChatModel({
      client: new OpenAI({ apiKey: "sk-test", baseURL: server.baseURL, maxRetries: 0 }),
      model: MODEL,
    });
  }

  function checkTree(calls: Recorded[]) {
    const ask = one(calls, "ask");
    const graph = one(calls, "LangGraph", ask);
    expect(graph.start.attributes).toEqual({ kind: "graph" });
    expect(graph.start.thread_id).toBe("conversation-7");
    expect(graph.start.turn_id).toBe(graph.start.id);
    expect(graph.start.inputs).toEqual({ messages: [{ role: "user", content: "Weather in Paris?" }] });
    // (The stand-in answers with one message id, so LangGraph's reducer keeps the answer in the first one's place.)
    expect((graph.end.output as { messages: unknown[] }).messages).toContainEqual({ role: "assistant", content: TEXT });

    const nodes = childrenOf(calls, graph).filter((c) => (c.start.attributes as { kind: string }).kind === "node");
    expect(nodes.map((n) => n.start.op_name)).toEqual(["agent", "tools", "agent"]);
    expect(nodes.map((n) => (n.start.attributes as { langgraph: { step: number } }).langgraph.step)).toEqual([1, 2, 3]);
    const [first, tools, second] = nodes as [Recorded, Recorded, Recorded];
    expect((first.start.attributes as { langgraph: Record<string, unknown> }).langgraph).toMatchObject({
      node: "agent",
      triggers: ["branch:to:agent"],
      path: ["__pregel_pull", "agent"],
    });

    // The chat model: a GenAI chat call with the messages and tools in, the answer with its tool calls out.
    const chat = one(calls, "StandInChatModel", first);
    expect(chat.start.display_name).toBe(MODEL);
    expect(chat.start.attributes).toEqual({
      kind: "llm",
      operation: "chat",
      provider: "openai",
      model: MODEL,
      model_parameters: { model: MODEL },
    });
    expect(chat.start.inputs).toMatchObject({
      messages: [{ role: "user", content: "Weather in Paris?" }],
      model: MODEL,
    });
    expect(
      (chat.start.inputs as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name),
    ).toEqual(["get_weather", "get_time"]);
    expect(chat.end.output).toEqual([
      {
        role: "assistant",
        content: "",
        tool_calls: TOOL_CALLS.map((t) => ({
          id: t.id,
          type: "function",
          function: { name: t.name, arguments: t.arguments },
        })),
        finish_reason: "tool_calls",
      },
    ]);
    expect(summaryOf(chat).usage).toEqual(ONE_REQUEST);
    expect(summaryOf(chat).gen_ai).toMatchObject({ response_model: RESPONSE_MODEL, finish_reasons: ["tool_calls"] });

    // The tools: arguments and results as JSON, the tool call id kept.
    const weather = one(calls, "get_weather", tools);
    expect(weather.start.attributes).toEqual({ kind: "tool", operation: "execute_tool" });
    expect(weather.start.inputs).toEqual({ input: { city: "Paris" }, tool_call_id: "call_weather" });
    expect(weather.end.output).toEqual(WEATHER);
    expect(one(calls, "get_time", tools).end.output).toBe(TIME);
    const lookup = one(calls, "lookup");
    expect(lookup.start.parent_id, "an op a tool calls nests under the tool's call").toBe(weather.start.id);

    const answer = one(calls, "StandInChatModel", second);
    expect(answer.end.output).toEqual([{ role: "assistant", content: TEXT, finish_reason: "stop" }]);
    expect((answer.start.inputs as { messages: { role: string }[] }).messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool",
    ]);

    // Usage: each model call has its own, and every ancestor the sum of the model calls under it, each request
    // once (the rollup); a tool, with no model call under it, has none. LangGraph's hidden plumbing (channel writes,
    // `__start__`) records nothing.
    const both = {
      [RESPONSE_MODEL]: Object.fromEntries(Object.entries(ONE_REQUEST[RESPONSE_MODEL]).map(([k, v]) => [k, 2 * v])),
    };
    for (const parent of [ask, graph]) expect(summaryOf(parent).usage, String(parent.start.op_name)).toEqual(both);
    expect(summaryOf(first).usage).toEqual(ONE_REQUEST);
    expect(summaryOf(second).usage).toEqual(ONE_REQUEST);
    expect(summaryOf(tools).usage).toBeUndefined();
    expect(summaryOf(weather).usage).toBeUndefined();
    expect(calls.map((c) => c.start.op_name)).not.toContain("ChannelWrite");
    expect(calls.map((c) => c.start.op_name)).not.toContain("__start__");
    for (const call of calls.filter((c) => c !== ask))
      expect(call.start.thread_id, String(call.start.op_name)).toBe("conversation-7");
  }

  const lookup = op(async function lookup(city: string) {
    return { ...WEATHER, city };
  });

  it("with the handler passed in the call's callbacks", async () => {
    const graph = agentGraph(model(), weatherTools(lookup));
    const handler = new TracewireCallbackHandler();
    await op(async function ask() {
      return graph.invoke(
        { messages: [{ role: "user", content: "Weather in Paris?" }] },
        { callbacks: [handler], configurable: { thread_id: "conversation-7" } },
      );
    })();
    checkTree(await recorded(session));
  });

  it("with instrumentLangChain() and no per-call config", async () => {
    await instrumentLangChain();
    const graph = agentGraph(model(), weatherTools(lookup));
    await op(async function ask() {
      return graph.invoke(
        { messages: [{ role: "user", content: "Weather in Paris?" }] },
        { configurable: { thread_id: "conversation-7" } },
      );
    })();
    checkTree(await recorded(session));
  });
});
