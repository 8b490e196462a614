/**
 * The package's public entry points, read from the two files that define them: package.json `exports` (the
 * subpaths users import) and tsup.config.ts (the source file each dist file is built from). The API reference
 * (typedoc.config.mjs) and the docs snippet runner (test/readme/snippets.ts) both take their list from here, so a
 * new subpath is picked up without editing either. A subpath whose dist file has no tsup entry is an error that
 * names it.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * `[{ specifier: "tracewire/otel", subpath: "./otel", source: "/abs/src/otel-entry.ts", web: true }, …]`, in
 * `exports` order, the root (`tracewire`) first. `web`: the subpath has Workers/edge builds (export conditions).
 */
export function publicEntries() {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  // tsup.config.ts is hand-written: its entries are `name: "src/….ts"` pairs (the name may be quoted: "eval/vitest").
  const tsup = readFileSync(join(root, "tsup.config.ts"), "utf8");
  const sources = new Map();
  for (const [, name1, name2, source] of tsup.matchAll(/(?:"([^"]+)"|([\w$]+))\s*:\s*"(src\/[^"]+\.tsx?)"/g)) {
    sources.set(name1 ?? name2, source);
  }
  const entries = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (subpath === "./package.json") continue;
    const file = typeof target === "string" ? target : target?.import?.default;
    const built = typeof file === "string" ? /^\.\/dist\/(.+)\.m?js$/.exec(file) : null;
    if (!built) {
      throw new Error(
        `package.json exports "${subpath}" has no import.default file under ./dist/ (found ${JSON.stringify(file)}): ` +
          "scripts/public-entries.mjs cannot tell which source it is built from",
      );
    }
    const source = sources.get(built[1]);
    if (!source) {
      throw new Error(
        `package.json exports "${subpath}" (./dist/${built[1]}.js) but tsup.config.ts has no entry ` +
          `"${built[1]}": "src/….ts"; add it there (the docs and the snippet runner read their entry points from both)`,
      );
    }
    entries.push({
      specifier: subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
      subpath,
      source: join(root, source),
      // Built for Workers and the edge too (a `workerd` condition); the rest are Node-only (tracewire/eval, /langchain).
      web: typeof target === "object" && target !== null && "workerd" in target,
    });
  }
  return entries;
}

/**
 * What a bundle of the package leaves to the app: every optional peer of package.json (the LLM SDKs, vitest) and
 * `next` (tracewire/next loads the app's own), each with its subpaths (`openai/*`). One list for every check that
 * bundles tracewire (scripts/check-package.mjs, test/runtimes/edge-subpaths.test.ts).
 */
export function appPackages() {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const optional = Object.entries(pkg.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta?.optional)
    .map(([name]) => name);
  return [...optional, "next"].flatMap((name) => [name, `${name}/*`]);
}
