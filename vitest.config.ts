import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  // The examples import the package by name; under test they run against the sources, no build needed.
  resolve: {
    alias: [
      { find: /^tracewire$/, replacement: src("index.ts") },
      { find: /^tracewire\/openai$/, replacement: src("instrument/index.ts") },
      { find: /^tracewire\/ai$/, replacement: src("instrument/ai.ts") },
      { find: /^tracewire\/google$/, replacement: src("instrument/google-entry.ts") },
      { find: /^tracewire\/(otel|api|next|eval)$/, replacement: src("$1/index.ts") },
      { find: /^tracewire\/eval\/vitest$/, replacement: src("eval/vitest.ts") },
      { find: /^tracewire\/openai-agents$/, replacement: src("instrument/openai-agents.ts") },
      { find: /^tracewire\/langchain$/, replacement: src("instrument/langchain.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Tests start real loopback servers; two workers match CI's two cores.
    maxWorkers: 2,
  },
});
