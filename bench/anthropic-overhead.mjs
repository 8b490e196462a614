/**
 * `wrapAnthropic()` overhead: CPU per `client.messages.create` of the real `@anthropic-ai/sdk` package against a
 * loopback Messages API (bench/anthropic-server.mjs, a child process), on two paths — a non-streaming call, and
 * `stream: true` read to the end with `for await` (Anthropic SSE: 50 `content_block_delta` events among 55) — in
 * the five variants of bench/wrapper-harness.mjs. The wrapped client's calls go on the calls route (request and
 * message as JSON, usage with cache tokens; a stream's events reassembled into the message). The content span
 * carries the GenAI request attributes and the request as JSON at the start; the response attributes, usage and the
 * message (for a stream: reassembled by the app from its events) as JSON at the end.
 *
 * Run: node --expose-gc bench/anthropic-overhead.mjs [flags of bench/wrapper-harness.mjs]
 */
import Anthropic from "@anthropic-ai/sdk";
import { VERSION as sdkVersion } from "@anthropic-ai/sdk/version";
import { wrapAnthropic } from "tracewire/anthropic";
import { startServer } from "./lib.mjs";
import { benchFetch, contentSpan, runWrapperBench, STREAM_EVENTS, settings } from "./wrapper-harness.mjs";

const server = await startServer("./anthropic-server.mjs");

const PARAMS = {
  model: "claude-haiku-4-5",
  system:
    "You are the support assistant of a travel company. Answer in one short paragraph, in the customer's language, and never invent prices, dates or booking references.",
  messages: [
    {
      role: "user",
      content:
        "Hi! I booked a train from Paris to Milan for next Friday and would like to take my bicycle with me. Is that possible, and do I need to reserve anything extra?",
    },
  ],
  temperature: 0.2,
  max_tokens: 256,
};
const STREAM_PARAMS = { ...PARAMS, stream: true };
// The SDK (1.x) records OpenTelemetry spans of its own whenever a tracer provider is registered (three per call
// here); they are switched off in every variant, so that "unwrapped" runs nothing of OTel, as in the other benches.
const clientOptions = {
  apiKey: "sk-ant-bench",
  baseURL: `http://127.0.0.1:${server.port}`,
  maxRetries: 0,
  openTelemetry: false,
  fetch: benchFetch(),
};

let checksum = 0;

/** A non-streaming call; returns the message. */
async function nonStreaming(client) {
  const message = await client.messages.create(PARAMS);
  checksum += message.content[0].text.length;
  return message;
}

/** A streamed call read to the end; returns the message its events add up to (as the app reassembles it). */
async function streaming(client) {
  const stream = await client.messages.create(STREAM_PARAMS);
  let deltas = 0;
  let text = "";
  let message;
  for await (const event of stream) {
    if (event.type === "content_block_delta") {
      deltas++;
      text += event.delta.text;
    } else if (event.type === "message_start") message = event.message;
    else if (event.type === "message_delta") {
      message = { ...message, ...event.delta, usage: { ...message.usage, ...event.usage } };
    }
  }
  checksum += text.length;
  if (deltas !== STREAM_EVENTS) throw new Error(`stream: ${deltas} deltas seen, expected ${STREAM_EVENTS}`);
  return { ...message, content: [{ type: "text", text }] };
}

const unwrapped = new Anthropic(clientOptions);

const content = (params, run) => () =>
  contentSpan(
    "chat claude-haiku-4-5",
    {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": params.model,
      "gen_ai.request.temperature": params.temperature,
      "gen_ai.request.max_tokens": params.max_tokens,
      "server.address": "127.0.0.1",
      "server.port": server.port,
      "input.value": JSON.stringify(params),
    },
    () => run(unwrapped),
    (message) => ({
      "gen_ai.response.id": message.id,
      "gen_ai.response.model": message.model,
      "gen_ai.response.finish_reasons": [message.stop_reason],
      "gen_ai.usage.input_tokens": message.usage.input_tokens,
      "gen_ai.usage.output_tokens": message.usage.output_tokens,
      "gen_ai.usage.cache_read.input_tokens": message.usage.cache_read_input_tokens,
      "gen_ai.usage.cache_creation.input_tokens": message.usage.cache_creation_input_tokens,
      "output.value": JSON.stringify(message),
    }),
  );

await runWrapperBench({
  name: "`wrapAnthropic`",
  server,
  unwrapped,
  wrapped: wrapAnthropic(new Anthropic(clientOptions)),
  wrappedItems: { calls: 2 },
  paths: [
    {
      tag: "plain",
      title: "non-streaming `messages.create`",
      calls: settings.calls,
      run: nonStreaming,
      content: content(PARAMS, nonStreaming),
      contentSpans: 1,
    },
    {
      tag: "stream",
      title: `\`messages.create\` stream, ${STREAM_EVENTS} content deltas`,
      calls: settings.streamCalls,
      run: streaming,
      content: content(STREAM_PARAMS, streaming),
      contentSpans: 1,
    },
  ],
  labels: {
    unwrapped: "unwrapped `@anthropic-ai/sdk` client",
    content:
      "content span: the floor's span carrying the same data by hand (GenAI attributes, request and message as JSON)",
    wrapped: "**`wrapAnthropic(client)`, calls route to the sink**",
  },
  heading: "`wrapAnthropic()` overhead",
  intro: `The real \`@anthropic-ai/sdk\` package (${sdkVersion}), \`client.messages.create\`, against a loopback Messages API in a
child process: a non-streaming call, and \`stream: true\` read to the end with \`for await\` (Anthropic SSE:
\`message_start\`, \`content_block_start\`, ${STREAM_EVENTS} \`content_block_delta\` events, \`content_block_stop\`,
\`message_delta\`, \`message_stop\` — 55 events). Request: \`system\` and one user message (~330 characters),
\`temperature\`, \`max_tokens\`; answer ${STREAM_EVENTS} tokens (~300 characters). The content span carries the GenAI
request attributes and the request as JSON when it starts, response attributes, usage (cache tokens included) and
the message as JSON when it ends (for the stream, the message the app reassembles from the events); the wrapper's
calls go on the calls route. The SDK's own OpenTelemetry spans (on by default in 1.x whenever a tracer provider is
registered: three per call here) are switched off (\`openTelemetry: false\`) in every variant.`,
  footer: ({ served }) =>
    `Server: ${served.requests.toLocaleString("en-US")} requests, ${served.streams.toLocaleString("en-US")} streamed.${checksum === -1 ? " " : ""}`,
});
