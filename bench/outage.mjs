/**
 * Memory under outage: the tracing service is down (connection refused) while 1,000,000 spans are offered at full
 * speed through `TracewireSpanProcessor` (OTLP route, default queue 2048 and batch 512). Peak RSS is compared with a
 * baseline run that creates the same spans with no processor, and the drop accounting is checked exactly:
 * `stats().otlp.dropped` must equal the spans offered minus those still queued (in flight included) or sent, and
 * after `shutdown()` every span must be counted as sent or dropped.
 *
 * Each run is its own process (peak RSS is per process). Runs alternate baseline / processor, `--pairs` times.
 * Spans are produced in chunks of 1,000 with a `setImmediate` between chunks, so the exporter's timers and its
 * failing connection attempts (and retries with backoff) really run during the outage.
 *
 * One more run sends the same spans by the calls route (`export: "calls"`: a start and an end item per span) to the
 * same dead service, for the same exact accounting there: offered = sent + rejected + dropped + queued.
 *
 * Run: node bench/outage.mjs [--spans=1000000] [--pairs=3]
 * (one run: node --expose-gc bench/outage.mjs --mode=baseline|processor|calls --spans=N)
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { TracewireSpanProcessor } from "tracewire/otel";
import { arg, cpuMicros, fmt, median, produce, report, table } from "./lib.mjs";

const SPANS = Number(arg("spans", "1000000"));
const CHUNK = 1000;

/** A loopback port with nothing listening on it (connections are refused). */
async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One measured run in this process; prints its result as JSON on stdout. */
async function runOne(mode) {
  let logLines = 0;
  const logger = { warn: () => logLines++, error: () => logLines++ };
  let processor;
  if (mode !== "baseline") {
    processor = new TracewireSpanProcessor({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      project: "bench/bench",
      export: mode === "calls" ? "calls" : "otlp",
      exitHooks: false,
      env: {},
      logger,
      // Short deadlines so that the final shutdown() does not wait 30 s for a service that is down.
      exportTimeoutMillis: 2000,
      otlpTimeoutMillis: 1000,
    });
  }
  const provider = new BasicTracerProvider({ spanProcessors: processor ? [processor] : [] });
  const tracer = provider.getTracer("bench-app", "1.0.0");

  globalThis.gc();
  const rssStart = process.memoryUsage.rss();
  let peak = rssStart;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await produce(tracer, SPANS, CHUNK, () => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) peak = rss;
  });
  const cpu = cpuMicros(cpu0);
  const wall = performance.now() - wall0;
  globalThis.gc();
  const heapAfterGc = process.memoryUsage().heapUsed; // the queue (if any) still holds its spans here

  const result = {
    mode,
    spans: SPANS,
    rssStart,
    rssPeak: peak,
    maxRss: process.resourceUsage().maxRSS * 1024,
    heapAfterGc,
    cpuPerSpan: cpu / SPANS,
    wallMs: wall,
  };
  if (processor) {
    const route = mode === "calls" ? "calls" : "otlp";
    const during = processor.stats()[route];
    await processor.shutdown();
    const after = processor.stats()[route];
    const internalErrors = processor.stats().internalErrors;
    Object.assign(result, { during, after, internalErrors, logLines });
  }
  await provider.shutdown();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function spawnRun(mode) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--expose-gc", fileURLToPath(import.meta.url), `--mode=${mode}`, `--spans=${SPANS}`],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`outage ${mode} run exited with ${code}`));
      resolve(JSON.parse(out.trim().split("\n").pop()));
    });
  });
}

