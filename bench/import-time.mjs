/**
 * Cold import cost of each public subpath, and of the setups a serverless function would compare: `openai` alone,
 * `openai` + `tracewire` + `tracewire/openai`, `openai` + LangSmith's OpenAI wrapper (`langsmith/wrappers/openai`, the
 * lightest peer measured in #28), and the bare OTel SDK (`@opentelemetry/sdk-trace-base`).
 *
 * Each sample is a fresh Node process (`node --input-type=module -e …`) run from the package root (subpaths resolve to
 * dist/ through the package's `exports`): no module cache, so every module is read, parsed and evaluated; the OS file
 * cache is warm after the first round, as it is for a function that restarts. A process that imports nothing
 * (`node -e 0`, the same script with no import) runs in the same rounds, and every figure is paired against it: the
 * process's own CPU (user + system, `process.resourceUsage()` at its end) and its wall time, minus those of the
 * `node -e 0` process of the same round — the whole cost of the import to a cold process, Node's start-up taken out.
 * The time spent inside `await import()` (measured by the process with `performance.now()`) is shown too. Targets run
 * in an order rotated every round; medians over rounds of the per-round differences.
 *
 * Target (#28): `tracewire` + `tracewire/openai` add no more to a process that imports `openai` than LangSmith's
 * wrapper does (paired per round: (tw − openai) − (langsmith − openai) ≤ 0).
 *
 * Also reported: the package's unpacked size (`npm pack --dry-run`).
 *
 * Run: node bench/import-time.mjs [--rounds=21]
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { arg, fmt, median, report, table } from "./lib.mjs";

const ROUNDS = Number(arg("rounds", "21"));
const WARMUP = 1;
const root = fileURLToPath(new URL("..", import.meta.url));

const SUBPATHS = [
  "tracewire",
  "tracewire/otel",
  "tracewire/openai",
  "tracewire/anthropic",
  "tracewire/google",
  "tracewire/ai",
  "tracewire/next",
  "tracewire/api",
];
const OPENAI = "openai";
const TW_OPENAI = "openai + tracewire + tracewire/openai";
const LANGSMITH = "openai + langsmith/wrappers/openai";
const OTEL = "@opentelemetry/sdk-trace-base";
const NOTHING = "node -e 0";
const TARGETS = {
  [NOTHING]: [],
  ...Object.fromEntries(SUBPATHS.map((s) => [s, [s]])),
  [OPENAI]: ["openai"],
  [TW_OPENAI]: ["openai", "tracewire", "tracewire/openai"],
  [LANGSMITH]: ["openai", "langsmith/wrappers/openai"],
  [OTEL]: [OTEL],
};
const NAMES = Object.keys(TARGETS);

const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(OTEL_|TRACEWIRE_|NODE_OPTIONS|LANGSMITH_|LANGCHAIN_)/.test(k)),
);

/** One fresh process: ms inside the imports, its own CPU ms at exit, and its wall ms seen from here. */
function sample(specs) {
  const code = `const t0 = performance.now(); ${specs.map((s) => `await import(${JSON.stringify(s)});`).join(" ")} const ms = performance.now() - t0; const r = process.resourceUsage(); process.stdout.write(JSON.stringify({ ms, cpu: (r.userCPUTime + r.systemCPUTime) / 1000 }));`;
  const wall0 = performance.now();
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: root, env, encoding: "utf8" });
  const wall = performance.now() - wall0;
  if (child.status !== 0) throw new Error(`importing ${specs.join(", ")} failed: ${child.stderr}`);
  const { ms, cpu } = JSON.parse(child.stdout);
  return { importMs: ms, cpuMs: cpu, wallMs: wall };
}

const samples = new Map(NAMES.map((t) => [t, []]));
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  for (let k = 0; k < NAMES.length; k++) {
    const name = NAMES[(k + round) % NAMES.length];
    const s = sample(TARGETS[name]);
    if (round >= WARMUP) samples.get(name).push(s);
  }
  if (round >= WARMUP)
    console.error(
      `round ${round}: ${NAMES.map((t) => `${t} ${samples.get(t).at(-1).cpuMs.toFixed(0)}ms`).join(", ")} (CPU)`,
    );
}

