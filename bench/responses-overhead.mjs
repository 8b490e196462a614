/**
 * `wrapOpenAI()` overhead on the Responses API: CPU per `client.responses.create` of the real `openai` package (v6)
 * against the loopback server of bench/openai-server.mjs (its `/v1/responses`), on two paths — a non-streaming call,
 * and `stream: true` read to the end with `for await` (Responses SSE: 50 `response.output_text.delta` events among
 * 57) — in the five variants of bench/wrapper-harness.mjs. The wrapped client's calls go on the calls route (request
 * and response as JSON, usage; a stream's events reassembled into the response). The content span carries the GenAI
 * request attributes and the request as JSON at the start; the response attributes, usage and the response (for a
 * stream: the one `response.completed` carries) as JSON at the end.
 *
 * Run: node --expose-gc bench/responses-overhead.mjs [flags of bench/wrapper-harness.mjs]
 */
import OpenAI from "openai";
import { wrapOpenAI } from "tracewire/openai";
import { startServer } from "./lib.mjs";
import { benchFetch, contentSpan, runWrapperBench, STREAM_EVENTS, settings } from "./wrapper-harness.mjs";

const server = await startServer("./openai-server.mjs");

const PARAMS = {
  model: "gpt-4o-mini",
  instructions:
    "You are the support assistant of a travel company. Answer in one short paragraph, in the customer's language, and never invent prices, dates or booking references.",
  input:
    "Hi! I booked a train from Paris to Milan for next Friday and would like to take my bicycle with me. Is that possible, and do I need to reserve anything extra?",
  temperature: 0.2,
  max_output_tokens: 256,
};
const STREAM_PARAMS = { ...PARAMS, stream: true };
const clientOptions = {
  apiKey: "sk-bench",
  baseURL: `http://127.0.0.1:${server.port}/v1`,
  maxRetries: 0,
  fetch: benchFetch(),
};

let checksum = 0;

/** A non-streaming call; returns the response. */
async function nonStreaming(client) {
  const response = await client.responses.create(PARAMS);
  checksum += response.output_text.length;
  return response;
}

/** A streamed call read to the end; returns the response `response.completed` carried. */
async function streaming(client) {
  const stream = await client.responses.create(STREAM_PARAMS);
  let deltas = 0;
  let text = "";
  let completed;
  for await (const event of stream) {
    if (event.type === "response.output_text.delta") {
      deltas++;
      text += event.delta;
    } else if (event.type === "response.completed") completed = event.response;
  }
  checksum += text.length;
  if (deltas !== STREAM_EVENTS || !completed)
    throw new Error(`stream: ${deltas} text deltas, expected ${STREAM_EVENTS}`);
  return completed;
}

const unwrapped = new OpenAI(clientOptions);

const content = (params, run) => () =>
  contentSpan(
    "chat gpt-4o-mini",
    {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "openai.api.type": "responses",
      "gen_ai.request.model": params.model,
      "gen_ai.request.temperature": params.temperature,
      "gen_ai.request.max_tokens": params.max_output_tokens,
      "server.address": "127.0.0.1",
      "server.port": server.port,
      "input.value": JSON.stringify(params),
    },
    () => run(unwrapped),
    (response) => ({
      "gen_ai.response.id": response.id,
      "gen_ai.response.model": response.model,
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.usage.input_tokens": response.usage.input_tokens,
      "gen_ai.usage.output_tokens": response.usage.output_tokens,
      "gen_ai.usage.cache_read.input_tokens": response.usage.input_tokens_details.cached_tokens,
      "gen_ai.usage.reasoning.output_tokens": response.usage.output_tokens_details.reasoning_tokens,
      "output.value": JSON.stringify(response),
    }),
  );

await runWrapperBench({
  name: "`wrapOpenAI` (Responses API)",
  server,
  unwrapped,
  wrapped: wrapOpenAI(new OpenAI(clientOptions)),
  wrappedItems: { calls: 2 },
  paths: [
    {
      tag: "plain",
      title: "non-streaming `responses.create`",
      calls: settings.calls,
      run: nonStreaming,
      content: content(PARAMS, nonStreaming),
      contentSpans: 1,
    },
    {
      tag: "stream",
      title: `\`responses.create\` stream, ${STREAM_EVENTS} text deltas`,
      calls: settings.streamCalls,
      run: streaming,
      content: content(STREAM_PARAMS, streaming),
      contentSpans: 1,
    },
  ],
  labels: {
    unwrapped: "unwrapped `openai` client",
    content:
      "content span: the floor's span carrying the same data by hand (GenAI attributes, request and response as JSON)",
    wrapped: "**`wrapOpenAI(client)`, calls route to the sink**",
  },
  heading: "`wrapOpenAI()` overhead: Responses API",
  intro: `The real \`openai\` package (v6), \`client.responses.create\`, against the bench's loopback OpenAI server in a child
process: a non-streaming call, and \`stream: true\` read to the end with \`for await\` (Responses SSE: created,
in_progress, item/part added, ${STREAM_EVENTS} \`response.output_text.delta\` events, the \`.done\` events and
\`response.completed\` with the whole response — 57 events). Request: \`instructions\` and \`input\` (~330 characters),
\`temperature\`, \`max_output_tokens\`; answer ${STREAM_EVENTS} tokens (~300 characters). The content span carries the
GenAI request attributes and the request as JSON when it starts, response attributes, usage (cached and reasoning
tokens included) and the response as JSON when it ends; the wrapper's calls go on the calls route.`,
  footer: ({ served }) =>
    `Server: ${served.requests.toLocaleString("en-US")} requests, ${served.streams.toLocaleString("en-US")} streamed.${checksum === -1 ? " " : ""}`,
});
