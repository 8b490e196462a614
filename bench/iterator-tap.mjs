/**
 * What observing one stream's iterator costs, in isolation: an openai-style stream (each stream makes its iterator
 * with a generator function of its own, as openai's and Anthropic's `Stream` do) of 50 events read to the end,
 * through src/genai/stream-tap.ts — bare, shadowed in place (`tapIterator`), and through the observing iterator
 * handed out instead (`observedIterator`, what `wrapOpenAI`/`wrapAnthropic` do since the thirteenth session). The
 * hooks do nothing: this is the tap's own cost. Blocks in the balanced order (bench/lib.mjs), medians over rounds of
 * process CPU per stream. Not part of `npm run bench`.
 *
 * Run: node --expose-gc bench/iterator-tap.mjs [--streams=4000] [--rounds=12]
 */
import { arg, blockOrder, importSrc, median } from "./lib.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const STREAMS = Number(arg("streams", "4000"));
const ROUNDS = Number(arg("rounds", "12"));
const EVENTS = 50;

const { observedIterator, tapIterator } = await importSrc("iterator-tap", "genai/stream-tap");

/** A stream's iterator as openai makes it: from a generator function made for that one stream. */
function streamIterator() {
  async function* iterator() {
    for (let i = 0; i < EVENTS; i++) yield { i };
  }
  return iterator();
}
let seen = 0;
const hooks = {
  pulling() {},
  pulled() {},
  step(value) {
    seen++;
    return value;
  },
  end() {},
  returning: () => undefined,
  returned() {},
  failed() {},
};
const VARIANTS = {
  bare: (it) => it,
  "shadowed in place": (it) => {
    tapIterator(it, it.next, hooks);
    return it;
  },
  "observing iterator handed out": (it) => observedIterator(it, it.next, hooks),
};
const tags = Object.keys(VARIANTS);
const samples = new Map(tags.map((t) => [t, []]));
for (let round = 0; round < ROUNDS + 1; round++) {
  for (const k of blockOrder(tags.length, round)) {
    const observe = VARIANTS[tags[k]];
    globalThis.gc();
    const t = process.cpuUsage();
    for (let s = 0; s < STREAMS; s++) {
      const it = observe(streamIterator());
      while (!(await it.next()).done);
    }
    const d = process.cpuUsage(t);
    if (round > 0) samples.get(tags[k]).push((d.user + d.system) / STREAMS);
  }
}
if (seen === 0) throw new Error("no event observed");
const bare = median(samples.get("bare"));
console.log(`Node ${process.versions.node}, ${EVENTS}-event streams, CPU µs per stream (median of ${ROUNDS} rounds):`);
for (const tag of tags) {
  const m = median(samples.get(tag));
  console.log(`  ${tag.padEnd(30)} ${m.toFixed(2)}${tag === "bare" ? "" : ` (+${(m - bare).toFixed(2)})`}`);
}
