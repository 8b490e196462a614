#!/usr/bin/env node
/**
 * Packaging check (`npm run check:package`): proves that the tarball we would publish works for its consumers.
 * Run it after `npm run build`. It needs no network: npm packs a local folder, publint and attw read the tarball,
 * and the scratch consumer gets its dependencies by symlink from this repo's node_modules.
 *
 *   1. dist/ holds every file the `exports` map names; the CJS build has no `import.meta`, the ESM build no
 *      `require()`, and every source map carries its sources (src/ is not shipped).
 *   2. `npm pack` into a temp folder; the tarball holds only dist/, package.json and the docs.
 *   3. publint (strict) on the tarball.
 *   4. attw on the tarball: every subpath of `exports` resolves to real types under node10, node16 (from CJS and
 *      from ESM) and bundler, with no problem reported.
 *   5. A scratch consumer with the tarball unpacked into node_modules/tracewire:
 *      consumer.mjs (node, `import` of every subpath), consumer.cjs (node, `require` of every subpath), and
 *      `tsc --noEmit`, strict, skipLibCheck off, on consumer-esm.mts + consumer-cjs.cts (nodenext), a bundler
 *      resolution file and a node10 resolution file.
 *   6. Every subpath bundled from the consumer by esbuild three ways, each without a warning: for Node, as wrangler
 *      bundles a Cloudflare Worker (the `workerd` condition) and as Next bundles edge code (`edge-light`).
 *
 * Prints one `ok  …` line per check and stops at the first failure with `FAIL  …` and exit code 1.
 * `--keep` leaves the temp folder in place (its path is printed) for poking at a failure.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { appPackages, publicEntries } from "./public-entries.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const keep = process.argv.includes("--keep");

/**
 * What each public subpath must provide. Runtime: `name` must be exported with `typeof` === `kind` (and equal
 * `value` when given). Types: `types(m)` returns statements about the module bound to `m`; each subpath also
 * gets a `@ts-expect-error` line (`bad(m)`) that only type-checks if the declarations are real, not `any`.
 * A new subpath in `exports` needs an entry here; the check fails until it has one.
 */
const PROBES = {
  ".": {
    name: "TracewireError",
    kind: "function",
    types: (m) => [
      `const rootCtor: typeof ${m}.TracewireError = ${m}.TracewireError;`,
      `const rootIsa = (e: import("tracewire").ConfigError): ${m}.TracewireError => e;`,
    ],
    bad: (m) => `const rootBad: ${m}.ConfigError = 0;`,
  },
  "./otel": {
    name: "ATTR_GEN_AI_OPERATION_NAME",
    kind: "string",
    value: "gen_ai.operation.name",
    types: (m) => [`const otelAttr: "gen_ai.operation.name" = ${m}.ATTR_GEN_AI_OPERATION_NAME;`],
    bad: (m) => `const otelBad: number = ${m}.ATTR_GEN_AI_OPERATION_NAME;`,
  },
  "./openai": {
    name: "VERSION",
    kind: "string",
    value: pkg.version,
    types: (m) => [`const openaiVersion: string = ${m}.VERSION;`],
    bad: (m) => `const openaiBad: number = ${m}.VERSION;`,
  },
  "./anthropic": {
    name: "wrapAnthropic",
    kind: "function",
    types: (m) => [
      `const wrapA: <T extends object>(client: T, options?: ${m}.WrapAnthropicOptions) => T = ${m}.wrapAnthropic;`,
    ],
    bad: (m) => `const anthropicBad: number = ${m}.wrapAnthropic;`,
  },
  "./google": {
    name: "wrapGoogleGenAI",
    kind: "function",
    types: (m) => [
      `const wrapG: <T extends object>(client: T, options?: ${m}.WrapGoogleGenAIOptions) => T = ${m}.wrapGoogleGenAI;`,
    ],
    bad: (m) => `const googleBad: number = ${m}.wrapGoogleGenAI;`,
  },
  "./ai": {
    name: "tracewireTelemetry",
    kind: "function",
    types: (m) => [`const aiTelemetry: ${m}.TracewireTelemetry = ${m}.tracewireTelemetry();`],
    bad: (m) => `const aiBad: number = ${m}.tracewireTelemetry();`,
  },
  "./openai-agents": {
    name: "tracewireTraceProcessor",
    kind: "function",
    types: (m) => [`const agentsProcessor: ${m}.TracewireTraceProcessor = ${m}.tracewireTraceProcessor();`],
    bad: (m) => `const agentsBad: number = ${m}.tracewireTraceProcessor();`,
  },
  "./langchain": {
    name: "instrumentLangChain",
    kind: "function",
    types: (m) => [`const lcHandler: ${m}.TracewireCallbackHandler = new ${m}.TracewireCallbackHandler();`],
    bad: (m) => `const lcBad: number = new ${m}.TracewireCallbackHandler();`,
  },
  "./next": {
    name: "VERSION",
    kind: "string",
    value: pkg.version,
    types: (m) => [`const nextVersion: string = ${m}.VERSION;`],
    bad: (m) => `const nextBad: number = ${m}.VERSION;`,
  },
  "./eval": {
    name: "evaluate",
    kind: "function",
    types: (m) => [
      `const evalRun: (o: ${m}.EvaluateOptions<{ q: string }, string>) => Promise<${m}.EvaluationResult<{ q: string }, string>> = ${m}.evaluate;`,
    ],
    bad: (m) => `const evalBad: ${m}.EvaluationResult = 0;`,
  },
  "./eval/vitest": {
    name: "describeEval",
    kind: "function",
    // vitest is ESM only: from CommonJS, requiring this entry fails with vitest's own message.
    cjsError: "Vitest cannot be imported in a CommonJS module",
    types: (m) => [`const describeIt: (name: string, body: () => void) => void = ${m}.describeEval;`],
    bad: (m) => `const describeBad: number = ${m}.describeEval;`,
  },
  "./api": {
    name: "TracingClient",
    kind: "function",
    types: (m) => [
      `const makeClient = (o: ${m}.TracingClientOptions): ${m}.TracingClient => new ${m}.TracingClient(o);`,
      `const clientType: import("tracewire/api").TracingClient | undefined = undefined;`,
    ],
    bad: (m) => `const clientBad: ${m}.TracingClient = {};`,
  },
};

