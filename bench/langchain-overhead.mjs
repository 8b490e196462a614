/**
 * `tracewire/langchain` overhead: CPU per LangGraph run of the real `@langchain/langgraph` and `@langchain/core`
 * (a one-node graph whose node asks a chat model — a minimal `BaseChatModel` subclass over the real `openai`
 * package — one question) against the loopback server of bench/openai-server.mjs (a child process), on two paths:
 * `graph.invoke`, and `graph.stream` in `messages` mode read to the end (the model streams 50 tokens) — in the five
 * variants of bench/wrapper-harness.mjs and one of its own (below). "Unwrapped" is the run without callbacks;
 * "wrapped" the same run with `callbacks: [new TracewireCallbackHandler()]`: 3 calls on the calls route (the graph,
 * the node, the chat model).
 * The content reference is three nested hand-made spans carrying what those calls record (the graph's and the node's
 * inputs and outputs as JSON, the node's LangGraph facts; the model call's GenAI attributes, usage, the messages and
 * the answer as JSON). Both variants run with the run scope tracewire wraps around the model's request method
 * installed (it is installed process-wide when the first handler is created).
 *
 * A sixth row, "LangChain with a no-op handler", is the same run with `callbacks: [new NoopHandler()]`: a
 * `BaseCallbackHandler` subclass with no handler methods, attached the same way and with the same flags LangChain
 * reads on tracewire's (`awaitHandlers: true`, so its calls are awaited in the foreground, not queued), under the same
 * context manager. That is what LangChain itself spends once *any* handler is attached — callback managers for every
 * runnable (LangGraph's hidden ones included), run ids, the serialised runnables and the start/end fan-out — and
 * what the hand-made spans never pay. The fair measure of tracewire's own handler code is its cost over that row
 * (printed under each table as "Over LangChain with a no-op handler"); the target lines still compare against the
 * unwrapped run.
 *
 * Run: node --expose-gc bench/langchain-overhead.mjs [flags of bench/wrapper-harness.mjs]
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import OpenAI from "openai";
import { TracewireCallbackHandler } from "tracewire/langchain";
import { startServer } from "./lib.mjs";
import { benchFetch, contentSpan, runWrapperBench, STREAM_EVENTS, settings } from "./wrapper-harness.mjs";

const server = await startServer("./openai-server.mjs");
const client = new OpenAI({
  apiKey: "sk-bench",
  baseURL: `http://127.0.0.1:${server.port}/v1`,
  maxRetries: 0,
  fetch: benchFetch(),
});
const QUESTION =
  "Hi! I booked a train from Paris to Milan for next Friday and would like to take my bicycle with me. Is that possible, and do I need to reserve anything extra?";

const toOpenAI = (m) => ({ role: m.getType() === "human" ? "user" : "assistant", content: String(m.content) });
const usageOf = (u) =>
  u ? { input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens, total_tokens: u.total_tokens } : undefined;

/** The smallest real chat model over an `openai` client. */
class BenchChatModel extends BaseChatModel {
  _llmType() {
    return "bench";
  }
  getLsParams(options) {
    return { ...super.getLsParams(options), ls_provider: "openai", ls_model_name: "gpt-4o-mini" };
  }
  async _generate(messages) {
    const completion = await client.chat.completions.create({ model: "gpt-4o-mini", messages: messages.map(toOpenAI) });
    const choice = completion.choices[0];
    const message = new AIMessage({
      content: choice.message.content,
      id: completion.id,
      usage_metadata: usageOf(completion.usage),
      response_metadata: { model_name: completion.model, finish_reason: choice.finish_reason },
    });
    return { generations: [{ text: choice.message.content, message }] };
  }
  async *_streamResponseChunks(messages, _options, runManager) {
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: messages.map(toOpenAI),
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content ?? "";
      const usage = usageOf(chunk.usage);
      if (!delta && !usage) continue;
      yield new ChatGenerationChunk({
        text: delta,
        message: new AIMessageChunk({ content: delta, ...(usage ? { usage_metadata: usage } : {}) }),
      });
      if (delta) await runManager?.handleLLMNewToken(delta);
    }
  }
}

