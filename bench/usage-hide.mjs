/**
 * What hiding the injected `"usage": null` from a parsed chat stream costs, in isolation: 50-event streams whose
 * events are parsed from a chat completion chunk's JSON text (as the openai SDK parses each SSE event), read to the
 * end by a consumer that reads each chunk's delta, id and model, through src/genai/stream-tap.ts's observing iterator.
 * Variants: the server never asked for usage (no member to hide: the floor), the member deleted from each chunk (the
 * thirteenth session's `hideUsageInChunk`), and the chunk handed on as a copy without it (src/genai/sse-usage.ts
 * `chunkWithoutUsage`, now), for OpenAI's shape (a literal) and for another (no `service_tier`: copied member by
 * member). Blocks in the balanced order (bench/lib.mjs), medians over rounds of process CPU per
 * stream. Not part of `npm run bench`.
 *
 * Run: node --expose-gc bench/usage-hide.mjs [--streams=3000] [--rounds=12]
 */
import { arg, blockOrder, importSrc, median } from "./lib.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const STREAMS = Number(arg("streams", "3000"));
const ROUNDS = Number(arg("rounds", "12"));
const EVENTS = 50;

const { HIDDEN, observedIterator } = await importSrc("usage-hide", "genai/stream-tap");
const { chunkWithoutUsage, USAGE_ONLY } = await importSrc("usage-hide", "genai/sse-usage");

const chunkText = (i, usage, tier = true) =>
  `{"id":"chatcmpl-b","object":"chat.completion.chunk","created":1764000000,"model":"gpt-4o-mini-2024-07-18",` +
  `${tier ? '"service_tier":"default",' : ""}"system_fingerprint":"fp_b","choices":[{"index":0,"delta":` +
  `{"content":"w${i} "},"logprobs":null,"finish_reason":null}]${usage ? ',"usage":null' : ""}}`;
const WITH = Array.from({ length: EVENTS }, (_, i) => chunkText(i, true));
const WITHOUT = Array.from({ length: EVENTS }, (_, i) => chunkText(i, false));
// A shape that is not OpenAI's (no `service_tier`): copied member by member.
const OTHER = Array.from({ length: EVENTS }, (_, i) => chunkText(i, true, false));

function streamIterator(texts) {
  async function* iterator() {
    for (const text of texts) yield JSON.parse(text);
  }
  return iterator();
}
const hooks = (step) => ({
  pulling() {},
  pulled() {},
  step,
  end() {},
  returning: () => undefined,
  returned() {},
  failed() {},
});
const keep = hooks((value) => value);
const deleting = hooks((value) => {
  if (value.usage === null) delete value.usage;
  return value;
});
const copying = hooks((value) => {
  const shown = chunkWithoutUsage(value);
  return shown === USAGE_ONLY ? HIDDEN : shown;
});
const VARIANTS = {
  "no usage asked (floor)": [WITHOUT, keep],
  "usage kept (parse only)": [WITH, keep],
  "usage deleted (before)": [WITH, deleting],
  "copy without usage (now)": [WITH, copying],
  "the same again (A/A)": [WITH, copying],
  "copy, another shape (now)": [OTHER, copying],
};
const tags = Object.keys(VARIANTS);
const samples = new Map(tags.map((t) => [t, []]));
let read = 0;
for (let round = 0; round < ROUNDS + 1; round++) {
  for (const k of blockOrder(tags.length, round)) {
    const [texts, h] = VARIANTS[tags[k]];
    globalThis.gc();
    const t = process.cpuUsage();
    for (let s = 0; s < STREAMS; s++) {
      const source = streamIterator(texts);
      const it = observedIterator(source, source.next, h);
      for (let step = await it.next(); !step.done; step = await it.next()) {
        const chunk = step.value;
        if ("usage" in chunk && h !== keep) throw new Error(`${tags[k]}: the usage member reached the consumer`);
        read += chunk.choices[0].delta.content.length + chunk.id.length + chunk.model.length;
      }
    }
    const d = process.cpuUsage(t);
    if (round > 0) samples.get(tags[k]).push((d.user + d.system) / STREAMS);
  }
}
if (read === 0) throw new Error("nothing read");
const floor = median(samples.get(tags[0]));
console.log(`Node ${process.versions.node}, ${EVENTS}-event streams, CPU µs per stream (median of ${ROUNDS} rounds):`);
for (const tag of tags) {
  const m = median(samples.get(tag));
  console.log(`  ${tag.padEnd(28)} ${m.toFixed(2)}${tag === tags[0] ? "" : ` (+${(m - floor).toFixed(2)})`}`);
}
