/**
 * A/B of two builds of tracewire, for judging a change to the processor: the OTLP route (protobuf+gzip, and JSON)
 * and the calls route of this checkout's dist/ ("B") against another build's dist/ ("A", e.g. a `git worktree` of
 * the base commit, built with `npx tsup`), measured side by side in one process, in rotated order, against the
 * same loopback sink. Not part of `npm run bench`: absolute numbers drift with the machine's load between two
 * `npm run bench` runs far more than a small change moves them, while the paired ratio here does not.
 *
 * Run: node --expose-gc bench/ab.mjs --a=/path/to/other/checkout/dist [--rounds=9] [--spans=20000]
 * Prints, per route, the median CPU µs per span of A and B and the median of the per-round paired ratios B/A
 * (below 1: B is cheaper). An A/A run (both builds the same) shows the noise floor, about ±3% here.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { arg, cpuMicros, median, produce, startSink, waitUntil } from "./lib.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const other = arg("a");
if (!other) throw new Error("pass --a=<dist directory of the build to compare against>");
const A = await import(pathToFileURL(resolve(other, "otel.js")).href);
const B = await import("tracewire/otel");
const N = Number(arg("spans", "20000"));
const ROUNDS = Number(arg("rounds", "9"));

const sink = await startSink();
const logger = { warn: console.error, error: console.error };
const ROUTES = [
  { name: "OTLP, protobuf+gzip", options: { export: "otlp" }, items: 1, stat: "otlp" },
  {
    name: "OTLP, JSON",
    options: { export: "otlp", otlpProtocol: "http/json", otlpCompression: "none" },
    items: 1,
    stat: "otlp",
  },
  { name: "calls route", options: { export: "calls" }, items: 2, stat: "calls" },
];

const variants = ROUTES.flatMap((route, r) =>
  [
    ["A", A],
    ["B", B],
  ].map(([build, mod]) => {
    const processor = new mod.TracewireSpanProcessor({
      baseUrl: `http://127.0.0.1:${sink.port}/${build}${r}`,
      project: "bench/bench",
      maxQueueSize: 4 * N,
      maxExportBatchSize: 512,
      exitHooks: false,
      env: {},
      logger,
      ...route.options,
    });
    const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer("bench-app", "1.0.0");
    return { key: `${build}:${route.name}`, route, processor, tracer, samples: [] };
  }),
);

for (let round = 0; round < ROUNDS + 1; round++) {
  for (let i = 0; i < variants.length; i++) {
    const v = variants[(i + round) % variants.length];
    globalThis.gc();
    const before = v.processor.stats()[v.route.stat].sent;
    const cpu0 = process.cpuUsage();
    await produce(v.tracer, N, 500);
    await v.processor.forceFlush();
    const done = await waitUntil(() => v.processor.stats()[v.route.stat].sent - before >= N * v.route.items, 60_000);
    if (!done) throw new Error(`${v.key}: not everything was delivered`);
    if (round > 0) v.samples.push(cpuMicros(cpu0) / N);
  }
}
for (const route of ROUTES) {
  const a = variants.find((v) => v.key === `A:${route.name}`).samples;
  const b = variants.find((v) => v.key === `B:${route.name}`).samples;
  const ratio = median(b.map((x, i) => x / a[i]));
  console.log(
    `${route.name}: A ${median(a).toFixed(2)} µs/span, B ${median(b).toFixed(2)} µs/span, B/A ${ratio.toFixed(3)}`,
  );
}
await Promise.all(variants.map((v) => v.processor.shutdown()));
await sink.stop();
