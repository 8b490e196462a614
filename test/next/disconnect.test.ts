/**
 * A client that leaves mid-response, as Next 16 sees it: route handlers wrapped in `withTracing`, their Response body
 * sent by Next's own `pipeToNodeResponse` (`body.pipeTo(writer, { signal })`, the signal aborted when the client
 * disconnects) on a loopback server, and a `fetch` client that aborts after the first chunk. The request's call must
 * end as cancelled (not failed, not a plain success) and nothing may hang, checked at the local tracing service.
 */
import { createServer, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterEach, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import type { CallSchema } from "../../src/api/types/calls.js";
import { getCurrentCall, init, type TracewireHandle } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { toTextStream, withTracing } from "../../src/next/index.js";
import { collect, PROJECT, startService, type TestService } from "../server/helpers.js";
import { OpenAIServer } from "../support/openai-server.js";

const { pipeToNodeResponse } = createRequire(import.meta.url)("next/dist/server/pipe-readable.js") as {
  pipeToNodeResponse(body: ReadableStream, res: ServerResponse): Promise<void>;
};

let service: TestService | undefined;
let handle: TracewireHandle | undefined;
const cleanups: (() => void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await handle?.shutdown();
  await service?.close();
  handle = service = undefined;
});

async function startTracing(): Promise<TracewireHandle> {
  service = await startService({ storage: "memory" });
  handle = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
  expect(handle.enabled).toBe(true);
  return handle;
}

async function callsOf(traceId: string): Promise<CallSchema[]> {
  const client = new TracingClient({ baseUrl: service!.url, project: PROJECT, env: {} });
  try {
    return await collect(client.calls.streamQuery({ filter: { trace_ids: [traceId] } }));
  } finally {
    await client.close();
  }
}

async function callOf(id: string, traceId: string): Promise<CallSchema | undefined> {
  return (await callsOf(traceId)).find((c) => c.id === id);
}

/**
 * Serves `body()` from a `withTracing` route handler through Next's `pipeToNodeResponse`; a client reads the first
 * chunk and leaves. Resolves with the request call's ids and Next's pipe (which must settle, Next swallowing the
 * abort).
 */
async function leaveMidStream(body: () => ReadableStream<Uint8Array> | Promise<ReadableStream<Uint8Array>>) {
  let ids: { id: string; traceId: string } | undefined;
  const POST = withTracing(async (_request: Request) => {
    const call = getCurrentCall()!;
    ids = { id: call.id, traceId: call.traceId };
    return new Response(await body());
  });
  let piped!: Promise<void>;
  const server = createServer((req, res) => {
    piped = (async () => {
      const response = await POST(new Request(`http://localhost${req.url}`, { method: "POST" }));
      res.writeHead(response.status);
      await pipeToNodeResponse(response.body!, res);
    })();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const abort = new AbortController();
  const response = await fetch(`http://127.0.0.1:${port}/api/chat`, { method: "POST", signal: abort.signal });
  const reader = response.body!.getReader();
  expect((await reader.read()).done).toBe(false);
  abort.abort();
  return { ids: ids!, piped };
}

/** Whether `promise` settles within a generous bound: only a hang fails this. */
async function settles(promise: Promise<unknown>): Promise<boolean> {
  const hung = new Promise<false>((done) => setTimeout(() => done(false), 5000));
  return Promise.race([promise.then(() => true), hung]);
}

const tick = () => new TextEncoder().encode("tick ");

it("a client that leaves mid-stream ends the request call as cancelled, not failed", async () => {
  const tracing = await startTracing();
  let stop = false;
  const { ids, piped } = await leaveMidStream(
    () =>
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (stop) return;
          await new Promise((done) => setTimeout(done, 20));
          controller.enqueue(tick());
        },
      }),
  );
  expect(await settles(piped)).toBe(true);
  stop = true;
  await tracing.flush();
  const call = await callOf(ids.id, ids.traceId);
  expect(call).toMatchObject({ op_name: "POST /api/chat", exception: null });
  expect(call!.ended_at).toBeTruthy();
  expect(call!.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "abort" } });
});