/** attw's resolution modes; all four must resolve every subpath to declarations. */
const RESOLUTIONS = ["node10", "node16-cjs", "node16-esm", "bundler"];
/** What may be published besides dist/ (npm adds package.json, README and LICENSE files by itself). */
const ALLOWED_OUTSIDE_DIST = /^(package\.json|README(\.md)?|CHANGELOG(\.md)?|LICEN[CS]E(\.md|\.txt)?|NOTICE)$/i;

class CheckFailed extends Error {}

function ok(line) {
  console.log(`ok  ${line}`);
}

function fail(what, detail) {
  throw new CheckFailed(`${what}${detail ? `\n${indent(String(detail).trimEnd())}` : ""}`);
}

function indent(text) {
  return text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

/** The environment for child processes: no TRACEWIRE_/OTEL_ settings or NODE_OPTIONS leaking into probes. */
function childEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("TRACEWIRE_") || k.startsWith("OTEL_") || k === "NODE_OPTIONS") continue;
    env[k] = v;
  }
  return { ...env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false", ...extra };
}

function run(cmd, args, options = {}) {
  const res = spawnSync(cmd, args, {
    encoding: "utf8",
    env: childEnv(),
    maxBuffer: 64 * 1024 * 1024,
    shell: process.platform === "win32" && cmd === "npm",
    ...options,
  });
  if (res.error) fail(`could not start ${cmd}`, res.error.message);
  return {
    code: res.status ?? 1,
    stdout: res.stdout ?? "",
    stderr: res.stderr ?? "",
    output: `${res.stdout}${res.stderr}`,
  };
}

function bin(name) {
  const path = join(root, "node_modules", ".bin", name);
  if (!existsSync(path)) fail(`${name} is not installed`, `expected ${relative(root, path)}: run \`npm ci\` first.`);
  return path;
}

/** Every file path the exports map (and main/module/types/typesVersions) points at. */
function packageTargets() {
  const targets = new Map();
  const walk = (value, where) => {
    if (typeof value === "string") targets.set(value.replace(/^\.\//, ""), where);
    else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) walk(v, Array.isArray(value) ? `${where}[${k}]` : `${where}.${k}`);
    }
  };
  walk(pkg.exports, "exports");
  for (const field of ["main", "module", "types", "bin"]) if (pkg[field]) walk(pkg[field], field);
  if (pkg.typesVersions) walk(pkg.typesVersions, "typesVersions");
  return targets;
}

