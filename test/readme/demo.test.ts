/**
 * `npm run demo` prints what README.md shows under the Quickstart: the demo runs as that script runs it (a child
 * process on the built package: `scripts/build-if-stale.mjs`, then `examples/demo/index.mjs`), and its output is the
 * README's block line for line, once the ids and durations (which differ on every run) are masked.
 */
import { execFile, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it, vi } from "vitest";
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

it("npm run demo -- --serve keeps the viewer up on --port N; a busy port is reported in one line", async () => {
  await run(process.execPath, [join(ROOT, "scripts/build-if-stale.mjs")], { cwd: ROOT });
  // A port that is taken: the demo says so in one line and exits 1.
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const busy = (taken.address() as AddressInfo).port;
  const failed = await run(
    process.execPath,
    [join(ROOT, "examples/demo/index.mjs"), "--serve", "--port", String(busy)],
    {
      cwd: ROOT,
      timeout: 60_000,
    },
  ).then(
    () => undefined,
    (err: { code: number; stderr: string }) => err,
  );
  taken.close();
  expect(failed?.code).toBe(1);
  expect(failed?.stderr.trimEnd().split("\n")).toEqual([
    `port ${busy} is busy (another tracewire dev?): npm run demo -- --serve --port ${busy + 1}`,
  ]);

  // The port just freed: the demo serves the viewer there until stopped.
  const child = spawn(process.execPath, [join(ROOT, "examples/demo/index.mjs"), "--serve", "--port", String(busy)], {
    cwd: ROOT,
    env: { ...process.env, TRACEWIRE_BASE_URL: "", TRACEWIRE_API_KEY: "" },
  });
  try {
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    await vi.waitFor(() => expect(stdout).toContain("serving; Ctrl-C to stop"), { timeout: 60_000, interval: 100 });
    expect(stdout).toContain(`viewer: http://127.0.0.1:${busy}/  (project demo/agent)`);
    const page = await fetch(`http://127.0.0.1:${busy}/`);
    expect(page.status).toBe(200);
  } finally {
    child.kill("SIGTERM");
  }
}, 180_000);
