/**
 * `wrapOpenAI()` overhead: CPU per chat call of the real `openai` package (v6) against a loopback OpenAI-compatible
 * server (bench/openai-server.mjs, a child process), on two paths — a non-streaming call, and a stream of 50 content
 * chunks read to the end with `for await` — in four ways:
 *
 *   - `unwrapped`  a plain `new OpenAI()` client; no context manager registered (nothing of OTel or tracewire runs
 *                  on its path);
 *   - `context`    the same, with the AsyncLocalStorage context manager `init()` registers, switched on by one
 *                  `context.with()` (from then on Node tracks every promise): not a target, it splits the floor below
 *                  into "context manager" and "span + export";
 *   - `floor`      the bare-span floor: the unwrapped client, each call inside one `tracer.startActiveSpan()` of a
 *                  plain app tracer (no attributes) ended after the call (for a stream: after its last chunk). The
 *                  tracer is the provider `init()` registered, so the span goes through `TracewireSpanProcessor` on
 *                  the OTLP route (protobuf + gzip, the default) to the bench sink: what one bare span costs
 *                  *including* its export;
 *   - `content`    not a target, a reference: the floor's span carrying by hand the data the wrapper records (the
 *                  GenAI request attributes and the request as JSON at the start; the response attributes, usage and
 *                  the answer as JSON at the end), same route. What recording that content costs without wrapping;
 *   - `wrapped`    `wrapOpenAI(client)` under the same `init()`: one GenAI `chat` span per call on the calls route
 *                  (start + end items, request and completion as JSON, usage; a stream's chunks are reassembled, and
 *                  `stream_options.include_usage` is added and its chunk hidden — the defaults).
 *
 * One `init()` (pointed at the sink) serves the whole run, so every block exports over the same warm connection.
 * The context manager is registered before `context`, `floor`, `content` and `wrapped` blocks and removed (`context.disable()`,
 * which also switches AsyncLocalStorage's promise hooks off) before `unwrapped` ones, outside the measured part.
 * Each block: `gc()`, then N calls (4 in flight), then `flush()` until the sink has acknowledged every item; the
 * CPU is `process.cpuUsage()` of this process (all threads) over that, divided by N. The chat server and the sink
 * are separate processes, so their CPU is not counted.
 *
 * Overhead = CPU(wrapped) − CPU(unwrapped); floor overhead = CPU(floor) − CPU(unwrapped), each the median of
 * per-round differences between blocks of the same round; target: their ratio ≤ 1.0 on both paths. Blocks of a path
 * run side by side in an order rotated each round (interleaved A/B blocks), after a warm-up round. Blocks are short
 * and rounds many: on a shared machine, adjacent short blocks see the same load, long ones do not.
 *
 * Run: node --expose-gc bench/openai-overhead.mjs [--calls=150] [--stream-calls=75] [--rounds=21] [--in-flight=4]
 *      [--only=wrapped --path=stream]  (`--only`/`--path` for profiling one variant, e.g. with `node --cpu-prof`;
 *      prints medians only)
 */
