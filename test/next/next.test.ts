/**
 * `tracewire/next` without a Next build: `register()` in both runtimes, the singletons shared by two separately
 * bundled copies of tracewire (as Next bundles instrumentation.ts and each route on their own), and `withTracing`
 * on real web Requests and streaming Responses, checked against the local tracing service.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import type { CallSchema } from "../../src/api/types/calls.js";
import { collect, PROJECT, startService, type TestService } from "../server/helpers.js";
import { OpenAIServer, TEXT } from "../support/openai-server.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
type Bundle = typeof import("../../src/index.js") & {
  next: typeof import("../../src/next/index.js");
  openai: typeof import("../../src/instrument/index.js");
};

let outDir: string;
let a: Bundle;
let b: Bundle;
let service: TestService | undefined;
const savedRuntime = process.env.NEXT_RUNTIME;

/** Bundles tracewire (`tracewire` + `tracewire/next`) into its own module graph, as a Next server entry would. */
async function bundle(name: string): Promise<Bundle> {
  const dir = join(outDir, name);
  await build({
    stdin: {
      contents: `export * from "./src/index.ts"; export * as next from "./src/next/index.ts"; export * as openai from "./src/instrument/index.ts";`,
      resolveDir: ROOT,
      loader: "ts",
    },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    outdir: dir,
    outExtension: { ".js": ".mjs" },
    external: ["@opentelemetry/*", "undici", "next", "openai"],
    logLevel: "error",
  });
  return import(pathToFileURL(join(dir, "stdin.mjs")).href);
}

