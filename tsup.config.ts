import { defineConfig, type Options } from "tsup";
// @ts-expect-error: plain .mjs build scripts without types.
import { runtimeVariants } from "./scripts/runtime-variants.mjs";
// @ts-expect-error: plain .mjs build scripts without types.
import { stripChunkImports } from "./scripts/strip-chunk-imports.mjs";
// @ts-expect-error: plain .mjs build scripts without types.
import { writeNotices } from "./scripts/third-party-notices.mjs";

/** Drops the redundant bare chunk imports of an ESM output directory (see scripts/strip-chunk-imports.mjs). */
const stripImports = (dir: string) => async () => {
  stripChunkImports(dir);
};

// One entry per public subpath (DESIGN §4).
const entry = {
  index: "src/index.ts",
  otel: "src/otel-entry.ts",
  openai: "src/instrument/index.ts",
  anthropic: "src/instrument/anthropic-entry.ts",
  google: "src/instrument/google-entry.ts",
  ai: "src/instrument/ai.ts",
  "openai-agents": "src/instrument/openai-agents.ts",
  next: "src/next/index.ts",
  api: "src/api/index.ts",
};
// tracewire/next loads `after` from the app's own Next.js at run time; never bundle Next itself, nor an LLM SDK.
const external = ["next", "@anthropic-ai/sdk", "@google/genai", "openai", "ai", "@openai/agents", /^@langchain\//];

/**
 * The OpenTelemetry SDK packages `init()` builds its provider from, bundled into the Node build (#28). Node pays
 * ~0.5 ms per ESM file it loads on a cold start, and these five packages are ~250 files (the whole of
 * `@opentelemetry/semantic-conventions` among them, for four constants): ~60 ms of a cold import, more than all of
 * tracewire's own code. Bundled and tree-shaken from their ESM builds they are ~55 KB in one chunk that loads in
 * ~6 ms (bench/NOTES.md). (`@opentelemetry/context-async-hooks` stays external: it has no ESM build, and its
 * few CommonJS files load in ~5 ms.) They cannot be loaded on first use instead: `init()` is synchronous, and a
 * `createRequire` at run time breaks apps bundled whole. They stay `dependencies` (the declarations name their
 * types) and nothing relies on their identity: tracewire's provider is its own, and the context keys they share
 * with the app's copies are `Symbol.for` keys of `@opentelemetry/api`, which stays external (a peer: it holds the
 * app's global registrations). dist/THIRD_PARTY_NOTICES.md names what is bundled.
 */
const bundledOtel = [
  "@opentelemetry/core",
  "@opentelemetry/resources",
  "@opentelemetry/sdk-trace",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/semantic-conventions",
];

/** A build for runtimes without Node (ESM only; types come from the Node build's declarations). */
function webBuild(outDir: string, suffixes: string[], extraExternal: string[] = []): Options {
  return {
    entry,
    outDir,
    format: ["esm"],
    dts: false,
    target: "es2022",
    platform: "neutral",
    sourcemap: true,
    clean: true,
    splitting: true,
    treeshake: true,
    external: [...external, ...extraExternal],
    esbuildPlugins: [runtimeVariants(suffixes)],
    onSuccess: stripImports(outDir),
  };
}

// Each entry is emitted as ESM (.js), CJS (.cjs) and declarations for both (.d.ts / .d.cts) so that `import` and
// `require` consumers each get types that match their module system. `dist/workerd/` and `dist/edge/` are the same
// entries for the `workerd` and `edge-light`/`worker` export conditions: `fetch` instead of undici, a portable
// context manager, and on Workers the request's `waitUntil` (see src/runtime.ts and README "Runtimes").
// The `tracewire` bin (the local tracing service, `tracewire dev`) is its own build: ESM only, no declarations,
// with a #! line. The builds run in parallel, so the library build's clean step spares the others' files.
export default defineConfig([
  {
    // Node-only subpaths, not in the web builds: tracewire/eval (JSONL files, the CLI, vitest) and tracewire/langchain
    // (loads @langchain/core through Node's module loader).
    entry: {
      ...entry,
      langchain: "src/instrument/langchain.ts",
      eval: "src/eval/index.ts",
      "eval-vitest": "src/eval/vitest.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    target: "node20",
    platform: "node",
    sourcemap: true,
    clean: ["!cli.js", "!cli.js.map", "!workerd/**", "!edge/**"],
    splitting: true,
    treeshake: true,
    // vitest is an optional peer of tracewire/eval/vitest only.
    external: [...external, "vitest"],
    noExternal: bundledOtel,
    // The bundled OTel packages from their ESM builds, in both formats: their CommonJS builds `require` the
    // external `@opentelemetry/api`, which an ESM output cannot do.
    esbuildOptions(options) {
      options.mainFields = ["module", "main"];
    },
    onSuccess: async () => {
      stripChunkImports("dist");
      writeNotices("dist", bundledOtel);
    },
  },
  webBuild("dist/workerd", ["workerd", "edge"], ["cloudflare:workers"]),
  webBuild("dist/edge", ["edge"]),
  {
    entry: { cli: "src/server/cli.ts" },
    format: ["esm"],
    dts: false,
    target: "node20",
    platform: "node",
    sourcemap: true,
    clean: false,
    splitting: false,
    treeshake: true,
    banner: { js: "#!/usr/bin/env node" },
    // SQLite drivers are optional and loaded at run time (node:sqlite, or better-sqlite3 when installed).
    external: ["better-sqlite3"],
  },
]);