import { createRequire } from "node:module";
import { context, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import OpenAI from "openai";
import { init } from "tracewire";
import { wrapOpenAI } from "tracewire/openai";
import { arg, countingLogger, cpuMicros, fmt, median, report, startServer, startSink, table } from "./lib.mjs";

/** The `undici` package's version (tracewire's own HTTP client), for the note on who sends what. */
const undiciVersion = createRequire(import.meta.url)("undici/package.json").version;

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");

/** Content chunks per stream: bench/openai-server.mjs sends this many (checked on every stream read). */
const CONTENT_CHUNKS = 50;
const ROUNDS = Number(arg("rounds", "21"));
const WARMUP = 1;
const IN_FLIGHT = Number(arg("in-flight", "4"));
const TARGET = 1.0;
const ONLY = arg("only")?.split(",");
const ONLY_PATH = arg("path");

const [chat, sink] = await Promise.all([startServer("./openai-server.mjs"), startSink()]);

// ---- the app's calls -----------------------------------------------------------------------------------------

const MESSAGES = [
  {
    role: "system",
    content:
      "You are the support assistant of a travel company. Answer in one short paragraph, in the customer's language, and never invent prices, dates or booking references.",
  },
  {
    role: "user",
    content:
      "Hi! I booked a train from Paris to Milan for next Friday and would like to take my bicycle with me. Is that possible, and do I need to reserve anything extra?",
  },
];
const PARAMS = { model: "gpt-4o-mini", messages: MESSAGES, temperature: 0.2, max_tokens: 256 };
const STREAM_PARAMS = { ...PARAMS, stream: true };

const clientOptions = { apiKey: "sk-bench", baseURL: `http://127.0.0.1:${chat.port}/v1`, maxRetries: 0 };
const unwrapped = new OpenAI(clientOptions);
const wrapped = wrapOpenAI(new OpenAI(clientOptions));

/** Characters of text the app read, summed over every call. */
let checksum = 0;

/** A non-streaming call; returns the completion. */
async function nonStreaming(client) {
  const completion = await client.chat.completions.create(PARAMS);
  checksum += completion.choices[0].message.content.length;
  return completion;
}

/** A streamed call read to the end; returns what the app saw (id, model, text, finish reason). */
async function streaming(client) {
  const stream = await client.chat.completions.create(STREAM_PARAMS);
  let chunks = 0;
  let text = "";
  let last;
  for await (const chunk of stream) {
    chunks++;
    last = chunk;
    const piece = chunk.choices[0]?.delta?.content;
    if (piece) text += piece;
  }
  checksum += text.length;
  // 50 content chunks + the finish chunk; the wrapper must hide the usage chunk it asked for.
  if (chunks !== CONTENT_CHUNKS + 1) throw new Error(`stream: ${chunks} chunks seen, expected ${CONTENT_CHUNKS + 1}`);
  return {
    id: last.id,
    model: last.model,
    choices: [
      { index: 0, message: { role: "assistant", content: text }, finish_reason: last.choices[0].finish_reason },
    ],
  };
}

/** Runs `n` calls of `one`, `IN_FLIGHT` at a time. */
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

const paths = [
  { tag: "plain", title: "non-streaming call", calls: Number(arg("calls", "150")), run: nonStreaming, params: PARAMS },
  {
    tag: "stream",
    title: `${CONTENT_CHUNKS}-chunk stream`,
    calls: Number(arg("stream-calls", "75")),
    run: streaming,
    params: STREAM_PARAMS,
  },
].filter((p) => !ONLY_PATH || p.tag === ONLY_PATH);
const maxCalls = Math.max(...paths.map((p) => p.calls));

// ---- tracing: one init() for the run ---------------------------------------------------------------------------

const logger = countingLogger();
const handle = init({
  baseUrl: `http://127.0.0.1:${sink.port}/oa`,
  project: "bench/bench",
  exitHooks: false,
  env: {},
  // Large enough that nothing is dropped (start + end item per wrapped call).
  maxQueueSize: 2 * maxCalls + 2048,
  logger,
});
if (!handle.enabled) throw new Error("init() did not enable tracing");
const appTracer = trace.getTracer("bench-app", "1.0.0");

/** Registers a fresh AsyncLocalStorage context manager (as `init()` does) and switches it on. */
function contextOn() {
  context.disable();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  context.with(context.active(), () => {});
}

/** Items the sink acknowledged so far, per route. */
const sent = () => {
  const s = handle.stats();
  return { calls: s.calls.sent, otlp: s.otlp.sent };
};

const variants = {
  unwrapped: { before: () => context.disable(), call: (path) => () => path.run(unwrapped), items: {} },
  context: { before: contextOn, call: (path) => () => path.run(unwrapped), items: {} },
  floor: {
    before: contextOn,
    call: (path) => () =>
      appTracer.startActiveSpan("chat gpt-4o-mini", { kind: SpanKind.CLIENT }, async (span) => {
        try {
          await path.run(unwrapped);
        } finally {
          span.end();
        }
      }),
    items: { otlp: 1 },
  },
  // Not a target: the floor's span carrying the data the wrapper records, set by hand (GenAI request attributes and
  // the request as JSON at the start; response attributes and the answer as JSON at the end). What recording that
  // content costs on its own, without any wrapping.
  content: {
    before: contextOn,
    call: (path) => () =>
      appTracer.startActiveSpan(
        "chat gpt-4o-mini",
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": path.params.model,
            "gen_ai.request.temperature": path.params.temperature,
            "gen_ai.request.max_tokens": path.params.max_tokens,
            "server.address": "127.0.0.1",
            "server.port": chat.port,
            "input.value": JSON.stringify(path.params),
          },
        },
        async (span) => {
          try {
            const answer = await path.run(unwrapped);
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
            span.setAttributes(attributes);
          } finally {
            span.end();
          }
        },
      ),
    items: { otlp: 1 },
  },
  wrapped: { before: contextOn, call: (path) => () => path.run(wrapped), items: { calls: 2 } },
};
const tags = Object.keys(variants).filter((t) => !ONLY || ONLY.includes(t));

