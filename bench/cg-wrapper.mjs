/**
 * Instruction-count harness for the wrappers (not part of `npm run bench`): N calls of the real `openai` client whose
 * `fetch` answers from memory (the bytes bench/openai-server.mjs sent for the first request of each kind — the
 * bench's harness, not a stand-in for tracewire), through one variant, each call's records flushed to the loopback
 * sink (a child process, not counted). Run under `valgrind --tool=callgrind` with two values of N and take the
 * difference per call: start-up, imports and JIT warm-up cancel out, and the count does not move with the machine's
 * load.
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null node bench/cg-wrapper.mjs [--dist=<dist>] \
 *     --variant=unwrapped|context|floor|content|wrapped --path=plain|stream --calls=N [--api=chat|responses]
 *     [--sdk=openai|anthropic] [--init='<JSON>' (extra init() options, e.g. {"captureContent":false})]
 *
 * `--sdk=anthropic`: the same for `@anthropic-ai/sdk`'s `messages.create` against bench/anthropic-server.mjs's bytes
 * (the request and the app's stream loop of bench/anthropic-overhead.mjs; the SDK's own OTel spans off).
 *
 * `--time` (without valgrind): CPU time instead, for A/B runs of two builds (`--dist`) one process after the other.
 * After 200 warm-up calls, N calls in blocks of 152, each block flushed to the sink (as the wrapper benches do, so the
 * queues and arenas behave as there); prints process CPU and main-thread CPU per call (`process.threadCpuUsage`,
 * Node ≥ 23.9; the difference is mostly V8's GC threads). `--alloc`: KB allocated per call by allocating function,
 * garbage included (V8's sampling heap profiler). Taking the wrapper apart: `--filter-none` (a `filter` that
 * keeps no span: no records, no export), `--usage` (the unwrapped/content stream asks for the usage chunk too, as the
 * wrapper does), and `--trace-gc-nvp` on node for each GC's `promoted=` bytes and pause.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { context, SpanKind, trace } from "@opentelemetry/api";
import OpenAI from "openai";
import { CHAT_MESSAGES } from "./chat-request.mjs";
import { arg, memoryFetch, sinkOptions, startServer, startSink } from "./lib.mjs";

const dist = arg("dist");
const load = (entry) =>
  dist
    ? import(pathToFileURL(resolve(dist, `${entry}.js`)).href)
    : import(`tracewire${entry === "index" ? "" : `/${entry}`}`);
const { init } = await load("index");
const sdk = arg("sdk", "openai");
const { wrapOpenAI } = await load("openai");
const { wrapAnthropic } = await load("anthropic");
const N = Number(arg("calls", "100"));
const variant = arg("variant", "wrapped");
const path = arg("path", "plain");
const api = arg("api", "chat");

const server = await startServer(sdk === "anthropic" ? "./anthropic-server.mjs" : "./openai-server.mjs");
const sink = await startSink();
const fetchFromMemory = memoryFetch();
const options =
  sdk === "anthropic"
    ? {
        apiKey: "sk-ant-bench",
        baseURL: `http://127.0.0.1:${server.port}`,
        maxRetries: 0,
        openTelemetry: false,
        fetch: fetchFromMemory,
      }
    : { apiKey: "sk-bench", baseURL: `http://127.0.0.1:${server.port}/v1`, maxRetries: 0, fetch: fetchFromMemory };
const handle = init({
  ...sinkOptions(sink, "/cg", 8 * N),
  ...JSON.parse(arg("init", "{}")),
  ...(process.argv.includes("--filter-none") ? { filter: () => false } : {}),
});
if (variant === "unwrapped") context.disable();
const make = () => (sdk === "anthropic" ? new Anthropic(options) : new OpenAI(options));
const client = variant !== "wrapped" ? make() : sdk === "anthropic" ? wrapAnthropic(make()) : wrapOpenAI(make());
const tracer = trace.getTracer("bench-app", "1.0.0");
const MESSAGES = CHAT_MESSAGES;
const params =
  sdk === "anthropic"
    ? {
        model: "claude-haiku-4-5",
        system: MESSAGES[0].content,
        messages: [MESSAGES[1]],
        temperature: 0.2,
        max_tokens: 256,
        ...(path === "stream" ? { stream: true } : {}),
      }
    : api === "chat"
      ? {
          model: "gpt-4o-mini",
          messages: MESSAGES,
          temperature: 0.2,
          max_tokens: 256,
          ...(path === "stream" ? { stream: true } : {}),
          ...(path === "stream" && process.argv.includes("--usage") ? { stream_options: { include_usage: true } } : {}),
        }
      : {
          model: "gpt-4o-mini",
          instructions: MESSAGES[0].content,
          input: MESSAGES[1].content,
          temperature: 0.2,
          max_output_tokens: 256,
          ...(path === "stream" ? { stream: true } : {}),
        };
const create = (c) =>
  sdk === "anthropic"
    ? c.messages.create(params)
    : api === "chat"
      ? c.chat.completions.create(params)
      : c.responses.create(params);

async function one() {
  if (path === "plain") return create(client);
  const stream = await create(client);
  let text = "";
  let last;
  if (sdk === "anthropic") {
    let message;
    for await (const event of stream) {
      if (event.type === "content_block_delta") text += event.delta.text;
      else if (event.type === "message_start") message = event.message;
      else if (event.type === "message_delta")
        message = { ...message, ...event.delta, usage: { ...message.usage, ...event.usage } };
    }
    return { ...message, content: [{ type: "text", text }] };
  }
  for await (const chunk of stream) {
    last = chunk;
    const piece = api === "chat" ? chunk.choices[0]?.delta?.content : chunk.delta;
    if (typeof piece === "string") text += piece;
  }
  return { id: last.id ?? last.response?.id, text };
}
const run =
  variant === "floor" || variant === "content"
    ? () =>
        tracer.startActiveSpan(
          "chat gpt-4o-mini",
          {
            kind: SpanKind.CLIENT,
            attributes:
              variant === "content"
                ? {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "gpt-4o-mini",
                    "input.value": JSON.stringify(params),
                  }
                : {},
          },
          async (span) => {
            try {
              const answer = await one();
              if (variant === "content")
                span.setAttributes({ "gen_ai.response.id": String(answer.id), "output.value": JSON.stringify(answer) });
            } finally {
              span.end();
            }
          },
        )
    : variant === "context"
      ? () => context.with(context.active(), one)
      : one;
if (variant !== "unwrapped") context.with(context.active(), () => {});
if (process.argv.includes("--time")) {
  const BLOCK = 152;
  for (let i = 0; i < 200; i += 4) await Promise.all([run(), run(), run(), run()]);
  await handle.flush();
  globalThis.gc?.();
  const thread = () => process.threadCpuUsage?.() ?? { user: Number.NaN, system: 0 };
  const c0 = process.cpuUsage();
  const t0 = thread();
  for (let b = 0; b < N; b += BLOCK) {
    for (let i = 0; i < BLOCK; i += 4) await Promise.all([run(), run(), run(), run()]);
    await handle.flush();
  }
  const c1 = process.cpuUsage(c0);
  const t1 = thread();
  const calls = Math.ceil(N / BLOCK) * BLOCK;
  const perCall = (d) => (d / calls).toFixed(1);
  console.log(
    `${variant} ${path}: process ${perCall(c1.user + c1.system)} µs/call, main thread ${perCall(t1.user + t1.system - t0.user - t0.system)} µs/call`,
  );
} else if (process.argv.includes("--alloc")) {
  // Where the bytes are allocated, garbage included: V8's sampling heap profiler keeping the samples of objects the
  // GC collected too. Prints KB per call by allocating function (self), after 200 warm-up calls.
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  for (let i = 0; i < 200; i += 4) await Promise.all([run(), run(), run(), run()]);
  await handle.flush();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < N; i += 4) await Promise.all([run(), run(), run(), run()]);
  await handle.flush();
  const { profile } = await session.post("HeapProfiler.stopSampling");
  const bytes = new Map();
  let total = 0;
  const walk = (node) => {
    const f = node.callFrame;
    const key = `${f.functionName || "(anon)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  console.log(`${variant} ${path}: ${(total / N / 1024).toFixed(1)} KB allocated per call`);
  for (const [key, b] of [...bytes].sort((x, y) => y[1] - x[1]).slice(0, Number(arg("top", "30"))))
    console.log(`${(b / N / 1024).toFixed(2).padStart(8)} KB  ${key}`);
} else {
  for (let i = 0; i < N; i += 4) await Promise.all([run(), run(), run(), run()]);
}
await handle.flush();
await handle.shutdown();
await Promise.all([server.stop(), sink.stop()]);
