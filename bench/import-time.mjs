/**
 * Cold import time of each public subpath — `tracewire`, `tracewire/otel`, `tracewire/openai`, `tracewire/next`,
 * `tracewire/api` — against `@opentelemetry/sdk-trace-base` alone (what any OTel tracing setup loads).
 *
 * Each sample is a fresh Node process (`node --input-type=module -e …`): no module cache, so every module is read,
 * parsed and evaluated; the OS file cache is warm after the first round, as it is for an app that restarts. The
 * process measures `await import(spec)` itself with `performance.now()`, so Node's own start-up is left out (it is
 * reported separately as the wall time of a process that imports nothing). Targets run in an order rotated every
 * round (interleaved); medians over rounds; ratios are medians of per-round paired ratios against sdk-trace-base.
 *
 * Run: node bench/import-time.mjs [--rounds=15]
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { arg, fmt, median, report, table } from "./lib.mjs";

const ROUNDS = Number(arg("rounds", "15"));
const WARMUP = 1;
const root = fileURLToPath(new URL("..", import.meta.url));

const BASELINE = "@opentelemetry/sdk-trace-base";
const SUBPATHS = ["tracewire", "tracewire/otel", "tracewire/openai", "tracewire/next", "tracewire/api"];
/** For scale: the HTTP client tracewire's transport is built on. */
const REFERENCE = "undici";
const TARGETS = [BASELINE, ...SUBPATHS, REFERENCE];

const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(OTEL_|TRACEWIRE_|NODE_OPTIONS)/.test(k)),
);

/** One fresh process: ms spent in `await import(spec)`, and the process's wall time. */
function sample(spec) {
  const code = spec
    ? `const t0 = performance.now(); await import(${JSON.stringify(spec)}); process.stdout.write(String(performance.now() - t0));`
    : `process.stdout.write("0");`;
  const wall0 = performance.now();
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: root, env, encoding: "utf8" });
  const wall = performance.now() - wall0;
  if (child.status !== 0) throw new Error(`importing ${spec} failed: ${child.stderr}`);
  return { importMs: Number(child.stdout), wallMs: wall };
}

const samples = new Map([...TARGETS, ""].map((t) => [t, []]));
const order = [...TARGETS, ""];
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  const rotated = order.map((_, i) => order[(i + round) % order.length]);
  for (const spec of rotated) {
    const s = sample(spec);
    if (round >= WARMUP) samples.get(spec).push(s);
  }
  if (round >= WARMUP)
    console.error(
      `round ${round}: ${TARGETS.map((t) => `${t} ${samples.get(t).at(-1).importMs.toFixed(1)}ms`).join(", ")}`,
    );
}

const importMs = (spec) => median(samples.get(spec).map((s) => s.importMs));
const wallMs = (spec) => median(samples.get(spec).map((s) => s.wallMs));
const paired = (spec) => median(samples.get(spec).map((s, i) => s.importMs / samples.get(BASELINE)[i].importMs));

const rows = TARGETS.map((spec) => [
  spec === BASELINE
    ? `\`${spec}\` (baseline)`
    : spec === REFERENCE
      ? `\`${spec}\` (reference: tracewire's HTTP client)`
      : `**\`${spec}\`**`,
  fmt.num(importMs(spec), 1),
  spec === BASELINE ? "1.00×" : fmt.ratio(paired(spec)),
  fmt.num(wallMs(spec), 0),
]);

// No target is set for import time: the numbers are reported, not judged.
const checks = [];

const markdown = `### Cold import time

Each sample is a fresh \`node --input-type=module -e 'await import(…)'\` process run from the package root (the
subpaths resolve to dist/ through the package's \`exports\`); the time is \`await import()\` measured inside the
process, so Node's own start-up is not counted. ${ROUNDS} rounds after ${WARMUP} warm-up, targets in rotated order;
medians. Ratios are medians of per-round paired ratios against \`${BASELINE}\`.

${table(["import", "ms (median)", "÷ sdk-trace-base", "process wall ms"], rows)}

A process that imports nothing: ${fmt.num(wallMs(""), 0)} ms wall (Node start-up). \`tracewire\` and
\`tracewire/otel\` load \`@opentelemetry/sdk-trace-base\` themselves (the processor is an SDK span processor), so
their ratio is the SDK plus tracewire's own code; \`tracewire/api\` is the service clients and
\`tracewire/openai\` the OpenAI wrapper. \`undici\` (tracewire's HTTP client) is measured alone for scale: no subpath
loads it at import; the first request does.`;

report({ title: "Cold import time", markdown, checks });
