// Tracing an OpenAI client: wrap it once, and every chat completion — a tool call, then a streamed answer — is a
// GenAI `chat {model}` call nested under the op that made it, with token usage, time to first chunk and the
// reassembled streamed answer. Run from the repository root:
//
//   TRACEWIRE_BASE_URL=http://127.0.0.1:4319 TRACEWIRE_PROJECT=me/demo npm run example:openai
//
// Without OPENAI_API_KEY it starts a tiny OpenAI-compatible stand-in on 127.0.0.1 (offline); with it, it talks to
// OPENAI_BASE_URL (default: the OpenAI API) using OPENAI_MODEL (default gpt-4o-mini). Without TRACEWIRE_BASE_URL it
// prints one warning and runs untraced: the same answers, nothing sent.
import OpenAI from "openai";
import { init } from "tracewire";
import { wrapOpenAI } from "tracewire/openai";
import { realApiFailure } from "../real-api.mjs";
import { makeAssistant } from "./assistant.mjs";
import { startStandIn } from "./stand-in.mjs";

const tracing = init({ serviceName: "example-openai" });

const standIn = process.env.OPENAI_API_KEY ? undefined : await startStandIn();
const client = wrapOpenAI(
  new OpenAI({
    apiKey: process.env.OPENAI_API_KEY ?? "sk-local-stand-in",
    baseURL: standIn?.url ?? process.env.OPENAI_BASE_URL,
  }),
);
const model = process.env.OPENAI_MODEL ?? "gpt-4o-mini";

const assistant = makeAssistant(client, model);

const { answer, llmCall } = await assistant("What's the weather in Lisbon?").catch(
  realApiFailure(standIn, "OPENAI_API_KEY"),
);
if (llmCall) {
  await llmCall.react("👍"); // feedback on the exact LLM call that produced the answer
  console.log(`LLM call ${llmCall.id} in trace ${llmCall.traceId}`);
}
await tracing.shutdown();
await standIn?.close();
console.log(answer ? "done" : "no answer");
console.log("stats:", JSON.stringify(tracing.stats()));
