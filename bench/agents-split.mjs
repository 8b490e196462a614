/**
 * Where the Agents SDK row's cost goes (not part of `npm run bench`): the SDK's own tracing (its spans and trace
 * objects, built once any processor is registered) against tracewire's processor on top of it. Variants, in a
 * balanced order per round, main-thread CPU (Node ≥ 23.9), answers from memory, 4 runs in flight:
 *   off       the SDK's tracing off (`setTracingDisabled(true)`): the row's "unwrapped";
 *   off'      the same again (A/A: this harness's noise);
 *   sdk-noop  tracing on with one processor that does nothing: what the SDK itself spends on tracing;
 *   tracewire tracing on with `tracewireTraceProcessor()` only, calls route to the bench sink (flushed per block).
 * Run: node --expose-gc bench/agents-split.mjs [--rounds=20] [--calls=300]
 */

import { Agent, OpenAIProvider, Runner, setTraceProcessors, setTracingDisabled } from "@openai/agents";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import OpenAI from "openai7";
import { init } from "tracewire";
import { tracewireTraceProcessor } from "tracewire/openai-agents";
import {
  arg,
  blockOrder,
  countingLogger,
  median,
  medianInterval,
  memoryFetch,
  settle,
  sinkOptions,
  startServer,
  startSink,
} from "./lib.mjs";

const ROUNDS = Number(arg("rounds", "20"));
const CALLS = Number(arg("calls", "300"));
const server = await startServer("./openai-server.mjs");
const sink = await startSink();
const handle = init({ ...sinkOptions(sink, "/oa", 16 * CALLS), logger: countingLogger() });
const client = new OpenAI({
  apiKey: "sk-bench",
  baseURL: `http://127.0.0.1:${server.port}/v1`,
  maxRetries: 0,
  fetch: memoryFetch(),
});
const agent = new Agent({
  name: "Support",
  instructions: "You are the support assistant of a travel company.",
  model: "gpt-4o-mini",
  modelSettings: { temperature: 0.2 },
});
const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client }) });
const noop = {
  onTraceStart: async () => {},
  onTraceEnd: async () => {},
  onSpanStart: async () => {},
  onSpanEnd: async () => {},
  shutdown: async () => {},
  forceFlush: async () => {},
};
const tw = tracewireTraceProcessor();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const VARIANTS = {
  off: () => {
    setTracingDisabled(true);
  },
  "off'": () => {
    setTracingDisabled(true);
  },
  "sdk-noop": () => {
    setTracingDisabled(false);
    setTraceProcessors([noop]);
  },
  tracewire: () => {
    setTracingDisabled(false);
    setTraceProcessors([tw]);
  },
};
const TAGS = Object.keys(VARIANTS);
let checksum = 0;
async function block(tag) {
  VARIANTS[tag]();
  await settle();
  const t0 = process.threadCpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < CALLS) {
        next++;
        const r = await runner.run(agent, "Can I take my bicycle on the train?");
        checksum += r.finalOutput.length;
      }
    }),
  );
  if (tag === "tracewire") await handle.flush();
  const d = process.threadCpuUsage(t0);
  return (d.user + d.system) / CALLS;
}
const samples = Object.fromEntries(TAGS.map((t) => [t, []]));
for (let round = 0; round <= ROUNDS; round++) {
  for (let k = 0; k < TAGS.length; k++) {
    const tag = TAGS[blockOrder(TAGS.length, round)[k]];
    const v = await block(tag);
    if (round > 0) samples[tag].push(v);
  }
}
const diff = (a, b) => samples[a].map((x, i) => x - samples[b][i]);
const show = (label, d) => {
  const [lo, hi] = medianInterval(d);
  console.log(`${label}: ${median(d).toFixed(1)} µs (90% ${lo.toFixed(1)} … ${hi.toFixed(1)})`);
};
console.log(
  `Node ${process.versions.node}, ${ROUNDS} rounds × ${CALLS} runs, main-thread CPU µs per run; off = ${median(samples.off).toFixed(1)}`,
);
show("A/A off' − off", diff("off'", "off"));
show("SDK's own tracing (sdk-noop − off)", diff("sdk-noop", "off"));
show("tracewire's processor (tracewire − sdk-noop)", diff("tracewire", "sdk-noop"));
show("tracing on with tracewire (tracewire − off)", diff("tracewire", "off"));
if (checksum === 0) throw new Error("the runs answered nothing");
await handle.shutdown();
await Promise.all([server.stop(), sink.stop()]);
