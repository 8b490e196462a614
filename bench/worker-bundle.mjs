/**
 * Worker bundle size: `tracewire` + `tracewire/openai` bundled and minified the way wrangler bundles a Cloudflare
 * Worker (esbuild, browser platform, the `workerd`/`worker`/`browser` export conditions, Node built-ins and
 * `cloudflare:*` left to the runtime, `openai` itself left out: it is the app's own). For comparison, the same entry
 * resolved through the Node build (the `import` condition), which is what a Worker got before the `workerd` build:
 * undici and all. Sizes by package from esbuild's metafile.
 *
 * Run: node bench/worker-bundle.mjs (after `npm run build`)
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { fmt, report, table } from "./lib.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const app = mkdtempSync(join(tmpdir(), "tracewire-worker-bundle-"));
mkdirSync(join(app, "node_modules"));
symlinkSync(root, join(app, "node_modules", "tracewire"), "dir");

const ENTRY = `import { init, op } from "tracewire";
import { wrapOpenAI } from "tracewire/openai";
export default { init, op, wrapOpenAI };`;

/** Bundles the entry with `conditions`; returns total bytes, gzipped bytes and bytes per package. */
async function measure(conditions) {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: app, loader: "js" },
    bundle: true,
    write: false,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions,
    external: ["node:*", "cloudflare:*", "openai", ...NODE_BUILTINS],
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0].contents;
  const byPackage = new Map();
  for (const [file, input] of Object.entries(Object.values(result.metafile.outputs)[0].inputs)) {
    const inModules = file.split("node_modules/").pop();
    const name = !file.includes("node_modules/")
      ? file.startsWith("dist/") || file.includes("/dist/")
        ? "tracewire"
        : "(entry)"
      : inModules.startsWith("@")
        ? inModules.split("/").slice(0, 2).join("/")
        : inModules.split("/")[0];
    byPackage.set(name, (byPackage.get(name) ?? 0) + input.bytesInOutput);
  }
  return { bytes: code.byteLength, gzip: gzipSync(code).byteLength, byPackage, warnings: result.warnings.length };
}

// Unprefixed built-ins as undici and OTel's Node build require them (wrangler's nodejs_compat resolves these too).
const NODE_BUILTINS = [
  "assert",
  "async_hooks",
  "buffer",
  "child_process",
  "crypto",
  "diagnostics_channel",
  "dns",
  "events",
  "fs",
  "http",
  "http2",
  "net",
  "os",
  "path",
  "perf_hooks",
  "process",
  "querystring",
  "stream",
  "string_decoder",
  "tls",
  "url",
  "util",
  "worker_threads",
  "zlib",
  "sqlite",
];

try {
  const worker = await measure(["workerd", "worker", "browser"]);
  const node = await measure(["import", "node"]);
  const kb = (n) => `${fmt.num(n / 1024, 0)} KB`;
  const names = [...new Set([...worker.byPackage.keys(), ...node.byPackage.keys()])].sort(
    (a, b) => (node.byPackage.get(b) ?? 0) - (node.byPackage.get(a) ?? 0),
  );
  const rows = names
    .filter((n) => (worker.byPackage.get(n) ?? 0) + (node.byPackage.get(n) ?? 0) >= 512)
    .map((n) => [n, kb(worker.byPackage.get(n) ?? 0), kb(node.byPackage.get(n) ?? 0)]);
  const markdown = `### Worker bundle: \`tracewire\` + \`tracewire/openai\`

Bundled and minified as wrangler bundles a Worker (esbuild ${(await import("esbuild")).version}, browser platform,
\`openai\` left out). **workerd build** (the \`workerd\` export condition): ${kb(worker.bytes)} minified,
${kb(worker.gzip)} gzipped, ${worker.warnings} warnings. Through the Node build instead (the \`import\` condition, what a
Worker got before): ${kb(node.bytes)} minified, ${kb(node.gzip)} gzipped.

${table(["package", "workerd build", "Node build"], rows)}`;
  const noUndici = !worker.byPackage.has("undici");
  report({
    title: "Worker bundle",
    markdown,
    checks: [
      {
        name: "worker bundle of tracewire + tracewire/openai carries no undici, bundles without warnings",
        pass: noUndici && worker.warnings === 0,
        detail: `${kb(worker.bytes)} minified (${kb(worker.gzip)} gzip); Node build ${kb(node.bytes)}`,
      },
    ],
  });
} finally {
  rmSync(app, { recursive: true, force: true });
}
