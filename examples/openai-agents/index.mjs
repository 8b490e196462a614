// Tracing the OpenAI Agents SDK: one line registers tracewire's trace processor, and each run becomes a tree of
// calls — the workflow, the agent, each turn, each model call (with token usage), each tool call, the guardrail —
// nested under the op that started it. What a tool traces (here, the `forecast` op) nests under its tool call.
// Run from the repository root (the SDK needs Node ≥ 22):
//
//   TRACEWIRE_BASE_URL=http://127.0.0.1:4319 TRACEWIRE_PROJECT=me/demo npm run example:openai-agents
//
// Without OPENAI_API_KEY it talks to a tiny OpenAI-compatible stand-in on 127.0.0.1 (offline); with it, to
// OPENAI_BASE_URL (default OpenAI) with OPENAI_MODEL. Without TRACEWIRE_BASE_URL it prints one warning and runs
// untraced: the same answers, nothing sent.
import { Agent, Runner, setTraceProcessors, setTracingDisabled, tool } from "@openai/agents";
import { init, op } from "tracewire";
import { tracewireTraceProcessor } from "tracewire/openai-agents";
import { startStandIn } from "../openai/stand-in.mjs";
import { realApiFailure } from "../real-api.mjs";

const tracing = init({ serviceName: "example-openai-agents" });
// tracewire only (addTraceProcessor would also keep the SDK's exporter to OpenAI's dashboard).
setTraceProcessors([tracewireTraceProcessor()]);
// The SDK turns its tracing off under NODE_ENV=test; an example run wants it on.
setTracingDisabled(false);

const standIn = process.env.OPENAI_API_KEY ? undefined : await startStandIn();
if (standIn) {
  process.env.OPENAI_API_KEY = "sk-local";
  process.env.OPENAI_BASE_URL = standIn.url;
}
const model = process.env.OPENAI_MODEL ?? "gpt-4o-mini";

const forecast = op(async function forecast(city) {
  return { city, celsius: 21, sky: "clear" };
});

const weather = new Agent({
  name: "Weather",
  instructions: "Answer weather questions in one sentence. Use get_weather.",
  model,
  tools: [
    tool({
      name: "get_weather",
      description: "The weather in a city",
      parameters: {
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
        additionalProperties: false,
      },
      strict: true,
      execute: async ({ city }) => forecast(city),
    }),
  ],
  inputGuardrails: [
    {
      name: "weather_only",
      execute: async ({ input }) => ({ outputInfo: {}, tripwireTriggered: /password/i.test(JSON.stringify(input)) }),
    },
  ],
});

const runner = new Runner({ workflowName: "weather-desk", groupId: "example-conversation" });

const desk = op(async function desk(question, stream) {
  if (!stream) return (await runner.run(weather, question)).finalOutput;
  const result = await runner.run(weather, question, { stream: true });
  for await (const _event of result) {
    // each event as it arrives (text deltas, tool calls, …)
  }
  await result.completed;
  return result.finalOutput;
});

const failed = realApiFailure(standIn, "OPENAI_API_KEY");
const first = await desk("What's the weather in Lisbon?", false).catch(failed);
if (!process.exitCode) console.log(first);
const second = process.exitCode ? undefined : await desk("And in Porto?", true).catch(failed);
if (!process.exitCode) console.log(second);
await tracing.shutdown();
await standIn?.close();
console.log("stats:", JSON.stringify(tracing.stats()));