/** Wire bytes per path and variant (sink counters read before and after each block, outside the measurement). */
const wire = new Map();

/** One block: CPU µs per call, from the first call until the sink has acknowledged every item of the block. */
async function block(path, tag) {
  const v = variants[tag];
  const one = v.call(path);
  v.before();
  const before = sent();
  const wireBefore = (await sink.stats()).oa ?? { wireBytes: 0, bodyBytes: 0 };
  globalThis.gc();
  const cpu0 = process.cpuUsage();
  await calls(path.calls, one);
  if (v.items.calls || v.items.otlp) await handle.flush();
  const cpu = cpuMicros(cpu0);
  const after = sent();
  for (const route of ["calls", "otlp"]) {
    const expected = (v.items[route] ?? 0) * path.calls;
    if (after[route] - before[route] !== expected)
      throw new Error(
        `${path.tag}/${tag}: ${after[route] - before[route]} ${route} items acknowledged, expected ${expected}`,
      );
  }
  const wireAfter = (await sink.stats()).oa ?? { wireBytes: 0, bodyBytes: 0 };
  const w = wire.get(`${path.tag}/${tag}`) ?? { calls: 0, wireBytes: 0, bodyBytes: 0 };
  w.calls += path.calls;
  w.wireBytes += wireAfter.wireBytes - wireBefore.wireBytes;
  w.bodyBytes += wireAfter.bodyBytes - wireBefore.bodyBytes;
  wire.set(`${path.tag}/${tag}`, w);
  return cpu / path.calls;
}

// ---- rounds --------------------------------------------------------------------------------------------------

const samples = new Map(paths.map((p) => [p.tag, new Map(tags.map((t) => [t, []]))]));
const started = performance.now();
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  const line = [];
  for (const path of paths) {
    for (let k = 0; k < tags.length; k++) {
      const tag = tags[(k + round) % tags.length];
      const perCall = await block(path, tag);
      if (round >= WARMUP) samples.get(path.tag).get(tag).push(perCall);
      line.push(`${path.tag}/${tag} ${perCall.toFixed(0)}`);
    }
  }
  console.error(`round ${round < WARMUP ? "warm-up" : round - WARMUP + 1} (µs/call): ${line.join(", ")}`);
}
const elapsed = (performance.now() - started) / 1000;
const { dropped } = handle.stats().calls;
const { internalErrors } = handle.stats();
await handle.shutdown();
const served = await chat.stats();
await Promise.all([chat.stop(), sink.stop()]);
if (dropped > 0 || internalErrors > 0) throw new Error(`${dropped} items dropped, ${internalErrors} internal errors`);
if (checksum === -1) console.log(checksum); // keep the results observable

// ---- aggregation ---------------------------------------------------------------------------------------------

const cpu = (path, tag) => median(samples.get(path).get(tag));
if (ONLY) {
  for (const path of paths)
    for (const tag of tags) console.log(`${path.tag}/${tag}: ${fmt.num(cpu(path.tag, tag), 1)} µs/call (median)`);
  process.exit(0);
}

