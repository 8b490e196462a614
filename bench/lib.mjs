/**
 * Shared pieces of the benchmarks: the loopback sink (a child process), the GenAI-like span workload, and small
 * statistics and formatting helpers. Benchmarks import the *built* package (`tracewire/otel` resolves to dist/
 * through the package's own `exports`), never the TypeScript sources — but for bench/decompose.mjs, whose subject is
 * the sources with pieces cut out.
 */
import { fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";

export const SPANS_PER_TRACE = 10;

/** Attributes set at span start (request side) — six of the eleven. */
const START_ATTRIBUTES = {
  "gen_ai.operation.name": "chat",
  "gen_ai.provider.name": "openai",
  "gen_ai.request.model": "gpt-4o-mini",
  "gen_ai.request.temperature": 0.7,
  "gen_ai.request.max_tokens": 1024,
  "server.address": "api.openai.com",
};
const FINISH_REASONS = ["stop"];

/** One LLM-call-like span: 6 attributes at start, 5 set before `end()` (response model/id, usage, finish reasons). */
function llmSpan(tracer, parent, i) {
  const span = tracer.startSpan("chat gpt-4o-mini", { kind: SpanKind.CLIENT, attributes: START_ATTRIBUTES }, parent);
  span.setAttribute("gen_ai.response.model", "gpt-4o-mini-2024-07-18");
  span.setAttribute("gen_ai.response.id", `chatcmpl-${i}`);
  span.setAttribute("gen_ai.usage.input_tokens", 1000 + (i % 500));
  span.setAttribute("gen_ai.usage.output_tokens", 50 + (i % 200));
  span.setAttribute("gen_ai.response.finish_reasons", FINISH_REASONS);
  span.end();
}

/**
 * Creates and ends `count` spans (a multiple of 10) synchronously: traces of one root span (same 11 attributes)
 * with nine children.
 */
export function makeSpans(tracer, count, offset = 0) {
  for (let i = offset; i < offset + count; i += SPANS_PER_TRACE) {
    const root = tracer.startSpan(
      "invoke_agent",
      { kind: SpanKind.INTERNAL, attributes: START_ATTRIBUTES },
      ROOT_CONTEXT,
    );
    const parent = trace.setSpan(ROOT_CONTEXT, root);
    for (let j = 1; j < SPANS_PER_TRACE; j++) llmSpan(tracer, parent, i + j);
    root.setAttribute("gen_ai.response.model", "gpt-4o-mini-2024-07-18");
    root.setAttribute("gen_ai.response.id", `agent-${i}`);
    root.setAttribute("gen_ai.usage.input_tokens", 9000);
    root.setAttribute("gen_ai.usage.output_tokens", 450);
    root.setAttribute("gen_ai.response.finish_reasons", FINISH_REASONS);
    root.end();
  }
}

export const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve));
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Produces `total` spans in chunks of `chunk`, letting the event loop run (timers, I/O) between chunks. */
export async function produce(tracer, total, chunk, onChunk) {
  for (let done = 0; done < total; ) {
    const n = Math.min(chunk, total - done);
    makeSpans(tracer, n, done);
    done += n;
    onChunk?.(done);
    await yieldToLoop();
  }
}

/** Polls `predicate` until it holds; false after `timeoutMs`. */
export async function waitUntil(predicate, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) return false;
    await sleep(1);
  }
  return true;
}

/**
 * Starts a bench server (a file next to this one) in a child process, so that its CPU is not charged to the
 * process being measured; resolves with its port, a stats query and a stop function. The server sends `{ port }`
 * once listening, answers `{ cmd: "stats" }` with `{ stats }` and exits on `{ cmd: "exit" }`.
 */
