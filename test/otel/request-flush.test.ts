/**
 * Per-request flush: when a request's root span ends (Next.js's `BaseServer.handleRequest` span, or any local root
 * started while the platform offers `waitUntil`), its spans go out at once — not on the batch timer, here 3 s —
 * after a bounded wait for the calls still open under it. A plain root span on a long-running server keeps batching.
 */
import { type Span, SpanKind, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { REQUEST_WAIT_MS } from "../../src/otel/request-flush.js";
import type { TracingDouble } from "../support/tracing-double.js";
import { setupTracedDouble, sleep } from "./helpers.js";

const ctx = setupTracedDouble({ scheduledDelayMillis: 3000 });
const VERCEL = Symbol.for("@vercel/request-context");

afterEach(() => {
  delete (globalThis as Record<symbol, unknown>)[VERCEL];
});

/** Runs `fn` inside a root span like Next's request span (or a plain one), ends it when `fn` settles. */
async function request<T>(fn: (root: Span) => Promise<T>, next = true): Promise<{ root: Span; result: T }> {
  const tracer = trace.getTracer("next.js", "16.4.6");
  const attributes = next ? { "next.span_type": "BaseServer.handleRequest", "http.method": "GET" } : {};
  return tracer.startActiveSpan("GET /page", { kind: SpanKind.SERVER, attributes }, async (root) => {
    try {
      return { root, result: await fn(root) };
    } finally {
      root.end();
    }
  });
}

/** Polls until `check` holds or `ms` pass; returns how long it took (or Infinity). */
/**
 * Well under the 3 s batch timer, with room for a loaded CI machine: arriving by then can only be the request's own
 * flush (the timer would take 3 s).
 */
const SOON_MS = 1500;

async function within(ms: number, check: () => boolean): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (check()) return Date.now() - start;
    await sleep(10);
  }
  return check() ? Date.now() - start : Number.POSITIVE_INFINITY;
}

const ended = (double: TracingDouble, id: string) => double.calls.get(id)?.end !== undefined;
const exported = (double: TracingDouble, spanId: string) => double.spans.some((s) => s.spanId === spanId);

describe("per-request flush", () => {
  it("a Next.js request span: its calls and its own span are sent when it ends, not on the 3 s timer", async () => {
    ctx.start();
    const page = op(async function renderPage() {
      return "html";
    });
    const { root, result } = await request(async () => {
      const [html, call] = page.invoke();
      await html;
      return call!.id;
    });
    const rootId = root.spanContext().spanId;
    expect(await within(SOON_MS, () => exported(ctx.double, rootId) && ended(ctx.double, result))).toBeLessThan(
      SOON_MS,
    );
    expect(ctx.double.call(result).start?.parent_id).toBe(rootId);
  });

  it("waits for a call still open under the request, and sends its end in the same flush", async () => {
    ctx.start();
    let finish!: () => void;
    const stream = op(async function llmStream() {
      await new Promise<void>((resolve) => (finish = resolve));
      return "cancelled";
    });
    let streamCall: string | undefined;
    const { root } = await request(async () => {
      const [result, call] = stream.invoke();
      streamCall = call!.id;
      void result;
    });
    // The root has ended; the stream is still running. Nothing goes out yet: the flush waits for it.
    await sleep(150);
    expect(exported(ctx.double, root.spanContext().spanId)).toBe(false);
    const endedAt = Date.now();
    finish();
    // One flush carries the call's end (calls route) and the root span (OTLP route), both well before the timer.
    const both = () => ended(ctx.double, streamCall!) && exported(ctx.double, root.spanContext().spanId);
    expect(await within(SOON_MS, both)).toBeLessThan(SOON_MS);
    expect(Date.now() - endedAt).toBeLessThan(1000);
  });

  it(`stops waiting after ${REQUEST_WAIT_MS} ms: the rest goes out, the open call later`, async () => {
    ctx.start();
    let finish!: () => void;
    const slow = op(async function slowWork() {
      await new Promise<void>((resolve) => (finish = resolve));
    });
    let slowCall: string | undefined;
    const started = Date.now();
    const { root } = await request(async () => {
      const [, call] = slow.invoke();
      slowCall = call!.id;
    });
    const sent = () => exported(ctx.double, root.spanContext().spanId) && ctx.double.calls.has(slowCall!);
    const waited = await within(REQUEST_WAIT_MS + 800, sent);
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_WAIT_MS - 50);
    expect(waited).toBeLessThan(REQUEST_WAIT_MS + 800);
    expect(ended(ctx.double, slowCall!)).toBe(false);
    finish();
  });

  it("a platform waitUntil (Vercel's request context) gets a promise that settles once the request is sent", async () => {
    ctx.start();
    const kept: Promise<unknown>[] = [];
    (globalThis as Record<symbol, unknown>)[VERCEL] = {
      get: () => ({ waitUntil: (p: Promise<unknown>) => kept.push(p) }),
    };
    const work = op(async function handler() {
      return 1;
    });
    // Any local root span counts when the platform offers waitUntil (as @vercel/otel does), not only Next's.
    const { root, result } = await request(async () => work.invoke()[1]!.id, false);
    expect(kept).toHaveLength(1);
    await kept[0];
    expect(exported(ctx.double, root.spanContext().spanId)).toBe(true);
    expect(ended(ctx.double, result)).toBe(true);
  });

  it("a plain root span on a long-running server keeps batching on the timer", async () => {
    ctx.start();
    const work = op(async function job() {
      return 1;
    });
    const { result } = await request(async () => work.invoke()[1]!.id, false);
    await sleep(400);
    expect(ctx.double.calls.get(result)).toBeUndefined();
  });
});
