/**
 * The process-exit flush, in real child processes running tracewire's TypeScript sources (bundled with esbuild,
 * since tests run without a build): a script that simply finishes delivers its calls (`beforeExit`), a process
 * stopped by SIGTERM while idle flushes and still dies of SIGTERM, and a dead service does not keep a process
 * from exiting.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { TracingDouble } from "../support/tracing-double.js";
import { decodedOtlp, expectDeliveredOnce } from "./helpers.js";

let dir: string;
let childScript: string;
let double: TracingDouble;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tracewire-exit-"));
  childScript = join(dir, "child.mjs");
  buildSync({
    entryPoints: [fileURLToPath(new URL("./fixtures/exit-child.ts", import.meta.url))],
    outfile: childScript,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    keepNames: true, // op names come from function names
    logLevel: "error",
    // Bundled CommonJS dependencies (undici) call require() for Node built-ins.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
    },
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(async () => {
  double = await TracingDouble.start();
});
afterEach(async () => {
  await double.close();
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The harness killed it after 15 s: it would not exit on its own. */
  hung: boolean;
}

function run(
  mode: string,
  onStdout?: (text: string, child: ChildProcess) => void,
  url: string = double.url,
): Promise<Exit & { ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript, url, mode], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill("SIGKILL");
    }, 15_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      onStdout?.(stdout, child);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, hung, ms: Date.now() - started });
    });
  });
}

/** The child's five `work` calls arrived exactly once each, and their five foreign spans by OTLP under them. */
function expectChildWorkDelivered(serviceName: string): void {
  const calls = double.callsNamed("work");
  expect(
    calls.map((c) => c.start!.inputs).sort((a, b) => (a as { arg0: number }).arg0 - (b as { arg0: number }).arg0),
  ).toEqual([0, 1, 2, 3, 4].map((i) => ({ arg0: i })));
  for (const call of calls) expectDeliveredOnce(double, call.start!.id as string);
  const callIds = new Set(calls.map((c) => c.start!.id));
  expect(double.spans).toHaveLength(5);
  for (const span of double.spans) expect(callIds.has(span.parentSpanId)).toBe(true);
  expect(decodedOtlp(double)[0]!.resourceSpans[0]!.resource.attributes["service.name"]).toBe(serviceName);
}

it("a child that exits right after its work still delivers its calls (beforeExit flush)", async () => {
  const exit = await run("exit");
  expect(exit).toMatchObject({ code: 0, signal: null, hung: false, stderr: "" });
  expectChildWorkDelivered("child-exit");
});

it("a child whose loop runs dry while a call still runs ends that call as cancelled (beforeExit)", async () => {
  const exit = await run("exit-running");
  expect(exit).toMatchObject({ code: 0, signal: null, hung: false, stderr: "" });
  expectChildWorkDelivered("child-exit-running");
  const [waiting] = double.callsNamed("waiting");
  expect(waiting).toMatchObject({ starts: 1, ends: 1 });
  expect(waiting?.end?.summary).toEqual({ tracewire: { status: "cancelled", cancel_reason: "shutdown" } });
});

it("control: with exitHooks: false the same child delivers nothing", async () => {
  const exit = await run("no-hooks");
  expect(exit).toMatchObject({ code: 0, signal: null, hung: false });
  expect(double.server.requests).toHaveLength(0);
});

it("a child idling when SIGTERM arrives flushes, then still dies of SIGTERM", async () => {
  let requestsAtReady = -1;
  const exit = await run("sigterm", (stdout, child) => {
    if (requestsAtReady === -1 && stdout.includes("ready")) {
      requestsAtReady = double.server.requests.length;
      child.kill("SIGTERM");
    }
  });
  expect(requestsAtReady).toBe(0); // nothing had been sent before the signal
  expect(exit).toMatchObject({ code: null, signal: "SIGTERM", hung: false });
  expectChildWorkDelivered("child-sigterm");
});

it("SIGTERM ends a call still running as cancelled (reason shutdown) before the process dies", async () => {
  const exit = await run("sigterm-running", (stdout, child) => {
    if (stdout.includes("ready")) child.kill("SIGTERM");
  });
  expect(exit).toMatchObject({ code: null, signal: "SIGTERM", hung: false });
  expectChildWorkDelivered("child-sigterm-running");
  const [waiting] = double.callsNamed("waiting");
  expect(waiting).toMatchObject({ starts: 1, ends: 1 });
  expect(waiting?.end?.summary).toEqual({ tracewire: { status: "cancelled", cancel_reason: "shutdown" } });
});

it("an app with its own SIGTERM listener finishes its call: SIGTERM ends nothing as cancelled", async () => {
  const exit = await run("sigterm-graceful", (stdout, child) => {
    if (stdout.includes("ready")) child.kill("SIGTERM");
  });
  expect(exit).toMatchObject({ code: 0, signal: null, hung: false });
  const [waiting] = double.callsNamed("waiting");
  expect(waiting).toMatchObject({ starts: 1, ends: 1 });
  expect(waiting?.end?.output).toBe("finished");
  expect(waiting?.end?.summary).toEqual({});
});

