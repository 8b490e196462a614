#!/usr/bin/env node
/**
 * Import check (part of `npm run lint`): the folders of src/ import one way only (ARCHITECTURE.md), and no file
 * imports itself back through a cycle.
 *
 *   instrument/ next/ server/ eval/  →  tracing/ api/ genai/  →  otel/  →  wire/  →  http/ config errors version semconv
 *
 * A file may import files of its own layer or of a layer below it, never above. One exception: `import type` from
 * src/api/types/, the declarations of the service's JSON, which every layer may name (they compile to nothing).
 * The entry files at the root of src/ (index.ts, otel-entry.ts) sit above everything.
 *
 * Usage: `node scripts/check-imports.mjs [srcDir]`. Prints one line per violation and exits 1, or prints a summary.
 * `checkImports(srcDir)` is exported for the test that proves the check bites (test/architecture.test.ts).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Layer of each top-level folder or root file of src/; higher may import lower. */
const LAYERS = {
  "errors.ts": 0,
  "config.ts": 0,
  "version.ts": 0,
  "semconv.ts": 0,
  "secrets.ts": 0,
  "secrets-json.ts": 0,
  "secrets-json-scan.ts": 0,
  "own-objects.ts": 0,
  "runtime.ts": 0,
  http: 0,
  types: 0,
  wire: 1,
  otel: 2,
  tracing: 3,
  api: 3,
  genai: 3,
  instrument: 4,
  next: 4,
  server: 4,
  eval: 4,
  "index.ts": 5,
  "otel-entry.ts": 5,
};

const LAYER_NAMES = [
  "http/config/errors/version/semconv",
  "wire",
  "otel",
  "tracing/api/genai",
  "instrument/next/server/eval",
];

function listFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full));
    else if (/\.(ts|mts|cts)$/.test(name)) out.push(full);
  }
  return out;
}

/** Relative imports of one file: `{ spec, typeOnly }`. */
function importsOf(text) {
  const found = [];
  const statement = /^\s*(?:import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?["']([^"']+)["']/gm;
  for (const m of text.matchAll(statement)) found.push({ spec: m[2], typeOnly: Boolean(m[1]) });
  for (const m of text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) found.push({ spec: m[1], typeOnly: false });
  return found.filter((i) => i.spec.startsWith("."));
}

function resolve(from, spec) {
  const target = path.resolve(path.dirname(from), spec);
  return target
    .replace(/\.js$/, ".ts")
    .replace(/\.mjs$/, ".mts")
    .replace(/\.cjs$/, ".cts");
}

/**
 * Checks a source tree; returns the violations as lines (empty when the tree follows the arrows).
 * @param {string} srcDir
 * @returns {string[]}
 */
export function checkImports(srcDir) {
  const root = path.resolve(srcDir);
  const top = (file) => path.relative(root, file).split(path.sep)[0];
  const layerOf = (file) => LAYERS[top(file)];
  const problems = [];
  const graph = new Map();
  for (const file of listFiles(root)) {
    const rel = path.relative(root, file);
    const layer = layerOf(file);
    if (layer === undefined) {
      problems.push(`${rel}: src/${top(file)} has no layer; add it to LAYERS in scripts/check-imports.mjs`);
      continue;
    }
    const edges = [];
    for (const { spec, typeOnly } of importsOf(readFileSync(file, "utf8"))) {
      const target = resolve(file, spec);
      if (!target.startsWith(root + path.sep)) continue;
      edges.push(target);
      const targetLayer = layerOf(target);
      const contract = typeOnly && path.relative(root, target).startsWith(`api${path.sep}types${path.sep}`);
      if (targetLayer !== undefined && targetLayer > layer && !contract) {
        problems.push(
          `${rel} imports ${path.relative(root, target)}: ${LAYER_NAMES[layer] ?? "entry"} may not import ` +
            `${LAYER_NAMES[targetLayer] ?? "entry"} (imports point down: ${LAYER_NAMES.slice().reverse().join(" → ")})`,
        );
      }
    }
    graph.set(file, edges);
  }
  // Cycles between files, found by depth-first search; each cycle reported once.
  const state = new Map();
  const stack = [];
  const seen = new Set();
  const visit = (file) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") {
        const cycle = stack.slice(stack.indexOf(next)).map((f) => path.relative(root, f));
        const key = [...cycle].sort().join("|");
        if (!seen.has(key)) {
          seen.add(key);
          problems.push(`import cycle: ${[...cycle, cycle[0]].join(" → ")}`);
        }
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src");
  const problems = checkImports(dir);
  for (const line of problems) console.error(`FAIL  ${line}`);
  if (problems.length > 0) process.exit(1);
  console.log("ok  imports follow the layers (scripts/check-imports.mjs)");
}
