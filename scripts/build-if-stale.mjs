// Builds the package (tsup) only when dist/ is missing or older than a source file, so `npm run demo` and the
// examples start at once on a current build, and `npm install` (the `prepare` script) leaves a fresh clone with a
// working `npx tracewire dev`.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outputs = [
  "dist/cli.js",
  "dist/index.js",
  "dist/index.cjs",
  "dist/api.js",
  "dist/openai.js",
  "dist/otel.js",
  "dist/openai-agents.js",
  "dist/langchain.js",
];
const inputs = ["src", "tsup.config.ts", "package.json", "tsconfig.json"];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const built = outputs.map((p) => join(root, p));
const stale =
  built.some((p) => !existsSync(p)) ||
  Math.min(...built.map((p) => statSync(p).mtimeMs)) < Math.max(...inputs.map((p) => newest(join(root, p))));
if (stale) {
  const tsup = join(root, "node_modules", "tsup", "dist", "cli-default.js");
  if (!existsSync(tsup)) {
    console.error("build-if-stale: tsup is not installed (npm install first); dist/ is not built.");
    process.exit(process.env.npm_lifecycle_event === "prepare" ? 0 : 1);
  }
  const result = spawnSync(process.execPath, [tsup, "--silent"], { cwd: root, stdio: "inherit" });
  process.exit(result.status ?? 1);
}
