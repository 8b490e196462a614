/**
 * After each ESM build (tsup.config.ts): drops the bare `import './chunk-X.js';` lines that esbuild's code splitting
 * adds to an entry for every chunk it depends on transitively (so browsers can fetch them in parallel). tracewire is
 * `sideEffects: false`, so a bundler is free to skip those imports — and esbuild warns once per line that it does.
 * A bare import is dropped only when the same file already reaches that chunk through the imports that bind names
 * (kept as they are), so what is evaluated, and in what order relative to its dependencies, does not change; one
 * that is not reachable that way is kept, and the bundler's warning would then point at a real side-effect import.
 * The line is emptied rather than deleted, so the source maps stay true.
 *
 * Usage: `node scripts/strip-chunk-imports.mjs <dir>…`; `stripChunkImports(dir)` for tsup's onSuccess.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BARE = /^import\s*["'](\.\/[^"']+\.js)["'];?[ \t]*$/gm;
const BINDING = /^(?:import|export)\s[^;]*?\sfrom\s*["'](\.\/[^"']+\.js)["']/gm;

/** @param {string} dir */
export function stripChunkImports(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith(".js"));
  const text = new Map(files.map((f) => [f, readFileSync(path.join(dir, f), "utf8")]));
  /** Chunks a file imports names from (the edges that stay). */
  const binds = new Map(files.map((f) => [f, [...text.get(f).matchAll(BINDING)].map((m) => path.basename(m[1]))]));
  /** Everything `file` reaches through binding imports. */
  const reach = (file) => {
    const seen = new Set();
    const stack = [...(binds.get(file) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop();
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(binds.get(next) ?? []));
    }
    return seen;
  };
  let dropped = 0;
  for (const file of files) {
    const source = text.get(file);
    if (!BARE.test(source)) continue;
    BARE.lastIndex = 0;
    const reached = reach(file);
    const out = source.replace(BARE, (line, spec) => {
      if (!reached.has(path.basename(spec))) return line;
      dropped++;
      return "";
    });
    if (out !== source) writeFileSync(path.join(dir, file), out);
  }
  return dropped;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const dir of process.argv.slice(2)) console.log(`${dir}: ${stripChunkImports(dir)} bare chunk imports dropped`);
}
