/**
 * The peer-style comparison, in one process: what a call of the real `openai` client (v6) against the loopback chat
 * server (bench/openai-server.mjs, a child process, no delay) costs in CPU with each way of tracing it that a peer
 * benchmark compares — against the same client unwrapped:
 *
 *   - `unwrapped`   the plain client, no context manager registered (nothing of OTel or tracewire on its path);
 *   - `unwrapped'`  the same again, as its own variant: its paired difference to `unwrapped` is the A/A row, the
 *                   noise of this harness on this machine;
 *   - `otel-span`   a bare OpenTelemetry span around each call — `startActiveSpan` of a `BasicTracerProvider` with
 *                   OTel's `BatchSpanProcessor` and `OTLPTraceExporter` (OTLP/HTTP JSON, its default) to the sink,
 *                   and the AsyncLocalStorage context manager: the least any OTel-based tracer of a call does (the
 *                   baseline peers such as OpenLLMetry, OpenInference and Langfuse build on, with no content);
 *   - `tw-calls`    `wrapOpenAI(client)` under `init()`, its calls on the calls route (start + end records with the
 *                   request and the answer as JSON, usage, GenAI attributes);
 *   - `tw-otlp`     the same wrapper, the call sent as one OTLP span instead (protobuf + gzip): the portable route.
 *
 * Both tracewire routes run under one `init()` whose `route` hook follows the block being measured. Each path runs on
 * two transports: the loopback network, and the same answers from memory (see TRANSPORTS). Every block is
 * `settle()` (a full GC, then a wait until the GC's helper threads are idle), N calls (4 in flight), then a flush until
 * the sink has acknowledged every item of the block; its CPU is `process.cpuUsage()` of this process over that, per
 * call. Variants run in a balanced order (`blockOrder`: every variant follows every other equally often) after a
 * warm-up round. Overhead = CPU(variant) − CPU(unwrapped) of the same round (paired), median over rounds, with a 90%
 * bootstrap interval over rounds. Target: tracewire's overhead ≤ the bare span's on both paths (non-streaming, and a
 * 50-chunk stream read to the end), judged on the median of the paired per-round differences tracewire − span.
 *
 * Run: node --expose-gc bench/peer-overhead.mjs [--rounds=30] [--calls=200] [--stream-calls=100] [--mem-calls=300]
 *        [--mem-stream-calls=150] [--in-flight=4]
 */
import { context, SpanKind } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import OpenAI from "openai";
import { init } from "tracewire";
import { wrapOpenAI } from "tracewire/openai";
import { CHAT_PARAMS } from "./chat-request.mjs";
import {
  arg,
  blockOrder,
  countingLogger,
  fmt,
  median,
  medianInterval,
  memoryFetch,
  report,
  settle,
  sinkOptions,
  startServer,
  startSink,
  table,
} from "./lib.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");

const ROUNDS = Number(arg("rounds", "30"));
const CALLS = Number(arg("calls", "200"));
const STREAM_CALLS = Number(arg("stream-calls", "100"));
const MEM_CALLS = Number(arg("mem-calls", "300"));
const MEM_STREAM_CALLS = Number(arg("mem-stream-calls", "150"));
const IN_FLIGHT = Number(arg("in-flight", "4"));
const WARMUP = 1;
/**
 * `--main-thread` (Node ≥ 23.9): CPU of the main thread only (`process.threadCpuUsage()`), in memory only. It leaves
 * out V8's GC helper threads and the threadpool (the OTLP route's gzip), and their noise: what the app's own thread
 * pays per call, the latency side of the cost. `npm run bench` runs it once more on Node 24.
 */
const MAIN_THREAD = process.argv.includes("--main-thread");
if (MAIN_THREAD && typeof process.threadCpuUsage !== "function") {
  report({
    title: "Peer-style comparison, main thread",
    markdown: `### Peer-style comparison, main thread\n\nSkipped: \`process.threadCpuUsage()\` needs Node ≥ 23.9; this is Node ${process.version}.`,
    checks: [],
  });
  process.exit(0);
}
/** CPU µs since `start` (a value of the same clock): the process's, or with `--main-thread` this thread's. */
const clock = MAIN_THREAD ? () => process.threadCpuUsage() : () => process.cpuUsage();
const elapsedCpu = (start) => {
  const d = MAIN_THREAD ? process.threadCpuUsage(start) : process.cpuUsage(start);
  return d.user + d.system;
};
const MEASURE = MAIN_THREAD ? `main-thread CPU (Node ${process.versions.node})` : "CPU";
const STREAM_EVENTS = 50;

