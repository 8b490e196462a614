// Tracing the Vercel AI SDK: one line registers tracewire's telemetry integration (ai 7), and each generateText /
// streamText becomes a tree of calls — the operation, its steps, each model call (with token usage) and each tool
// call — nested under the op that made it. Run from the repository root (ai 7 needs Node ≥ 22):
//
//   TRACEWIRE_BASE_URL=http://127.0.0.1:4319 TRACEWIRE_PROJECT=me/demo npm run example:ai
//
// It talks to a tiny OpenAI-compatible stand-in on 127.0.0.1 (offline). Without TRACEWIRE_BASE_URL it prints one
// warning and runs untraced: the same answers, nothing sent. (With ai 6 nothing is registered: pass
// `experimental_telemetry: { isEnabled: true }` and init() turns its spans into the same calls.)
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, registerTelemetry, stepCountIs, tool } from "ai";
import { init, op } from "tracewire";
import { tracewireTelemetry } from "tracewire/ai";
import { startStandIn } from "../openai/stand-in.mjs";

const tracing = init({ serviceName: "example-ai-sdk" });
registerTelemetry(tracewireTelemetry());

const standIn = await startStandIn();
const provider = createOpenAICompatible({
  name: "stand-in",
  baseURL: standIn.url,
  apiKey: "sk-local",
  includeUsage: true,
});

const assistant = op(async function assistant(question) {
  const result = await generateText({
    model: provider("gpt-4o-mini"),
    prompt: question,
    tools: {
      get_weather: tool({
        description: "The weather in a city",
        inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
        execute: async ({ city }) => ({ city, celsius: 21 }),
      }),
    },
    stopWhen: stepCountIs(3),
    telemetry: { functionId: "weather-answer" },
  });
  return result.text;
});

console.log(await assistant("What's the weather in Lisbon?"));
await tracing.shutdown();
await standIn.close();
console.log("stats:", JSON.stringify(tracing.stats()));
