// Tracing the Responses API: the same wrapped `openai` client, and every `client.responses.create` — a function
// call, then a streamed answer — is a GenAI `chat {model}` call (`openai.api.type=responses`) nested under the op
// that made it, with its input items, output items, token usage and the streamed events reassembled into the
// response. Run from the repository root:
//
//   TRACEWIRE_BASE_URL=http://127.0.0.1:4319 TRACEWIRE_PROJECT=me/demo npm run example:openai-responses
//
// Without OPENAI_API_KEY it starts the tiny OpenAI-compatible stand-in on 127.0.0.1 (offline); with it, it talks to
// OPENAI_BASE_URL (default: the OpenAI API) using OPENAI_MODEL (default gpt-5-mini). Without TRACEWIRE_BASE_URL it
// prints one warning and runs untraced: the same answers, nothing sent.
import OpenAI from "openai";
import { init } from "tracewire";
import { wrapOpenAI } from "tracewire/openai";
import { realApiFailure } from "../real-api.mjs";
import { makeResponsesAssistant } from "./responses-assistant.mjs";
import { startStandIn } from "./stand-in.mjs";

const tracing = init({ serviceName: "example-openai-responses" });

const standIn = process.env.OPENAI_API_KEY ? undefined : await startStandIn();
const client = wrapOpenAI(
  new OpenAI({
    apiKey: process.env.OPENAI_API_KEY ?? "sk-local-stand-in",
    baseURL: standIn?.url ?? process.env.OPENAI_BASE_URL,
  }),
);
const model = process.env.OPENAI_MODEL ?? "gpt-5-mini";
const assistant = makeResponsesAssistant(client, model);

const { answer, llmCall } = await assistant("What's the weather in Lisbon?").catch(
  realApiFailure(standIn, "OPENAI_API_KEY"),
);
if (llmCall) console.log(`LLM call ${llmCall.id} in trace ${llmCall.traceId}`);
await tracing.shutdown();
await standIn?.close();
console.log(answer ? "done" : "no answer");
console.log("stats:", JSON.stringify(tracing.stats()));
