// Tracing Google's Gen AI SDK: wrap the client once, and every `generateContent` — here a chat's function call, then
// a streamed answer — is a GenAI `generate_content {model}` call nested under the op that made it, with token usage
// (cached and thinking tokens included), the finish reason and the streamed response reassembled. Run from the
// repository root (`@google/genai` 3 needs Node ≥ 22):
//
//   TRACEWIRE_BASE_URL=http://127.0.0.1:4319 TRACEWIRE_PROJECT=me/demo npm run example:google
//
// Without GEMINI_API_KEY it starts a tiny Gemini stand-in on 127.0.0.1 (offline); with it, it talks to the Gemini API
// using GEMINI_MODEL (default gemini-2.5-flash). Without TRACEWIRE_BASE_URL it prints one warning and runs untraced:
// the same answers, nothing sent.
import { GoogleGenAI } from "@google/genai";
import { init } from "tracewire";
import { wrapGoogleGenAI } from "tracewire/google";
import { realApiFailure } from "../real-api.mjs";
import { makeGeminiAssistant } from "./assistant.mjs";
import { startStandIn } from "./stand-in.mjs";

const tracing = init({ serviceName: "example-google" });

const standIn = process.env.GEMINI_API_KEY ? undefined : await startStandIn();
const client = wrapGoogleGenAI(
  new GoogleGenAI({
    apiKey: process.env.GEMINI_API_KEY ?? "local-stand-in",
    ...(standIn ? { httpOptions: { baseUrl: standIn.url } } : {}),
  }),
);
const model = process.env.GEMINI_MODEL ?? "gemini-2.5-flash";
const assistant = makeGeminiAssistant(client, model);

const { answer, llmCall } = await assistant("What's the weather in Lisbon?").catch(
  realApiFailure(standIn, "GEMINI_API_KEY"),
);
if (llmCall) console.log(`LLM call ${llmCall.id} in trace ${llmCall.traceId}`);
await tracing.shutdown();
await standIn?.close();
console.log(answer ? "done" : "no answer");