const chat = await startServer("./openai-server.mjs");
const sink = await startSink();
const logger = countingLogger();

// tracewire: one init() for the run; the route of each wrapped call follows the block being measured.
let twRoute = "calls";
const handle = init({
  ...sinkOptions(sink, "/tw", 8 * Math.max(CALLS, STREAM_CALLS, MEM_CALLS, MEM_STREAM_CALLS)),
  logger,
  route: () => twRoute,
});
if (!handle.enabled) throw new Error("init() did not enable tracing");

// The bare OTel span: its own provider, OTel's batch processor and OTLP/HTTP JSON exporter, counting what it sent.
let otelExported = 0;
const otlpExporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${sink.port}/otel/v1/traces` });
const otelProcessor = new BatchSpanProcessor(
  {
    export(spans, done) {
      otlpExporter.export(spans, (result) => {
        if (result.code === 0) otelExported += spans.length;
        done(result);
      });
    },
    forceFlush: () => otlpExporter.forceFlush(),
    shutdown: () => otlpExporter.shutdown(),
  },
  { maxQueueSize: 8 * Math.max(CALLS, STREAM_CALLS, MEM_CALLS, MEM_STREAM_CALLS) + 2048, maxExportBatchSize: 512 },
);
const otelTracer = new BasicTracerProvider({ spanProcessors: [otelProcessor] }).getTracer("peer-bench", "1.0.0");

/**
 * Two transports, each with its own pair of clients (unwrapped, wrapped): the loopback network, as a peer benchmark
 * runs it, and answers from memory (the same bytes, read and parsed by the client; see `memoryFetch`), where the
 * sockets' CPU and the model server's scheduling (most of a network block's noise here) drop out. Tracing costs the
 * same on both; only the in-memory rows can resolve 50 µs per call on this machine.
 */
const clientOptions = { apiKey: "sk-bench", baseURL: `http://127.0.0.1:${chat.port}/v1`, maxRetries: 0 };
const TRANSPORTS = [
  { tag: "", title: "loopback", plain: new OpenAI(clientOptions), wrapped: wrapOpenAI(new OpenAI(clientOptions)) },
  (() => {
    const options = { ...clientOptions, fetch: memoryFetch() };
    return { tag: "-mem", title: "in memory", plain: new OpenAI(options), wrapped: wrapOpenAI(new OpenAI(options)) };
  })(),
];

const PARAMS = CHAT_PARAMS;
const STREAM_PARAMS = { ...PARAMS, stream: true };

let checksum = 0;
const SHAPES = [
  {
    tag: "plain",
    title: "non-streaming call",
    calls: { "": CALLS, "-mem": MEM_CALLS },
    run: async (client) => {
      const completion = await client.chat.completions.create(PARAMS);
      checksum += completion.choices[0].message.content.length;
    },
  },
  {
    tag: "stream",
    title: `${STREAM_EVENTS}-chunk stream read to the end`,
    calls: { "": STREAM_CALLS, "-mem": MEM_STREAM_CALLS },
    run: async (client) => {
      const stream = await client.chat.completions.create(STREAM_PARAMS);
      let chunks = 0;
      for await (const chunk of stream) {
        chunks++;
        checksum += chunk.choices[0]?.delta?.content?.length ?? 0;
      }
      if (chunks !== STREAM_EVENTS + 1) throw new Error(`stream: ${chunks} chunks, expected ${STREAM_EVENTS + 1}`);
    },
  },
];
const PATHS = TRANSPORTS.filter((t) => !MAIN_THREAD || t.tag === "-mem").flatMap((t) =>
  SHAPES.map((shape) => ({
    ...shape,
    tag: `${shape.tag}${t.tag}`,
    title: `${shape.title}, ${t.title}`,
    calls: shape.calls[t.tag],
    clients: t,
  })),
);

function contextOn() {
  context.disable();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  context.with(context.active(), () => {});
}

