/**
 * End to end: `next build` and `next start` of examples/nextjs-app (Next 16, Turbopack) on loopback, pointed at the
 * local tracing service and the local chat-completions stand-in, with a 3 s batch timer (OTEL_BSP_SCHEDULE_DELAY).
 * A server-component page, a streamed chat request, a client that leaves mid-stream and a server action (feedback on
 * the chat request's call): each request's calls must be at the service within 1 s of its response's end — the
 * per-request flush, not the timer. Then what arrived: Next's route span with the request call and the chat call
 * (usage, user and session) under it, the cancelled stream, the reaction; a route handler returning the AI SDK's
 * `streamText(...)` response (`ai` 6: its spans as calls under the request's call), flushed with the request.
 * Twice: tracewire's own `register()`, and `@vercel/otel` with a `TracewireSpanProcessor` (which maps the `ai` 6
 * spans too). Slow (a Next build), so it runs only with TRACEWIRE_NEXT_E2E=1 (`npm run test:next`).
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
/** The batch timer: long, so that only the per-request flush can get calls to the service within {@link SENT_WITHIN_MS}. */
const BATCH_DELAY_MS = 3000;
const SENT_WITHIN_MS = 1000;

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
let standIn: { url: string; close(): Promise<void>; readonly closedEarly: number } | undefined;
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
      OTEL_BSP_SCHEDULE_DELAY: String(BATCH_DELAY_MS),
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

/** Polls the service until `check` holds or `deadline` (epoch ms) passes; returns the last answer. */
async function waitForCalls(
  check: (calls: CallSchema[]) => boolean,
  deadline = Date.now() + 15_000,
): Promise<CallSchema[]> {
  client ??= new TracingClient({ baseUrl: service!.url, project: PROJECT, env: {} });
  let calls: CallSchema[] = [];
  for (;;) {
    calls = await collect(client.calls.streamQuery({ include_feedback: true }));
    if (check(calls) || Date.now() > deadline) return calls;
    await new Promise((done) => setTimeout(done, 50));
  }
}

const summaryOf = (calls: CallSchema[]) =>
  calls.map((c) => `${c.op_name} ${c.id} <- ${c.parent_id} ${c.ended_at ? "ended" : "open"}`).join("\n");
const feedbackOf = (call: CallSchema | undefined) =>
  (call?.summary as { weave?: { feedback?: { feedback_type: string; payload: unknown }[] } } | undefined)?.weave
    ?.feedback ?? [];

/** Asserts that `check` holds at the service within {@link SENT_WITHIN_MS} of `responseEnd`. */
async function expectSentSoon(what: string, responseEnd: number, check: (calls: CallSchema[]) => boolean) {
  const calls = await waitForCalls(check, responseEnd + SENT_WITHIN_MS);
  const late = Date.now() - responseEnd;
  expect(
    check(calls),
    `${what}: not at the service ${late} ms after the response ended\n${summaryOf(calls)}\n--- next output:\n${output}`,
  ).toBe(true);
  expect(late, what).toBeLessThanOrEqual(SENT_WITHIN_MS + 100);
  return calls;
}

