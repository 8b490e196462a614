/**
 * The "Tracing LangChain.js and LangGraph.js" snippets of docs/agent-frameworks.md, run verbatim with the real `@langchain/core` and
 * `@langchain/langgraph`: `graph` is the tests' LangGraph agent (a real chat model subclass at the loopback stand-in).
 * `instrumentLangChain()` records the graph, its nodes, the model and tool calls in the thread of `thread_id`; the
 * per-call handler records the same tree.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as tracewireLangChain from "../../src/instrument/langchain.js";
import { agentGraph, StandInChatModel } from "../langchain/support.js";
import { OpenAIServer } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { docBlock, runBlock } from "./snippets.js";

const session = setupSessionPerTest();
const TREE = [
  "LangGraph",
  "RunnableLambda",
  "RunnableLambda",
  "StandInChatModel",
  "StandInChatModel",
  "agent",
  "agent",
  "get_time",
  "get_weather",
  "tools",
];

describe("docs/agent-frameworks.md: Tracing LangChain.js and LangGraph.js", () => {
  let server: OpenAIServer;
  beforeAll(async () => {
    server = await OpenAIServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  const graph = () =>
    agentGraph(
      new StandInChatModel({
        client: new OpenAI({ apiKey: "sk-test", baseURL: server.baseURL, maxRetries: 0 }),
        model: "gpt-4o-mini",
      }),
    );

  async function calls() {
    await session.tracing.flush();
    return [...session.double.calls.values()];
  }

  it("the per-call handler records the graph's tree", async () => {
    await runBlock(
      docBlock("docs/agent-frameworks.md", "### Per call: `TracewireCallbackHandler`"),
      { graph: graph() },
      {
        "tracewire/langchain": tracewireLangChain,
      },
    );
    expect((await calls()).map((c) => String(c.start?.op_name)).sort()).toEqual(TREE);
  });

  it("instrumentLangChain() records every run, in the thread of thread_id", async () => {
    await runBlock(
      docBlock("docs/agent-frameworks.md", "## Tracing LangChain.js and LangGraph.js (`tracewire/langchain`)"),
      { graph: graph() },
      {
        "tracewire/langchain": tracewireLangChain,
      },
    );
    const recorded = await calls();
    expect(recorded.map((c) => String(c.start?.op_name)).sort()).toEqual(TREE);
    for (const call of recorded) expect(call.start?.thread_id).toBe("conversation-7");
  });
});
