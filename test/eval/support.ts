/**
 * What the evaluation tests share: the local tracing service (`tracewire dev`'s server, in memory), the OpenAI
 * stand-in, tracing pointed at the service, a wrapped `openai` client (no retries of its own: the evaluation's
 * retries are under test), and readers of what the service stored.
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import OpenAI from "openai";
import { afterAll, beforeAll } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import type { CallSchema } from "../../src/api/types/calls.js";
import { init, type TracewireHandle } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";
import { OpenAIServer } from "../support/openai-server.js";

export const quiet = { warn() {}, error() {} };

export interface EvalSetup {
  service: DevServer;
  standIn: OpenAIServer;
  tracing: TracewireHandle;
  client: TracingClient;
  openai: OpenAI;
  project: string;
  logs: string[];
  /** Every call of a trace, oldest first. */
  trace(traceId: string): Promise<CallSchema[]>;
}

/** Starts the service, the stand-in and tracing for `project` before the file's tests; stops them after. */
export function setupEval(project = "acme/evals"): EvalSetup {
  const setup = { project, logs: [] as string[] } as EvalSetup;
  beforeAll(async () => {
    setup.service = await startDevServer({ port: 0, storage: "memory", logger: quiet });
    setup.standIn = await OpenAIServer.start();
    setup.tracing = init({
      baseUrl: setup.service.url,
      project,
      env: {},
      scheduledDelayMillis: 20,
      logger: { warn: (m) => setup.logs.push(m), error: (m) => setup.logs.push(m) },
    });
    setup.client = new TracingClient({ baseUrl: setup.service.url, project, env: {} });
    setup.openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: setup.standIn.baseURL, maxRetries: 0 }));
  });
  afterAll(async () => {
    await setup.tracing.shutdown();
    await setup.client.close();
    await setup.standIn.close();
    await setup.service.close();
  });
  setup.trace = async (traceId) => {
    const calls: CallSchema[] = [];
    for await (const call of setup.client.calls.streamQuery({ filter: { trace_ids: [traceId] } })) calls.push(call);
    return calls;
  };
  return setup;
}

/** The name in an op ref (`weave:///e/p/op/<name>:<digest>` → `<name>`). */
export function opName(call: CallSchema): string {
  const m = /\/op\/([^:]+):/.exec(call.op_name);
  return m ? m[1]! : call.op_name;
}

/** Children of `parent` among `calls`. */
export const childrenOf = (calls: CallSchema[], parent: CallSchema) => calls.filter((c) => c.parent_id === parent.id);

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * tracewire as a user's project gets it, without waiting for tsup: the bin and the entries a user's evaluation
 * files import (`tracewire`, `tracewire/eval`, `tracewire/openai`), bundled from the sources with esbuild into a
 * package in `.test-tmp/…/node_modules/tracewire`, next to a copy of `fixtures` (so their imports of `tracewire/…`
 * resolve to it, and `openai` to this repository's). Not under `node_modules/`: Node refuses to strip the types of a
 * `.ts` file there, as `tracewire eval` does for a user's `.ts` evaluation file. Returns the bin and the fixtures'
 * folder.
 */
export function packageForCli(fixtures: string): { bin: string; dir: string; root: string } {
  const cache = join(ROOT, ".test-tmp");
  mkdirSync(cache, { recursive: true });
  const root = mkdtempSync(join(cache, "tracewire-pkg-"));
  const pkg = join(root, "node_modules", "tracewire");
  mkdirSync(pkg, { recursive: true });
  buildSync({
    entryPoints: {
      cli: join(ROOT, "src/server/cli.ts"),
      index: join(ROOT, "src/index.ts"),
      eval: join(ROOT, "src/eval/index.ts"),
      openai: join(ROOT, "src/instrument/index.ts"),
    },
    outdir: join(pkg, "dist"),
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "error",
    external: ["openai", "vitest", "better-sqlite3"],
    banner: { js: 'import { createRequire as __tw_cr } from "node:module"; const require = __tw_cr(import.meta.url);' },
  });
  const entry = (name: string) => ({ import: `./dist/${name}.js` });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "tracewire",
      type: "module",
      bin: { tracewire: "./dist/cli.js" },
      exports: { ".": entry("index"), "./eval": entry("eval"), "./openai": entry("openai") },
    }),
  );
  const dir = join(root, "evals");
  cpSync(fixtures, dir, { recursive: true });
  return { bin: join(pkg, "dist", "cli.js"), dir, root };
}