/** Per-round differences `tag − base` (µs/call) between blocks of the same round. */
const diffs = (path, tag, base) => {
  const s = samples.get(path);
  return s.get(tag).map((x, i) => x - s.get(base)[i]);
};
/** Median over rounds of the paired ratio tag ÷ base. */
const paired = (path, tag, base) => {
  const s = samples.get(path);
  return median(s.get(tag).map((x, i) => x / s.get(base)[i]));
};

/** Deterministic PRNG (mulberry32), so that the interval below is the same for the same samples. */
function prng(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * 90% bootstrap interval of median(num) ÷ median(den), resampling whole rounds (num[i] and den[i] come from the
 * same round and stay paired).
 */
function bootstrapRatio(num, den, draws = 2000) {
  const random = prng(42);
  const ratios = [];
  for (let d = 0; d < draws; d++) {
    const a = [];
    const b = [];
    for (let i = 0; i < num.length; i++) {
      const j = Math.floor(random() * num.length);
      a.push(num[j]);
      b.push(den[j]);
    }
    ratios.push(median(a) / median(b));
  }
  ratios.sort((x, y) => x - y);
  return [ratios[Math.floor(0.05 * draws)], ratios[Math.floor(0.95 * draws)]];
}

const labels = {
  unwrapped: "unwrapped `openai` client",
  context: "unwrapped + AsyncLocalStorage context manager on (no span)",
  floor: "bare-span floor: unwrapped + one `startActiveSpan`/`end`, OTLP route to the sink",
  content: "reference: the floor's span carrying the same data by hand (GenAI attributes, request and answer as JSON)",
  wrapped: "**`wrapOpenAI(client)`, calls route to the sink**",
};
/** How the wrapper compares with the floor's span carrying the same data by hand (when that variant ran). */
function contentLine(p, wrappedOver, wrappedOverCtx) {
  if (!tags.includes("content")) return "";
  const over = median(diffs(p, "content", "unwrapped"));
  const overCtx = median(diffs(p, "content", "context"));
  return `; the same span carrying the same data by hand adds ${fmt.num(over, 1)} µs over the unwrapped client (${fmt.num(overCtx, 1)} µs over the context manager): the wrapper costs ${fmt.ratio(wrappedOver / over)} of that (${fmt.ratio(wrappedOverCtx / overCtx)} without the context manager's share)`;
}

const sections = [];
const checks = [];
for (const path of paths) {
  const p = path.tag;
  const floorOver = median(diffs(p, "floor", "unwrapped"));
  const wrappedOver = median(diffs(p, "wrapped", "unwrapped"));
  const ratio = wrappedOver / floorOver;
  const [low, high] = bootstrapRatio(diffs(p, "wrapped", "unwrapped"), diffs(p, "floor", "unwrapped"));
  // The same, with the context manager's share taken out of both (what the span itself adds, on each side).
  const floorOverCtx = median(diffs(p, "floor", "context"));
  const wrappedOverCtx = median(diffs(p, "wrapped", "context"));
  const wireOf = (tag) => {
    const w = wire.get(`${p}/${tag}`);
    return w && w.wireBytes > 0 ? `${fmt.int(w.wireBytes / w.calls)} (${fmt.int(w.bodyBytes / w.calls)})` : "—";
  };
  const rows = tags.map((tag) => [
    labels[tag],
    tag === "unwrapped" ? "1.00×" : fmt.ratio(paired(p, tag, "unwrapped")),
    fmt.num(cpu(p, tag), 1),
    tag === "unwrapped" ? "—" : fmt.num(median(diffs(p, tag, "unwrapped")), 1),
    tag === "floor"
      ? "1.00×"
      : tag === "wrapped"
        ? `**${fmt.ratio(ratio)}**`
        : tag === "content"
          ? fmt.ratio(median(diffs(p, tag, "unwrapped")) / floorOver)
          : "—",
    tag === "floor" || tag === "wrapped" || tag === "content" ? fmt.num(median(diffs(p, tag, "context")), 1) : "—",
    wireOf(tag),
  ]);
  sections.push(`**${path.title}** (${fmt.int(path.calls)} calls per block)

${table(
  [
    "variant",
    "CPU ÷ unwrapped",
    "CPU µs/call",
    "overhead µs/call (over unwrapped)",
    "overhead ÷ floor overhead",
    "µs/call over context manager only",
    "wire B/call (uncompressed)",
  ],
  rows,
)}

Wrapper overhead ÷ floor overhead: **${fmt.ratio(ratio)}** (90% bootstrap interval over rounds ${fmt.num(low)}–${fmt.num(high)}).
Without the context manager's share (which both pay): the wrapper adds ${fmt.num(wrappedOverCtx, 1)} µs, a bare span
with its export ${fmt.num(floorOverCtx, 1)} µs (${fmt.ratio(wrappedOverCtx / floorOverCtx)})${contentLine(p, wrappedOver, wrappedOverCtx)}.`);
  const borderline = low <= TARGET && high >= TARGET ? `; the interval spans ${fmt.num(TARGET, 1)}: borderline` : "";
  checks.push({
    name: `\`wrapOpenAI\` overhead ≤ ${fmt.num(TARGET, 1)}× the bare-span floor's (${path.title})`,
    pass: ratio <= TARGET,
    detail: `${fmt.ratio(ratio)} (90% interval ${fmt.num(low)}–${fmt.num(high)}${borderline}): the wrapper adds ${fmt.num(wrappedOver, 1)} µs of CPU per call, one bare span with its export ${fmt.num(floorOver, 1)} µs (unwrapped call ${fmt.num(cpu(p, "unwrapped"), 1)} µs)`,
  });
}

const markdown = `### \`wrapOpenAI()\` overhead

The real \`openai\` package (v6) against a loopback OpenAI-compatible chat server in a child process: a non-streaming
call, and a stream of ${CONTENT_CHUNKS} content chunks + 1 finish chunk read to the end with \`for await\` (the server adds the usage
chunk only when \`stream_options.include_usage\` is asked for, as OpenAI does; the wrapper asks and hides it).
Request: a system and a user message (~330 characters), \`temperature\`, \`max_tokens\`; answer ${CONTENT_CHUNKS} tokens
(~300 characters). Variants: the **unwrapped** client (no context manager registered); the same with the
**context manager** \`init()\` registers switched on (AsyncLocalStorage then tracks every promise; no span); the
**bare-span floor** — the unwrapped client with each call inside one \`tracer.startActiveSpan()\`/\`span.end()\` of a
plain app tracer, exported by \`TracewireSpanProcessor\` on the OTLP route (protobuf+gzip) to the bench sink, i.e.
what one bare span costs including its export; for reference (no target), the same span carrying **by hand the data
the wrapper records** (GenAI request attributes and the request as JSON when it starts, response attributes, usage and
the answer as JSON when it ends); and the **wrapped** client (\`wrapOpenAI\`; its spans go on the
calls route, request and completion as JSON). One \`init()\` for the run, pointed at the bench sink.
${ROUNDS} rounds of short interleaved blocks (variants in rotated order) after ${WARMUP} warm-up round,
${IN_FLIGHT} calls in flight. CPU = \`process.cpuUsage()\` of the calling process from the first call until the sink has
acknowledged every item of the block; the chat server and the sink are separate processes. Overheads are medians of
per-round differences from the unwrapped block of the same round; target: wrapper overhead ÷ floor overhead ≤
${fmt.num(TARGET, 1)}.

${sections.join("\n\n")}

Every variant runs in a process that imported tracewire, which leaves Node's global fetch dispatcher alone (its
transport deep-imports the \`undici\` package's \`Pool\` and request API rather than undici's index, which would
install its \`Agent\` as the global dispatcher; test/http/side-effects.test.ts checks this): the \`openai\` client's
\`fetch\` goes through Node's bundled undici ${process.versions.undici} in all four variants, and tracewire's exports
to the sink through the \`undici\` package ${undiciVersion}.

Chat server: ${fmt.int(served.requests)} requests, ${fmt.int(served.streams)} streamed, ${fmt.int(served.usageChunks)} with the usage chunk.
Internal warnings logged: ${logger.count}. Bench wall time ${elapsed.toFixed(1)} s.`;

report({ title: "wrapOpenAI() overhead", markdown, checks });
