/**
 * docs/getting-started.md "Working on tracewire itself" says what `bash .ci/run` runs: every npm script that CI
 * script runs is named there, and every npm script the page names exists in package.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../../scripts/markdown.mjs";

const page = readFileSync(join(ROOT, "docs/getting-started.md"), "utf8");
const section = page.slice(page.indexOf("## Working on tracewire itself")).replace(/\s+/g, " ");
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts,
);

it("names every npm script .ci/run runs", () => {
  const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
  const run = new Set([...ci.matchAll(/^\s*(?:[A-Z_]+=\S+ )*npm run (\S+)/gm)].map((m) => m[1]!));
  expect(run.size).toBeGreaterThan(4);
  const unnamed = [...run].filter((script) => !section.includes(`npm run ${script}`));
  expect(unnamed).toEqual([]);
});

it("names only npm scripts that exist", () => {
  const named = [...page.matchAll(/`npm run ([\w:-]+)/g)].map((m) => m[1]!);
  expect(named.filter((script) => !scripts.includes(script))).toEqual([]);
});
