/**
 * Importing tracewire must not change the host process: in particular it must not install undici's Agent as the
 * global dispatcher that Node's own `fetch` (and every SDK built on it) uses. undici's index does exactly that on
 * load, so the transport imports the Pool class and the request API by their deep paths. Checked in a fresh process,
 * where nothing else could have loaded undici first: the library is bundled (dependencies external) and imported
 * dynamically by a plain script that looks at the global before and after. Node's own `node:http` may set the
 * global on some versions (Node 24 does), so the script loads it only after the check.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { expect, it } from "vitest";

it("importing every entry leaves the global fetch dispatcher alone and loads undici only with the first request", () => {
  // Inside the repository's node_modules, so the external packages resolve from the bundle.
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const dir = mkdtempSync(join(root, "node_modules", ".tracewire-side-effects-"));
  try {
    const src = (path: string) => JSON.stringify(fileURLToPath(new URL(`../../src/${path}`, import.meta.url)));
    const entry = join(dir, "lib.ts");
    writeFileSync(
      entry,
      [
        `export * as root from ${src("index.ts")};`,
        `export * as otel from ${src("otel-entry.ts")};`,
        `export * as api from ${src("api/index.ts")};`,
      ].join("\n"),
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
        `const symbol = Symbol.for("undici.globalDispatcher.1");`,
        `const before = globalThis[symbol];`,
        `const { root, otel, api } = await import("./lib.mjs");`,
        `const untouched = globalThis[symbol] === before;`,
        // undici itself is loaded by the first request, not at import (cold start).
        `const { createRequire } = await import("node:module");`,
        `const undiciLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => /[\\/]undici[\\/]/.test(f));`,
        `const undiciAtImport = undiciLoaded();`,
        // A real request too: the deep imports must still give a working client.
        `const { createServer } = await import("node:http");`,
        `const server = createServer((req, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end('{"ok":true}'); });`,
        `await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));`,
        `const client = new api.TracingClient({ baseUrl: "http://127.0.0.1:" + server.address().port, env: {} });`,
        `const answer = await client.service.health();`,
        `await client.close();`,
        `server.close();`,
        `console.log(JSON.stringify({ before: before === undefined ? "unset" : "set", untouched, undiciAtImport, undiciAfterRequest: undiciLoaded(), answer, loaded: typeof root.init + typeof otel.TracewireSpanProcessor }));`,
      ].join("\n"),
    );
    const printed = execFileSync(process.execPath, [script], { cwd: root }).toString();
    expect(JSON.parse(printed)).toEqual({
      before: "unset",
      untouched: true,
      undiciAtImport: false,
      undiciAfterRequest: true,
      answer: { ok: true },
      loaded: "functionfunction",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
