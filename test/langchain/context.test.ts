/**
 * Each LangChain run is the active context while it runs: an op a graph node or a RunnableLambda calls nests under
 * that run's call, a foreign span around the chat model's HTTP request nests under the model call, an op a retriever
 * calls nests under the retriever's call — where today's peers start new root traces (langchainjs #11221). Also the
 * retriever and text-completion LLM runs themselves.
 */

import type { CallbackManagerForRetrieverRun } from "@langchain/core/callbacks/manager";
import { Document } from "@langchain/core/documents";
import { LLM } from "@langchain/core/language_models/llms";
import { BaseRetriever } from "@langchain/core/retrievers";
import { RunnableLambda } from "@langchain/core/runnables";
import { trace } from "@opentelemetry/api";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { OpenAIServer, TEXT } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { one, recorded, StandInChatModel, summaryOf } from "./support.js";

const session = setupSessionPerTest();

/** A retriever over a fixed list, whose search is a traced op. */
class ListRetriever extends BaseRetriever {
  lc_namespace = ["test", "retrievers"];
  override async _getRelevantDocuments(
    query: string,
    _runManager?: CallbackManagerForRetrieverRun,
  ): Promise<Document[]> {
    return search(query);
  }
}
const search = op(async function search(query: string) {
  return [new Document({ pageContent: `About ${query}`, metadata: { source: "kb/1" } })];
});

describe("LangChain: the run is the active context", () => {
  let server: OpenAIServer;
  beforeAll(async () => {
    server = await OpenAIServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it("an op a graph node or a RunnableLambda calls nests under its call", async () => {
    const { MessagesAnnotation, StateGraph, START, END } = await import("@langchain/langgraph");
    const fetchFacts = op(async function fetchFacts() {
      return "facts";
    });
    const enrich = RunnableLambda.from(async (text: string) => `${text} + ${await fetchFacts()}`).withConfig({
      runName: "enrich",
    });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("research", async () => {
        await fetchFacts();
        return { messages: [{ role: "assistant", content: await enrich.invoke("notes") }] };
      })
      .addEdge(START, "research")
      .addEdge("research", END)
      .compile();
    await graph.invoke({ messages: [] }, { callbacks: [new TracewireCallbackHandler()] });
    const calls = await recorded(session);
    const node = one(calls, "research");
    const lambda = one(calls, "enrich", node);
    const facts = calls.filter((c) => c.start.op_name === "fetchFacts").map((c) => c.start.parent_id);
    expect(facts.sort()).toEqual([node.start.id, lambda.start.id].sort());
    expect(lambda.start.inputs).toEqual({ input: "notes" });
    // LangChain reports what a runnable returned as {output} (its _coerceToDict), and the call records it so.
    expect(lambda.end.output).toEqual({ output: "notes + facts" });
  });

  it("a foreign span around the model's HTTP request nests under the model call", async () => {
    // Taken from the session's provider (a tracer taken before it keeps the provider of its time).
    const other = trace.getTracer("other-instrumentation");
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: server.baseURL,
      maxRetries: 0,
      fetch: async (url: string | URL | Request, init?: RequestInit) => {
        const span = other.startSpan("POST /chat/completions");
        try {
          return await fetch(url, init);
        } finally {
          span.end();
        }
      },
    });
    const model = new StandInChatModel({ client, model: "gpt-4o-mini" });
    const answer = await model.invoke("Hello?", { callbacks: [new TracewireCallbackHandler()] });
    expect(answer.content).toBe(TEXT);
    const calls = await recorded(session);
    const chat = one(calls, "StandInChatModel");
    const http = session.double.spans.find((s) => s.name === "POST /chat/completions");
    expect(http?.parentSpanId).toBe(chat.start.id);
    expect(http?.traceId).toBe(chat.start.trace_id);
  });

  it("a retriever: its query and documents; an op it calls nests under it", async () => {
    const docs = await new ListRetriever().invoke("bicycles", { callbacks: [new TracewireCallbackHandler()] });
    expect(docs).toHaveLength(1);
    const calls = await recorded(session);
    const retriever = one(calls, "ListRetriever");
    expect(retriever.start.attributes).toEqual({ kind: "retriever" });
    expect(retriever.start.inputs).toEqual({ query: "bicycles" });
    expect(retriever.end.output).toEqual([{ page_content: "About bicycles", metadata: { source: "kb/1" } }]);
    expect(one(calls, "search").start.parent_id).toBe(retriever.start.id);
  });

  it("a text-completion LLM: a GenAI text_completion call, prompt in, text out", async () => {
    class EchoLLM extends LLM {
      _llmType() {
        return "echo";
      }
      async _call(prompt: string): Promise<string> {
        return `echo: ${prompt}`;
      }
    }
    const text = await new EchoLLM({}).invoke("Say hi", { callbacks: [new TracewireCallbackHandler()] });
    expect(text).toBe("echo: Say hi");
    const calls = await recorded(session);
    const llm = one(calls, "EchoLLM");
    expect(llm.start.attributes).toMatchObject({ kind: "llm", operation: "text_completion" });
    expect(llm.start.inputs).toMatchObject({ prompt: "Say hi" });
    expect(llm.end.output).toBe("echo: Say hi");
    expect(summaryOf(llm).usage).toBeUndefined();
  });
});