const twSent = () => {
  const s = handle.stats();
  return s.calls.sent + s.otlp.sent;
};
const VARIANTS = {
  unwrapped: { before: () => context.disable(), call: (path) => () => path.run(path.clients.plain), sent: null },
  "unwrapped'": { before: () => context.disable(), call: (path) => () => path.run(path.clients.plain), sent: null },
  "otel-span": {
    before: contextOn,
    call: (path) => () =>
      otelTracer.startActiveSpan("chat gpt-4o-mini", { kind: SpanKind.CLIENT }, async (span) => {
        try {
          await path.run(path.clients.plain);
        } finally {
          span.end();
        }
      }),
    flush: () => otelProcessor.forceFlush(),
    sent: () => otelExported,
    items: 1,
  },
  "tw-calls": {
    before: () => {
      contextOn();
      twRoute = "calls";
    },
    call: (path) => () => path.run(path.clients.wrapped),
    flush: () => handle.flush(),
    sent: twSent,
    items: 2,
  },
  "tw-otlp": {
    before: () => {
      contextOn();
      twRoute = "otlp";
    },
    call: (path) => () => path.run(path.clients.wrapped),
    flush: () => handle.flush(),
    sent: twSent,
    items: 1,
  },
};
const TAGS = Object.keys(VARIANTS);

async function calls(n, one) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** One block: CPU µs per call, until the sink acknowledged every item of the block. */
async function block(path, tag) {
  const v = VARIANTS[tag];
  const one = v.call(path);
  v.before();
  const before = v.sent?.() ?? 0;
  await settle();
  const cpu0 = clock();
  await calls(path.calls, one);
  if (v.flush) await v.flush();
  const cpu = elapsedCpu(cpu0);
  if (v.sent && v.sent() - before !== v.items * path.calls)
    throw new Error(`${path.tag}/${tag}: ${v.sent() - before} items acknowledged, expected ${v.items * path.calls}`);
  return cpu / path.calls;
}

const samples = new Map(PATHS.map((p) => [p.tag, new Map(TAGS.map((t) => [t, []]))]));
const started = performance.now();
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  const line = [];
  for (const path of PATHS) {
    for (let k = 0; k < TAGS.length; k++) {
      const tag = TAGS[blockOrder(TAGS.length, round)[k]];
      const perCall = await block(path, tag);
      if (round >= WARMUP) samples.get(path.tag).get(tag).push(perCall);
      line.push(`${path.tag}/${tag} ${perCall.toFixed(0)}`);
    }
  }
  console.error(`round ${round < WARMUP ? "warm-up" : round - WARMUP + 1} (µs/call): ${line.join(", ")}`);
}
const elapsed = (performance.now() - started) / 1000;
const { internalErrors } = handle.stats();
await handle.shutdown();
await otelProcessor.shutdown();
const served = await chat.stats();
await Promise.all([chat.stop(), sink.stop()]);
if (internalErrors > 0) throw new Error(`${internalErrors} internal errors`);

const LABELS = {
  unwrapped: "unwrapped `openai` client",
  "unwrapped'": "unwrapped again (A/A: the harness's noise)",
  "otel-span": "bare OTel span: `startActiveSpan` + `BatchSpanProcessor` + `OTLPTraceExporter` (JSON)",
  "tw-calls": "**`wrapOpenAI`, calls route** (start + end records with content)",
  "tw-otlp": "**`wrapOpenAI`, OTLP route** (one span with content, protobuf + gzip)",
};

