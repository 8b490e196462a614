/**
 * End to end: `next build` and `next start` of examples/nextjs-app (Next 16, Turbopack) on loopback, pointed at the
 * local tracing service and the local chat-completions stand-in. One streamed chat request and one server action
 * (feedback on the request's call), then what arrived at the service: Next's route span with the request call and
 * the chat call (usage) under it, and the reaction. Twice: tracewire's own `register()`, and `@vercel/otel` with a
 * `TracewireSpanProcessor`. Slow (a Next build), so it runs only with TRACEWIRE_NEXT_E2E=1 (`npm run test:next`).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs helper without types.
import { startStandIn } from "../../examples/openai/stand-in.mjs";
import { TracingClient } from "../../src/api/index.js";
import type { CallSchema } from "../../src/api/types/calls.js";
import { collect, PROJECT, startService, type TestService } from "../server/helpers.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const APP = join(ROOT, "examples/nextjs-app");
const NEXT_BIN = join(ROOT, "node_modules/next/dist/bin/next");
const run = promisify(execFile);
const enabled = process.env.TRACEWIRE_NEXT_E2E === "1";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

let next: ChildProcess | undefined;
let output = "";
let service: TestService | undefined;
let standIn: { url: string; close(): Promise<void> } | undefined;
let client: TracingClient | undefined;

afterEach(async () => {
  if (next && next.exitCode === null) {
    const exited = new Promise((done) => next!.once("exit", done));
    next.kill("SIGTERM");
    await exited;
  }
  next = undefined;
  await client?.close();
  await service?.close();
  await standIn?.close();
  client = service = standIn = undefined;
});

async function startNext(setup: string): Promise<string> {
  const port = await freePort();
  output = "";
  next = spawn(process.execPath, [NEXT_BIN, "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: APP,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      TRACEWIRE_NEXT_SETUP: setup,
      TRACEWIRE_BASE_URL: service!.url,
      TRACEWIRE_PROJECT: PROJECT,
      TRACEWIRE_API_KEY: "",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_SERVICE_NAME: "nextjs-e2e",
      OPENAI_BASE_URL: standIn!.url,
      OPENAI_API_KEY: "local",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  next.stdout!.on("data", (d) => (output += d));
  next.stderr!.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (next.exitCode !== null) throw new Error(`next start exited: ${output}`);
    try {
      if ((await fetch(url)).ok) return url;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`next start did not come up: ${output}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** The server action's id, from the build's manifest (the one action of the app). */
