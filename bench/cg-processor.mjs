/**
 * Instruction-count harness for the processor path (not part of `npm run bench`): N spans of the bench's shape
 * (lib.mjs `makeSpans`: traces of 1 root + 9 children, 11 GenAI-like attributes) through one processor variant to the
 * loopback sink (a child process, not counted). Run it under `valgrind --tool=callgrind` twice with different N and
 * take the difference per span: startup, imports and JIT warm-up cancel out, and the count is the same whatever else
 * the machine is doing (this machine's load makes CPU-time A/B runs of a few-percent change unreadable).
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null node bench/cg-processor.mjs --dist=<dist> \
 *     --variant=proto|json|calls|floor --spans=N
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { arg, produce, startSink, waitUntil } from "./lib.mjs";

const dist = arg("dist");
const mod = dist ? await import(pathToFileURL(resolve(dist, "otel.js")).href) : await import("tracewire/otel");
const N = Number(arg("spans", "2000"));
const variant = arg("variant", "proto");
const routes = {
  proto: { options: { export: "otlp" }, stat: "otlp", items: 1 },
  json: { options: { export: "otlp", otlpProtocol: "http/json", otlpCompression: "none" }, stat: "otlp", items: 1 },
  calls: { options: { export: "calls" }, stat: "calls", items: 2 },
};
const sink = await startSink();
let processor;
let delivered = () => N;
if (variant === "floor") {
  processor = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
} else {
  const route = routes[variant];
  processor = new mod.TracewireSpanProcessor({
    baseUrl: `http://127.0.0.1:${sink.port}/cg`,
    project: "bench/bench",
    maxQueueSize: 4 * N + 2048,
    maxExportBatchSize: 512,
    exitHooks: false,
    env: {},
    ...route.options,
  });
  delivered = () => processor.stats()[route.stat].sent / route.items;
}
const tracer = new BasicTracerProvider({ spanProcessors: [processor] }).getTracer("bench-app", "1.0.0");
await produce(tracer, N, 500);
await processor.forceFlush();
if (!(await waitUntil(() => delivered() >= N, 120_000))) throw new Error("not everything was delivered");
await processor.shutdown();
await sink.stop();