beforeAll(async () => {
  // Inside node_modules so the bundles resolve the OpenTelemetry packages like the app's own code does.
  outDir = mkdtempSync(join(ROOT, "node_modules/.tracewire-next-test-"));
  [a, b] = await Promise.all([bundle("instrumentation"), bundle("route")]);
  expect(a.getCurrentCall).not.toBe(b.getCurrentCall);
}, 30_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

afterEach(async () => {
  await a.next.register().then((h) => h?.shutdown());
  await service?.close();
  service = undefined;
  if (savedRuntime === undefined) delete process.env.NEXT_RUNTIME;
  else process.env.NEXT_RUNTIME = savedRuntime;
  vi.restoreAllMocks();
});

async function callsOf(traceId?: string): Promise<CallSchema[]> {
  const client = new TracingClient({ baseUrl: service!.url, project: PROJECT, env: {} });
  try {
    return await collect(
      client.calls.streamQuery({ ...(traceId ? { filter: { trace_ids: [traceId] } } : {}), include_feedback: true }),
    );
  } finally {
    await client.close();
  }
}

async function startTracing() {
  service = await startService({ storage: "memory" });
  process.env.NEXT_RUNTIME = "nodejs";
  const handle = await a.next.register({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
  expect(handle?.enabled).toBe(true);
  return handle!;
}

describe("register()", () => {
  it("sets up tracing once on Node.js; another bundle's copy gets the same handle and processor", async () => {
    const handle = await startTracing();
    expect(await b.next.register()).toBe(handle);
    // The route bundle's op, getCurrentCall and callById use the processor the instrumentation bundle created.
    const answer = b.op(async function answer() {
      return b.getCurrentCall();
    });
    const call = (await answer())!;
    expect(call.project).toBe(PROJECT);
    await a.callById(call.id, call.traceId).react("👍");
    await handle.flush();
    const [stored] = await callsOf(call.traceId);
    expect(stored).toMatchObject({ id: call.id, op_name: "answer" });
    const feedback = (stored!.summary as { weave: { feedback: { payload: unknown }[] } }).weave.feedback;
    expect(feedback.map((f) => f.payload)).toEqual([
      { emoji: "👍", alias: ":thumbs_up:", detoned: "👍", detoned_alias: ":thumbs_up:" },
    ]);
  });

  it("edge runtime: does nothing and says so once", async () => {
    process.env.NEXT_RUNTIME = "edge";
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(await a.next.register({ baseUrl: "http://127.0.0.1:9", env: {} })).toBeUndefined();
    expect(await b.next.register({ baseUrl: "http://127.0.0.1:9", env: {} })).toBeUndefined();
    const edgeWarnings = warn.mock.calls.filter(([m]) => String(m).includes("edge runtime is not traced"));
    // Once per process, across bundles (an earlier test file run may already have said it).
    expect(edgeWarnings.length).toBeLessThanOrEqual(1);
    expect(a.getCurrentCall()).toBeUndefined();
  });
});

describe("withTracing()", () => {
  it("returns the handler's streaming Response unchanged and ends the call when the stream ends", async () => {
    const handle = await startTracing();
    let pull!: () => void;
    let ids: { id: string; traceId: string } | undefined;
    const original = new Response(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode("one "));
          await new Promise<void>((done) => (pull = done));
          controller.enqueue(new TextEncoder().encode("two"));
          controller.close();
        },
      }),
      { status: 201, headers: { "content-type": "text/plain" } },
    );
    const POST = b.next.withTracing(async (_request: Request) => {
      const call = b.getCurrentCall()!;
      ids = { id: call.id, traceId: call.traceId };
      return original;
    });
    const response = await POST(new Request("http://localhost/api/items?x=1", { method: "POST" }));
    expect(response).toBe(original);
    const reading = response.text();
    await handle.flush();
    expect((await callsOf(ids!.traceId))[0]?.ended_at ?? null).toBeNull();
    pull();
    expect(await reading).toBe("one two");
    await new Promise((done) => setTimeout(done, 20));
    await handle.flush();
    const [call] = await callsOf(ids!.traceId);
    expect(call).toMatchObject({
      id: ids!.id,
      op_name: "POST /api/items",
      parent_id: null,
      inputs: { request: { method: "POST", path: "/api/items", route: "/api/items" } },
      output: { status: 201, contentType: "text/plain" },
      exception: null,
    });
    expect(call!.ended_at).toBeTruthy();
  });

  it("rethrows the handler's error unchanged and records it; names actions from options", async () => {
    const handle = await startTracing();
    const boom = new Error("boom");
    const action = b.next.withTracing(
      async (_form: { id: number }) => {
        throw boom;
      },
      { name: "action save" },
    );
    await expect(action({ id: 1 })).rejects.toBe(boom);
    await handle.flush();
    const [call] = (await callsOf()).filter((c) => c.op_name === "action save");
    expect(call?.exception).toContain("boom");
    expect(call?.inputs).toEqual({ inputs: { args: [{ id: 1 }] } });
  });

  it("redirect() and notFound() from next/navigation: rethrown unchanged, recorded as how the call ended, not as failures", async () => {
    const handle = await startTracing();
    const { redirect, notFound } = createRequire(import.meta.url)("next/navigation") as {
      redirect(url: string): never;
      notFound(): never;
    };
    const thrown: unknown[] = [];
    const keep = (fn: () => never) => () => {
      try {
        fn();
      } catch (err) {
        thrown.push(err);
        throw err;
      }
    };
    const save = b.next.withTracing(
      async (_form: unknown) => keep(() => redirect("/done?token=s3cret-in-the-query"))(),
      { name: "action save" },
    );
    const GET = b.next.withTracing(async (_request: Request) => keep(() => notFound())());
    const redirected = await save({ id: 1 }).catch((err: unknown) => err);
    expect(redirected).toBe(thrown[0]);
    const missing = await GET(new Request("http://localhost/api/items/7")).catch((err: unknown) => err);
    expect(missing).toBe(thrown[1]);
    await handle.flush();
    const calls = await callsOf();
    const action = calls.find((c) => c.op_name === "action save");
    expect(action).toMatchObject({ exception: null, output: { redirect: "/done", status: 307 } });
    expect(action!.summary).toMatchObject({ weave: { status: "success" } });
    expect(JSON.stringify(action)).not.toContain("s3cret");
    const route = calls.find((c) => c.op_name === "GET /api/items/7");
    expect(route).toMatchObject({ exception: null, output: { status: 404 } });
  });

  it("the wrapper's type is what it returns: a promise, for a synchronous handler too", async () => {
    await startTracing();
    const GET = b.next.withTracing((_request: Request) => new Response("sync"));
    // Typed as the handler itself, a synchronous handler's wrapper claimed to return a Response.
    const answer: Promise<Response> = GET(new Request("http://localhost/"));
    expect(answer).toBeInstanceOf(Promise);
    expect(await (await answer).text()).toBe("sync");
  });

  it("refuses an option it does not read, naming it (a misspelt name left the default name)", () => {
    expect(() => b.next.withTracing(async () => 1, { nme: "action save" } as never)).toThrow(
      /^Invalid withTracing option nme \(got an option it does not know\): expected name, or one of name, route, attributes/,
    );
    expect(() => b.next.withTracing(async () => 1, "save" as never)).toThrow(/^Invalid withTracing options/);
  });

  it("tracing off: the handler runs as is", async () => {
    const handler = async (request: Request) => new Response(`hi ${request.method}`);
    const GET = b.next.withTracing(handler);
    expect(GET.name).toBe("handler");
    const response = await GET(new Request("http://localhost/", { method: "GET" }));
    expect(await response.text()).toBe("hi GET");
  });
});

