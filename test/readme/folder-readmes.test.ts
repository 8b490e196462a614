/**
 * The folder READMEs under src/ (src/<folder>/README.md) are the map a newcomer reads first: every file they name
 * exists, and the "May import" sentence names every part of src/ the folder's code imports (values, not
 * `import type`), so that it can be trusted as the folder's dependencies.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/markdown.mjs";

const SRC = join(ROOT, "src");
const FOLDERS = readdirSync(SRC).filter((name) => existsSync(join(SRC, name, "README.md")));

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });

/** The parts of src/ outside `folder` that its files import as values: a folder's name, or a root file's stem. */
function importedParts(folder: string): Set<string> {
  const parts = new Set<string>();
  for (const file of walk(join(SRC, folder)).filter((f) => f.endsWith(".ts"))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"(\.[^"]+)";/gms)) {
      if (m[1]) continue;
      const target = relative(SRC, resolve(dirname(file), m[2]!));
      if (target.startsWith("..")) continue;
      const [head] = target.split("/") as [string];
      const part = target.includes("/") ? head : basename(head, ".js");
      if (part !== folder) parts.add(part);
    }
  }
  return parts;
}

describe.each(FOLDERS)("src/%s/README.md", (folder) => {
  const text = readFileSync(join(SRC, folder, "README.md"), "utf8");

  it("names only files that exist", () => {
    const files = walk(join(SRC, folder)).map((f) => relative(join(SRC, folder), f));
    const named = [...text.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]!);
    const missing = named.filter(
      (name) =>
        !files.some((f) => f === name || f.endsWith(`/${name}`)) &&
        !existsSync(join(SRC, name)) &&
        !existsSync(join(ROOT, name)) &&
        name !== "instrumentation.ts", // the app's file, in src/next/README.md
    );
    expect(missing).toEqual([]);
  });

  it("its May import sentence names every part of src/ the folder imports", () => {
    const sentence = /May import[\s\S]*?(?:\n\n|$)/.exec(text)?.[0];
    expect(sentence, "a May import sentence").toBeDefined();
    if (folder === "server") return; // "anything below it": every layer
    const allowed = new Set(
      [...sentence!.split(/\bNever\b/)[0]!.matchAll(/`([\w/-]+)`/g)].map((m) => m[1]!.split("/")[0]),
    );
    expect([...importedParts(folder)].filter((part) => !allowed.has(part)).sort()).toEqual([]);
  });
});