describe.skipIf(!enabled)("Next.js app (next build + next start)", () => {
  beforeAll(async () => {
    // The example imports `tracewire` as `file:../..` would: a link to this package, whose exports point at dist/.
    await run(process.execPath, [join(ROOT, "node_modules/tsup/dist/cli-default.js"), "--silent"], { cwd: ROOT });
    // Its `ai` and `@ai-sdk/openai-compatible` as its package.json resolves them on Node 20: `ai` 6 and its provider
    // (this repo installs them as the `ai6` aliases; its own `ai` is 7, which needs Node ≥ 22).
    const links: [string, string][] = [
      ["tracewire", "../../.."],
      ["ai", "../../../node_modules/ai6"],
      ["@ai-sdk/openai-compatible", "../../../../node_modules/ai6-openai-compatible"],
    ];
    for (const [name, target] of links) {
      const link = join(APP, "node_modules", name);
      if (existsSync(link)) continue;
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(target, link, "dir");
    }
    rmSync(join(APP, ".next"), { recursive: true, force: true });
    const started = Date.now();
    await run(process.execPath, [NEXT_BIN, "build"], {
      cwd: APP,
      env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    console.log(`next build took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 600_000);

  it.each(["tracewire", "vercel-otel"])(
    "setup %s: page, streamed route, disconnect, server action, AI SDK route — each sent within 1 s of its response",
    async (setup) => {
      service = await startService({ storage: "memory" });
      standIn = await startStandIn();
      const url = await startNext(setup);

      // 1. A server-component page calling a traced function (no withTracing).
      const page = await fetch(`${url}/answer`);
      expect(await page.text()).toContain("Hello from the local stand-in.");
      let calls = await expectSentSoon("page", Date.now(), (calls) => {
        const answer = calls.find((c) => c.op_name === "answer" && c.ended_at);
        const chat = calls.find((c) => c.parent_id === answer?.id && c.op_name.includes("chat") && c.ended_at);
        const root = calls.find((c) => c.op_name === "GET /answer" && c.parent_id === null && c.ended_at);
        return Boolean(answer && chat && root && answer.trace_id === root.trace_id);
      });
      const answer = calls.find((c) => c.op_name === "answer")!;
      expect(answer.output).toBe("Hello from the local stand-in.");

      // 2. A streamed route handler, with a user and a session id.
      const response = await fetch(`${url}/api/chat`, {
        method: "POST",
        headers: { "x-user-id": "user-7", "x-session-id": "session-7" },
        body: JSON.stringify({ question: "hi" }),
      });
      expect(response.status).toBe(200);
      const callId = response.headers.get("x-tracewire-call-id");
      expect(callId, output).toMatch(/^[0-9a-f]{16}$/);
      expect(await response.text()).toBe("Hello from the local stand-in.");
      calls = await expectSentSoon("streamed route", Date.now(), (calls) => {
        const request = calls.find((c) => c.id === callId && c.ended_at);
        const chat = calls.find((c) => c.parent_id === callId && c.op_name.includes("chat") && c.ended_at);
        const nextRoot = calls.find((c) => c.op_name === "POST /api/chat" && c.id !== callId && c.ended_at);
        return Boolean(request && chat && nextRoot);
      });
      const byId = new Map(calls.map((c) => [c.id, c]));
      const request = byId.get(callId!)!;
      expect(request.op_name).toBe("POST /api/chat");
      expect(request.inputs).toMatchObject({ request: { method: "POST", path: "/api/chat", route: "/api/chat" } });
      expect(request.output).toMatchObject({ status: 200 });
      expect(request.exception).toBeFalsy();
      // Under Next's own spans: the route handler span, under the request's root span (BaseServer.handleRequest).
      const handlerSpan = byId.get(request.parent_id!);
      expect(handlerSpan?.op_name, summaryOf(calls)).toContain("executing api route (app) /api/chat");
      const nextRoot = byId.get(handlerSpan!.parent_id!)!;
      expect(nextRoot.op_name).toBe("POST /api/chat");
      expect(nextRoot.parent_id).toBeNull();
      expect(new Set([request.trace_id, handlerSpan!.trace_id, nextRoot.trace_id]).size).toBe(1);
      // The stream's call ends after the last chunk: the request call cannot end before its chat call.
      const chat = calls.find((c) => c.parent_id === callId && c.op_name.includes("chat"))!;
      expect(Date.parse(request.ended_at!)).toBeGreaterThanOrEqual(Date.parse(chat.ended_at!));
      const usage = (chat.summary as { usage: Record<string, Record<string, number>> }).usage;
      expect(Object.values(usage)[0]).toMatchObject({ total_tokens: 54 });
      // The user and session ids set inside the handler.
      expect(chat).toMatchObject({ thread_id: "session-7", attributes: { user_id: "user-7" } });

      // 3. A client that leaves mid-stream: the LLM stream is cancelled, its call ends as cancelled and is sent with the
      // request. Three times: with @vercel/otel the request's root span ending could once overtake the cancel.
      for (let round = 1; round <= 3; round++) {
        const leaving = new AbortController();
        const slow = await fetch(`${url}/api/chat`, {
          method: "POST",
          body: JSON.stringify({ question: "answer slowly" }),
          signal: leaving.signal,
        });
        const slowId = slow.headers.get("x-tracewire-call-id");
        const reader = slow.body!.getReader();
        expect((await reader.read()).done).toBe(false);
        leaving.abort();
        calls = await expectSentSoon(`disconnect ${round}`, Date.now(), (calls) => {
          const request = calls.find((c) => c.id === slowId && c.ended_at);
          const chat = calls.find((c) => c.parent_id === slowId && c.op_name.includes("chat") && c.ended_at);
          return Boolean(request && chat);
        });
        // The LLM stream was stopped by the disconnect: its call says so (not an error, not a finished answer).
        const cut = calls.find((c) => c.parent_id === slowId && c.op_name.includes("chat"))!;
        expect(cut.summary, `round ${round}\n${summaryOf(calls)}`).toMatchObject({
          tracewire: { status: "cancelled", cancel_reason: "abort" },
        });
        expect(cut.exception).toBeFalsy();
        // The request's own call too: cancelled by the client (Next aborts the body's pipe), not failed.
        const left = calls.find((c) => c.id === slowId)!;
        expect(left.summary, `round ${round}\n${summaryOf(calls)}`).toMatchObject({
          tracewire: { status: "cancelled", cancel_reason: "abort" },
        });
        expect(left.exception).toBeFalsy();
        expect(standIn!.closedEarly).toBe(round);
      }

      // 4. The server action, called the way the browser calls it: a reaction on the streamed request's call.
      const action = await fetch(`${url}/`, {
        method: "POST",
        headers: { "next-action": actionId(), "content-type": "text/plain;charset=UTF-8", accept: "text/x-component" },
        body: JSON.stringify([callId, "👍"]),
      });
      expect(action.status).toBe(200);
      expect(await action.text()).toContain('"ok":true');
      calls = await expectSentSoon("server action", Date.now(), (calls) => {
        const actionCall = calls.find((c) => c.op_name === "action sendFeedback" && c.ended_at);
        return Boolean(actionCall && feedbackOf(calls.find((c) => c.id === callId)).length > 0);
      });
      const feedback = feedbackOf(calls.find((c) => c.id === callId));
      // The service adds the reaction's alias forms (`alias`, `detoned`, …) to the payload.
      expect(feedback.map((f) => [f.feedback_type, f.payload])).toEqual([
        ["wandb.reaction.1", expect.objectContaining({ emoji: "👍" })],
      ]);

      // 5. A route handler returning the AI SDK's own `streamText(...)` response: its `ai` 6 spans become calls
      // (operation → model call, usage keyed by model) under the request's call, sent with the request.
      const ai = await fetch(`${url}/api/ai`, { method: "POST", body: JSON.stringify({ question: "hi" }) });
      expect(ai.status).toBe(200);
      expect(await ai.text()).toBe("Hello from the local stand-in.");
      calls = await expectSentSoon("AI SDK route", Date.now(), (calls) => {
        const request = calls.find((c) => c.op_name === "POST /api/ai" && c.inputs?.request && c.ended_at);
        const operation = calls.find((c) => c.op_name === "ai-answer" && c.parent_id === request?.id && c.ended_at);
        const model = calls.find((c) => c.op_name === "ai.streamText.doStream" && c.parent_id === operation?.id);
        return Boolean(request && operation && model?.ended_at);
      });
      const aiRequest = calls.find((c) => c.op_name === "POST /api/ai" && c.inputs?.request)!;
      expect(aiRequest.output).toMatchObject({ status: 200 });
      const operation = calls.find((c) => c.op_name === "ai-answer")!;
      expect(operation.trace_id).toBe(aiRequest.trace_id);
      expect(operation.inputs).toMatchObject({ prompt: "hi" });
      expect(operation.output).toMatchObject({ text: "Hello from the local stand-in.", finishReason: "stop" });
      const doStream = calls.find((c) => c.op_name === "ai.streamText.doStream")!;
      expect(doStream.attributes).toMatchObject({ operation: "chat", provider: "openai", model: "gpt-4o-mini" });
      const aiUsage = (doStream.summary as { usage: Record<string, Record<string, number>> }).usage;
      expect(Object.values(aiUsage)[0]).toMatchObject({ prompt_tokens: 42, completion_tokens: 12, total_tokens: 54 });
      expect(Date.parse(aiRequest.ended_at!)).toBeGreaterThanOrEqual(Date.parse(operation.ended_at!));

      // The edge route: tracewire/next bundled for edge, untraced, the handler's response unchanged.
      const edge = await fetch(`${url}/api/edge`);
      expect(await edge.json()).toEqual({ runtime: "edge", ok: true });
    },
    120_000,
  );
});