describe("toTextStream()", () => {
  let llm: OpenAIServer | undefined;
  afterEach(async () => {
    await llm?.server.close();
    llm = undefined;
  });

  async function chatRoute(model: string) {
    llm ??= await OpenAIServer.start();
    const openai = b.openai.wrapOpenAI(new OpenAI({ apiKey: "test", baseURL: `${llm.server.url}/v1` }));
    let ids: { request: string; traceId: string } | undefined;
    const POST = b.next.withTracing(async (_request: Request) => {
      const call = b.getCurrentCall()!;
      ids = { request: call.id, traceId: call.traceId };
      const stream = await openai.chat.completions.create({
        model,
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      });
      return new Response(b.next.toTextStream(stream), { headers: { "content-type": "text/plain" } });
    });
    const response = await POST(new Request("http://localhost/api/chat", { method: "POST" }));
    return { response, ids: ids! };
  }

  it("is the streamed answer's text; the chat call ends with the stream and the request call after it", async () => {
    const handle = await startTracing();
    const { response, ids } = await chatRoute("gpt-4o-mini");
    expect(await response.text()).toBe(TEXT);
    await new Promise((done) => setTimeout(done, 20));
    await handle.flush();
    const calls = await callsOf(ids.traceId);
    const chat = calls.find((c) => c.parent_id === ids.request)!;
    expect(chat).toMatchObject({ op_name: "openai.chat.completions.create" });
    expect(chat.ended_at).toBeTruthy();
    expect(calls.find((c) => c.id === ids.request)?.ended_at).toBeTruthy();
  });

  it("a cancelled body (the client went away) stops the LLM stream at once: its call ends as cancelled", async () => {
    const handle = await startTracing();
    // m-slow: two chunks, then one every 50 ms until the client goes away — a long answer still running.
    const { response, ids } = await chatRoute("m-slow");
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    await new Promise((done) => setTimeout(done, 30));
    await handle.flush();
    const calls = await callsOf(ids.traceId);
    const chat = calls.find((c) => c.parent_id === ids.request);
    expect(chat?.ended_at, JSON.stringify(calls)).toBeTruthy();
    expect(chat?.exception).toBeNull();
    expect(calls.find((c) => c.id === ids.request)?.ended_at).toBeTruthy();
    expect(llm!.closedEarly).toBe(1);
  });

  it("a cancelled body ends the chat call as cancelled before the request's root span can end it (as @vercel/otel does)", async () => {
    // @vercel/otel's span processor ends every span of a request still open when the request's root span ends. Next
    // cancels the body and ends its request span within a few turns of each other: the chat call must already have
    // ended, as cancelled, when cancel() returns — not once the abort reaches the stream's pending read.
    const { TracewireSpanProcessor } = await import("../../src/otel-entry.js");
    const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
    const { BasicTracerProvider } = await import("@opentelemetry/sdk-trace-base");
    const { context, trace } = await import("@opentelemetry/api");
    service = await startService({ storage: "memory" });
    const open = new Set<{ end(): void; spanContext(): { spanId: string } }>();
    const endsOpenSpans = {
      onStart: (span: { end(): void; spanContext(): { spanId: string } }) => void open.add(span),
      onEnd(span: { parentSpanContext?: unknown; spanContext(): { spanId: string } }) {
        for (const s of open) if (s.spanContext().spanId === span.spanContext().spanId) open.delete(s);
        if (span.parentSpanContext) return;
        for (const s of [...open]) s.end();
      },
      forceFlush: async () => {},
      shutdown: async () => {},
    };
    const processor = new TracewireSpanProcessor({ baseUrl: service.url, project: PROJECT, env: {} });
    const provider = new BasicTracerProvider({ spanProcessors: [endsOpenSpans as never, processor] });
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const root = trace.getTracer("next.js").startSpan("POST /api/chat");
      const { response, ids } = await context.with(trace.setSpan(context.active(), root), () => chatRoute("m-slow"));
      const reader = response.body!.getReader();
      // Past the two chunks sent at once, so that the body's next read of the LLM stream is pending (one chunk per
      // 50 ms) when the client goes away — as it is while a real answer streams.
      expect((await reader.read()).done).toBe(false);
      expect((await reader.read()).done).toBe(false);
      await new Promise((done) => setTimeout(done, 10));
      const cancelled = reader.cancel();
      root.end();
      await cancelled;
      await new Promise((done) => setTimeout(done, 30));
      await processor.forceFlush();
      const calls = await callsOf(ids.traceId);
      const chat = calls.find((c) => c.parent_id === ids.request);
      expect(chat?.summary, JSON.stringify(calls)).toMatchObject({
        tracewire: { status: "cancelled", cancel_reason: "abort" },
      });
    } finally {
      await provider.shutdown();
      trace.disable();
      context.disable();
    }
  });

  it("refuses what is not an async iterable with a TypeError", () => {
    expect(() => b.next.toTextStream({} as never)).toThrow(TypeError);
  });
});