it("a child whose service is unreachable still exits after one bounded flush", async () => {
  double.down(["/call/upsert_batch", "/otel/v1/traces"], "reset");
  const exit = await run("unreachable");
  expect(exit).toMatchObject({ code: 0, signal: null, hung: false });
  // It did try (so the exit flush ran), and nothing was stored.
  expect(double.server.received("POST", "/call/upsert_batch").length).toBeGreaterThan(0);
  expect(double.calls.size).toBe(0);
}, 20_000);

for (const [mode, path] of [
  ["hang", "/call/upsert_batch"],
  ["hang-otlp", "/otel/v1/traces"],
] as const) {
  it(`a child whose service never answers exits after exitFlushMillis, not the export timeout (${mode})`, async () => {
    // Before: the beforeExit flush gave up after its second, but the export it had started kept its socket open, so
    // the process lived on until the export timeout (30 s calls, 10 s OTLP).
    double.down([path], "hang");
    const exit = await run(mode);
    expect(exit).toMatchObject({ code: 0, signal: null, hung: false });
    expect(double.server.received("POST", path).length).toBeGreaterThan(0);
    expect(exit.ms).toBeLessThan(6_000);
  }, 20_000);
}

for (const [mode, fault] of [
  ["shutdown-hang", "hang"],
  ["shutdown-500", { status: 500 }],
  ["shutdown-reset", "reset"],
] as const) {
  it(`await shutdown() against a service that ${mode.slice(9)}s: bounded, a typed rejection, drops counted, the process exits (${mode})`, async () => {
    double.down(["/call/upsert_batch", "/otel/v1/traces", "/feedback/create"], fault);
    const exit = await run(mode);
    expect(exit).toMatchObject({ code: 0, signal: null, hung: false });
    // The drops are said (warnings), but nothing went unhandled.
    expect(exit.stderr).not.toMatch(/unhandled|Uncaught|\n\s+at /i);
    const [, ms, reaction, stats] = /^shut (\d+) (\S+) (.*)$/m.exec(exit.stdout) ?? [];
    // One export deadline (1 s) for the flush, one second at most for an export aborted in flight, and some slack.
    expect(Number(ms)).toBeLessThan(4_000);
    expect(reaction).toBe("NotSentError:shutdown");
    const { calls, otlp } = JSON.parse(stats!) as { calls: Record<string, number>; otlp: Record<string, number> };
    // Six calls (start and end each) and the reaction on one route, their six foreign spans on the other: none sent,
    // each counted once, dropped or (a 500 the OTLP route does not retry) rejected.
    expect(calls).toMatchObject({ queued: 0, sent: 0 });
    expect(calls.dropped! + calls.rejected!).toBe(13);
    expect(otlp).toMatchObject({ queued: 0, sent: 0 });
    expect(otlp.dropped! + otlp.rejected!).toBe(6);
    expect(exit.ms).toBeLessThan(8_000);
  }, 20_000);
}

/** A loopback URL nobody listens on: every connection is refused at once, like a service that is down. */
async function refusingUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

it("a child whose service refuses connections exits well before the 30 s export deadline", async () => {
  // Default deadlines (30 s export timeout): the beforeExit flush is bounded separately, and an unreachable service
  // ends it at once. Before, this took 31 s (the harness kills at 15 s).
  const exit = await run("refused", undefined, await refusingUrl());
  expect(exit).toMatchObject({ code: 0, signal: null, hung: false });
  expect(exit.ms).toBeLessThan(10_000);
}, 20_000);

it("flush() settles early when the service refuses connections (the items stay queued)", async () => {
  const exit = await run("flush-refused", undefined, await refusingUrl());
  expect(exit).toMatchObject({ code: 0, signal: null, hung: false });
  const flushed = Number(/flushed (\d+)/.exec(exit.stdout)?.[1]);
  expect(flushed).toBeLessThan(10_000);
}, 20_000);

it("the exit flush runs every time the loop drains: awaited react()s at top level, more work between", async () => {
  const exit = await run("react-twice");
  expect(exit).toMatchObject({ code: 0, signal: null, hung: false, stderr: "" });
  expect(exit.stdout).toContain("done");
  const ids = [10, 11, 12, 13].map((i) => {
    const calls = double.callsNamed("work").filter((c) => (c.start!.inputs as { arg0: number }).arg0 === i);
    expect(calls, `work(${i})`).toHaveLength(1);
    expectDeliveredOnce(double, calls[0]!.start!.id as string);
    return calls[0]!.start!.id as string;
  });
  expect(
    double.feedback.map((f) => [String(f.weave_ref).split("/").pop(), (f.payload as { emoji: string }).emoji]),
  ).toEqual([
    [ids[0], "👍"],
    [ids[3], "🎉"],
  ]);
}, 20_000);

it("an awaited react() keeps the process alive until the service answers, exit hooks or not", async () => {
  // Before: the request waited on an unref'd timer, the event loop drained, and Node exited 13 (an unsettled
  // top-level await) without ever sending it.
  const exit = await run("react-no-hooks");
  expect(exit).toMatchObject({ code: 0, signal: null, hung: false, stderr: "" });
  expect(exit.stdout).toMatch(/^reacted \{.*"id":/m);
  const [call] = double.callsNamed("work").filter((c) => (c.start!.inputs as { arg0: number }).arg0 === 20);
  expect(
    double.feedback.map((f) => [String(f.weave_ref).split("/").pop(), (f.payload as { emoji: string }).emoji]),
  ).toEqual([[call!.start!.id, "👀"]]);
}, 20_000);
