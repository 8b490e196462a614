/**
 * The import check of `npm run lint` (scripts/check-imports.mjs), run as lint runs it: on this repo's src/ it
 * passes, and on a small tree that imports against the arrows, or in a cycle, it fails and names the file.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const script = path.resolve(import.meta.dirname, "../../scripts/check-imports.mjs");
const run = (dir?: string) => spawnSync(process.execPath, dir ? [script, dir] : [script], { encoding: "utf8" });

const scratch = mkdtempSync(path.join(tmpdir(), "tracewire-imports-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(name: string, files: Record<string, string>): string {
  const root = path.join(scratch, name, "src");
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe("scripts/check-imports.mjs", () => {
  it("passes on this repository's src/", () => {
    const result = run();
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("fails on an upward import (wire → otel) and on a file cycle, naming both", () => {
    const root = tree("upward", {
      "otel/queue.ts": 'import { write } from "../wire/writer.js";\nexport const queue = write;\n',
      "wire/writer.ts": 'import { queue } from "../otel/queue.js";\nexport const write = () => queue;\n',
    });
    const result = run(root);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("wire/writer.ts imports otel/queue.ts: wire may not import otel");
    expect(result.stderr).toContain("import cycle: ");
    expect(result.stderr).not.toContain("otel/queue.ts imports");
  });

  it("fails when the pipeline imports the GenAI core, but lets any layer name the service's JSON types", () => {
    const root = tree("genai", {
      "genai/chat.ts": "export const chat = 1;\n",
      "api/types/calls.ts": "export interface CallStart { id: string }\n",
      "otel/processor.ts":
        'import type { CallStart } from "../api/types/calls.js";\nimport { chat } from "../genai/chat.js";\n' +
        "export const start = (s: CallStart) => chat + s.id.length;\n",
    });
    const result = run(root);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("otel/processor.ts imports genai/chat.ts");
    expect(result.stderr).not.toContain("api/types/calls.ts");
  });
});
