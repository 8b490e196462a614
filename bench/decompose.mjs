/**
 * Where a wrapped chat call's time goes, piece by piece (#28): `wrapOpenAI` built from src/ with one piece of its work
 * cut out at a time, each cut a variant measured interleaved with the full wrapper in one process, against the same
 * in-memory answers and the same `init()` (calls route to the bench sink). `npm run bench` runs it on the Node ≥ 22
 * that bench/node22.mjs finds (Node 24 unless told otherwise).
 *
 * Why a build of its own: single A/B edits of dist/ (bench/ab-wrapper.mjs) each moved less than their noise, while
 * together they are the whole gap, so this bench measures every cut and all of them together in one run, with an A/A
 * row. The cuts (bench/decompose-cuts.mjs) are source edits that an esbuild plugin applies while bundling src/ once;
 * each edit reads a flag switched per block, so every variant runs the same code. A cut whose text no longer matches
 * src/ (or matches twice) stops the bench and names the file. The bundle is not the shipped build (the OTel SDK stays
 * external, and each edited line checks its flag), so its wrapper row is not the one of bench/openai-overhead.mjs.
 *
 * Variants: the unwrapped client; a bare span (`startActiveSpan` + `end`) and the content span (the same span carrying
 * the wrapper's data by hand, as in bench/openai-overhead.mjs) for reference; the wrapper, twice (the A/A row); the
 * wrapper with each cut; the wrapper with every cut (default list only: another file's cuts may exclude each other).
 * The context manager `init()` registers is on in every block (so the rows compare tracing, not context propagation). Blocks are settled and run in a balanced order (bench/lib.mjs). CPU: the main
 * thread's (`process.threadCpuUsage()`, Node ≥ 23.9) or with `--process` (and on older Node) the process's.
 *
 * Run: node --expose-gc bench/decompose.mjs [--rounds=<whole cycles, ≥ 12>] [--calls=2000] [--process]
 *        [--only=walk,hooks] [--cuts=<file> (the format: bench/decompose-cuts.mjs)]
 * Prints, per variant, the median CPU per call over the unwrapped call, and the median (with quartiles) of the per-round
 * paired difference to the full wrapper, in µs per call.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SpanKind, trace } from "@opentelemetry/api";
import { build } from "esbuild";
import OpenAI from "openai";
import { CHAT_PARAMS } from "./chat-request.mjs";
import {
  arg,
  blockOrder,
  median,
  memoryFetch,
  report,
  settle,
  sinkOptions,
  srcBundleOptions,
  startServer,
  startSink,
  table,
} from "./lib.mjs";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CALLS = Number(arg("calls", "2000"));
const IN_FLIGHT = 4;
const MAIN_THREAD = !process.argv.includes("--process") && typeof process.threadCpuUsage === "function";
/** `--cuts=<file>`: another list of cuts (e.g. an experiment's alternatives), `--only=a,b`: only those cuts. */
const CUSTOM_CUTS = arg("cuts");
const CUTS_FILE = resolve(CUSTOM_CUTS ?? join(ROOT, "bench", "decompose-cuts.mjs"));
const { CUTS: ALL_CUTS } = await import(pathToFileURL(CUTS_FILE).href);
const ONLY = arg("only")?.split(",");
const CUTS = ONLY ? ALL_CUTS.filter((cut) => ONLY.includes(cut.name)) : ALL_CUTS;
// Each cut is one variant, tagged by its name: names must be unique, known, and leave something to measure.
const names = ALL_CUTS.map((cut) => cut.name);
const duplicate = names.find((name, i) => names.indexOf(name) !== i || name === "all");
if (duplicate !== undefined) throw new Error(`${CUTS_FILE}: the cut name "${duplicate}" is taken (or reserved)`);
const unknown = ONLY?.find((name) => !names.includes(name));
if (unknown !== undefined) throw new Error(`--only: no cut named "${unknown}" in ${CUTS_FILE} (${names.join(", ")})`);
if (CUTS.length === 0) throw new Error(`no cut to measure (${CUTS_FILE}${ONLY ? `, --only=${ONLY}` : ""})`);