async function main() {
  const pairs = Number(arg("pairs", "3"));
  const runs = { baseline: [], processor: [] };
  for (let i = 0; i < pairs; i++) {
    // Alternate which mode goes first, so a drift in machine load does not favour one.
    for (const mode of i % 2 ? ["processor", "baseline"] : ["baseline", "processor"]) {
      const r = await spawnRun(mode);
      runs[mode].push(r);
      console.error(
        `${mode}: peak RSS ${fmt.mb(r.rssPeak)} (max ${fmt.mb(r.maxRss)}), ${fmt.num(r.cpuPerSpan)} µs/span CPU`,
      );
    }
  }

  const calls = await spawnRun("calls");
  console.error(`calls: ${fmt.num(calls.cpuPerSpan)} µs/span CPU`);

  const med = (mode, key) => median(runs[mode].map((r) => r[key]));
  /** offered = sent + rejected + dropped + queued, during the outage and after shutdown (queued 0 then). */
  const account = (r, route, offered) => {
    const d = r.during;
    const a = r.after;
    const expected = offered - d.queued - d.sent - d.rejected;
    return {
      during: d.dropped === expected && r.internalErrors === 0,
      after: a.queued === 0 && a.dropped + a.sent + a.rejected === offered,
      text: `${route}: offered ${fmt.int(offered)}, queued ${fmt.int(d.queued)}, sent ${d.sent}, rejected ${d.rejected}, dropped ${fmt.int(d.dropped)} (expected ${fmt.int(expected)}), retries ${d.retries}; after shutdown dropped ${fmt.int(a.dropped)}, queued ${a.queued}; internal errors ${r.internalErrors}; ${r.logLines} log lines`,
    };
  };
  const accounting = runs.processor.map((r) => account(r, "otlp", r.spans));
  const callsAccounting = account(calls, "calls (2 items per span)", 2 * calls.spans);
  const peakDelta = med("processor", "rssPeak") - med("baseline", "rssPeak");
  const heapDelta = med("processor", "heapAfterGc") - med("baseline", "heapAfterGc");

  const rows = ["baseline", "processor"].map((mode) => [
    mode === "baseline" ? "no processor (baseline)" : "**TracewireSpanProcessor, service down**",
    fmt.mb(med(mode, "rssPeak")),
    fmt.mb(med(mode, "maxRss")),
    fmt.mb(med(mode, "rssStart")),
    fmt.mb(med(mode, "heapAfterGc")),
    mode === "baseline" ? "1.00×" : fmt.ratio(med(mode, "cpuPerSpan") / med("baseline", "cpuPerSpan")),
    fmt.num(med(mode, "cpuPerSpan")),
    fmt.int(med(mode, "wallMs")),
  ]);

  const checks = [
    {
      name: "outage: stats().otlp.dropped = offered − queued − sent (exact)",
      pass: accounting.every((a) => a.during),
      detail: `${accounting.filter((a) => a.during).length}/${accounting.length} runs; first: ${accounting[0].text}`,
    },
    {
      name: "outage: after shutdown() every span is counted as sent or dropped",
      pass: accounting.every((a) => a.after),
      detail: `${accounting.filter((a) => a.after).length}/${accounting.length} runs`,
    },
    {
      name: "outage, calls route: offered = sent + rejected + dropped + queued (exact), during and after shutdown",
      pass: callsAccounting.during && callsAccounting.after,
      detail: callsAccounting.text,
    },
  ];

  const markdown = `### Memory under outage

${fmt.int(SPANS)} spans (same workload) offered at full speed (chunks of ${CHUNK}, \`setImmediate\` between chunks) with the
service down (connection refused); OTLP route, default queue 2048 / batch 512 (export and OTLP timeouts shortened to
2 s / 1 s so that the final \`shutdown()\` does not wait 30 s). Each run is a fresh process; ${pairs} run(s) per mode,
alternating; medians. Peak RSS is sampled every ${CHUNK} spans (\`process.memoryUsage.rss()\`); "max RSS" is the
kernel's \`resourceUsage().maxRSS\`. Heap after GC is measured with the queue still full.

${table(["run", "peak RSS (sampled)", "max RSS (kernel)", "RSS at start", "heap after GC", "CPU ÷ baseline", "CPU µs/span", "wall ms"], rows)}

Peak RSS over baseline: **${fmt.mb(peakDelta)}**; heap retained over baseline after GC (the full queue): ${fmt.mb(heapDelta)}
(${fmt.int(heapDelta / 2048)} B per queued span).

Accounting per processor run:

${[...accounting, callsAccounting].map((a) => `- ${a.during && a.after ? "PASS" : "FAIL"} — ${a.text}`).join("\n")}

The calls-route run offers the same ${fmt.int(calls.spans)} spans with \`export: "calls"\` (a start and an end item each),
${fmt.num(calls.cpuPerSpan)} µs/span CPU.`;

  report({ title: "Memory under outage", markdown, checks });
}

const mode = arg("mode");
if (mode) await runOne(mode);
else await main();
