/**
 * The shared harness of the wrapper-overhead benches (openai-overhead.mjs, responses-overhead.mjs,
 * anthropic-overhead.mjs, google-overhead.mjs, ai-overhead.mjs): CPU per call of a real client package against a loopback server (a child
 * process), on a non-streaming path and a 50-event stream read to the end, in five variants:
 *
 *   - `unwrapped`  the plain client; no context manager registered (nothing of OTel or tracewire runs on its path);
 *   - `context`    the same, with the AsyncLocalStorage context manager `init()` registers, switched on by one
 *                  `context.with()` (from then on Node tracks every promise): not a target, it splits the floor below
 *                  into "context manager" and "span + export";
 *   - `floor`      the bare-span floor: the unwrapped client, each call inside one `tracer.startActiveSpan()` of a
 *                  plain app tracer (no attributes) ended after the call (for a stream: after its last event). The
 *                  tracer is the provider `init()` registered, so the span goes through `TracewireSpanProcessor` on
 *                  the OTLP route (protobuf + gzip, the default) to the bench sink: what one bare span costs
 *                  *including* its export;
 *   - `content`    the reference of the target: the floor's span(s) carrying by hand the data the wrapper records
 *                  (the GenAI request attributes and the request as JSON at the start; the response attributes,
 *                  usage and the answer as JSON at the end), same route. What recording that content costs without
 *                  wrapping; each bench says what its spans carry;
 *   - `wrapped`    the wrapper under the same `init()`, its calls on the calls route (start + end items).
 *
 * A bench may add variants of its own (`spec.extra`, e.g. the framework with a no-op callback handler attached:
 * what the framework itself spends once any handler is there). Each runs with the context manager on, sends nothing,
 * gets its own row, and the section says what the wrapper adds over it (per-round differences, like the rest).
 *
 * One `init()` (pointed at the sink) serves the whole run, so every block exports over the same warm connection.
 * The context manager is registered before `context`, `floor`, `content` and `wrapped` blocks and removed
 * (`context.disable()`, which also switches AsyncLocalStorage's promise hooks off) before `unwrapped` ones, outside
 * the measured part. Each block: `settle()` (a full GC, then a wait until its helper threads are idle, so that a block
 * does not pay for its predecessor's garbage), then N calls (4 in flight), then `flush()` until the sink has acknowledged
 * every item of the block (checked against the variant's expected item counts); the CPU is `process.cpuUsage()` of
 * this process (all threads) over that, divided by N. The model server and the sink are separate processes, so
 * their CPU is not counted.
 *
 * Overhead = CPU(variant) − CPU(unwrapped), the median of per-round differences between blocks of the same round.
 * Target: wrapper overhead ÷ content-span overhead ≤ 1.0 on both paths (the ratio to the bare-span floor is shown
 * too). Blocks of a path run side by side in a balanced order (`blockOrder`: each variant follows each other equally
 * often; a rotated order kept the same neighbours, turning carry-over into bias), after a warm-up
 * round. Blocks are short and rounds many: on a shared machine, adjacent short blocks see the same load, long ones
 * do not.
 *
 * Common flags: [--calls=150] [--stream-calls=75] [--rounds=20] [--in-flight=4] [--only=wrapped --path=stream]
 * (`--only`/`--path` for profiling one variant, e.g. with `node --cpu-prof`; prints medians only), and for taking a
 * wrapper apart (not what `npm run bench` runs): `--in-memory` (see {@link benchFetch}) and `--init='<JSON>'` (extra
 * `init()` options, e.g. `{"captureContent":false}` or `{"export":"otlp"}`).
 *
 * `--main-thread` (Node ≥ 23.9; implies `--in-memory`): the CPU of the main thread only (`process.threadCpuUsage()`),
 * with the clients answered from memory. `npm run bench` runs the main wrappers this way too, on Node 24: over the
 * loopback, process CPU varies by 10–25% between identical blocks (the servers compete for the two cores; V8's GC
 * helper threads bill the next block), so the loopback rows resolve only large gaps, while these resolve a few µs —
 * what the app's own thread pays per call (bench/NOTES.md, #28).
 *
 * Each bench with both paths also states a stream's cost per event: (stream overhead − non-streaming overhead) ÷
 * events, for the wrapper and the content span, from blocks of the same round, with its own target (the wrapper's ≤
 * the content span's).
 */
import { context, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { init } from "tracewire";
import {
  arg,
  blockOrder,
  countingLogger,
  cpuMicros,
  fmt,
  median,
  medianInterval,
  memoryFetch,
  prng,
  report,
  settle,
  sinkOptions,
  startSink,
  table,
} from "./lib.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");