/** Bundles src/ (init + wrapOpenAI) with every cut's edits, each behind its flag; returns the bundle's exports. */
async function buildWithCuts() {
  const pending = new Set(CUTS.flatMap((cut) => cut.edits.map((_edit, i) => `${cut.name}#${i}`)));
  const outdir = join(ROOT, "node_modules", ".cache", "tracewire-decompose");
  mkdirSync(outdir, { recursive: true });
  const outfile = join(outdir, "bundle.mjs");
  await build({
    stdin: {
      contents: 'export { init } from "./src/index.ts"; export { wrapOpenAI } from "./src/instrument/openai.ts";',
      resolveDir: ROOT,
      loader: "ts",
    },
    ...srcBundleOptions(outfile),
    plugins: [
      {
        name: "cuts",
        setup(b) {
          b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
            const file = relative(ROOT, args.path).split("\\").join("/");
            let text = readFileSync(args.path, "utf8");
            for (const cut of CUTS) {
              cut.edits.forEach((edit, i) => {
                if (edit.file !== file) return;
                // Exactly once, in the text as the cuts before it left it; the replacement is inserted literally.
                const at = text.indexOf(edit.find);
                if (at === -1 || text.indexOf(edit.find, at + 1) !== -1)
                  throw new Error(
                    `cut "${cut.name}" ${at === -1 ? "no longer matches" : "matches more than once in"} ${file}: update ${CUTS_FILE}`,
                  );
                text = text.slice(0, at) + edit.replace + text.slice(at + edit.find.length);
                pending.delete(`${cut.name}#${i}`);
              });
            }
            return { contents: text, loader: "ts" };
          });
        },
      },
    ],
  });
  if (pending.size > 0) throw new Error(`cuts not applied (file not in the bundle): ${[...pending].join(", ")}`);
  return import(pathToFileURL(outfile).href);
}

const { init, wrapOpenAI } = await buildWithCuts();
const chat = await startServer("./openai-server.mjs");
const sink = await startSink();
const handle = init(sinkOptions(sink, "/tw", 8 * CALLS));
const tracer = trace.getTracer("bench-app");

const PARAMS = CHAT_PARAMS;
const clientOptions = {
  apiKey: "sk-bench",
  baseURL: `http://127.0.0.1:${chat.port}/v1`,
  maxRetries: 0,
  fetch: memoryFetch(),
};
const unwrapped = new OpenAI(clientOptions);
const wrapped = wrapOpenAI(new OpenAI(clientOptions));

let checksum = 0;
const call = async (client) => {
  const completion = await client.chat.completions.create(PARAMS);
  checksum += completion.choices[0].message.content.length;
};

/** The content span of bench/openai-overhead.mjs: the wrapper's data carried by hand on one span. */
const contentSpan = () =>
  tracer.startActiveSpan(
    "chat gpt-4o-mini",
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": PARAMS.model,
        "gen_ai.request.temperature": PARAMS.temperature,
        "gen_ai.request.max_tokens": PARAMS.max_tokens,
        "server.address": "127.0.0.1",
        "server.port": chat.port,
        "input.value": JSON.stringify(PARAMS),
      },
    },
    async (span) => {
      try {
        const answer = await unwrapped.chat.completions.create(PARAMS);
        checksum += answer.choices[0].message.content.length;
        span.setAttributes({
          "gen_ai.response.id": answer.id,
          "gen_ai.response.model": answer.model,
          "gen_ai.response.finish_reasons": [answer.choices[0].finish_reason],
          "output.value": JSON.stringify(answer),
          "gen_ai.usage.input_tokens": answer.usage.prompt_tokens,
          "gen_ai.usage.output_tokens": answer.usage.completion_tokens,
        });
      } finally {
        span.end();
      }
    },
  );

const bareSpan = () =>
  tracer.startActiveSpan("chat", { kind: SpanKind.CLIENT }, async (span) => {
    try {
      await call(unwrapped);
    } finally {
      span.end();
    }
  });

/** `cuts`: the names switched on during the block. `items`: calls-route items per call, OTLP spans per call. */
const VARIANTS = [
  { tag: "unwrapped", label: "unwrapped `openai` client", one: () => call(unwrapped), items: [0, 0] },
  { tag: "bare", label: "bare span (`startActiveSpan` + `end`), OTLP route", one: bareSpan, items: [0, 1] },
  { tag: "content", label: "content span (the wrapper's data by hand), OTLP route", one: contentSpan, items: [0, 1] },
  { tag: "wrapped", label: "**`wrapOpenAI`, calls route**", one: () => call(wrapped), items: [2, 0] },
  { tag: "wrapped'", label: "`wrapOpenAI` again (A/A)", one: () => call(wrapped), items: [2, 0] },
  ...CUTS.map((cut) => ({
    tag: `-${cut.name}`,
    label: `without ${cut.title}`,
    cuts: [cut.name],
    one: () => call(wrapped),
    items: [2, 0],
  })),
  // Every cut at once, for the default list (another file's cuts may be alternatives that exclude each other).
  ...(CUSTOM_CUTS
    ? []
    : [
        {
          tag: "-all",
          label: "without all of the above",
          cuts: CUTS.map((c) => c.name),
          one: () => call(wrapped),
          items: [2, 0],
        },
      ]),
];

