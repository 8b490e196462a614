/**
 * Install footprint: what `npm install tracewire` puts in node_modules (packages and MB), against Langfuse's OTel
 * packages. tracewire is installed from the tarball `npm pack` makes of this checkout; the others from the npm
 * registry. Each install goes into its own fresh temp project with `--ignore-scripts` (nothing runs), and npm
 * installs peer dependencies as it does for users (npm ≥ 7), so each row is what a user really gets.
 *
 *   - `tracewire` (tarball): everything tracing needs — processor, OTLP exporter, op(), clients;
 *   - `@langfuse/otel`: Langfuse's span processor (and its OTel peers: api, core, sdk-trace-base,
 *     exporter-trace-otlp-http);
 *   - `@langfuse/otel` + `@langfuse/tracing`: plus the package that creates traced observations (op()'s equivalent);
 *   - the setup Langfuse documents for Node: those two plus `@opentelemetry/sdk-node`.
 *
 * Packages are counted as package directories under node_modules (nested ones included); size is `du -sk` of
 * node_modules (disk usage) and the sum of file sizes (apparent size). If the registry cannot be reached the rows it
 * needs say so and the bench still completes.
 *
 * Run: node bench/footprint.mjs
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, report, table } from "./lib.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
// The bench runs under `npm run`, whose npm_config_* variables would leak into the child npm (global mode, a
// prefix…): give the child a clean npm environment, keeping the user's own config (registry, cache) from HOME.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

/** Package directories under `dir`/node_modules, nested ones included. */
function countPackages(nodeModules) {
  let count = 0;
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.name.startsWith("@")) {
        walk(path);
        continue;
      }
      count++;
      walk(join(path, "node_modules"));
    }
  };
  walk(nodeModules);
  return count;
}

/** Sum of the sizes of every file under `dir` (apparent size). */
function apparentBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath ?? entry.path, entry.name)).size;
  }
  return total;
}

function diskKb(dir) {
  const out = execFileSync("du", ["-sk", dir], { encoding: "utf8" });
  return Number(out.split(/\s+/)[0]);
}

/** Installs `specs` into a fresh project; returns its footprint, or the reason it could not be measured. */
function install(label, specs) {
  const dir = mkdtempSync(join(tmpdir(), "tracewire-footprint-"));
  try {
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "footprint-probe", version: "1.0.0", private: true }),
    );
    const t0 = performance.now();
    const result = spawnSync(
      npm,
      ["install", ...specs, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
      { cwd: dir, env, encoding: "utf8", timeout: 180_000 },
    );
    const seconds = (performance.now() - t0) / 1000;
    if (result.status !== 0) {
      const why = (result.stderr || result.error?.message || `exit ${result.status}`)
        .trim()
        .split("\n")
        .slice(-3)
        .join(" ");
      console.error(`${label}: npm install failed: ${why}`);
      return { label, error: why };
    }
    const nodeModules = join(dir, "node_modules");
    return {
      label,
      packages: countPackages(nodeModules),
      diskKb: diskKb(nodeModules),
      apparentBytes: apparentBytes(nodeModules),
      seconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The tarball users would get from the registry: what `files` in package.json lets through, dist/ included.
const packDir = mkdtempSync(join(tmpdir(), "tracewire-pack-"));
let results;
let tarball;
try {
  const packed = JSON.parse(
    execFileSync(npm, ["pack", "--json", "--pack-destination", packDir, "--loglevel=error"], {
      cwd: root,
      env,
      encoding: "utf8",
    }),
  )[0];
  tarball = {
    file: join(packDir, packed.filename),
    size: packed.size,
    unpacked: packed.unpackedSize,
    files: packed.entryCount,
  };
  results = [
    install("`tracewire` (npm pack of this checkout)", [tarball.file]),
    install("`@langfuse/otel`", ["@langfuse/otel"]),
    install("`@langfuse/otel` + `@langfuse/tracing`", ["@langfuse/otel", "@langfuse/tracing"]),
    install("Langfuse's documented Node setup: `@langfuse/otel` `@langfuse/tracing` `@opentelemetry/sdk-node`", [
      "@langfuse/otel",
      "@langfuse/tracing",
      "@opentelemetry/sdk-node",
    ]),
  ];
} finally {
  rmSync(packDir, { recursive: true, force: true });
}

const ours = results[0];
const rows = results.map((r) =>
  r.error
    ? [r.label, "—", "—", "—", `not measured: ${r.error.replace(/\|/g, "/")}`]
    : [
        r === ours ? `**${r.label}**` : r.label,
        String(r.packages),
        fmt.mb(r.diskKb * 1024),
        fmt.mb(r.apparentBytes),
        ours.error || r === ours
          ? "—"
          : `${fmt.ratio(r.packages / ours.packages)} packages, ${fmt.ratio(r.diskKb / ours.diskKb)} disk`,
      ],
);
const registryDown = results.some((r) => r.error);

const markdown = `### Install footprint

Each row is \`npm install <packages> --ignore-scripts\` into a fresh temp project (npm ${execFileSync(npm, ["--version"], { env, encoding: "utf8" }).trim()}, peer dependencies
installed as npm does for users); tracewire from \`npm pack\` of this checkout (${fmt.int(tarball.files)} files, ${fmt.num(tarball.size / 1024, 0)} KB
packed, ${fmt.num(tarball.unpacked / 1024, 0)} KB unpacked), the others from the npm registry. Packages: package directories in node_modules
(nested included). Disk: \`du -sk node_modules\`; apparent: the sum of file sizes.

${table(["install", "packages", "disk", "apparent size", "vs tracewire"], rows)}
${registryDown ? "\nSome rows could not be measured: the npm registry refused or could not be reached (the reason is in the row).\n" : ""}
tracewire's own dependencies: \`@opentelemetry/api\` (peer), \`context-async-hooks\`, \`core\`, \`resources\`,
\`sdk-trace-base\` and \`undici\`; the inference and training clients and the OpenAI wrapper add nothing.`;

report({ title: "Install footprint", markdown, checks: [] });
