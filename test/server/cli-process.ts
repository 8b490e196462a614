/**
 * Runs the real `tracewire` bin (or a fixture around the server) in a child process. Tests run without a build, so
 * the entry is bundled with esbuild into `node_modules/.cache/` (inside the repository, so that the optional
 * `better-sqlite3` driver still resolves from the bundle).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Bundles `entry` (default: the bin) into a runnable script; returns its path. */
export function buildCli(entry = join(ROOT, "src", "server", "cli.ts")): string {
  const cache = join(ROOT, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const outfile = join(mkdtempSync(join(cache, "tracewire-cli-")), "cli.mjs");
  buildSync({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "error",
    // A `require` for the CommonJS dependencies a bundled fixture pulls in (OpenTelemetry's).
    banner: { js: 'import { createRequire as __tw_cr } from "node:module"; const require = __tw_cr(import.meta.url);' },
  });
  return outfile;
}

/** Removes a script made by {@link buildCli}. */
export function removeBuilt(script: string | undefined): void {
  if (script) rmSync(dirname(script), { recursive: true, force: true });
}

export interface CliRun {
  child: ChildProcess;
  /** Everything printed so far. */
  output(): string;
  /** The service URL from the startup banner. */
  url: Promise<string>;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function runCli(script: string, args: string[]): CliRun {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const match = /viewer\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then(({ code, signal }) =>
      reject(new Error(`tracewire exited (${code ?? signal}) before it was ready:\n${text}`)),
    );
    setTimeout(() => reject(new Error(`tracewire was not ready after 15 s:\n${text}`)), 15_000).unref();
  });
  url.catch(() => {});
  return { child, output: () => text, url, exited };
}