const cpuNow = () => {
  const u = MAIN_THREAD ? process.threadCpuUsage() : process.cpuUsage();
  return u.user + u.system;
};

async function block(v) {
  globalThis.__twCut = new Set(v.cuts ?? []);
  const before = handle.stats();
  await settle();
  const t0 = cpuNow();
  let next = 0;
  const worker = async () => {
    while (next < CALLS) {
      next++;
      await v.one();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  await handle.flush();
  const perCall = (cpuNow() - t0) / CALLS;
  const after = handle.stats();
  const [calls, otlp] = [after.calls.sent - before.calls.sent, after.otlp.sent - before.otlp.sent];
  if (calls !== v.items[0] * CALLS || otlp !== v.items[1] * CALLS)
    throw new Error(`${v.tag}: ${calls} call items and ${otlp} spans acknowledged for ${CALLS} calls`);
  return perCall;
}

// Default: whole cycles of the balanced order (n rounds for n variants, 2n when n is odd), at least 12 rounds.
const cycle = VARIANTS.length % 2 === 0 ? VARIANTS.length : 2 * VARIANTS.length;
const ROUNDS = Number(arg("rounds", String(Math.ceil(12 / cycle) * cycle)));
if (ROUNDS % cycle !== 0) console.error(`warning: ${ROUNDS} rounds is not a whole number of cycles (${cycle})`);
const samples = new Map(VARIANTS.map((v) => [v.tag, []]));
for (let round = -1; round < ROUNDS; round++) {
  for (const k of blockOrder(VARIANTS.length, Math.max(round, 0))) {
    const v = VARIANTS[k];
    const perCall = await block(v);
    if (round >= 0) samples.get(v.tag).push(perCall);
  }
  process.stderr.write(round < 0 ? "warm-up done\n" : `round ${round + 1}/${ROUNDS}\n`);
}

const quartiles = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return [s[Math.floor((s.length - 1) / 4)], s[Math.ceil((3 * (s.length - 1)) / 4)]];
};
const paired = (a, b) => samples.get(a).map((x, i) => x - samples.get(b)[i]);
const rows = VARIANTS.map((v) => {
  const over = median(paired(v.tag, "unwrapped"));
  const gap = paired(v.tag, "wrapped");
  const [lo, hi] = quartiles(gap);
  return [
    v.label,
    median(samples.get(v.tag)).toFixed(1),
    v.tag === "unwrapped" ? "—" : over.toFixed(1),
    v.tag === "wrapped" ? "—" : `${median(gap).toFixed(1)} (${lo.toFixed(1)} … ${hi.toFixed(1)})`,
  ];
});
const clock = MAIN_THREAD
  ? `main-thread CPU, Node ${process.versions.node}`
  : `process CPU, Node ${process.versions.node}`;
const markdown = `### Where a wrapped chat call's time goes (${clock})

\`wrapOpenAI\` on chat completions (the real \`openai\` package, answers from memory, calls route to the sink), built
from src/ with one piece of its work cut out per variant (bench/decompose-cuts.mjs; a cut changes what is recorded
and exists only to weigh the piece), all variants interleaved in one process with an A/A row: ${ROUNDS} rounds of
${CALLS} calls per block, ${IN_FLIGHT} in flight, the context manager on in every block; µs per call. Command:
\`node --expose-gc bench/decompose.mjs --rounds=${ROUNDS} --calls=${CALLS}${MAIN_THREAD ? "" : " --process"}${ONLY ? ` --only=${ONLY.join(",")}` : ""}${CUSTOM_CUTS ? ` --cuts=${CUSTOM_CUTS}` : ""}\`.

${table(["variant", "CPU µs/call", "over unwrapped", "− the wrapper, per round (quartiles)"], rows)}`;
if (checksum <= 0) throw new Error("no answer was read");
report({ title: "decompose", markdown, checks: [] });
await handle.shutdown();
await Promise.all([chat.stop(), sink.stop()]);
process.exit(0);