const sections = [];
const checks = [];
for (const path of PATHS) {
  const s = samples.get(path.tag);
  const diff = (tag, base) => s.get(tag).map((x, i) => x - s.get(base)[i]);
  const rows = TAGS.map((tag) => {
    const over = tag === "unwrapped" ? undefined : diff(tag, "unwrapped");
    const [low, high] = over ? medianInterval(over) : [];
    return [
      LABELS[tag],
      fmt.num(median(s.get(tag)), 1),
      over ? `${fmt.num(median(over), 1)} (${fmt.num(low, 0)} … ${fmt.num(high, 0)})` : "—",
    ];
  });
  const aa = diff("unwrapped'", "unwrapped");
  const [aaLow, aaHigh] = medianInterval(aa);
  const resolution = Math.max(Math.abs(aaLow), Math.abs(aaHigh));
  const vsSpan = [];
  for (const tag of ["tw-calls", "tw-otlp"]) {
    const d = diff(tag, "otel-span");
    const [low, high] = medianInterval(d);
    vsSpan.push(
      `${LABELS[tag].replace(/\*\*/g, "")} − bare span: ${fmt.num(median(d), 1)} µs per call (90% interval ${fmt.num(low, 0)} … ${fmt.num(high, 0)})`,
    );
    checks.push({
      name: `peer-style: \`wrapOpenAI\` (${tag === "tw-calls" ? "calls route" : "OTLP route"}) overhead ≤ a bare OTel span with a batch processor (${path.title}${MAIN_THREAD ? `, ${MEASURE}` : ""})`,
      pass: median(d) <= 0,
      detail: `tracewire − span ${fmt.num(median(d), 1)} µs per call (90% interval ${fmt.num(low, 0)} … ${fmt.num(high, 0)}; A/A noise interval ${fmt.num(aaLow, 0)} … ${fmt.num(aaHigh, 0)} µs): tracewire +${fmt.num(median(diff(tag, "unwrapped")), 1)} µs, bare span +${fmt.num(median(diff("otel-span", "unwrapped")), 1)} µs over the unwrapped call (${fmt.num(median(s.get("unwrapped")), 1)} µs)`,
    });
  }
  checks.push({
    name: `peer-style harness resolves 50 µs per call (${path.title}${MAIN_THREAD ? `, ${MEASURE}` : ""}: A/A interval within ±50 µs)`,
    pass: resolution <= 50,
    detail: `A/A median ${fmt.num(median(aa), 1)} µs, 90% interval ${fmt.num(aaLow, 1)} … ${fmt.num(aaHigh, 1)} µs`,
  });
  sections.push(`**${path.title}** (${fmt.int(path.calls)} calls per block)

${table(["variant", `${MEASURE} µs/call (median)`, "overhead µs/call over unwrapped (90% interval)"], rows)}

${vsSpan.map((line) => `- ${line}`).join("\n")}
- A/A (the same unwrapped client measured as two variants): ${fmt.num(median(aa), 1)} µs (90% interval ${fmt.num(aaLow, 1)} … ${fmt.num(aaHigh, 1)}).`);
}

const markdown = MAIN_THREAD
  ? `### Peer-style comparison, main thread on Node ${process.versions.node}: \`wrapOpenAI\` against a bare OTel span

The in-memory paths of the comparison above, run again on Node ${process.versions.node} and measured in the main
thread's CPU (\`process.threadCpuUsage()\`): what the app's own thread pays per call. V8's GC helper threads and the
threadpool (where the OTLP route compresses) are left out, and so is their noise. ${ROUNDS} rounds after ${WARMUP}
warm-up, the same balanced order, settling and pairing.

${sections.join("\n\n")}

Internal warnings logged: ${logger.count}. Bench wall time ${elapsed.toFixed(1)} s.`
  : `### Peer-style comparison: \`wrapOpenAI\` against a bare OTel span

What a peer benchmark compares, measured in one process with interleaved variants: the real \`openai\` package (v6)
against the loopback chat server (no delay), and the same client answered from memory (the server's bytes, read and
parsed by the client as from the network; the sockets' CPU and the server's scheduling, most of a network block's noise
on this shared machine, drop out) — unwrapped; with a bare OpenTelemetry span around each call
(\`BasicTracerProvider\`, OTel's \`BatchSpanProcessor\` and OTLP/HTTP JSON exporter, the AsyncLocalStorage context
manager: the least an OTel-based tracer does, with no content); and \`wrapOpenAI\` under \`init()\` on each of
tracewire's routes (both record the request and the answer, usage and the GenAI attributes). An A/A row (the unwrapped
client measured twice, as two variants) gives this harness's noise. ${ROUNDS} rounds after ${WARMUP} warm-up, variants
in a balanced order (each follows each other equally often), ${IN_FLIGHT} calls in flight; before each block a full GC
and a wait until the GC's helper threads are idle (otherwise a block pays for its predecessor's garbage); CPU =
\`process.cpuUsage()\` of this process from the first call of a block until the sink has acknowledged every item of it; overheads are medians of per-round differences to the
unwrapped block of the same round, intervals 90% bootstrap over rounds. Target: tracewire's overhead at or below the
bare span's (median of the paired per-round differences ≤ 0).

${sections.join("\n\n")}

Chat server: ${fmt.int(served.requests)} requests, ${fmt.int(served.streams)} streamed. Internal warnings logged: ${logger.count}. Bench wall time ${elapsed.toFixed(1)} s.${checksum < 0 ? "" : ""}`;

report({ title: "Peer-style comparison", markdown, checks });