const model = new BenchChatModel({});
const graph = new StateGraph(MessagesAnnotation)
  .addNode("answer", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addEdge(START, "answer")
  .addEdge("answer", END)
  .compile();
const handler = new TracewireCallbackHandler();

/** A handler that records nothing, with the flags LangChain reads on tracewire's handler. */
class NoopHandler extends BaseCallbackHandler {
  name = "noop_handler";
  awaitHandlers = true;
}
const noop = new NoopHandler();
const input = () => ({ messages: [{ role: "user", content: QUESTION }] });

let checksum = 0;

/** `graph.invoke` (with `traced`, the callback handler, when given); returns the answer message. */
async function nonStreaming(traced) {
  const state = await graph.invoke(input(), traced ? { callbacks: [traced] } : {});
  const answer = state.messages.at(-1);
  checksum += String(answer.content).length;
  return answer;
}

/** `graph.stream` in `messages` mode, read to the end; returns the answer message. */
async function streaming(traced) {
  const stream = await graph.stream(input(), { streamMode: "messages", ...(traced ? { callbacks: [traced] } : {}) });
  let tokens = 0;
  let text = "";
  for await (const [chunk] of stream) {
    if (chunk.content) {
      tokens++;
      text += chunk.content;
    }
  }
  checksum += text.length;
  if (tokens !== STREAM_EVENTS) throw new Error(`stream: ${tokens} tokens, expected ${STREAM_EVENTS}`);
  return { content: text, usage_metadata: { input_tokens: 112, output_tokens: STREAM_EVENTS } };
}

const messages = () => [{ role: "user", content: QUESTION }];

/** The untraced run inside three nested hand-made spans carrying what the handler records. */
const content = (run) => () =>
  contentSpan(
    "LangGraph",
    { "tracewire.kind": "graph", "input.value": JSON.stringify({ messages: messages() }) },
    () =>
      contentSpan(
        "answer",
        {
          "tracewire.kind": "node",
          "langgraph.step": 1,
          "langgraph.node": "answer",
          "langgraph.path": ["__pregel_pull", "answer"],
          "input.value": JSON.stringify({ messages: messages() }),
        },
        () =>
          contentSpan(
            "chat gpt-4o-mini",
            {
              "gen_ai.operation.name": "chat",
              "gen_ai.provider.name": "openai",
              "gen_ai.request.model": "gpt-4o-mini",
              "input.value": JSON.stringify({ messages: messages(), model: "gpt-4o-mini" }),
            },
            () => run(false),
            (answer) => ({
              "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
              "gen_ai.usage.input_tokens": answer.usage_metadata?.input_tokens ?? 0,
              "gen_ai.usage.output_tokens": answer.usage_metadata?.output_tokens ?? 0,
              "output.value": JSON.stringify([{ role: "assistant", content: answer.content }]),
            }),
          ),
        (answer) => ({
          "output.value": JSON.stringify({ messages: [{ role: "assistant", content: answer.content }] }),
        }),
      ),
    (answer) => ({
      "output.value": JSON.stringify({ messages: [...messages(), { role: "assistant", content: answer.content }] }),
    }),
  );

await runWrapperBench({
  name: "`TracewireCallbackHandler` (LangGraph)",
  server,
  unwrapped: false,
  wrapped: handler,
  extra: {
    noop: {
      arg: noop,
      label:
        "LangChain with a no-op handler: `callbacks: [new NoopHandler()]` (a `BaseCallbackHandler` with no methods)",
      note: "LangChain with a no-op handler",
    },
  },
  wrappedItems: { calls: 6 },
  paths: [
    {
      tag: "plain",
      title: "`graph.invoke` of a one-node graph",
      calls: settings.calls,
      run: nonStreaming,
      content: content(nonStreaming),
      contentSpans: 3,
    },
    {
      tag: "stream",
      title: `\`graph.stream\` (messages mode), ${STREAM_EVENTS} tokens`,
      calls: settings.streamCalls,
      run: streaming,
      content: content(streaming),
      contentSpans: 3,
    },
  ],
  labels: {
    unwrapped: "the run without callbacks",
    content: "content spans: three nested spans of the floor's kind carrying the same data by hand",
    wrapped: "**`callbacks: [new TracewireCallbackHandler()]`, calls route to the sink**",
  },
  heading: "`tracewire/langchain` overhead: a LangGraph run",
  intro: `The real \`@langchain/langgraph\` and \`@langchain/core\`: a one-node graph whose node asks a minimal
\`BaseChatModel\` subclass (over the real \`openai\` package) one question (~170 characters) against the bench's loopback
OpenAI server in a child process; \`graph.invoke\`, and \`graph.stream\` in \`messages\` mode read to the end (the model
streams ${STREAM_EVENTS} tokens). Untraced = no callbacks; traced = tracewire's handler, recording 3 calls (the graph, the
node, the chat model; LangGraph's hidden runs are not recorded). The reference is three nested hand-made spans
carrying the same data. Both variants have the run scope tracewire wraps around the model's request installed.
The no-op row attaches a \`BaseCallbackHandler\` with no methods the same way (awaited, like tracewire's): what
LangChain spends once any handler is attached, which the hand-made spans do not pay; what the handler adds over it
is tracewire's own share.`,
  footer: ({ served }) =>
    `Server: ${served.requests.toLocaleString("en-US")} requests, ${served.streams.toLocaleString("en-US")} streamed.${checksum === -1 ? " " : ""}`,
});
