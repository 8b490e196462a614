/**
 * `npm run bench`: builds the package (the npm script does), runs every benchmark in its own Node process against
 * the built package, and writes bench/RESULTS.md — the command, date, Node version and machine first, then the
 * targets (PASS/FAIL), then each benchmark's tables (ratios first, absolute numbers after), then the hand-written
 * history in bench/NOTES.md. Benchmarks: processor throughput, op() overhead, the wrappers' overhead (the real client
 * packages against loopback servers speaking their protocols, bench/wrapper-harness.mjs: `wrapOpenAI()` on chat
 * completions and on the Responses API, `wrapAnthropic()`, `wrapGoogleGenAI()`, the `ai` 6 span mapping of
 * `tracewire/ai`, the OpenAI Agents SDK's trace processor, on a Node ≥ 22 found by bench/node22.mjs, and LangChain's
 * callback handler on a LangGraph run; the first five again on that Node, in memory, in main-thread CPU), the
 * peer-style comparison (`wrapOpenAI` on both routes against a bare OTel span with a batch processor,
 * bench/peer-overhead.mjs), where a wrapped chat call's time goes (bench/decompose.mjs, which bundles src/ with one
 * piece of the wrapper cut out per variant), memory under outage, `evaluate()` against a hand-written
 * promise pool (bench/eval-overhead.mjs), cold import time, install footprint, the size of a minified Cloudflare
 * Worker bundle, and the local service (`tracewire dev`) at 10k, 100k and 1M stored calls (bench/dev-store.mjs).
 * `bench/ab.mjs` (not run here) compares two builds side by side; bench/cg-processor.mjs and bench/cg-wrapper.mjs
 * (not run here) are the instruction-count harnesses for valgrind's callgrind (bench/NOTES.md).
 *
 * Absolute times on shared machines are noise; the ratios come from variants measured side by side, in interleaved
 * blocks, in the same process.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { node22 } from "./node22.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const benches = [
  { file: "processor.mjs", flags: ["--expose-gc"] },
  { file: "op-overhead.mjs", flags: ["--expose-gc"] },
  { file: "openai-overhead.mjs", flags: ["--expose-gc"] },
  { file: "responses-overhead.mjs", flags: ["--expose-gc"] },
  { file: "anthropic-overhead.mjs", flags: ["--expose-gc"] },
  { file: "google-overhead.mjs", flags: ["--expose-gc"] },
  { file: "ai-overhead.mjs", flags: ["--expose-gc"] },
  { file: "peer-overhead.mjs", flags: ["--expose-gc"] },
  // The same comparison's in-memory paths on Node 24, in main-thread CPU (`process.threadCpuUsage()`, Node ≥ 23.9).
  // Blocks of ≥ 100 ms: that clock lags by up to a scheduler tick (4 ms here), an error a 30 ms block feels (NOTES).
  {
    file: "peer-overhead.mjs",
    flags: ["--expose-gc"],
    args: ["--main-thread", "--mem-calls=2000", "--mem-stream-calls=300"],
    node: 22,
  },
  // The wrappers again on Node 24, in memory, in main-thread CPU: rows that resolve a few µs (wrapper-harness.mjs).
  // Calls per block so that the unwrapped client's blocks last ≥ 100 ms here (non-streaming, streams).
  ...Object.entries({
    openai: [1800, 350],
    responses: [1600, 200],
    anthropic: [2000, 800],
    google: [3500, 150],
    ai: [350, 150],
  }).map(([name, [calls, streams]]) => ({
    file: `${name}-overhead.mjs`,
    flags: ["--expose-gc"],
    args: ["--main-thread", "--rounds=30", `--calls=${calls}`, `--stream-calls=${streams}`],
    node: 22,
  })),
  // What each piece of the chat wrapper costs (it bundles src/ with esbuild, cutting one piece per variant).
  { file: "decompose.mjs", flags: ["--expose-gc"], args: ["--calls=2000"], node: 22 },
  { file: "eval-overhead.mjs", flags: [] },
  { file: "openai-agents-overhead.mjs", flags: ["--expose-gc"], node: 22 },
  { file: "langchain-overhead.mjs", flags: ["--expose-gc"] },
  { file: "outage.mjs", flags: [] },
  { file: "import-time.mjs", flags: [] },
  { file: "footprint.mjs", flags: [] },
  { file: "worker-bundle.mjs", flags: [] },
  { file: "dev-store.mjs", flags: [] },
];

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

const dist = join(root, "dist", "otel.js");
if (!existsSync(dist)) {
  console.error("dist/ is missing: run `npm run bench` (it builds first) or `npm run build`.");
  process.exit(1);
}
const stale = newestMtime(join(root, "src")) > statSync(dist).mtimeMs;
if (stale)
  console.error("warning: src/ is newer than dist/ — `npm run bench` rebuilds first; `node bench/run.mjs` does not.");

// Settings from the environment would change what is measured (queue sizes, protocol, endpoints).
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OTEL_|TRACEWIRE_)/.test(k)));

function run(bench, out, node) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      node,
      [...bench.flags, join(root, "bench", bench.file), ...(bench.args ?? []), `--out=${out}`],
      {
        cwd: root,
        env,
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`bench/${bench.file} exited with ${code}`))));
  });
}

const command =
  process.env.npm_lifecycle_event === "bench"
    ? `npm run bench  (= ${process.env.npm_lifecycle_script})`
    : `node bench/run.mjs`;
const started = new Date();
const loadBefore = loadavg();
const t0 = performance.now();
const tmp = mkdtempSync(join(tmpdir(), "tracewire-bench-"));
const results = [];
try {
  for (const bench of benches) {
    const name = [bench.file, ...(bench.args ?? [])].join(" ");
    console.error(`\n== bench/${name}`);
    const out = join(tmp, `${results.length}-${bench.file}.json`);
    const node = bench.node ? node22() : process.execPath;
    if (!node) {
      const markdown = `### bench/${name}\n\nSkipped: it needs Node ≥ ${bench.node}, and none was found (set TRACEWIRE_BENCH_NODE22).`;
      results.push({ markdown, checks: [] });
      continue;
    }
    await run(bench, out, node);
    results.push(JSON.parse(readFileSync(out, "utf8")));
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
const seconds = (performance.now() - t0) / 1000;
const loadAfter = loadavg();

const checks = results.flatMap((r) => r.checks);
// Hand-written history (what was tried and measured when), kept across runs.
const notesFile = join(root, "bench", "NOTES.md");
const notes = existsSync(notesFile) ? `\n${readFileSync(notesFile, "utf8")}` : "";
const cpu = cpus();
const md = `# Benchmark results

Generated by \`${command}\` on ${started.toISOString()}.

- Node ${process.version} (V8 ${process.versions.v8}), ${process.platform}/${process.arch}
- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"}), shared; load average ${loadBefore.map((l) => l.toFixed(2)).join(" / ")} at start, ${loadAfter.map((l) => l.toFixed(2)).join(" / ")} at end
- Benchmarks import the built package (\`tracewire\`, \`tracewire/otel\`, \`tracewire/openai\`,
  \`tracewire/anthropic\` → dist/), except bench/decompose.mjs, which bundles src/ with its cuts; the sink and the loopback model servers of the wrapper benches are separate processes.
  The footprint bench installs from \`npm pack\` of this checkout and from the npm registry.
- Total bench time ${seconds.toFixed(0)} s${stale ? " (warning: dist/ was older than src/)" : ""}.

Absolute times on this shared machine are noise: read the ratios, which come from variants measured side by side in
interleaved blocks in one process (medians over rounds).

## Targets

| result | target | measured |
| --- | --- | --- |
${checks.map((c) => `| ${c.pass ? "PASS" : "**FAIL**"} | ${c.name} | ${c.detail} |`).join("\n")}

## Details

${results.map((r) => r.markdown).join("\n\n")}
${notes}`;
writeFileSync(join(root, "bench", "RESULTS.md"), md);
console.error(`\nwrote bench/RESULTS.md in ${seconds.toFixed(0)} s`);
for (const c of checks) console.error(`${c.pass ? "PASS" : "FAIL"}  ${c.name}`);
