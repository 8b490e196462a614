/**
 * tracewire beyond Node, each runtime from its own binary, against the local tracing service and the chat stand-in in
 * this Node process: the traced app of test/runtimes/app/traced-app.mjs (an app span, two concurrent outer → inner
 * ops, a wrapped `openai` call in each) must arrive whole, every call under the right parent.
 * - Cloudflare workerd (`nodejs_compat`): the package bundled as wrangler bundles it (the `workerd` condition),
 *   tracing set up at module scope, and no flush by the app: the calls leave through `cloudflare:workers`' waitUntil.
 * - Vercel's edge runtime, set up like Next's sandbox, the package bundled as Next bundles edge code (`edge-light`).
 * - Bun and Deno run the package as installed; Deno without env access for tracewire (`--allow-env` only for the
 *   variables the `openai` client reads) and with network access to the two local servers only.
 * The binaries come from scripts/fetch-runtimes.sh (npm platform packages), so this runs only with
 * TRACEWIRE_RUNTIMES=1: `npm run test:runtimes`, and in .ci/run.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs helper without types.
import { startStandIn } from "../../examples/openai/stand-in.mjs";
import { TracingClient } from "../../src/api/index.js";
import type { CallSchema } from "../../src/api/types/calls.js";
import { docBlock } from "../readme/snippets.js";
import { startService, type TestService } from "../server/helpers.js";
import { collect } from "../support/collect.js";
import { APP_DIR, bundle, edgeSandbox, expectAppTrace, ROOT } from "./harness.js";

const run = promisify(execFile);
const enabled = process.env.TRACEWIRE_RUNTIMES === "1";
const PROJECT = "acme/runtimes";
/** What the `openai` client reads from the environment in its constructor (Deno grants exactly these). */
const OPENAI_ENV = [
  "OPENAI_ADMIN_KEY",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "OPENAI_CUSTOM_HEADERS",
  "OPENAI_LOG",
  "OPENAI_ORG_ID",
  "OPENAI_PROJECT_ID",
  "OPENAI_WEBHOOK_SECRET",
];

let service: TestService;
let standIn: { url: string; close(): Promise<void> };
let client: TracingClient;
let binaries: Record<string, string> = {};
let work: string;
const children: ChildProcess[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** Runs a binary to its end; resolves with its output, rejects (with the output) on a non-zero exit. */
function runBinary(file: string, args: string[], cwd = ROOT): Promise<string> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(file, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH } });
    children.push(child);
    let output = "";
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    child.on("exit", (code) => (code === 0 ? resolveRun(output) : reject(new Error(`exit ${code}: ${output}`))));
  });
}

