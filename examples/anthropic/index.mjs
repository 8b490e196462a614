// Tracing an Anthropic client: wrap it once, and every Messages API call — a tool use, then a streamed answer — is
// a GenAI `chat {model}` call nested under the op that made it, with token usage (prompt-cache tokens included),
// the stop reason and the reassembled streamed Message. Run from the repository root:
//
//   TRACEWIRE_BASE_URL=http://127.0.0.1:4319 TRACEWIRE_PROJECT=me/demo npm run example:anthropic
//
// Without ANTHROPIC_API_KEY it starts a tiny Anthropic stand-in on 127.0.0.1 (offline); with it, it talks to the
// Anthropic API using ANTHROPIC_MODEL (default claude-haiku-4-5). Without TRACEWIRE_BASE_URL it prints one warning
// and runs untraced: the same answers, nothing sent.
import Anthropic from "@anthropic-ai/sdk";
import { callOf, init, op } from "tracewire";
import { wrapAnthropic } from "tracewire/anthropic";
import { realApiFailure } from "../real-api.mjs";
import { startStandIn } from "./stand-in.mjs";

const tracing = init({ serviceName: "example-anthropic" });

const standIn = process.env.ANTHROPIC_API_KEY ? undefined : await startStandIn();
const client = wrapAnthropic(
  new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY ?? "sk-ant-local-stand-in", baseURL: standIn?.url }),
);
const model = process.env.ANTHROPIC_MODEL ?? "claude-haiku-4-5";
const tools = [
  {
    name: "get_weather",
    description: "Current weather of a city",
    input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];

const weatherOf = op(async function get_weather({ city }) {
  return `${city}: 21°C and sunny`;
});

const assistant = op(async function assistant(question) {
  const messages = [{ role: "user", content: question }];
  const system = "You answer weather questions in one sentence.";
  const first = await client.messages.create({ model, max_tokens: 256, system, tools, messages });
  const toolUse = first.content.find((block) => block.type === "tool_use");
  if (toolUse) {
    messages.push({ role: "assistant", content: first.content });
    const result = await weatherOf(toolUse.input);
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: toolUse.id, content: result }] });
  }
  const stream = client.messages.stream({ model, max_tokens: 256, system, tools, messages });
  stream.on("text", (text) => process.stdout.write(text));
  const final = await stream.finalMessage();
  process.stdout.write("\n");
  return { answer: final.content.map((b) => (b.type === "text" ? b.text : "")).join(""), llmCall: callOf(stream) };
});

const { answer, llmCall } = await assistant("What's the weather in Lisbon?").catch(
  realApiFailure(standIn, "ANTHROPIC_API_KEY"),
);
if (llmCall) console.log(`LLM call ${llmCall.id} in trace ${llmCall.traceId}`);
await tracing.shutdown();
await standIn?.close();
console.log(answer ? "done" : "no answer");
