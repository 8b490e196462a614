/**
 * `tracewire/openai-agents` overhead (Node ≥ 22, as `@openai/agents` needs): CPU per agent run of the real SDK
 * (`Runner.run`, one agent, no tools: one Responses request) against the loopback server of bench/openai-server.mjs
 * (a child process), on two paths — a non-streamed run, and a streamed run whose events are read to the end (50 text
 * deltas) — in the five variants of bench/wrapper-harness.mjs. "Unwrapped" is the run with the SDK's tracing off
 * (`setTracingDisabled(true)`: no spans, no processor); "wrapped" the same run with tracing on and
 * `tracewireTraceProcessor()` as the only processor: 5 calls on the calls route (workflow, task, agent, turn, model
 * call). The content reference is therefore five nested hand-made spans carrying what those calls record: the
 * workflow, task, agent and turn facts (names, the agent's tools and handoffs, the turn's usage) as JSON, and the
 * model call's GenAI attributes, usage, the input items and the response as JSON.
 *
 * Run: node --expose-gc bench/openai-agents-overhead.mjs [flags of bench/wrapper-harness.mjs]
 */
import { Agent, OpenAIProvider, Runner, setTraceProcessors, setTracingDisabled } from "@openai/agents";
import OpenAI from "openai7";
import { tracewireTraceProcessor } from "tracewire/openai-agents";
import { startServer } from "./lib.mjs";
import { benchFetch, contentSpan, runWrapperBench, STREAM_EVENTS, settings } from "./wrapper-harness.mjs";

const server = await startServer("./openai-server.mjs");
const client = new OpenAI({
  apiKey: "sk-bench",
  baseURL: `http://127.0.0.1:${server.port}/v1`,
  maxRetries: 0,
  fetch: benchFetch(),
});
const INSTRUCTIONS =
  "You are the support assistant of a travel company. Answer in one short paragraph, in the customer's language, and never invent prices, dates or booking references.";
const QUESTION =
  "Hi! I booked a train from Paris to Milan for next Friday and would like to take my bicycle with me. Is that possible, and do I need to reserve anything extra?";
const agent = new Agent({
  name: "Support",
  instructions: INSTRUCTIONS,
  model: "gpt-4o-mini",
  modelSettings: { temperature: 0.2, maxTokens: 256 },
});
const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client }) });
setTraceProcessors([tracewireTraceProcessor()]);

let checksum = 0;

/** A non-streamed run; returns the model's response (for the content spans). */
async function nonStreaming(traced) {
  setTracingDisabled(!traced);
  const result = await runner.run(agent, QUESTION);
  checksum += result.finalOutput.length;
  return result.rawResponses[0];
}

/** A streamed run, every event read; returns the model's response. */
async function streaming(traced) {
  setTracingDisabled(!traced);
  const result = await runner.run(agent, QUESTION, { stream: true });
  let deltas = 0;
  for await (const event of result) {
    if (event.type === "raw_model_stream_event" && event.data.type === "output_text_delta") deltas++;
  }
  await result.completed;
  checksum += result.finalOutput.length;
  if (deltas !== STREAM_EVENTS) throw new Error(`stream: ${deltas} text deltas, expected ${STREAM_EVENTS}`);
  return result.rawResponses[0];
}

const usageOf = (response) => ({
  input_tokens: response.usage.inputTokens,
  output_tokens: response.usage.outputTokens,
});

/** The untraced run inside five nested hand-made spans carrying what the processor records. */
const content = (run) => () =>
  contentSpan(
    "workflow Agent workflow",
    { "tracewire.kind": "workflow", "input.value": JSON.stringify({ trace_id: "trace_0123456789abcdef" }) },
    () =>
      contentSpan(
        "task Agent workflow",
        { "input.value": JSON.stringify({ name: "Agent workflow" }) },
        () =>
          contentSpan(
            "invoke_agent Support",
            {
              "gen_ai.operation.name": "invoke_agent",
              "gen_ai.agent.name": "Support",
              "input.value": '{"name":"Support","output_type":"text"}',
            },
            () =>
              contentSpan(
                "turn 1",
                { "input.value": JSON.stringify({ turn: 1, agent_name: "Support" }) },
                () =>
                  contentSpan(
                    "chat gpt-4o-mini",
                    {
                      "gen_ai.operation.name": "chat",
                      "gen_ai.provider.name": "openai",
                      "gen_ai.request.model": "gpt-4o-mini",
                      "gen_ai.request.temperature": 0.2,
                      "input.value": JSON.stringify({
                        input: [{ role: "user", content: QUESTION }],
                        instructions: INSTRUCTIONS,
                        model: "gpt-4o-mini",
                      }),
                    },
                    () => run(false),
                    (response) => ({
                      "gen_ai.response.id": response.responseId,
                      "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
                      "gen_ai.usage.input_tokens": response.usage.inputTokens,
                      "gen_ai.usage.output_tokens": response.usage.outputTokens,
                      "output.value": JSON.stringify(response.providerData ?? response.output),
                    }),
                  ),
                (response) => ({ "output.value": JSON.stringify({ usage: usageOf(response) }) }),
              ),
            () => ({ "output.value": JSON.stringify({ answer: "…", tools: [], handoffs: [] }) }),
          ),
        (response) => ({ "output.value": JSON.stringify({ usage: { ...usageOf(response), requests: 1 } }) }),
      ),
    () => ({ "output.value": "answer" }),
  );

await runWrapperBench({
  name: "`tracewireTraceProcessor()` (OpenAI Agents SDK)",
  server,
  unwrapped: false,
  wrapped: true,
  wrappedItems: { calls: 10 },
  paths: [
    {
      tag: "plain",
      title: "a non-streamed agent run",
      calls: settings.calls,
      run: nonStreaming,
      content: content(nonStreaming),
      contentSpans: 5,
    },
    {
      tag: "stream",
      title: `a streamed agent run, ${STREAM_EVENTS} text deltas`,
      calls: settings.streamCalls,
      run: streaming,
      content: content(streaming),
      contentSpans: 5,
    },
  ],
  labels: {
    unwrapped: "the run with the SDK's tracing off",
    content: "content spans: five nested spans of the floor's kind carrying the same data by hand",
    wrapped: "**tracing on, `tracewireTraceProcessor()` the only processor, calls route to the sink**",
  },
  heading: "`tracewire/openai-agents` overhead: an Agents SDK run",
  intro: `The real \`@openai/agents\` (Node ${process.versions.node}), \`Runner.run\` of one agent without tools (instructions
~160 characters, a question ~170 characters, one Responses request answered with ${STREAM_EVENTS} tokens) against the
bench's loopback OpenAI server in a child process, non-streamed and streamed (every event read). Untraced = the SDK's
tracing off; traced = on, with tracewire's processor recording 5 calls (workflow, task, agent, turn, model call). The
reference is five nested hand-made spans carrying the same data (the overhead includes the SDK's own span
bookkeeping, which runs only because a processor is registered).`,
  footer: ({ served }) =>
    `Server: ${served.requests.toLocaleString("en-US")} requests, ${served.streams.toLocaleString("en-US")} streamed.${checksum === -1 ? " " : ""}`,
});
