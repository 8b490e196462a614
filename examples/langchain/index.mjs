// Tracing LangChain.js and LangGraph.js: one line traces every run in the process, and a LangGraph agent becomes a
// tree of calls — the graph, each node (with its step), each chat model call (with token usage) and each tool call —
// nested under the op that ran it, in the thread of its `thread_id`. What a tool traces (here, the `forecast` op)
// nests under its tool call. Run from the repository root (@langchain/openai needs Node ≥ 22):
//
//   TRACEWIRE_BASE_URL=http://127.0.0.1:4319 TRACEWIRE_PROJECT=me/demo npm run example:langchain
//
// Without OPENAI_API_KEY the model talks to a tiny OpenAI-compatible stand-in on 127.0.0.1 (offline); with it, to
// OPENAI_BASE_URL (default OpenAI) with OPENAI_MODEL. Without TRACEWIRE_BASE_URL it prints one warning and runs
// untraced: the same answers, nothing sent.
import { tool } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { init, op } from "tracewire";
import { instrumentLangChain } from "tracewire/langchain";
import { z } from "zod";
import { startStandIn } from "../openai/stand-in.mjs";
import { realApiFailure } from "../real-api.mjs";

const tracing = init({ serviceName: "example-langchain" });
await instrumentLangChain();

const standIn = process.env.OPENAI_API_KEY ? undefined : await startStandIn();
const model = new ChatOpenAI({
  model: process.env.OPENAI_MODEL ?? "gpt-4o-mini",
  ...(standIn ? { apiKey: "sk-local", configuration: { baseURL: standIn.url } } : {}),
});

const forecast = op(async function forecast(city) {
  return { city, celsius: 21, sky: "clear" };
});
const tools = [
  tool(async ({ city }) => JSON.stringify(await forecast(city)), {
    name: "get_weather",
    description: "The weather in a city",
    schema: z.object({ city: z.string() }),
  }),
];
const withTools = model.bindTools(tools);

const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [await withTools.invoke(state.messages)] }))
  .addNode("tools", new ToolNode(tools))
  .addEdge(START, "agent")
  .addConditionalEdges("agent", toolsCondition, ["tools", END])
  .addEdge("tools", "agent")
  .compile();

const desk = op(async function desk(question, conversation) {
  const state = await graph.invoke(
    { messages: [{ role: "user", content: question }] },
    { configurable: { thread_id: conversation } },
  );
  return state.messages.findLast((message) => message.getType() === "ai")?.content;
});

const answer = await desk("What's the weather in Lisbon?", "example-conversation").catch(
  realApiFailure(standIn, "OPENAI_API_KEY"),
);
if (!process.exitCode) console.log(answer);
await tracing.shutdown();
await standIn?.close();
console.log("stats:", JSON.stringify(tracing.stats()));
