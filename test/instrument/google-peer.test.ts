/**
 * `@google/genai` is an optional peer: neither `tracewire` nor `tracewire/google` loads it. Each entry is bundled
 * from the sources (every module of ours inlined, packages left external) and the imports the bundle keeps are
 * read from esbuild's metafile: the SDK is not among them, so nothing of ours can load it, at import time or later.
 * A fresh process then imports both bundles and wraps a client-shaped object: the wrapper needs only the client.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { expect, it } from "vitest";

it("importing tracewire or tracewire/google never loads @google/genai", async () => {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const dir = mkdtempSync(join(root, "node_modules", ".tracewire-google-peer-"));
  try {
    const entries = { index: "src/index.ts", google: "src/instrument/google-entry.ts" };
    const result = await build({
      entryPoints: Object.fromEntries(Object.entries(entries).map(([name, path]) => [name, join(root, path)])),
      outdir: dir,
      outExtension: { ".js": ".mjs" },
      bundle: true,
      splitting: true,
      platform: "node",
      format: "esm",
      packages: "external",
      metafile: true,
      logLevel: "error",
    });
    const kept = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.filter((path) => path.startsWith("@google/"))).toEqual([]);

    // Both entries load and wrap a client-shaped object in a process that never imports the SDK.
    const script = join(dir, "check.mjs");
    writeFileSync(
      script,
      [
        `const { init } = await import("./index.mjs");`,
        `const { wrapGoogleGenAI } = await import("./google.mjs");`,
        `const client = { models: { generateContent: async (p) => ({ candidates: [], echo: p.model }) } };`,
        `const answer = await wrapGoogleGenAI(client).models.generateContent({ model: "m", contents: "hi" });`,
        `console.log(JSON.stringify({ init: typeof init, echo: answer.echo }));`,
      ].join("\n"),
    );
    const printed = execFileSync(process.execPath, [script], { cwd: root }).toString();
    expect(JSON.parse(printed)).toEqual({ init: "function", echo: "m" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