function actionId(): string {
  const manifest = JSON.parse(readFileSync(join(APP, ".next/server/server-reference-manifest.json"), "utf8"));
  const ids = Object.keys(manifest.node ?? {});
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

async function waitForCalls(check: (calls: CallSchema[]) => boolean): Promise<CallSchema[]> {
  client ??= new TracingClient({ baseUrl: service!.url, project: PROJECT, env: {} });
  const deadline = Date.now() + 15_000;
  let calls: CallSchema[] = [];
  while (Date.now() < deadline) {
    calls = await collect(client.calls.streamQuery({ include_feedback: true }));
    if (check(calls)) return calls;
    await new Promise((done) => setTimeout(done, 200));
  }
  return calls;
}

describe.skipIf(!enabled)("Next.js app (next build + next start)", () => {
  beforeAll(async () => {
    // The example imports `tracewire` as `file:../..` would: a link to this package, whose exports point at dist/.
    await run(process.execPath, [join(ROOT, "node_modules/tsup/dist/cli-default.js"), "--silent"], { cwd: ROOT });
    const link = join(APP, "node_modules/tracewire");
    if (!existsSync(link)) {
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync("../../..", link, "dir");
    }
    rmSync(join(APP, ".next"), { recursive: true, force: true });
    const started = Date.now();
    await run(process.execPath, [NEXT_BIN, "build"], {
      cwd: APP,
      env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    console.log(`next build took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 300_000);

  it.each(["tracewire", "vercel-otel"])(
    "setup %s: route span, chat call with usage, feedback",
    async (setup) => {
      service = await startService({ storage: "memory" });
      standIn = await startStandIn();
      const url = await startNext(setup);

      const response = await fetch(`${url}/api/chat`, { method: "POST", body: JSON.stringify({ question: "hi" }) });
      expect(response.status).toBe(200);
      const callId = response.headers.get("x-tracewire-call-id");
      expect(callId, output).toMatch(/^[0-9a-f]{16}$/);
      expect(await response.text()).toBe("Hello from the local stand-in.");

      // The server action, called the way the browser calls it.
      const action = await fetch(`${url}/`, {
        method: "POST",
        headers: { "next-action": actionId(), "content-type": "text/plain;charset=UTF-8", accept: "text/x-component" },
        body: JSON.stringify([callId, "👍"]),
      });
      expect(action.status).toBe(200);
      expect(await action.text()).toContain('"ok":true');

      // The edge route: tracewire/next bundled for edge, untraced, the handler's response unchanged.
      const edge = await fetch(`${url}/api/edge`);
      expect(await edge.json()).toEqual({ runtime: "edge", ok: true });

      const has = (calls: CallSchema[]) => {
        const request = calls.find((c) => c.id === callId);
        const feedback = (request?.summary as { weave?: { feedback?: unknown[] } } | undefined)?.weave?.feedback;
        const chat = calls.find((c) => c.parent_id === callId && c.op_name.includes("chat"));
        const nextRoot = calls.find((c) => c.op_name.startsWith("POST /api/chat") && c.id !== callId);
        return Boolean(request?.ended_at && feedback?.length && chat?.ended_at && nextRoot?.ended_at);
      };
      const calls = await waitForCalls(has);
      const summary = calls.map((c) => `${c.op_name} ${c.id} <- ${c.parent_id}`).join("\n");
      expect(has(calls), `${summary}\n--- next output:\n${output}`).toBe(true);

      const byId = new Map(calls.map((c) => [c.id, c]));
      const request = byId.get(callId!)!;
      expect(request.op_name).toBe("POST /api/chat");
      expect(request.inputs).toMatchObject({ request: { method: "POST", path: "/api/chat", route: "/api/chat" } });
      expect(request.output).toMatchObject({ status: 200 });
      expect(request.exception).toBeFalsy();
      // Under Next's own spans: the route handler span, under the request's root span (BaseServer.handleRequest).
      const handlerSpan = byId.get(request.parent_id!);
      expect(handlerSpan?.op_name, summary).toContain("executing api route (app) /api/chat");
      const nextRoot = byId.get(handlerSpan!.parent_id!)!;
      expect(nextRoot.op_name).toBe("POST /api/chat");
      expect(nextRoot.parent_id).toBeNull();
      expect(new Set([request.trace_id, handlerSpan!.trace_id, nextRoot.trace_id]).size).toBe(1);
      // The stream's call ends after the last chunk: the request call cannot end before its chat call.
      const chat = calls.find((c) => c.parent_id === callId && c.op_name.includes("chat"))!;
      expect(Date.parse(request.ended_at!)).toBeGreaterThanOrEqual(Date.parse(chat.ended_at!));
      const usage = (chat.summary as { usage: Record<string, Record<string, number>> }).usage;
      expect(Object.values(usage)[0]).toMatchObject({ total_tokens: 54 });
      const feedback = (request.summary as { weave: { feedback: { feedback_type: string; payload: unknown }[] } }).weave
        .feedback;
      expect(feedback.map((f) => [f.feedback_type, f.payload])).toEqual([["wandb.reaction.1", { emoji: "👍" }]]);
      // The server action is a call of its own.
      expect(
        calls.some((c) => c.op_name === "action sendFeedback"),
        summary,
      ).toBe(true);
    },
    90_000,
  );
});