export async function startServer(file) {
  const child = fork(fileURLToPath(new URL(file, import.meta.url)), [], {
    execArgv: [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise((resolve, reject) => {
    child.once("message", (msg) => resolve(msg.port));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${file} exited early (${code})`)));
  });
  return {
    port,
    stats: () =>
      new Promise((resolve) => {
        const onMessage = (msg) => {
          if (msg?.stats) {
            child.off("message", onMessage);
            resolve(msg.stats);
          }
        };
        child.on("message", onMessage);
        child.send({ cmd: "stats" });
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.send({ cmd: "exit" });
      }),
  };
}

/**
 * The child side of {@link startServer}: listens on a loopback port, sends `{ port }`, answers `{ cmd: "stats" }`
 * with `{ stats: stats() }` and exits on `{ cmd: "exit" }` or when the parent goes away.
 */
export function serveForBench(server, stats) {
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port }));
  process.on("message", (msg) => {
    if (msg?.cmd === "stats") process.send?.({ stats: stats() });
    else if (msg?.cmd === "exit") server.close(() => process.exit(0));
  });
  process.on("disconnect", () => process.exit(0));
}

/** Starts bench/sink.mjs (the loopback tracing service) in a child process. */
export const startSink = () => startServer("./sink.mjs");

/** A tracewire `logger` that prints to stderr and counts what it printed (`logger.count`). */
export function countingLogger() {
  const logger = {
    count: 0,
    warn: (m) => {
      logger.count++;
      console.error(m);
    },
    error: (m) => {
      logger.count++;
      console.error(m);
    },
  };
  return logger;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Deterministic PRNG (mulberry32), so that a bootstrap interval is the same for the same samples. */
export function prng(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 90% bootstrap interval of the median of `values` (whole rounds resampled). */
export function medianInterval(values, draws = 2000) {
  const random = prng(42);
  const medians = [];
  for (let d = 0; d < draws; d++)
    medians.push(median(Array.from(values, () => values[Math.floor(random() * values.length)])));
  medians.sort((a, b) => a - b);
  return [medians[Math.floor(0.05 * draws)], medians[Math.floor(0.95 * draws)]];
}

/**
 * A full GC, then wait until this process's background threads are idle, before a block's CPU is read.
 *
 * Why: after `gc()` returns, V8 and the allocator keep freeing the garbage on helper threads for tens of ms (on
 * Node 20, up to ~40 ms of CPU after a block of wrapped calls). `process.cpuUsage()` counts every thread, so without
 * this wait the next block pays for its predecessor's garbage: a carry-over that, with variants in a fixed cyclic
 * order, biased every paired difference (the peer bench's A/A row read -108 µs per call). Waits in 5 ms slices until
 * two in a row use under 0.5 ms of CPU, at most `maxMs`.
 */
export async function settle(maxMs = 300) {
  globalThis.gc();
  const sleep = () => new Promise((resolve) => setTimeout(resolve, 5));
  const started = performance.now();
  let quiet = 0;
  while (quiet < 2 && performance.now() - started < maxMs) {
    const t = process.cpuUsage();
    await sleep();
    quiet = cpuMicros(t) < 500 ? quiet + 1 : 0;
  }
}

/**
 * The order of `n` variants in round `round`: a Williams design, so that over a cycle of rounds (n rounds for an even
 * n, 2n for an odd one) every variant runs right after every other equally often. A rotated order keeps the cyclic
 * neighbours fixed (the same variant always follows the same one), which turns any carry-over between blocks into a
 * bias of the paired differences instead of noise.
 */
export function blockOrder(n, round) {
  const first = [0];
  for (let i = 1, lo = 1, hi = n - 1; i < n; i++) first.push(i % 2 ? lo++ : hi--);
  const row = first.map((v) => (v + round) % n);
  return n % 2 && Math.floor(round / n) % 2 ? row.reverse() : row;
}

/**
 * A `fetch` for the bench's model clients that asks the loopback server once per kind of request (URL, streamed or
 * not, usage asked for or not) and then answers the same bytes from memory, as a fresh `Response` each time: the client
 * still reads and parses every body, but the sockets' CPU and the servers' scheduling (the bulk of a network block's
 * noise on a shared machine) drop out of the measurement.
 */
export function memoryFetch() {
  const cache = new Map();
  return async (url, init) => {
    const body = String(init?.body);
    const key = `${url} ${body.includes('"stream":true')} ${body.includes('"include_usage":true')}`;
    let hit = cache.get(key);
    if (!hit) {
      const res = await globalThis.fetch(url, init);
      hit = { status: res.status, headers: [...res.headers], body: new Uint8Array(await res.arrayBuffer()) };
      cache.set(key, hit);
    }
    return new Response(hit.body, { status: hit.status, headers: hit.headers });
  };
}

/**
 * The `init()` options every bench that exports to the sink shares: the sink's `path` as the service, the bench
 * project, no exit hooks, no environment (settings from it would change what is measured), and a queue that holds
 * `items` more than the default batch without dropping any (every item of a block is queued before its flush). A
 * bench spreads it and adds its own options; it passes them to its own `init` (a build under comparison may not be
 * this checkout's).
 */
export function sinkOptions(sink, path, items) {
  return {
    baseUrl: `http://127.0.0.1:${sink.port}${path}`,
    project: "bench/bench",
    exitHooks: false,
    env: {},
    maxQueueSize: items + 2048,
  };
}

/** CPU microseconds (user + system, all threads of this process) since `start` (a `process.cpuUsage()` value). */
export function cpuMicros(start) {
  const d = process.cpuUsage(start);
  return d.user + d.system;
}

export const fmt = {
  int: (n) => Math.round(n).toLocaleString("en-US"),
  num: (n, digits = 2) => n.toFixed(digits),
  ratio: (n) => `${n.toFixed(2)}×`,
  mb: (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`,
};

/** A markdown table from a header row and body rows. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Reads `--name=value` from argv. */
export function arg(name, fallback) {
  const prefix = `--${name}=`;
  const found = process.argv.find((a) => a.startsWith(prefix));
  return found === undefined ? fallback : found.slice(prefix.length);
}

/**
 * Writes a benchmark's result for bench/run.mjs (when `--out=<file>` is given) and prints its markdown.
 * `result`: `{ title, markdown, checks: [{ name, pass, detail }] }`.
 */
export function report(result) {
  const out = arg("out");
  if (out) writeFileSync(out, JSON.stringify(result));
  console.log(`\n${result.markdown}\n`);
  for (const c of result.checks) console.log(`${c.pass ? "PASS" : "FAIL"}  ${c.name} — ${c.detail}`);
}

/**
 * esbuild options for bundling a piece of src/ as the benches that measure source (not dist/) do: one ESM file for
 * Node at `outfile`, packages left external (they resolve from node_modules as the built package's would).
 */
export function srcBundleOptions(outfile) {
  return { bundle: true, platform: "node", format: "esm", packages: "external", outfile, logLevel: "warning" };
}

/**
 * A module of src/ (`entry`, e.g. `"genai/stream-tap"`), bundled with {@link srcBundleOptions} into
 * node_modules/.cache/tracewire-`cache`/ and imported: for the benches that measure one piece of source in isolation.
 * esbuild is loaded only here, so the benches that measure dist/ never load it.
 */
export async function importSrc(cache, entry) {
  const { build } = await import("esbuild");
  const root = fileURLToPath(new URL("..", import.meta.url));
  const outdir = join(root, "node_modules", ".cache", `tracewire-${cache}`);
  mkdirSync(outdir, { recursive: true });
  const outfile = join(outdir, `${entry.replaceAll("/", "-")}.mjs`);
  await build({ entryPoints: [join(root, "src", `${entry}.ts`)], ...srcBundleOptions(outfile) });
  return import(pathToFileURL(outfile).href);
}
