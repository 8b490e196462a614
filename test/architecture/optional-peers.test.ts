/**
 * The LLM SDKs and agent frameworks tracewire integrates with are optional peers: importing `tracewire` (or any of
 * its subpaths) never loads them. Checked on the sources: the import graph of each entry file (every `import`,
 * `export … from` and `import()` that is not `import type`, followed through relative imports) names no optional
 * peer. The integrations read the objects the app's SDK hands them (structurally) instead.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as {
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const OPTIONAL = Object.entries(pkg.peerDependenciesMeta)
  .filter(([, meta]) => meta.optional)
  .map(([name]) => name);

/** Every package a source file loads at run time, following its relative imports. */
function packagesLoadedBy(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    const specs: string[] = [];
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?["']([^"']+)["']/gm))
      if (!m[1]) specs.push(m[2] as string);
    for (const m of text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) specs.push(m[1] as string);
    for (const spec of specs) {
      if (spec.startsWith(".")) visit(path.resolve(path.dirname(file), spec).replace(/\.js$/, ".ts"));
      else packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : (spec.split("/")[0] as string));
    }
  };
  visit(path.join(SRC, entry));
  return packages;
}

describe("optional peers are never loaded by tracewire itself", () => {
  it("the optional peers include the agent frameworks", () => {
    expect(OPTIONAL).toEqual(expect.arrayContaining(["openai", "ai", "@anthropic-ai/sdk", "@openai/agents"]));
  });

  for (const entry of ["index.ts", "otel-entry.ts", "instrument/index.ts", "instrument/openai-agents.ts"]) {
    it(`src/${entry} loads none of them`, () => {
      const loaded = packagesLoadedBy(entry);
      expect(loaded.has("@opentelemetry/api"), "the graph was followed").toBe(true);
      expect(OPTIONAL.filter((name) => loaded.has(name))).toEqual([]);
    });
  }
});