it("a body cancelled through its reader ends the request call as cancelled", async () => {
  const tracing = await startTracing();
  let ids: { id: string; traceId: string } | undefined;
  const GET = withTracing(async (_request: Request) => {
    const call = getCurrentCall()!;
    ids = { id: call.id, traceId: call.traceId };
    return new Response(new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(tick()) }));
  });
  const response = await GET(new Request("http://localhost/api/ticks"));
  const reader = response.body!.getReader();
  expect((await reader.read()).done).toBe(false);
  await reader.cancel();
  await new Promise((done) => setTimeout(done, 20));
  await tracing.flush();
  const call = await callOf(ids!.id, ids!.traceId);
  expect(call).toMatchObject({ exception: null });
  expect(call!.ended_at).toBeTruthy();
  expect(call!.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "abort" } });
});

it("toTextStream over a source waiting for its next chunk: Next's pipe ends at once, the call as cancelled", async () => {
  const tracing = await startTracing();
  // A source without an abort controller (a plain async generator, like many SDKs' text streams) whose next chunk
  // is not coming: a stalled model. Released at the end of the test.
  let release!: () => void;
  const stalled = new Promise<void>((done) => (release = done));
  cleanups.push(() => release());
  async function* answer() {
    yield "first ";
    await stalled;
    yield "never read";
  }
  const { ids, piped } = await leaveMidStream(() => toTextStream(answer()));
  expect(await settles(piped)).toBe(true);
  await tracing.flush();
  const call = await callOf(ids.id, ids.traceId);
  expect(call).toMatchObject({ exception: null });
  expect(call!.ended_at).toBeTruthy();
  expect(call!.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "abort" } });
});

it("a body whose own cancel() never finishes: the request call still ends as cancelled when the client leaves", async () => {
  const tracing = await startTracing();
  // The app's stream: its cancel() waits on something that does not come, so Next's pipe never settles (the app's
  // own hang). The request's call must not wait for it.
  const { ids } = await leaveMidStream(
    () =>
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((done) => setTimeout(done, 20));
          controller.enqueue(tick());
        },
        cancel: () => new Promise<void>(() => {}),
      }),
  );
  let call: CallSchema | undefined;
  const deadline = Date.now() + 5000;
  do {
    await new Promise((done) => setTimeout(done, 50));
    await tracing.flush();
    call = await callOf(ids.id, ids.traceId);
  } while (!call?.ended_at && Date.now() < deadline);
  expect(call?.ended_at, "the request call never ended").toBeTruthy();
  expect(call).toMatchObject({ exception: null });
  expect(call!.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "abort" } });
});

it("a streamed chat answer through Next's pipe: the chat call and then the request call end as cancelled", async () => {
  const tracing = await startTracing();
  const llm = await OpenAIServer.start();
  cleanups.push(() => void llm.server.close());
  const openai = wrapOpenAI(new OpenAI({ apiKey: "test", baseURL: `${llm.server.url}/v1` }));
  // m-slow: two chunks, then one every 50 ms until the client goes away.
  const { ids, piped } = await leaveMidStream(async () =>
    toTextStream(
      await openai.chat.completions.create({
        model: "m-slow",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      }),
    ),
  );
  expect(await settles(piped)).toBe(true);
  await tracing.flush();
  const calls = await callsOf(ids.traceId);
  const request = calls.find((c) => c.id === ids.id)!;
  const chat = calls.find((c) => c.parent_id === ids.id)!;
  expect(chat).toMatchObject({ op_name: "openai.chat.completions.create", exception: null });
  expect(chat.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "abort" } });
  expect(request).toMatchObject({ exception: null });
  expect(request.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "abort" } });
  // The request's call does not end before the call it holds.
  expect(Date.parse(request.ended_at!)).toBeGreaterThanOrEqual(Date.parse(chat.ended_at!));
});
