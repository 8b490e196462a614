import { defineConfig } from "tsup";

// One entry per public subpath (DESIGN §4). Each is emitted as ESM (.js), CJS (.cjs) and declarations for both
// (.d.ts / .d.cts) so that `import` and `require` consumers each get types that match their module system.
export default defineConfig({
  entry: {
    index: "src/index.ts",
    otel: "src/otel/index.ts",
    openai: "src/instrument/index.ts",
    next: "src/next/index.ts",
    api: "src/api/index.ts",
  },
  format: ["esm", "cjs"],
  dts: true,
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: true,
});
