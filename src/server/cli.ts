/**
 * The `tracewire` bin. Two commands: `tracewire dev` starts the local tracing service and viewer on 127.0.0.1
 * and runs until SIGINT/SIGTERM, then stops taking requests, finishes those in flight and closes the store;
 * `tracewire eval <file…>` runs evaluation files (src/eval/cli.ts). Each command's code is imported only when it
 * runs, so `tracewire eval` never loads the local service.
 *
 * Imported rather than run (e.g. `import { startDevServer } from "../../dist/cli.js"` from a demo script in this
 * repository), it only exports the programmatic API.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ConfigError } from "../errors.js";
import { VERSION } from "../version.js";
import { DEFAULT_DATA_DIR, DEFAULT_PORT } from "./defaults.js";
import type { DevServer, DevServerOptions } from "./index.js";
import { DEFAULT_KEEP, DEFAULT_MAX_CALLS, parseKeep, parseMaxCalls } from "./retention.js";

export type { DevServer, DevServerOptions } from "./index.js";

/** Starts the local tracing service (see ./index.ts); loaded on first use. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  return (await import("./index.js")).startDevServer(options);
}

const USAGE = `Usage: tracewire dev [--port ${DEFAULT_PORT}] [--data ${DEFAULT_DATA_DIR}] [--api-key KEY] [--memory]
                    [--keep ${DEFAULT_KEEP}] [--max-calls ${DEFAULT_MAX_CALLS}]
       tracewire eval <file…> [--fail-under scorer=0.8] [--baseline <id|name>] [--json] [--resume]

Starts a local tracing service and trace viewer on 127.0.0.1. Point tracewire at it with
  TRACEWIRE_BASE_URL=http://127.0.0.1:${DEFAULT_PORT}
\`tracewire eval --help\` describes the eval command.

Options:
  --port N        port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free port)
  --data DIR      folder of the SQLite database (default ${DEFAULT_DATA_DIR})
  --api-key KEY   require "Authorization: Bearer KEY" on every API request
  --memory        keep traces in memory only (lost when the server stops)
  --keep AGE      delete traces older than AGE (like 7d, 12h, 30m, 2w; 0 keeps them forever; default ${DEFAULT_KEEP})
  --max-calls N   keep at most N calls, deleting the oldest traces first (0: no limit; default ${DEFAULT_MAX_CALLS})
                  Retention deletes traces whole, with their feedback; objects, tables and files stay.
  -h, --help      show this help
  -v, --version   show the version
`;

function fail(message: string): never {
  process.stderr.write(`tracewire: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        port: { type: "string" },
        data: { type: "string" },
        "api-key": { type: "string" },
        memory: { type: "boolean" },
        keep: { type: "string" },
        "max-calls": { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
}

async function dev(values: ReturnType<typeof parse>["values"]): Promise<void> {
  // Digits only: Number() would read "" (and "--port=") as 0, a random port, and "0x10" or "1e3" as others.
  const port = values.port === undefined ? DEFAULT_PORT : /^\d{1,5}$/.test(values.port) ? Number(values.port) : -1;
  if (port < 0 || port > 65535) fail(`--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}`);
  const apiKey = values["api-key"];
  if (apiKey !== undefined && apiKey.trim() === "") fail("--api-key must not be empty");
  let keepMs: number;
  let maxCalls: number;
  try {
    keepMs = parseKeep(values.keep);
    maxCalls = parseMaxCalls(values["max-calls"]);
  } catch (err) {
    if (err instanceof ConfigError) {
      fail(`--${err.setting === "keep" ? "keep" : "max-calls"} must be ${err.expected}, got ${err.value}`);
    }
    throw err;
  }

  let server: DevServer;
  try {
    server = await startDevServer({
      port,
      dataDir: values.data ?? DEFAULT_DATA_DIR,
      storage: values.memory ? "memory" : "sqlite",
      keep: keepMs,
      maxCalls,
      ...(apiKey ? { apiKey } : {}),
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "EADDRINUSE") fail(`port ${port} is in use: pick another with --port`);
    if (err instanceof ConfigError && err.setting === "dataDir")
      fail(`--data must be ${err.expected}, got ${err.value}`);
    throw err;
  }
  process.stdout.write(
    [
      `tracewire dev ${VERSION}: local tracing service and viewer`,
      `  viewer    ${server.url}/`,
      `  base URL  TRACEWIRE_BASE_URL=${server.url}`,
      `  storage   ${server.description}`,
      `  API key   ${apiKey ? "required (Authorization: Bearer <key>)" : "not required"}`,
      `  keeps     ${keepMs ? `traces of the last ${values.keep ?? DEFAULT_KEEP}` : "traces forever"}, ${maxCalls ? `at most ${maxCalls.toLocaleString("en-US")} calls` : "any number of calls"}`,
      "Press Ctrl+C to stop.",
      "",
    ].join("\n"),
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130); // a second Ctrl+C: do not wait
    stopping = true;
    process.stdout.write(`\n${signal}: stopping…\n`);
    server.close().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`tracewire dev: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === "eval") {
    const { runEvalCommand } = await import("../eval/cli.js");
    process.exitCode = await runEvalCommand(argv.slice(1));
    return;
  }
  const { values, positionals } = parse(argv);
  if (values.version) return void process.stdout.write(`${VERSION}\n`);
  if (values.help && positionals.length === 0) return void process.stdout.write(USAGE);
  const [command, ...rest] = positionals;
  if (command !== "dev") fail(command === undefined ? "missing command" : `unknown command ${JSON.stringify(command)}`);
  if (rest.length) fail(`unexpected argument ${JSON.stringify(rest[0])}`);
  if (values.help) return void process.stdout.write(USAGE);
  await dev(values);
}

/** Whether this module is the process's entry (through npm's bin symlink too). */
function isEntry(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntry()) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`tracewire dev: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  });
}
