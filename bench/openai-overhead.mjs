/**
 * `wrapOpenAI()` overhead on chat completions: CPU per call of the real `openai` package (v6) against a loopback
 * OpenAI-compatible server (bench/openai-server.mjs, a child process), on two paths — a non-streaming call, and a
 * stream of 50 content chunks read to the end with `for await` — in the five variants of bench/wrapper-harness.mjs
 * (unwrapped, context manager only, bare-span floor, content-carrying span, wrapped). The wrapped client's calls go
 * on the calls route (start + end items, request and completion as JSON, usage; a stream's chunks are reassembled,
 * and `stream_options.include_usage` is added and its chunk hidden — the defaults). The content span carries the
 * GenAI request attributes and the request as JSON at the start, the response attributes, usage and the answer as
 * JSON at the end (for a stream, it asks for the usage chunk itself, as the wrapper does).
 *
 * Run: node --expose-gc bench/openai-overhead.mjs [flags of bench/wrapper-harness.mjs]
 */
import { createRequire } from "node:module";
import OpenAI from "openai";
import { wrapOpenAI } from "tracewire/openai";
import { CHAT_PARAMS } from "./chat-request.mjs";
import { startServer } from "./lib.mjs";
import { benchFetch, contentSpan, runWrapperBench, STREAM_EVENTS, settings } from "./wrapper-harness.mjs";

/** The `undici` package's version (tracewire's own HTTP client), for the note on who sends what. */
const undiciVersion = createRequire(import.meta.url)("undici/package.json").version;

const chat = await startServer("./openai-server.mjs");

const PARAMS = CHAT_PARAMS;
const STREAM_PARAMS = { ...PARAMS, stream: true };
/**
 * The content span's stream asks for the usage itself, as the wrapper does: the span carries the usage the wrapper
 * records, so the app pays what the wrapper pays for it (the server's `"usage": null` on every chunk and one more
 * chunk to parse).
 */
const STREAM_PARAMS_WITH_USAGE = { ...STREAM_PARAMS, stream_options: { include_usage: true } };

const clientOptions = {
  apiKey: "sk-bench",
  baseURL: `http://127.0.0.1:${chat.port}/v1`,
  maxRetries: 0,
  fetch: benchFetch(),
};

/** Characters of text the app read, summed over every call. */
let checksum = 0;

/** A non-streaming call; returns the completion. */
async function nonStreaming(client) {
  const completion = await client.chat.completions.create(PARAMS);
  checksum += completion.choices[0].message.content.length;
  return completion;
}

/**
 * A streamed call read to the end; returns what the app saw (id, model, text, finish reason, and the usage when
 * `params` asks for it).
 */
async function streaming(client, params = STREAM_PARAMS) {
  const stream = await client.chat.completions.create(params);
  let chunks = 0;
  let text = "";
  let last;
  let usage;
  for await (const chunk of stream) {
    chunks++;
    if (chunk.usage) usage = chunk.usage;
    if (chunk.choices.length === 0) continue;
    last = chunk;
    const piece = chunk.choices[0].delta?.content;
    if (piece) text += piece;
  }
  checksum += text.length;
  // 50 content chunks + the finish chunk (+ the usage chunk when asked for); the wrapper hides the one it asked for.
  const expected = STREAM_EVENTS + (params.stream_options ? 2 : 1);
  if (chunks !== expected) throw new Error(`stream: ${chunks} chunks seen, expected ${expected}`);
  return {
    id: last.id,
    model: last.model,
    choices: [
      { index: 0, message: { role: "assistant", content: text }, finish_reason: last.choices[0].finish_reason },
    ],
    ...(usage ? { usage } : {}),
  };
}

const unwrapped = new OpenAI(clientOptions);

/** The call on the unwrapped client inside one span carrying the wrapper's data by hand. */
const content = (params, run) => () =>
  contentSpan(
    "chat gpt-4o-mini",
    {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": params.model,
      "gen_ai.request.temperature": params.temperature,
      "gen_ai.request.max_tokens": params.max_tokens,
      "server.address": "127.0.0.1",
      "server.port": chat.port,
      "input.value": JSON.stringify(params),
    },
    () => run(unwrapped),
    (answer) => {
      const attributes = {
        "gen_ai.response.id": answer.id,
        "gen_ai.response.model": answer.model,
        "gen_ai.response.finish_reasons": [answer.choices[0].finish_reason],
        "output.value": JSON.stringify(answer),
      };
      if (answer.usage) {
        attributes["gen_ai.usage.input_tokens"] = answer.usage.prompt_tokens;
        attributes["gen_ai.usage.output_tokens"] = answer.usage.completion_tokens;
      }
      return attributes;
    },
  );

await runWrapperBench({
  name: "`wrapOpenAI` (chat completions)",
  server: chat,
  unwrapped,
  wrapped: wrapOpenAI(new OpenAI(clientOptions)),
  wrappedItems: { calls: 2 },
  paths: [
    {
      tag: "plain",
      title: "non-streaming call",
      calls: settings.calls,
      run: nonStreaming,
      content: content(PARAMS, nonStreaming),
      contentSpans: 1,
    },
    {
      tag: "stream",
      title: `${STREAM_EVENTS}-chunk stream`,
      calls: settings.streamCalls,
      run: streaming,
      content: content(STREAM_PARAMS_WITH_USAGE, (client) => streaming(client, STREAM_PARAMS_WITH_USAGE)),
      contentSpans: 1,
    },
  ],
  labels: {
    unwrapped: "unwrapped `openai` client",
    content:
      "content span: the floor's span carrying the same data by hand (GenAI attributes, request and answer as JSON)",
    wrapped: "**`wrapOpenAI(client)`, calls route to the sink**",
  },
  heading: "`wrapOpenAI()` overhead: chat completions",
  intro: `The real \`openai\` package (v6) against a loopback OpenAI-compatible chat server in a child process: a non-streaming
call, and a stream of ${STREAM_EVENTS} content chunks + 1 finish chunk read to the end with \`for await\` (the server adds the usage
chunk only when \`stream_options.include_usage\` is asked for, as OpenAI does; the wrapper asks and hides it).
Request: a system and a user message (~330 characters), \`temperature\`, \`max_tokens\`; answer ${STREAM_EVENTS} tokens
(~300 characters). The content span carries the GenAI request attributes and the request as JSON when it starts,
response attributes, usage and the answer as JSON when it ends (its stream asks for the usage chunk itself, as the
wrapper does, so both parse the same bytes); the wrapper's calls go on the calls route.`,
  footer: ({
    served,
  }) => `Every variant runs in a process that imported tracewire, which leaves Node's global fetch dispatcher alone (its
transport deep-imports the \`undici\` package's \`Pool\` and request API rather than undici's index, which would
install its \`Agent\` as the global dispatcher; test/http/side-effects.test.ts checks this): the \`openai\` client's
\`fetch\` goes through Node's bundled undici ${process.versions.undici} in all variants, and tracewire's exports
to the sink through the \`undici\` package ${undiciVersion}.

Chat server: ${served.requests.toLocaleString("en-US")} requests, ${served.streams.toLocaleString("en-US")} streamed, ${served.usageChunks.toLocaleString("en-US")} with the usage chunk.${checksum === -1 ? "" : ""}`,
});
