/**
 * `wrapGoogleGenAI()` overhead: CPU per `client.models.generateContent` of the real `@google/genai` package against
 * a loopback Gemini API (bench/google-server.mjs, a child process), on two paths — a non-streaming call, and
 * `generateContentStream` read to the end with `for await` (50 SSE chunks) — in the five variants of
 * bench/wrapper-harness.mjs. The wrapped client's calls go on the calls route (request and response as JSON, usage
 * with cached and thoughts tokens; a stream's chunks reassembled into the response). The content span carries the
 * GenAI request attributes and the request as JSON at the start; the response attributes, usage and the response
 * (for a stream: reassembled by the app from its chunks) as JSON at the end.
 *
 * Run: node --expose-gc bench/google-overhead.mjs [flags of bench/wrapper-harness.mjs]
 */
import { readFileSync } from "node:fs";
import { GoogleGenAI } from "@google/genai";
import { wrapGoogleGenAI } from "tracewire/google";
import { startServer } from "./lib.mjs";
import { benchFetch, contentSpan, runWrapperBench, STREAM_EVENTS, settings } from "./wrapper-harness.mjs";

// The package exports no ./package.json: read it from node_modules.
const sdkVersion = JSON.parse(
  readFileSync(new URL("../node_modules/@google/genai/package.json", import.meta.url), "utf8"),
).version;
const server = await startServer("./google-server.mjs");

const PARAMS = {
  model: "gemini-2.5-flash",
  contents:
    "Hi! I booked a train from Paris to Milan for next Friday and would like to take my bicycle with me. Is that possible, and do I need to reserve anything extra?",
  config: {
    systemInstruction:
      "You are the support assistant of a travel company. Answer in one short paragraph, in the customer's language, and never invent prices, dates or booking references.",
    temperature: 0.2,
    maxOutputTokens: 256,
  },
};
const clientOptions = {
  apiKey: "gemini-bench",
  httpOptions: { baseUrl: `http://127.0.0.1:${server.port}`, fetch: benchFetch() },
};

let checksum = 0;

/** A non-streaming call; returns the response. */
async function nonStreaming(client) {
  const response = await client.models.generateContent(PARAMS);
  checksum += response.text.length;
  return response;
}

/** A streamed call read to the end; returns the response its chunks add up to (as the app reassembles it). */
async function streaming(client) {
  const stream = await client.models.generateContentStream(PARAMS);
  let chunks = 0;
  let text = "";
  let last;
  for await (const chunk of stream) {
    chunks++;
    text += chunk.text ?? "";
    last = chunk;
  }
  checksum += text.length;
  if (chunks !== STREAM_EVENTS) throw new Error(`stream: ${chunks} chunks seen, expected ${STREAM_EVENTS}`);
  const candidate = { content: { role: "model", parts: [{ text }] }, finishReason: last.candidates[0].finishReason };
  return {
    candidates: [candidate],
    usageMetadata: last.usageMetadata,
    modelVersion: last.modelVersion,
    responseId: last.responseId,
  };
}

const unwrapped = new GoogleGenAI(clientOptions);

const content = (run, streamed) => () =>
  contentSpan(
    "generate_content gemini-2.5-flash",
    {
      "gen_ai.operation.name": "generate_content",
      "gen_ai.provider.name": "gcp.gemini",
      "gen_ai.request.model": PARAMS.model,
      "gen_ai.request.temperature": PARAMS.config.temperature,
      "gen_ai.request.max_tokens": PARAMS.config.maxOutputTokens,
      ...(streamed ? { "gen_ai.request.stream": true } : {}),
      "server.address": "127.0.0.1",
      "server.port": server.port,
      "input.value": JSON.stringify(PARAMS),
    },
    () => run(unwrapped),
    (response) => ({
      "gen_ai.response.id": response.responseId,
      "gen_ai.response.model": response.modelVersion,
      "gen_ai.response.finish_reasons": [response.candidates[0].finishReason],
      "gen_ai.usage.input_tokens": response.usageMetadata.promptTokenCount,
      "gen_ai.usage.output_tokens": response.usageMetadata.candidatesTokenCount,
      "gen_ai.usage.cache_read.input_tokens": response.usageMetadata.cachedContentTokenCount,
      "gen_ai.usage.reasoning.output_tokens": response.usageMetadata.thoughtsTokenCount,
      "output.value": JSON.stringify(response),
    }),
  );

await runWrapperBench({
  name: "`wrapGoogleGenAI`",
  server,
  unwrapped,
  wrapped: wrapGoogleGenAI(new GoogleGenAI(clientOptions)),
  wrappedItems: { calls: 2 },
  paths: [
    {
      tag: "plain",
      title: "non-streaming `models.generateContent`",
      calls: settings.calls,
      run: nonStreaming,
      content: content(nonStreaming, false),
      contentSpans: 1,
    },
    {
      tag: "stream",
      title: `\`models.generateContentStream\`, ${STREAM_EVENTS} chunks`,
      calls: settings.streamCalls,
      run: streaming,
      content: content(streaming, true),
      contentSpans: 1,
    },
  ],
  labels: {
    unwrapped: "unwrapped `@google/genai` client",
    content:
      "content span: the floor's span carrying the same data by hand (GenAI attributes, request and response as JSON)",
    wrapped: "**`wrapGoogleGenAI(client)`, calls route to the sink**",
  },
  heading: "`wrapGoogleGenAI()` overhead",
  intro: `The real \`@google/genai\` package (${sdkVersion}, on Node ${process.versions.node}), \`client.models.generateContent\`,
against a loopback Gemini API in a child process: a non-streaming call, and \`generateContentStream\` read to the end
with \`for await\` (${STREAM_EVENTS} SSE chunks, one text piece and the running usage each). Request: a system instruction
and one user turn (~330 characters), \`temperature\`, \`maxOutputTokens\`; answer ${STREAM_EVENTS} tokens (~300 characters).
The content span carries the GenAI request attributes and the request as JSON when it starts, response attributes,
usage and the response as JSON when it ends (for the stream, the response the app reassembles from the chunks); the
wrapper's calls go on the calls route.`,
  footer: ({ served }) =>
    `Server: ${served.requests.toLocaleString("en-US")} requests, ${served.streams.toLocaleString("en-US")} streamed.${checksum === -1 ? " " : ""}`,
});
