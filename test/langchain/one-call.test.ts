/**
 * LangChain with a client the app also wrapped with `wrapOpenAI`: each model request is one call, the chat model's,
 * with its usage once — the handler passed per call or added by `instrumentLangChain()`, non-streamed and streamed
 * (`model.stream()`: time to first token from the streamed tokens, usage from the stream's last chunk). A wrapped
 * client a graph node calls itself (not through a model) records its own call, under the node's call.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { instrumentLangChain, TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { OpenAIServer, TEXT, USAGE } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { agentGraph, named, one, recorded, StandInChatModel, summaryOf } from "./support.js";

const session = setupSessionPerTest();

/**
 * Input and output tokens of every model call (kind `llm`) that recorded usage, summed, and how many did; and the
 * root's rolled-up usage, which must hold the same sums (each request once).
 */
function tokens(calls: Awaited<ReturnType<typeof recorded>>) {
  const out = { input: 0, output: 0, calls: 0 };
  const models = calls.filter((c) => (c.start.attributes as { kind?: string }).kind === "llm");
  sum(models, out);
  const roots = calls.filter((c) => !c.start.parent_id);
  expect(roots).toHaveLength(1);
  const atRoot = { input: 0, output: 0, calls: 0 };
  sum(roots, atRoot);
  expect({ input: atRoot.input, output: atRoot.output }, "the root's usage").toEqual({
    input: out.input,
    output: out.output,
  });
  return out;
}

function sum(calls: Awaited<ReturnType<typeof recorded>>, out: { input: number; output: number; calls: number }) {
  for (const call of calls) {
    const usage = summaryOf(call).usage as
      | Record<string, { prompt_tokens: number; completion_tokens: number }>
      | undefined;
    if (!usage) continue;
    out.calls++;
    for (const entry of Object.values(usage)) {
      out.input += entry.prompt_tokens;
      out.output += entry.completion_tokens;
    }
  }
  return out;
}

describe("LangChain: a wrapped client's request is one call", () => {
  let server: OpenAIServer;
  beforeAll(async () => {
    server = await OpenAIServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  const wrapped = () => wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: server.baseURL, maxRetries: 0 }));

  for (const how of ["the handler per call", "instrumentLangChain()"] as const) {
    it(`a graph through a wrapped client, with ${how}`, async () => {
      const config = how === "instrumentLangChain()" ? {} : { callbacks: [new TracewireCallbackHandler()] };
      if (how === "instrumentLangChain()") await instrumentLangChain();
      const graph = agentGraph(new StandInChatModel({ client: wrapped(), model: "gpt-4o-mini" }));
      await graph.invoke({ messages: [{ role: "user", content: "Weather in Paris?" }] }, config);
      const calls = await recorded(session);
      expect(server.chatBodies()).toHaveLength(2);
      expect(named(calls, "openai.chat.completions.create"), "the wrapped client recorded nothing").toEqual([]);
      expect(named(calls, "StandInChatModel")).toHaveLength(2);
      expect(tokens(calls)).toEqual({ input: 2 * USAGE.prompt_tokens, output: 2 * USAGE.completion_tokens, calls: 2 });
      server.server.requests.length = 0;
    });
  }

  it("model.stream(): one call, time to first token, usage from the last chunk", async () => {
    const model = new StandInChatModel({ client: wrapped(), model: "gpt-4o-mini" });
    let text = "";
    for await (const chunk of await model.stream("Hello?", { callbacks: [new TracewireCallbackHandler()] }))
      text += String(chunk.content);
    expect(text).toBe(TEXT);
    const calls = await recorded(session);
    expect(calls.map((c) => c.start.op_name)).toEqual(["StandInChatModel"]);
    const [chat] = calls;
    expect((summaryOf(chat!).gen_ai as { time_to_first_chunk: number }).time_to_first_chunk).toBeGreaterThan(0);
    expect(tokens(calls)).toEqual({ input: USAGE.prompt_tokens, output: USAGE.completion_tokens, calls: 1 });
    expect(chat!.end.output).toEqual([{ role: "assistant", content: TEXT, finish_reason: "stop" }]);
    server.server.requests.length = 0;
  });

  it("a wrapped client a node calls directly records its own call, under the node's", async () => {
    const client = wrapped();
    const { MessagesAnnotation, StateGraph, START, END } = await import("@langchain/langgraph");
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("summarize", async () => {
        const completion = await client.chat.completions.create({
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: "Summarize" }],
        });
        return { messages: [{ role: "assistant", content: completion.choices[0]?.message.content ?? "" }] };
      })
      .addEdge(START, "summarize")
      .addEdge("summarize", END)
      .compile();
    await op(async function run() {
      return graph.invoke({ messages: [] }, { callbacks: [new TracewireCallbackHandler()] });
    })();
    const calls = await recorded(session);
    const node = one(calls, "summarize");
    expect(one(calls, "openai.chat.completions.create").start.parent_id).toBe(node.start.id);
    server.server.requests.length = 0;
  });
});