function subpaths() {
  const fromExports = Object.keys(pkg.exports ?? {}).filter((s) => s !== "./package.json");
  for (const s of fromExports) {
    if (!PROBES[s]) fail(`exports has "${s}" but scripts/check-package.mjs has no probe for it`, "add it to PROBES.");
  }
  for (const s of Object.keys(PROBES)) {
    if (!fromExports.includes(s))
      fail(`PROBES lists "${s}" but package.json exports does not`, "remove it or export it.");
  }
  return fromExports;
}

const specOf = (subpath) => (subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`);

// 1. dist/ -------------------------------------------------------------------------------------------------------

function checkDist() {
  const dist = join(root, "dist");
  if (!existsSync(dist)) fail("dist/ is missing", "run `npm run build` first.");
  for (const [file, where] of packageTargets()) {
    if (file === "package.json") continue;
    if (!existsSync(join(root, file))) fail(`${file} (package.json ${where}) is missing`, "run `npm run build` first.");
  }
  for (const file of Object.values(typeof pkg.bin === "string" ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {}))) {
    if (!readFileSync(join(root, file), "utf8").startsWith("#!")) fail(`bin ${file} lacks a #! line`);
  }
  const files = readdirSync(dist, { recursive: true }).map(String);
  for (const file of files.filter((f) => f.endsWith(".cjs"))) {
    const text = readFileSync(join(dist, file), "utf8");
    if (/\bimport\.meta\b|\bimport_meta\b/.test(text)) {
      fail(`dist/${file} uses import.meta, which is empty in CommonJS`, "set `shims: true` in tsup.config.ts.");
    }
  }
  for (const file of files.filter((f) => f.endsWith(".js"))) {
    const text = readFileSync(join(dist, file), "utf8");
    if (text.includes("Dynamic require of")) {
      fail(`dist/${file} calls require(), which throws in the ESM build`, "use an import instead.");
    }
  }
  // The Node build bundles the OTel SDK packages init() builds from (tsup.config.ts `bundledOtel`, #28): a package
  // it loads at run time instead costs a cold start ~0.5 ms per file of it.
  const loadsAtRunTime =
    /(?:from\s*|require\(|import\()["'](@opentelemetry\/(?!api["']|context-async-hooks["'])[^"']+)["']/;
  for (const file of files.filter((f) => /^[^/]+\.c?js$/.test(f) && f !== "cli.js")) {
    const found = readFileSync(join(dist, file), "utf8").match(loadsAtRunTime);
    if (found) fail(`dist/${file} loads ${found[1]} at run time`, "add it to `bundledOtel` in tsup.config.ts.");
  }
  if (!existsSync(join(dist, "THIRD_PARTY_NOTICES.md")))
    fail("dist/THIRD_PARTY_NOTICES.md is missing", "run `npm run build`.");
  for (const file of files.filter((f) => f.endsWith(".map"))) {
    const map = JSON.parse(readFileSync(join(dist, file), "utf8"));
    const sources = map.sources ?? [];
    const contents = map.sourcesContent ?? [];
    if (sources.some((_, i) => typeof contents[i] !== "string")) {
      fail(`dist/${file} points at sources without embedding them`, "src/ is not published: keep sourcesContent.");
    }
  }
  ok(
    `dist/ complete (${files.length} files; CJS without import.meta, ESM without require, the OTel SDK bundled with its notices, maps self-contained)`,
  );
}

// 2. npm pack ----------------------------------------------------------------------------------------------------

function pack(tmp) {
  const res = run("npm", ["pack", "--json", "--pack-destination", tmp], {
    cwd: root,
    env: childEnv({ npm_config_offline: "true" }),
  });
  if (res.code !== 0) fail("npm pack failed", res.output);
  let info;
  try {
    info = JSON.parse(res.stdout.slice(res.stdout.indexOf("[")))[0];
  } catch {
    fail("could not read npm pack's JSON output", res.output);
  }
  const tarball = join(tmp, info.filename);
  const paths = info.files.map((f) => f.path);
  const stray = paths.filter((p) => !p.startsWith("dist/") && !ALLOWED_OUTSIDE_DIST.test(p));
  if (stray.length)
    fail("the tarball holds files outside dist/", `${stray.join("\n")}\n(check "files" in package.json)`);
  for (const [file, where] of packageTargets()) {
    if (!paths.includes(file)) fail(`the tarball lacks ${file} (package.json ${where})`);
  }
  ok(`npm pack ${info.filename} (${paths.length} files, ${(info.size / 1024).toFixed(1)} kB)`);
  return tarball;
}

// 3. publint -----------------------------------------------------------------------------------------------------

function publint(tarball) {
  const res = run(process.execPath, [bin("publint"), "run", tarball, "--strict", "--level", "suggestion"], {
    cwd: root,
  });
  if (res.code !== 0) fail("publint found problems", res.output);
  const notes = res.output
    .split("\n")
    .filter((l) => l.trim() && !/^(Running publint|Unpacking tarball|Packing files|Linting|All good)/.test(l.trim()));
  ok("publint (strict)");
  if (notes.length) console.log(indent(notes.join("\n")));
}

// 4. attw --------------------------------------------------------------------------------------------------------

function attw(tarball, expected) {
  // No rule is ignored. node10 (TypeScript's `moduleResolution: node`, still common in older projects) does not
  // read `exports`; the `typesVersions` map in package.json points it at each subpath's .d.cts.
  const args = [bin("attw"), tarball, "--profile", "strict", "--format", "json", "--no-color"];
  const res = run(process.execPath, args, { cwd: root });
  let report;
  try {
    report = JSON.parse(res.stdout);
  } catch {
    fail("attw did not run", res.output);
  }
  const { analysis } = report;
  if (!analysis.types) fail("attw: the package ships no types");
  const problems = report.problems && typeof report.problems === "object" ? Object.values(report.problems).flat() : [];
  const explain = () => {
    const table = run(process.execPath, [bin("attw"), tarball, "--profile", "strict", "--format", "ascii"], {
      cwd: root,
      env: childEnv({ FORCE_COLOR: "0" }),
    });
    return table.output;
  };
  if (res.code !== 0 || problems.length) {
    const node10 = problems.some((p) => p.kind === "NoResolution" && p.resolutionKind === "node10");
    const hint = node10
      ? "\nnode10 ignores `exports`: give each subpath an entry in package.json `typesVersions`."
      : "";
    fail("attw found problems", `${explain()}${hint}`);
  }
  for (const subpath of expected) {
    const entry = analysis.entrypoints[subpath];
    if (!entry) fail(`attw did not see ${specOf(subpath)}`, explain());
    for (const kind of RESOLUTIONS) {
      const resolution = entry.resolutions?.[kind]?.resolution;
      if (!resolution?.isTypeScript) fail(`attw: ${specOf(subpath)} has no types under ${kind}`, explain());
      const wantExt = kind === "node16-esm" || kind === "bundler" ? ".d.ts" : ".d.cts";
      if (!resolution.fileName.endsWith(wantExt)) {
        fail(`attw: ${specOf(subpath)} under ${kind} resolves to ${resolution.fileName}, expected a ${wantExt} file`);
      }
    }
    ok(`attw ${specOf(subpath)} (${RESOLUTIONS.join(", ")})`);
  }
}

// 5. consumers ---------------------------------------------------------------------------------------------------

function setUpConsumer(tmp, tarball) {
  const dir = join(tmp, "consumer");
  const modules = join(dir, "node_modules");
  const target = join(modules, pkg.name);
  mkdirSync(target, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "consumer", version: "0.0.0", private: true })}\n`,
  );
  const untar = run("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"]);
  if (untar.code !== 0) fail("could not unpack the tarball", untar.output);

  // The package's own dependencies and peers, plus @types/node for the TypeScript checks, linked from this repo.
  const links = [
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
    ...Object.keys(pkg.optionalDependencies ?? {}),
    "@types/node",
  ];
  for (const name of new Set(links)) {
    const from = join(root, "node_modules", name);
    if (!existsSync(from)) fail(`${name} is not installed in this repo`, "run `npm ci` first.");
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(from, join(modules, name), "junction");
  }

  // A node_modules folder above the consumer would let an undeclared dependency resolve by accident.
  for (let up = dirname(dir); up !== dirname(up); up = dirname(up)) {
    if (existsSync(join(up, "node_modules"))) {
      console.log(`note: ${join(up, "node_modules")} exists above the consumer; undeclared dependencies may slip by`);
    }
  }
  ok(`consumer set up (node_modules/${pkg.name} from the tarball; ${[...new Set(links)].join(", ")} linked)`);
  return dir;
}

/** The runtime consumer, as ESM (`import`) or CJS (`require`). Prints its own `ok` lines. */
function runtimeConsumer(format) {
  const esm = format === "esm";
  const probes = subpaths().map((s) => ({ spec: specOf(s), ...PROBES[s], types: undefined, bad: undefined }));
  const load = esm ? "await import(spec)" : "require(spec)";
  const where = esm ? "fileURLToPath(import.meta.resolve(spec))" : "require.resolve(spec)";
  const verb = esm ? "esm import" : "cjs require";
  const ext = esm ? ".js" : ".cjs";
  return `${esm ? 'import { fileURLToPath } from "node:url";' : '"use strict";'}