/** Events (content chunks / text deltas) per stream: every bench server sends this many. */
export const STREAM_EVENTS = 50;
const TARGET = 1.0;
const WARMUP = 1;

/** Settings shared by every wrapper bench (from the command line). */
export const settings = {
  rounds: Number(arg("rounds", "20")),
  inFlight: Number(arg("in-flight", "4")),
  calls: Number(arg("calls", "150")),
  streamCalls: Number(arg("stream-calls", "75")),
  only: arg("only")?.split(","),
  onlyPath: arg("path"),
  /** Extra `init()` options as JSON, for taking the wrapper apart (e.g. `--init='{"captureContent":false}'`). */
  init: JSON.parse(arg("init", "{}")),
  /** `--main-thread`: main-thread CPU, in memory (Node ≥ 23.9). */
  mainThread: process.argv.includes("--main-thread"),
  /** `--in-memory`: the clients' `fetch` answers from memory (see {@link benchFetch}). */
  inMemory: process.argv.includes("--in-memory") || process.argv.includes("--main-thread"),
};
if (settings.mainThread && typeof process.threadCpuUsage !== "function")
  throw new Error(`--main-thread needs process.threadCpuUsage() (Node ≥ 23.9); this is Node ${process.version}`);
/** CPU µs since `start` (a value of the same clock): the process's, or with `--main-thread` this thread's. */
const clock = settings.mainThread ? () => process.threadCpuUsage() : () => process.cpuUsage();
const elapsedCpu = (start) => {
  if (!settings.mainThread) return cpuMicros(start);
  const d = process.threadCpuUsage(start);
  return d.user + d.system;
};
/** What the CPU of a block is, for titles and check names. */
const MEASURE = settings.mainThread ? `in memory, main-thread CPU (Node ${process.versions.node})` : undefined;

/**
 * The `fetch` the bench clients use: the global one, or with `--in-memory` one that asks the loopback server once
 * per kind of request (URL, streamed or not, usage asked for or not) and then answers the same bytes from memory — the network's CPU and
 * its noise drop out, which is what taking the wrapper apart needs. Not what `npm run bench` measures.
 */
export function benchFetch() {
  return settings.inMemory ? memoryFetch() : globalThis.fetch;
}

/** Runs `n` calls of `one`, `settings.inFlight` at a time. */
async function calls(n, one) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: settings.inFlight }, worker));
}

/** Registers a fresh AsyncLocalStorage context manager (as `init()` does) and switches it on. */
function contextOn() {
  context.disable();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  context.with(context.active(), () => {});
}

/**
 * Starts one span of the app tracer carrying `start` attributes, runs `body` inside it, sets the attributes
 * `end(result)` returns, ends it; resolves with `body`'s result. The content variants' hand-made spans.
 */
export function contentSpan(name, start, body, end) {
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes: start }, async (span) => {
    try {
      const result = await body();
      span.setAttributes(end(result));
      return result;
    } finally {
      span.end();
    }
  });
}

/** The plain app tracer of the floor and content variants (from the provider `init()` registers). */
let tracer;

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

/**
 * A stream's cost per event, for the wrapper and the content span: per round, (stream overhead − non-streaming
 * overhead) ÷ events — what streaming adds over a call, spread over its events (the stream's own fixed costs
 * included) — from blocks of the same round. Undefined unless both paths ran.
 */
function perEventCost(paths, diffs) {
  if (!paths.some((p) => p.tag === "plain") || !paths.some((p) => p.tag === "stream")) return undefined;
  const perRound = (tag) => {
    const stream = diffs("stream", tag, "unwrapped");
    const plain = diffs("plain", tag, "unwrapped");
    return stream.map((x, i) => (x - plain[i]) / STREAM_EVENTS);
  };
  const wrapped = perRound("wrapped");
  const content = perRound("content");
  const [w, c] = [median(wrapped), median(content)];
  const [low, high] = bootstrapRatio(wrapped, content);
  const ratio = w / c;
  const gap = wrapped.map((x, i) => x - content[i]);
  const [gapLow, gapHigh] = medianInterval(gap);
  // A per-event cost at or below zero is the noise of two overheads subtracted, not a measurement: no verdict.
  const conclusive = w > 0 && c > 0;
  const pass = conclusive && w <= c;
  const verdict = !conclusive
    ? "; a per-event cost at or below zero is lost in the noise: inconclusive"
    : gapLow <= 0 && gapHigh >= 0
      ? "; the gap's interval spans 0: borderline"
      : "";
  const interval = `90% interval of the ratio ${fmt.num(low)}–${fmt.num(high)}; wrapper − content span ${fmt.num(median(gap), 2)} µs, ${fmt.num(gapLow, 2)} … ${fmt.num(gapHigh, 2)}${verdict}`;
  return {
    text: `**Per stream event** (stream overhead − non-streaming overhead, ÷ ${STREAM_EVENTS} events; per round): the wrapper ${fmt.num(w, 2)} µs, the content span ${fmt.num(c, 2)} µs (${fmt.ratio(ratio)}; ${interval}).`,
    check: (name) => ({
      name: `${name}: a stream's cost per event ≤ the content span's${MEASURE ? ` (${MEASURE})` : ""}`,
      pass,
      detail: `the wrapper ${fmt.num(w, 2)} µs per event, the content span ${fmt.num(c, 2)} µs (${fmt.ratio(ratio)}; ${interval}): (stream overhead − non-streaming overhead) ÷ ${STREAM_EVENTS} events, per round`,
    }),
  };
}