/** Per-round differences of `field` between two targets. */
const diffs = (a, b, field) => samples.get(a).map((s, i) => s[field] - samples.get(b)[i][field]);
const over = (name, field, base = NOTHING) => median(diffs(name, base, field));

const rows = NAMES.filter((n) => n !== NOTHING).map((name) => [
  SUBPATHS.includes(name) ? `**\`${name}\`**` : `\`${name}\``,
  fmt.num(over(name, "cpuMs"), 1),
  fmt.num(over(name, "wallMs"), 1),
  fmt.num(median(samples.get(name).map((s) => s.importMs)), 1),
]);

// The target: what tracewire + tracewire/openai add over openai, against what LangSmith's wrapper adds over openai.
const twOverOpenai = over(TW_OPENAI, "cpuMs", OPENAI);
const lsOverOpenai = over(LANGSMITH, "cpuMs", OPENAI);
const paired = median(diffs(TW_OPENAI, LANGSMITH, "cpuMs"));
const twWall = over(TW_OPENAI, "wallMs", OPENAI);
const lsWall = over(LANGSMITH, "wallMs", OPENAI);

// The package's unpacked size, as npm would publish it.
let size = "—";
try {
  const pack = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: root,
    encoding: "utf8",
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  });
  const [info] = JSON.parse(pack.stdout);
  size = `${fmt.mb(info.unpackedSize)} unpacked in ${fmt.int(info.entryCount)} files (${fmt.mb(info.size)} packed)`;
} catch (err) {
  size = `not measured (${err.message})`;
}

const checks = [
  {
    name: "cold import: `tracewire` + `tracewire/openai` add no more CPU to a process importing `openai` than LangSmith's OpenAI wrapper",
    pass: paired <= 0,
    detail: `+${fmt.num(twOverOpenai, 1)} ms vs LangSmith +${fmt.num(lsOverOpenai, 1)} ms of process CPU over \`openai\` alone (paired per round: ${fmt.num(paired, 1)} ms); wall +${fmt.num(twWall, 1)} vs +${fmt.num(lsWall, 1)} ms`,
  },
];

const markdown = `### Cold import time

Each sample is a fresh \`node --input-type=module -e 'await import(…)'\` process run from the package root (the
subpaths resolve to dist/ through the package's \`exports\`), paired with a process that imports nothing
(\`node -e 0\`, the same script without the import) in the same round: the columns are the process's own CPU (user +
system at its exit) and its wall time minus those of that process, i.e. what the import adds to a cold start with
Node's own start-up taken out; the last column is the time inside \`await import()\`. ${ROUNDS} rounds after
${WARMUP} warm-up, targets in rotated order; medians of the per-round differences.

${table(["import", "CPU ms over `node -e 0`", "wall ms over `node -e 0`", "ms inside `import()`"], rows)}

A process that imports nothing: ${fmt.num(median(samples.get(NOTHING).map((s) => s.cpuMs)), 0)} ms of CPU,
${fmt.num(median(samples.get(NOTHING).map((s) => s.wallMs)), 0)} ms wall. Over \`openai\` alone, \`tracewire\` +
\`tracewire/openai\` add ${fmt.num(twOverOpenai, 1)} ms of CPU (${fmt.num(twWall, 1)} ms wall); LangSmith's
\`langsmith/wrappers/openai\` adds ${fmt.num(lsOverOpenai, 1)} ms (${fmt.num(lsWall, 1)} ms wall); paired per round,
tracewire − LangSmith = ${fmt.num(paired, 1)} ms. The OpenTelemetry SDK packages \`init()\` builds
its provider from are bundled into tracewire's Node build (one tree-shaken chunk instead of ~250 files; only
\`@opentelemetry/api\` and \`@opentelemetry/context-async-hooks\` are loaded as packages: bench/NOTES.md, #28);
undici is loaded by the first request.

Package size: ${size}.`;

report({ title: "Cold import time", markdown, checks });
