/**
 * Async resources (promises, microtasks, timers) created per call, counted with an `async_hooks` init hook: a count,
 * not a time, so it does not move with the machine's load. Every promise costs CPU and, on Node 20 (where
 * AsyncLocalStorage runs on promise hooks), a hook call of its own; this shows how many the wrapper adds over the
 * unwrapped call and over a hand-made span carrying the same data. Chat completions of the real `openai` package,
 * answered from memory (the bytes bench/openai-server.mjs sent), recorded to the loopback sink. Not part of
 * `npm run bench`.
 *
 * Run: node bench/async-count.mjs [--calls=200]
 */
import { createHook } from "node:async_hooks";
import { SpanKind, trace } from "@opentelemetry/api";
import OpenAI from "openai";
import { init } from "tracewire";
import { wrapOpenAI } from "tracewire/openai";
import { CHAT_MESSAGES } from "./chat-request.mjs";
import { arg, memoryFetch, sinkOptions, startServer, startSink, table } from "./lib.mjs";

const N = Number(arg("calls", "200"));
const server = await startServer("./openai-server.mjs");
const sink = await startSink();
const handle = init(sinkOptions(sink, "/count", 4 * N));
const options = {
  apiKey: "sk-bench",
  baseURL: `http://127.0.0.1:${server.port}/v1`,
  maxRetries: 0,
  fetch: memoryFetch(),
};
const unwrapped = new OpenAI(options);
const wrapped = wrapOpenAI(new OpenAI(options));
const tracer = trace.getTracer("bench");

const PLAIN = { model: "gpt-4o-mini", messages: CHAT_MESSAGES, temperature: 0.2, max_tokens: 256 };
// The content span asks for the usage chunk itself, as the wrapper does (and hides it).
const STREAM = { ...PLAIN, stream: true, stream_options: { include_usage: true } };
const WRAPPED_STREAM = { ...PLAIN, stream: true };

async function read(client, params) {
  const answer = await client.chat.completions.create(params);
  if (!params.stream) return answer.choices[0].message.content;
  let text = "";
  for await (const chunk of answer) text += chunk.choices[0]?.delta?.content ?? "";
  return text;
}

const content = (params) =>
  tracer.startActiveSpan(
    "chat gpt-4o-mini",
    {
      kind: SpanKind.CLIENT,
      attributes: { "gen_ai.request.model": params.model, "input.value": JSON.stringify(params) },
    },
    async (span) => {
      try {
        const text = await read(unwrapped, params);
        span.setAttribute("output.value", JSON.stringify({ text }));
        return text;
      } finally {
        span.end();
      }
    },
  );

const VARIANTS = [
  ["non-streaming", "unwrapped", () => read(unwrapped, PLAIN)],
  ["non-streaming", "content span", () => content(PLAIN)],
  ["non-streaming", "`wrapOpenAI`", () => read(wrapped, PLAIN)],
  ["stream (50 chunks)", "unwrapped", () => read(unwrapped, STREAM)],
  ["stream (50 chunks)", "content span", () => content(STREAM)],
  ["stream (50 chunks)", "`wrapOpenAI`", () => read(wrapped, WRAPPED_STREAM)],
];

let counting = false;
const counts = new Map();
createHook({
  init(_id, type) {
    if (counting) counts.set(type, (counts.get(type) ?? 0) + 1);
  },
}).enable();

const rows = [];
for (const [path, name, run] of VARIANTS) {
  for (let i = 0; i < 20; i++) await run(); // warm-up: the memory fetch caches its answers, lazy loads happen
  await handle.flush();
  counts.clear();
  counting = true;
  for (let i = 0; i < N; i++) await run();
  counting = false;
  const per = (type) => ((counts.get(type) ?? 0) / N).toFixed(1);
  const other = [...counts].filter(([t]) => t !== "PROMISE").map(([t, c]) => `${t} ${(c / N).toFixed(1)}`);
  rows.push([path, name, per("PROMISE"), other.join(", ") || "—"]);
}
await handle.shutdown();
await Promise.all([server.stop(), sink.stop()]);
console.log(`Async resources created per call (${N} calls each, sequential, Node ${process.versions.node}):\n`);
console.log(table(["path", "variant", "promises", "other"], rows));