/**
 * Runs one wrapper bench and reports it. `spec`:
 *
 * - `name`: the wrapper as the targets name it (markdown, e.g. "`wrapOpenAI`");
 * - `server`: the started model server (`startServer(...)` of lib.mjs), stopped at the end;
 * - `unwrapped`, `wrapped`: what each variant passes to a path's `run` (a client, or options);
 * - `paths`: `[{ tag: "plain" | "stream", title, calls, run(client) → answer, content() → promise, contentSpans }]`
 *   — `content` makes the call on the unwrapped client inside `contentSpans` hand-made spans carrying the data;
 * - `wrappedItems`: `{ calls, otlp }` items one wrapped call sends;
 * - `extra` (optional): `{ [tag]: { label, arg, note } }` variants of the bench's own, run like `wrapped` with
 *   `arg` passed to a path's `run` (context manager on, no items sent); `label` is the row, `note` names the row in
 *   the sentence "the wrapper adds X µs over <note>";
 * - `labels`: `{ unwrapped, content, wrapped }` row labels;
 * - `heading`, `intro(rounds)` and `footer({ served, elapsed, logger })`: the markdown around the tables.
 */
export async function runWrapperBench(spec) {
  const sink = await startSink();
  const paths = spec.paths.filter((p) => !settings.onlyPath || p.tag === settings.onlyPath);
  const maxCalls = Math.max(...paths.map((p) => p.calls));
  const logger = countingLogger();
  const handle = init({
    ...sinkOptions(sink, "/oa", 8 * maxCalls),
    logger,
    ...settings.init,
  });
  if (!handle.enabled) throw new Error("init() did not enable tracing");
  tracer = trace.getTracer("bench-app", "1.0.0");

  /** Items the sink acknowledged so far, per route. */
  const sent = () => {
    const s = handle.stats();
    return { calls: s.calls.sent, otlp: s.otlp.sent };
  };
  const variants = {
    unwrapped: { before: () => context.disable(), call: (path) => () => path.run(spec.unwrapped), items: {} },
    context: { before: contextOn, call: (path) => () => path.run(spec.unwrapped), items: {} },
    floor: {
      before: contextOn,
      call: (path) => () =>
        tracer.startActiveSpan("chat", { kind: SpanKind.CLIENT }, async (span) => {
          try {
            await path.run(spec.unwrapped);
          } finally {
            span.end();
          }
        }),
      items: () => ({ otlp: 1 }),
    },
    content: {
      before: contextOn,
      call: (path) => () => path.content(),
      items: (path) => ({ otlp: path.contentSpans }),
    },
    wrapped: {
      before: contextOn,
      call: (path) => () => path.run(spec.wrapped),
      // `--init='{"export":"otlp"}'` sends each call as one OTLP span instead of a start and an end record.
      items: () => (settings.init.export === "otlp" ? { otlp: spec.wrappedItems.calls / 2 } : spec.wrappedItems),
    },
  };
  const extra = spec.extra ?? {};
  for (const [tag, x] of Object.entries(extra))
    variants[tag] = { before: contextOn, call: (path) => () => path.run(x.arg), items: {} };
  const tags = Object.keys(variants).filter((t) => !settings.only || settings.only.includes(t));
  const itemsOf = (v, path) => (typeof v.items === "function" ? v.items(path) : v.items);

  /** Wire bytes per path and variant (sink counters read before and after each block, outside the measurement). */
  const wire = new Map();

  /** One block: CPU µs per call, from the first call until the sink has acknowledged every item of the block. */
  async function block(path, tag) {
    const v = variants[tag];
    const items = itemsOf(v, path);
    const one = v.call(path);
    v.before();
    const before = sent();
    const wireBefore = (await sink.stats()).oa ?? { wireBytes: 0, bodyBytes: 0 };
    await settle();
    const cpu0 = clock();
    await calls(path.calls, one);
    if (items.calls || items.otlp) await handle.flush();
    const cpu = elapsedCpu(cpu0);
    const after = sent();
    for (const route of ["calls", "otlp"]) {
      const expected = (items[route] ?? 0) * path.calls;
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

  // ---- rounds ------------------------------------------------------------------------------------------------

  const samples = new Map(paths.map((p) => [p.tag, new Map(tags.map((t) => [t, []]))]));
  const started = performance.now();
  for (let round = 0; round < WARMUP + settings.rounds; round++) {
    const line = [];
    for (const path of paths) {
      for (let k = 0; k < tags.length; k++) {
        const tag = tags[blockOrder(tags.length, round)[k]];
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
  const served = await spec.server.stats();
  await Promise.all([spec.server.stop(), sink.stop()]);
  if (dropped > 0 || internalErrors > 0) throw new Error(`${dropped} items dropped, ${internalErrors} internal errors`);

  // ---- aggregation -------------------------------------------------------------------------------------------

  const cpu = (path, tag) => median(samples.get(path).get(tag));
  /** Per-round differences `tag − base` (µs/call) between blocks of the same round. */
  const diffs = (path, tag, base) => {
    const s = samples.get(path);
    return s.get(tag).map((x, i) => x - s.get(base)[i]);
  };
  if (settings.only) {
    for (const path of paths)
      for (const tag of tags) {
        const over = tags.includes("unwrapped")
          ? `, over unwrapped ${fmt.num(median(diffs(path.tag, tag, "unwrapped")), 1)} µs`
          : "";
        console.log(`${path.tag}/${tag}: ${fmt.num(cpu(path.tag, tag), 1)} µs/call (median)${over}`);
      }
    return;
  }
  /** Median over rounds of the paired ratio tag ÷ base. */
  const paired = (path, tag, base) => {
    const s = samples.get(path);
    return median(s.get(tag).map((x, i) => x / s.get(base)[i]));
  };
  const labels = {
    unwrapped: spec.labels.unwrapped,
    context: "unwrapped + AsyncLocalStorage context manager on (no span)",
    floor: "bare-span floor: unwrapped + one `startActiveSpan`/`end`, OTLP route to the sink",
    content: spec.labels.content,
    wrapped: spec.labels.wrapped,
    ...Object.fromEntries(Object.entries(extra).map(([tag, x]) => [tag, x.label])),
  };

  const sections = [];
  const checks = [];
  for (const path of paths) {
    const p = path.tag;
    const over = (tag) => median(diffs(p, tag, "unwrapped"));
    const overCtx = (tag) => median(diffs(p, tag, "context"));
    const [floorOver, contentOver, wrappedOver] = [over("floor"), over("content"), over("wrapped")];
    const ratio = wrappedOver / contentOver;
    const [low, high] = bootstrapRatio(diffs(p, "wrapped", "unwrapped"), diffs(p, "content", "unwrapped"));
    const wireOf = (tag) => {
      const w = wire.get(`${p}/${tag}`);
      return w && w.wireBytes > 0 ? `${fmt.int(w.wireBytes / w.calls)} (${fmt.int(w.bodyBytes / w.calls)})` : "—";
    };
    const spanRow = (tag) => ["floor", "content", "wrapped"].includes(tag);
    const extraLines = Object.entries(extra)
      .filter(([tag]) => tags.includes(tag))
      .map(([tag, x]) => {
        const d = diffs(p, "wrapped", tag);
        const [lo, hi] = bootstrapRatio(d, diffs(p, "content", "unwrapped"));
        return `\nOver ${x.note}: the wrapper adds **${fmt.num(median(d), 1)} µs** (${fmt.ratio(paired(p, "wrapped", tag))} of its CPU), ${fmt.ratio(median(d) / contentOver)} the content spans' overhead (90% interval ${fmt.num(lo)}–${fmt.num(hi)}); ${x.note} itself adds ${fmt.num(over(tag), 1)} µs over unwrapped.`;
      })
      .join("");
    const rows = tags.map((tag) => [
      labels[tag],
      tag === "unwrapped" ? "1.00×" : fmt.ratio(paired(p, tag, "unwrapped")),
      fmt.num(cpu(p, tag), 1),
      tag === "unwrapped" ? "—" : fmt.num(over(tag), 1),
      spanRow(tag) ? fmt.ratio(over(tag) / floorOver) : "—",
      tag === "wrapped" ? `**${fmt.ratio(ratio)}**` : tag === "content" ? "1.00×" : "—",
      spanRow(tag) || tag in extra ? fmt.num(overCtx(tag), 1) : "—",
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
    "overhead ÷ content-span overhead",
    "µs/call over context manager only",
    "wire B/call (uncompressed)",
  ],
  rows,
)}

Wrapper overhead ÷ content-span overhead: **${fmt.ratio(ratio)}** (90% bootstrap interval over rounds ${fmt.num(low)}–${fmt.num(high)}); ÷ bare-span floor overhead ${fmt.ratio(wrappedOver / floorOver)}.
Without the context manager's share (which all pay): the wrapper adds ${fmt.num(overCtx("wrapped"), 1)} µs, the content span(s)
${fmt.num(overCtx("content"), 1)} µs (${fmt.ratio(overCtx("wrapped") / overCtx("content"))}), a bare span with its export ${fmt.num(overCtx("floor"), 1)} µs.${extraLines}`);
    const gap = diffs(p, "wrapped", "content");
    const [gapLow, gapHigh] = medianInterval(gap);
    const borderline =
      contentOver <= 0
        ? "; the content span's overhead is lost in the noise: inconclusive"
        : low <= TARGET && high >= TARGET
          ? `; the interval spans ${fmt.num(TARGET, 1)}: borderline`
          : "";
    checks.push({
      name: `${spec.name} overhead ≤ ${fmt.num(TARGET, 1)}× the content-carrying span's (${path.title}${MEASURE ? `, ${MEASURE}` : ""})`,
      // A content overhead lost in the noise (≤ 0) makes the ratio meaningless: not a pass.
      pass: contentOver > 0 && ratio <= TARGET,
      detail: `${fmt.ratio(ratio)} (90% interval ${fmt.num(low)}–${fmt.num(high)}${borderline}): the wrapper adds ${fmt.num(wrappedOver, 1)} µs of CPU per call, the hand-made span with the same content ${fmt.num(contentOver, 1)} µs (wrapper − content span, per round: ${fmt.num(median(gap), 1)} µs, 90% interval ${fmt.num(gapLow, 1)} … ${fmt.num(gapHigh, 1)}), a bare span ${fmt.num(floorOver, 1)} µs (unwrapped call ${fmt.num(cpu(p, "unwrapped"), 1)} µs)`,
    });
  }
  const perEvent = perEventCost(paths, diffs);
  if (perEvent) {
    sections.push(perEvent.text);
    checks.push(perEvent.check(spec.name));
  }

  const measured = MEASURE
    ? `\n\n**This run: ${MEASURE}.** The clients' \`fetch\` answers from memory (the loopback server's bytes, asked once per kind of request, handed out as a fresh \`Response\` that the client reads and parses as usual), and each block's CPU is the main thread's (\`process.threadCpuUsage()\`): what the app's own thread pays per call, without the sockets' work, V8's GC helper threads and their noise.`
    : "";
  const markdown = `### ${spec.heading}${MEASURE ? ` — ${MEASURE}` : ""}${measured}

${spec.intro}
Variants: the **unwrapped** client (no context manager registered); the same with the **context manager** \`init()\`
registers switched on (AsyncLocalStorage then tracks every promise; no span); the **bare-span floor** — the
unwrapped client with each call inside one \`tracer.startActiveSpan()\`/\`span.end()\` of a plain app tracer, exported
by \`TracewireSpanProcessor\` on the OTLP route (protobuf+gzip) to the bench sink; the **content span** — the floor's
span carrying by hand the data the wrapper records (the reference of the target); and the **wrapped** client. One
\`init()\` for the run, pointed at the bench sink. ${settings.rounds} rounds of short interleaved blocks (variants in a
balanced order: each follows each other equally often) after ${WARMUP} warm-up round, ${settings.inFlight} calls in flight;
before each block a full GC and a wait until the GC's helper threads are idle. CPU = ${settings.mainThread ? "`process.threadCpuUsage()` of the\nmain thread" : "`process.cpuUsage()` of the\ncalling process"} from the first call until the sink has acknowledged every item of the block; the model server and
the sink are separate processes. Overheads are medians of per-round differences from the unwrapped block of the same
round; target: wrapper overhead ÷ content-span overhead ≤ ${fmt.num(TARGET, 1)}.

${sections.join("\n\n")}

${spec.footer({ served })}
Internal warnings logged: ${logger.count}. Bench wall time ${elapsed.toFixed(1)} s.`;

  report({ title: MEASURE ? `${spec.heading} — ${MEASURE}` : spec.heading, markdown, checks });
}
