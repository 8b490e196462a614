/**
 * `npm run demo` prints what README.md shows under the Quickstart: the demo runs as that script runs it (a child
 * process on the built package: `scripts/build-if-stale.mjs`, then `examples/demo/index.mjs`), and its output is the
 * README's block line for line, once the ids and durations (which differ on every run) are masked.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { parseMarkdown, readDoc } from "../../scripts/markdown.mjs";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Masks what changes from run to run: trace ids, call ids and durations. */
function masked(text: string): string[] {
  return text
    .trimEnd()
    .split("\n")
    .map((line) =>
      line
        .replace(/\b[0-9a-f]{32}\b/g, "<trace id>")
        .replace(/\b[0-9a-f]{16}\b/g, "<call id>")
        .replace(/\b\d+ ms\b/g, "<n> ms"),
    );
}

it("npm run demo prints the README's output, line for line", async () => {
  const blocks = parseMarkdown(readDoc("README.md")).blocks.filter(
    (block: { lang: string; code: string }) => block.lang === "" && block.code.includes(" — 4 calls"),
  );
  expect(blocks).toHaveLength(1);
  await run(process.execPath, [join(ROOT, "scripts/build-if-stale.mjs")], { cwd: ROOT });
  const { stdout } = await run(process.execPath, [join(ROOT, "examples/demo/index.mjs")], {
    cwd: ROOT,
    env: { ...process.env, TRACEWIRE_BASE_URL: "", TRACEWIRE_API_KEY: "" },
    timeout: 60_000,
  });
  expect(masked(stdout)).toEqual(masked(blocks[0]!.code));
}, 180_000);
