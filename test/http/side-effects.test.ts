/**
 * Importing tracewire must not change the host process: in particular it must not install undici's Agent as the
 * global dispatcher that Node's own `fetch` (and every SDK built on it) uses. undici's index does exactly that on
 * load, so the transport imports the Pool class by its deep path. Checked in a fresh process, where nothing else
 * could have loaded undici first.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { expect, it } from "vitest";

it("importing every entry and making a request leaves the global fetch dispatcher alone", () => {
  // Inside the repository's node_modules, so the external packages resolve from the bundle.
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const dir = mkdtempSync(join(root, "node_modules", ".tracewire-side-effects-"));
  try {
    const entry = join(dir, "entry.ts");
    const src = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));
    writeFileSync(
      entry,
      [
        `import * as root from ${JSON.stringify(src("index.ts"))};`,
        `import * as otel from ${JSON.stringify(src("otel/index.ts"))};`,
        `import { TracingClient } from ${JSON.stringify(src("api/index.ts"))};`,
        `import { createServer } from "node:http";`,
        // A real request too: the deep imports must still give a working client.
        `const server = createServer((req, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end('{"ok":true}'); });`,
        `await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));`,
        `const client = new TracingClient({ baseUrl: "http://127.0.0.1:" + server.address().port, env: {} });`,
        `const answer = await client.service.health();`,
        `const symbol = Symbol.for("undici.globalDispatcher.1");`,
        `console.log(JSON.stringify({ untouched: globalThis[symbol] === undefined, answer, loaded: typeof root.init + typeof otel.TracewireSpanProcessor }));`,
        `await client.close();`,
        `server.close();`,
      ].join("\n"),
    );
    const out = join(dir, "entry.mjs");
    // Dependencies stay external, so the real undici package is what gets loaded.
    buildSync({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      logLevel: "error",
    });
    const printed = execFileSync(process.execPath, [out], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
    }).toString();
    expect(JSON.parse(printed)).toEqual({ untouched: true, answer: { ok: true }, loaded: "functionfunction" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