const probes = ${JSON.stringify(probes, null, 2)};
function fail(what, detail) {
  console.error(\`${verb} \${what}: \${String(detail).split("\\n").join("\\n    ")}\`);
  process.exit(1);
}
async function main() {
  for (const { spec, name, kind, value, cjsError } of probes) {
    let mod;
    try {
      mod = ${load};
    } catch (err) {
      if (${esm ? "false" : "cjsError && String(err && err.message).includes(cjsError)"}) {
        console.log(\`ok  ${verb} \${spec}: refused as expected (\${cjsError})\`);
        continue;
      }
      fail(spec, err && err.stack ? err.stack : err);
    }
    if (typeof mod[name] !== kind) fail(spec, \`export \${name} is \${typeof mod[name]}, expected a \${kind}\`);
    if (value !== undefined && mod[name] !== value) fail(spec, \`\${name} is \${JSON.stringify(mod[name])}, expected \${JSON.stringify(value)}\`);
    const file = ${where};
    if (!file.endsWith(${JSON.stringify(ext)})) fail(spec, \`resolved to \${file}, expected the ${format.toUpperCase()} build (*${ext})\`);
    console.log(\`ok  ${verb} \${spec}\`);
  }
  // Subpaths share one copy of the error classes: what tracewire/api throws is tracewire's ConfigError.
  const spec = "tracewire/api";
  const root = ${esm ? 'await import("tracewire")' : 'require("tracewire")'};
  const api = ${esm ? "await import(spec)" : "require(spec)"};
  let thrown;
  try {
    new api.TracingClient({ baseUrl: "not a url", env: {} });
  } catch (err) {
    thrown = err;
  }
  if (!(thrown instanceof root.ConfigError) || !(thrown instanceof root.TracewireError)) {
    fail(spec, \`a bad baseUrl should throw tracewire's ConfigError, got: \${thrown && thrown.stack ? thrown.stack : thrown}\`);
  }
  const client = new api.TracingClient({ baseUrl: "http://127.0.0.1:9", env: {} });
  await client.close();
  console.log("ok  ${verb} tracewire/api: throws tracewire's own ConfigError; a client opens and closes");
}
main().catch((err) => fail("(unexpected)", err && err.stack ? err.stack : err));
`;
}

// 6. bundles -----------------------------------------------------------------------------------------------------

/** Every subpath through esbuild: for Node, for Workers (wrangler's conditions), for the edge (Next's). */
function bundleConsumers(dir, expected) {
  const { buildSync } = createRequire(import.meta.url)(join(root, "node_modules", "esbuild"));
  const exportsOf = (list) => list.map((s, i) => `export * as m${i} from "${specOf(s)}";`).join("\n");
  // Workers and the edge get the subpaths built for them; Node-only ones (no `workerd` condition) are left out.
  const web = new Set(
    publicEntries()
      .filter((e) => e.web)
      .map((e) => e.subpath),
  );
  const peers = appPackages();
  const setups = [
    ["Node", { platform: "node", external: peers }],
    [
      "workerd",
      {
        platform: "browser",
        conditions: ["workerd", "worker", "browser"],
        external: [...peers, "node:*", "cloudflare:*"],
      },
    ],
    [
      "edge-light",
      { platform: "browser", conditions: ["edge-light", "worker", "browser"], external: [...peers, "node:*"] },
    ],
  ];
  for (const [name, options] of setups) {
    let result;
    try {
      result = buildSync({
        stdin: {
          contents: exportsOf(name === "Node" ? expected : expected.filter((s) => web.has(s))),
          resolveDir: dir,
          loader: "js",
        },
        bundle: true,
        write: false,
        format: "esm",
        logLevel: "silent",
        ...options,
      });
    } catch (err) {
      fail(`esbuild (${name}) could not bundle the subpaths`, (err.errors ?? [err]).map((e) => e.text ?? e).join("\n"));
    }
    if (result.warnings.length > 0) {
      fail(
        `esbuild (${name}) warns about the package`,
        result.warnings.map((w) => `${w.text} (${w.location?.file})`).join("\n"),
      );
    }
    ok(`esbuild bundles every subpath for ${name} without a warning`);
  }
}

function runConsumers(dir) {
  writeFileSync(join(dir, "consumer.mjs"), runtimeConsumer("esm"));
  writeFileSync(join(dir, "consumer.cjs"), runtimeConsumer("cjs"));
  for (const file of ["consumer.mjs", "consumer.cjs"]) {
    const res = run(process.execPath, [file], { cwd: dir });
    process.stdout.write(res.stdout);
    if (res.code !== 0) fail((res.stderr || res.stdout).trim() || `node ${file} exited with code ${res.code}`);
  }
}

/** TypeScript sources: `import * as` (esm) or `import = require` (cjs) of every subpath, then the type probes. */
function typeConsumer(style, prefix = "m") {
  const lines = [];
  const body = [];
  subpaths().forEach((subpath, i) => {
    const m = `${prefix}${i}`;
    const spec = specOf(subpath);
    lines.push(style === "esm" ? `import * as ${m} from "${spec}";` : `import ${m} = require("${spec}");`);
    const probe = PROBES[subpath];
    body.push(
      `// ${spec}`,
      ...probe.types(m),
      "// @ts-expect-error the declarations must be real types, not any",
      probe.bad(m),
    );
  });
  // A block scopes the probes, so that two styles can share one file without clashing names.
  return `${lines.join("\n")}\n\n{\n${body.map((l) => `  ${l}`).join("\n")}\n}\n`;
}

function typecheck(dir) {
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  if (!existsSync(tsc)) fail("typescript is not installed", "run `npm ci` first.");
  const strict = {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: ["node"],
    target: "ES2022",
    lib: ["ES2023"],
    noUnusedLocals: false,
  };
  writeFileSync(join(dir, "consumer-esm.mts"), `${typeConsumer("esm")}export {};\n`);
  writeFileSync(join(dir, "consumer-cjs.cts"), typeConsumer("cjs"));
  writeFileSync(join(dir, "consumer-bundler.ts"), `${typeConsumer("esm", "e")}\n${typeConsumer("cjs", "r")}`);
  writeFileSync(join(dir, "consumer-node10.ts"), typeConsumer("cjs"));
  const configs = [
    ["nodenext ESM", "consumer-esm.mts", { module: "nodenext", moduleResolution: "nodenext" }],
    ["nodenext CJS", "consumer-cjs.cts", { module: "nodenext", moduleResolution: "nodenext" }],
    ["bundler (import and require)", "consumer-bundler.ts", { module: "preserve", moduleResolution: "bundler" }],
    ["node10", "consumer-node10.ts", { module: "commonjs", moduleResolution: "node10" }],
  ];
  for (const [label, file, options] of configs) {
    const config = `tsconfig.${file.replace(/\W/g, "-")}.json`;
    writeFileSync(
      join(dir, config),
      JSON.stringify({ compilerOptions: { ...strict, ...options }, files: [file] }, null, 2),
    );
    const res = run(process.execPath, [tsc, "-p", config, "--pretty", "false"], { cwd: dir });
    if (res.code !== 0) fail(`tsc ${label} (${file}) failed`, res.output);
    ok(`tsc ${label}: ${file} (strict, skipLibCheck off)`);
  }
}

// main -----------------------------------------------------------------------------------------------------------

const tmp = mkdtempSync(join(tmpdir(), "tracewire-pack-"));
let cleaned = false;
function cleanUp() {
  if (cleaned) return;
  cleaned = true;
  if (keep) console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    cleanUp();
    process.exit(130);
  });
}

let exitCode = 0;
try {
  const expected = subpaths();
  checkDist();
  const tarball = pack(tmp);
  publint(tarball);
  attw(tarball, expected);
  const dir = setUpConsumer(tmp, tarball);
  runConsumers(dir);
  typecheck(dir);
  bundleConsumers(dir, expected);
  console.log(`package check passed: ${expected.map(specOf).join(", ")}`);
} catch (err) {
  exitCode = 1;
  if (err instanceof CheckFailed) console.error(`FAIL  ${err.message}`);
  else console.error(`FAIL  check-package.mjs crashed\n${indent(err?.stack ?? String(err))}`);
} finally {
  cleanUp();
}
process.exit(exitCode);
