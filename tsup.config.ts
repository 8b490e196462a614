import { defineConfig } from "tsup";

// One entry per public subpath (DESIGN §4). Each is emitted as ESM (.js), CJS (.cjs) and declarations for both
// (.d.ts / .d.cts) so that `import` and `require` consumers each get types that match their module system.
// The `tracewire` bin (the local tracing service, `tracewire dev`) is a second build: ESM only, no declarations,
// with a #! line. Both builds run in parallel, so the library build's clean step spares the bin's files.
export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      otel: "src/otel-entry.ts",
      openai: "src/instrument/index.ts",
      anthropic: "src/instrument/anthropic-entry.ts",
      google: "src/instrument/google-entry.ts",
      ai: "src/instrument/ai.ts",
      next: "src/next/index.ts",
      api: "src/api/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    target: "node20",
    platform: "node",
    sourcemap: true,
    clean: ["!cli.js", "!cli.js.map"],
    splitting: true,
    treeshake: true,
    // `import.meta.url` in the CommonJS build too (tracing/sdk.ts loads the OTel SDK relative to its own file).
    shims: true,
    // tracewire/next loads `after` from the app's own Next.js at run time; never bundle Next itself, nor an LLM SDK.
    external: ["next", "@anthropic-ai/sdk", "@google/genai", "openai", "ai"],
  },
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
