/**
 * A/B of two builds of `wrapOpenAI`, for judging a change to the wrappers: this checkout's dist/ ("B") against
 * another build's dist/ ("A", e.g. a copy of dist/ from before the change, kept inside the project so that its
 * imports resolve: `cp -r dist node_modules/.cg/a`), in one process, against the same in-memory answers (see
 * `memoryFetch`) and the same `init()`. Variants: the unwrapped client, A, B, and A again as a second variant (the
 * A/A row: this harness's noise). Blocks are settled and run in a balanced order (bench/lib.mjs); the CPU of a block
 * is the main thread's (`process.threadCpuUsage()`, Node ≥ 23.9; the process's elsewhere, which is far noisier),
 * from its first call until the sink has acknowledged its items. Not part of `npm run bench`.
 *
 * Both builds share the process-wide state (the cross-copy protocol, as two bundled copies would), so both wrappers
 * record through the processor of the `init()` below, this checkout's: the A/B covers what runs in the wrapper's own
 * copy (instrument/, genai/, the payload preparation), not the processor's encoding (bench/ab.mjs covers that).
 * `--whole`: each build runs its own `init()` too, and before each block the process-wide state is pointed at that
 * build's tracer and processor (the wrappers start their spans from `state.tracer`): the A/B then covers the whole
 * path, the processor's encoding and sending included. `--b-init='<JSON>'` adds `init()` options to B's (e.g.
 * `{"captureContent":false}` to take the payloads out); `--init='<JSON>'` adds options to every build's `init()`.
 *
 * Run: node --expose-gc bench/ab-wrapper.mjs --a=node_modules/.cg/a [--b=<another dist>] [--path=stream|plain]
 *        [--rounds=20] [--calls=300 for streams, 1500 otherwise] [--whole]
 * Prints the median overhead of A and B over the unwrapped call, and the medians (with quartiles) of the per-round
 * paired differences B − A and A' − A, in µs per call.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import OpenAI from "openai";
import { init } from "tracewire";
import { arg, blockOrder, median, memoryFetch, settle, sinkOptions, startServer, startSink } from "./lib.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const other = arg("a");
if (!other) throw new Error("pass --a=<dist directory of the build to compare against>");
const load = (dist, entry, own) => (dist ? import(pathToFileURL(resolve(dist, `${entry}.js`)).href) : import(own));
const { wrapOpenAI: wrapA } = await load(other, "openai");
// `--b=<dist>`: another build as B (e.g. an experiment edited into a copy of dist/); default this checkout's.
const { wrapOpenAI: wrapB } = await load(arg("b"), "openai", "tracewire/openai");
const WHOLE = process.argv.includes("--whole");
const PATH = arg("path", "stream");
const ROUNDS = Number(arg("rounds", "20"));
// Blocks of ≥ 100 ms: the main thread's clock lags by up to a scheduler tick (bench/NOTES.md, seventh session).
const CALLS = Number(arg("calls", PATH === "stream" ? "300" : "1500"));
const IN_FLIGHT = 4;

const chat = await startServer("./openai-server.mjs");
const sink = await startSink();
/** `--init='<JSON>'`: `init()` options of every build (e.g. `{"export":"otlp"}`); `--b-init` adds B's own on top. */
const BOTH_INIT = JSON.parse(arg("init", "{}"));
init({ ...sinkOptions(sink, "/tw", 8 * CALLS), ...BOTH_INIT });
/** The process-wide state every copy of tracewire shares (otel/state.ts). */
const state = globalThis[Symbol.for("tracewire.global.v1")];
const snapshot = () => ({ handle: state.handle, tracer: state.tracer, active: state.active });
/** Per build: what its blocks record through (with `--whole`, each build's own `init()`; else this checkout's). */
const recorders = { shared: snapshot() };
if (WHOLE) {
  const { init: initA } = await load(other, "index");
  const { init: initB } = await load(arg("b"), "index", "tracewire");
  for (const [name, initX] of [
    ["A", initA],
    ["B", initB],
  ]) {
    state.handle = undefined; // so that this build's init() starts its own provider and processor
    initX({
      ...sinkOptions(sink, "/tw", 8 * CALLS),
      ...BOTH_INIT,
      ...(name === "B" ? JSON.parse(arg("b-init", "{}")) : {}),
    });
    recorders[name] = snapshot();
  }
}
const recorderOf = (tag) => (WHOLE && tag !== "unwrapped" ? recorders[tag === "B" ? "B" : "A"] : recorders.shared);
const options = {
  apiKey: "sk-bench",
  baseURL: `http://127.0.0.1:${chat.port}/v1`,
  maxRetries: 0,
  fetch: memoryFetch(),
};
const clients = {
  unwrapped: new OpenAI(options),
  A: wrapA(new OpenAI(options)),
  B: wrapB(new OpenAI(options)),
  "A'": wrapA(new OpenAI(options)),
};
const PARAMS = {
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "You are the support assistant of a travel company. Answer in one short paragraph." },
    { role: "user", content: "I booked a train from Paris to Milan next Friday. Can I take my bicycle with me?" },
  ],
  temperature: 0.2,
  max_tokens: 256,
  ...(PATH === "stream" ? { stream: true } : {}),
};

let checksum = 0;
async function one(client) {
  const answer = await client.chat.completions.create(PARAMS);
  if (PATH !== "stream") {
    checksum += answer.choices[0].message.content.length;
    return;
  }
  for await (const chunk of answer) checksum += chunk.choices[0]?.delta?.content?.length ?? 0;
}

const mainThread = typeof process.threadCpuUsage === "function";
const clock = () => (mainThread ? process.threadCpuUsage() : process.cpuUsage());
const since = (start) => {
  const d = mainThread ? process.threadCpuUsage(start) : process.cpuUsage(start);
  return d.user + d.system;
};

const TAGS = Object.keys(clients);
const samples = Object.fromEntries(TAGS.map((tag) => [tag, []]));
for (let round = 0; round <= ROUNDS; round++) {
  for (const k of blockOrder(TAGS.length, round)) {
    const tag = TAGS[k];
    context.disable();
    if (tag !== "unwrapped") context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const recorder = recorderOf(tag);
    Object.assign(state, recorder);
    await settle();
    const start = clock();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < CALLS) {
          next++;
          await one(clients[tag]);
        }
      }),
    );
    await recorder.handle.flush();
    if (round > 0) samples[tag].push(since(start) / CALLS);
  }
}
for (const recorder of new Set(Object.values(recorders).map((r) => r.handle))) await recorder.shutdown();
await Promise.all([chat.stop(), sink.stop()]);

const diff = (tag, base) => samples[tag].map((x, i) => x - samples[base][i]);
const quartiles = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted[Math.floor(sorted.length / 4)].toFixed(0)} … ${sorted[Math.floor((3 * sorted.length) / 4)].toFixed(0)}`;
};
const show = (values) => `${median(values).toFixed(1)} (quartiles ${quartiles(values)})`;
console.log(`${PATH}${WHOLE ? ", whole path (each build's own processor)" : ""}, ${mainThread ? `main-thread CPU, Node ${process.versions.node}` : "process CPU"}, µs per call:
  unwrapped ${median(samples.unwrapped).toFixed(1)}; A +${median(diff("A", "unwrapped")).toFixed(1)}, B +${median(diff("B", "unwrapped")).toFixed(1)}
  B − A  ${show(diff("B", "A"))}
  A' − A ${show(diff("A'", "A"))}  (the noise)${checksum < 0 ? "" : ""}`);
