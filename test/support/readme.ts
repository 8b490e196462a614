/**
 * README snippets, run verbatim: the first fenced code block under a heading is written to a module file and
 * imported (vitest resolves `tracewire` to the sources), in this process, so the test can look at what it did.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = new URL("../..", import.meta.url);

/** The first fenced code block after the heading whose text is `heading`. */
export function readmeBlock(heading: string): string {
  const text = readFileSync(new URL("README.md", root), "utf8");
  const at = text.search(new RegExp(`^#+ ${heading.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"));
  if (at < 0) throw new Error(`README has no heading "${heading}"`);
  const block = /```(?:ts|js|typescript|javascript)\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block) throw new Error(`README has no code block under "${heading}"`);
  return block[1]!;
}

/** Runs `code` as an ES module (top-level await allowed) and resolves when it has run. */
export async function runSnippet(name: string, code: string): Promise<void> {
  // Inside the repository (and git-ignored), so vitest transforms it like a test file.
  const dir = fileURLToPath(new URL("test/.snippets/", root));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}${name}-${process.pid}-${Date.now()}.ts`;
  writeFileSync(file, code);
  await import(/* @vite-ignore */ file);
}