/** Serves `code` as a module worker on a free loopback port (compatibility date 2026-08-04: `nodejs_compat` on). */
async function serveWorker(code: string, bindings: Record<string, string>) {
  const dir = mkdtempSync(join(work, "worker-"));
  writeFileSync(join(dir, "worker.js"), code);
  const port = await freePort();
  const text = (s: string) => JSON.stringify(s);
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2026-08-04",
  bindings = [ ${Object.entries(bindings)
    .map(([name, value]) => `(name = ${text(name)}, text = ${text(value)})`)
    .join(", ")} ],
  globalOutbound = "loopback",
);
`,
  );
  const server = spawn(binaries.workerd!, ["serve", "config.capnp"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  children.push(server);
  let output = "";
  server.stdout!.on("data", (d) => (output += d));
  server.stderr!.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}/`;
  for (const started = Date.now(); ; ) {
    if (server.exitCode !== null) throw new Error(`workerd exited: ${output}`);
    const up = await new Promise<boolean>((done) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.end();
        done(true);
      });
      socket.on("error", () => done(false));
    });
    if (up) break;
    if (Date.now() - started > 20_000) throw new Error(`workerd did not come up: ${output}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  return { url, output: () => output };
}

const appConfig = (runtime: string) => ({ baseUrl: service.url, openaiUrl: standIn.url, project: PROJECT, runtime });

describe.skipIf(!enabled)("runtimes beyond Node (workerd, Vercel edge, Bun, Deno)", () => {
  beforeAll(async () => {
    const fetched = await run("bash", [join(ROOT, "scripts/fetch-runtimes.sh")], { cwd: ROOT });
    binaries = Object.fromEntries(
      fetched.stdout
        .trim()
        .split("\n")
        .map((line) => line.split("=") as [string, string]),
    );
    // The apps import the package by name: its exports, hence dist/.
    await run(process.execPath, [join(ROOT, "scripts/build-if-stale.mjs")], { cwd: ROOT });
    service = await startService({ storage: "memory" });
    standIn = await startStandIn();
    client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
    work = mkdtempSync(join(tmpdir(), "tracewire-runtimes-"));
  }, 300_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await client?.close();
    await service?.close();
    await standIn?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("workerd: bundled as wrangler does, set up at module scope, flushed through cloudflare:workers' waitUntil", async () => {
    const worker = await bundle(join(APP_DIR, "worker.mjs"), "workerd");
    expect(worker.warnings).toEqual([]);
    const served = await serveWorker(worker.code, {
      TRACEWIRE_BASE_URL: service.url,
      OPENAI_BASE_URL: standIn.url,
      TRACEWIRE_PROJECT: PROJECT,
    });
    const response = await fetch(served.url);
    expect(response.status, served.output()).toBe(200);
    const body = (await response.json()) as { stats: { calls: { sent: number } } };
    // Answered before anything was sent: only the request's waitUntil flush can bring the calls.
    expect(body.stats.calls.sent).toBe(0);
    await expectAppTrace(client, "workerd");
    expect(served.output()).not.toMatch(/Uncaught|Disallowed operation|error/i);
  }, 60_000);

  it("workerd: the worker of docs/runtimes-and-deployment.md, verbatim", async () => {
    const source = docBlock("docs/runtimes-and-deployment.md", "## Cloudflare Workers");
    const worker = await bundle({ contents: source, resolveDir: APP_DIR, loader: "ts" }, "workerd");
    expect(worker.warnings).toEqual([]);
    const served = await serveWorker(worker.code, {
      TRACEWIRE_BASE_URL: service.url,
      TRACEWIRE_PROJECT: PROJECT,
      OPENAI_BASE_URL: standIn.url,
      OPENAI_API_KEY: "local",
    });
    const response = await fetch(`${served.url}?q=readme`);
    expect(await response.text(), served.output()).toBe("Hello from the local stand-in.");
    const deadline = Date.now() + 15_000;
    let calls: CallSchema[] = [];
    let answer: CallSchema | undefined;
    let chat: CallSchema | undefined;
    while (!(answer?.ended_at && chat?.ended_at) && Date.now() < deadline) {
      calls = await collect(client.calls.streamQuery({}));
      answer = calls.find((c) => c.op_name === "answer" && Object.values(c.inputs ?? {})[0] === "readme");
      chat = calls.find((c) => c.parent_id === answer?.id && c.op_name.includes("chat"));
      if (!(answer?.ended_at && chat?.ended_at)) await new Promise((done) => setTimeout(done, 100));
    }
    expect(answer?.output, served.output()).toBe("Hello from the local stand-in.");
    expect(chat?.ended_at).toBeTruthy();
  }, 60_000);

  it("Vercel edge (edge-runtime as Next's sandbox): bundled as Next bundles edge code", async () => {
    const edge = await bundle(join(APP_DIR, "edge.mjs"), "edge");
    expect(edge.warnings).toEqual([]);
    const runtime = edgeSandbox(edge.code, {
      TRACEWIRE_BASE_URL: service.url,
      OPENAI_BASE_URL: standIn.url,
      TRACEWIRE_PROJECT: PROJECT,
    });
    const response = await runtime.dispatchFetch("http://localhost/");
    expect(response.status, await response.clone().text()).toBe(200);
    await response.waitUntil();
    await expectAppTrace(client, "edge-light");
  }, 60_000);

  it("Bun: the package as installed", async () => {
    const out = await runBinary(binaries.bun!, [join(APP_DIR, "node-like.mjs"), JSON.stringify(appConfig("bun"))]);
    expect(out).toContain('"shout":"FIRST"');
    await expectAppTrace(client, "bun");
  }, 60_000);

  it("Deno: the package as installed, no env access for tracewire, network to the two local servers only", async () => {
    const hosts = [service.url, standIn.url].map((u) => new URL(u).host).join(",");
    const out = await runBinary(binaries.deno!, [
      "run",
      "--no-prompt",
      `--allow-net=${hosts}`,
      `--allow-env=${OPENAI_ENV.join(",")}`,
      join(APP_DIR, "node-like.mjs"),
      JSON.stringify(appConfig("deno")),
    ]);
    expect(out).toContain('"shout":"FIRST"');
    await expectAppTrace(client, "deno");
  }, 60_000);
});
