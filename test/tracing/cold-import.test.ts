/**
 * A cold start pays only for what it uses: importing `tracewire` and `tracewire/openai` loads none of the
 * OpenTelemetry SDK packages (`sdk-trace-base`, `core`, `resources`, `context-async-hooks`, and through them
 * `semantic-conventions`) — `init()` loads them when it runs (tracing/sdk.ts) — and still gives a working `init()`.
 * Checked in a fresh process, where nothing else could have loaded them first: the library is bundled (dependencies
 * external, as in dist/) and imported by a plain script that reads Node's module cache before and after `init()`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { expect, it } from "vitest";

it("importing tracewire and tracewire/openai loads no OTel SDK package; init() loads them and traces", () => {
  // Inside the repository's node_modules, so the external packages resolve from the bundle.
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const dir = mkdtempSync(join(root, "node_modules", ".tracewire-cold-import-"));
  try {
    const src = (path: string) => JSON.stringify(fileURLToPath(new URL(`../../src/${path}`, import.meta.url)));
    const entry = join(dir, "lib.ts");
    writeFileSync(
      entry,
      [`export * as root from ${src("index.ts")};`, `export * as openai from ${src("instrument/index.ts")};`].join(
        "\n",
      ),
    );
    buildSync({
      entryPoints: [entry],
      outfile: join(dir, "lib.mjs"),
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      logLevel: "error",
    });
    const script = join(dir, "check.mjs");
    writeFileSync(
      script,
      [
        `const { createRequire } = await import("node:module");`,
        `const sdk = /[\\\\/]@opentelemetry[\\\\/](sdk-trace-base|sdk-trace|core|resources|context-async-hooks|semantic-conventions)[\\\\/]/;`,
        `const loaded = () => [...new Set(Object.keys(createRequire(import.meta.url).cache).filter((f) => sdk.test(f)).map((f) => f.match(sdk)[1]))].sort();`,
        `const { root, openai } = await import("./lib.mjs");`,
        `const atImport = loaded();`,
        `const handle = root.init({ baseUrl: "http://127.0.0.1:9/none", project: "acme/demo", env: {}, exitHooks: false });`,
        `const afterInit = loaded();`,
        `let traced = false;`,
        `await root.op(async function probe() { traced = root.getCurrentCall() !== undefined; })();`,
        `await handle.shutdown();`,
        `console.log(JSON.stringify({ atImport, afterInit, enabled: handle.enabled, traced, wrap: typeof openai.wrapOpenAI }));`,
      ].join("\n"),
    );
    const out = JSON.parse(execFileSync(process.execPath, [script], { encoding: "utf8", env: {} }).trim()) as {
      atImport: string[];
      afterInit: string[];
    };
    expect(out).toEqual({
      atImport: [],
      afterInit: ["context-async-hooks", "core", "resources", "sdk-trace", "sdk-trace-base", "semantic-conventions"],
      enabled: true,
      traced: true,
      wrap: "function",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
