/**
 * Every promise a call handle returns settles — and none ever makes the app wait for a call to end: feedback awaited
 * inside the app's own server span (default mode, TracewireSpanProcessor in the app's provider) or inside a span
 * that never ends resolves at once; `flush()` rejects what it could not send (typed, still queued) and `shutdown()`
 * settles the rest. Ordering holds throughout: the service never receives feedback for a call it has not seen, even
 * when that means dropping the feedback with the call. `callById()` never throws.
 */
import { context, SpanKind, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { callById, getCurrentCall, NotSentError, op, ValidationError } from "../../src/index.js";
import { startOwnProvider } from "../support/own-provider.js";
import { recordingLogger, type Session, startSession } from "../support/tracing-session.js";

/** `promise`, or a failure naming the hang after `ms`. */
function within<T>(promise: Promise<T>, ms = 2000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms: it hangs`)), ms);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

/** How a promise settled, without letting it hang the test. */
async function outcome(promise: Promise<unknown>): Promise<{ value?: unknown; error?: unknown }> {
  try {
    return { value: await within(promise, 5000) };
  } catch (error) {
    return { error };
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** A session stopped after the test (unless the test shut it down itself). */
async function session(options: Parameters<typeof startSession>[0]): Promise<Session> {
  const s = await startSession(options);
  cleanup = () => s.stop();
  return s;
}

describe("default mode: the app's own server span", () => {
  it("feedback awaited inside it returns at once, then follows the span's export", async () => {
    const { logger } = recordingLogger();
    const { double, processor, close } = await startOwnProvider({
      exitHooks: false,
      scheduledDelayMillis: 60_000,
      logger,
    });
    cleanup = close;

    let receipt: unknown;
    let spanId = "";
    await trace.getTracer("http-server").startActiveSpan("GET /answer", { kind: SpanKind.SERVER }, async (span) => {
      spanId = span.spanContext().spanId;
      receipt = await within(getCurrentCall()!.react("👍"));
      span.end();
    });
    expect(receipt).toEqual({
      id: expect.stringMatching(UUID),
      created_at: expect.any(String),
      wb_user_id: "",
      payload: { emoji: "👍" },
    });
    // Nothing has gone out yet: the span's export waits for the 60 s timer — the feedback waits with it.
    expect(double.feedback).toEqual([]);
    await processor.forceFlush();
    expect(double.spans.map((s) => s.spanId)).toEqual([spanId]);
    expect(double.feedback).toEqual([
      expect.objectContaining({
        id: (receipt as { id: string }).id,
        weave_ref: `weave:///acme/demo/call/${spanId}`,
        _callStartedBefore: true,
      }),
    ]);
  });
});

describe("a span that never ends", () => {
  it("feedback on it resolves; flush() and shutdown() return; shutdown drops it (counted, logged), never sent", async () => {
    const s = await session({ export: "otlp" });
    const span = trace.getTracer("worker").startSpan("poll forever");
    const call = context.with(trace.setSpan(context.active(), span), () => getCurrentCall())!;
    const receipt = await within(call.react("👀"));
    expect(receipt).toMatchObject({ id: expect.stringMatching(UUID), wb_user_id: "" });
    await within(s.tracing.flush());
    await within(s.tracing.shutdown());
    expect(s.double.feedback).toEqual([]);
    expect(s.tracing.stats().calls).toMatchObject({ dropped: 1, sent: 0, queued: 0 });
    expect(s.logs.map((l) => l.message).join("\n")).toMatch(/had not ended by shutdown/);
    // A request made after shutdown rejects at once, typed.
    const late = await outcome(call.note("too late"));
    expect(late.error).toBeInstanceOf(NotSentError);
    expect(late.error).toMatchObject({ reason: "shutdown", queued: false });
    span.end();
    await s.double.close();
    cleanup = undefined;
  });
});

describe("flush() and shutdown() settle every request", () => {
  it("flush() rejects a request it could not send with NotSentError('flush'); it stays queued and goes later", async () => {
    const s = await session({ exportTimeoutMillis: 600 });
    const [done, call] = op(async function answered() {
      return 42;
    }).invoke();
    await done;
    await s.tracing.flush();
    s.double.down(["/feedback/create"], "reset");
    const pending = outcome(call!.react("👍"));
    await within(s.tracing.flush());
    const { error } = await pending;
    expect(error).toBeInstanceOf(NotSentError);
    expect(error).toMatchObject({ reason: "flush", queued: true });
    expect((error as Error).message).toMatch(/flush\(\) returned before \/feedback\/create was sent.*stays queued/);
    expect(s.double.feedback).toEqual([]);
    // Still queued: once the service is back, it is sent (once), after its call.
    s.double.recover();
    await s.tracing.flush();
    expect(s.double.feedback).toEqual([expect.objectContaining({ weave_ref: call!.ref, _callStartedBefore: true })]);
    expect(s.tracing.stats().calls).toMatchObject({ queued: 0, dropped: 0 });
  });

  it("shutdown() rejects a request whose call's span could not be exported, and never sends it", async () => {
    const s = await session({ export: "otlp", exportTimeoutMillis: 500 });
    s.double.down(["/otel/v1/traces"], "reset");
    const [done, call] = op(async function unexported() {
      return 1;
    }).invoke();
    await done;
    const pending = outcome(call!.react("👎")); // the call has ended: it waits for its span's export
    await within(s.tracing.shutdown(), 5000);
    const { error } = await pending;
    expect(error).toBeInstanceOf(NotSentError);
    expect(error).toMatchObject({ reason: "shutdown", queued: false });
    expect((error as Error).message).toMatch(/span could not be exported before shutdown/);
    expect(s.double.feedback).toEqual([]);
    await s.double.close();
    cleanup = undefined;
  });

  it("feedback about a call whose span was dropped (queue full) is never sent: call-not-exported", async () => {
    const s = await session({ export: "otlp", maxQueueSize: 1, scheduledDelayMillis: 60_000 });
    await op(async function first() {
      return 1;
    })(); // fills the OTLP queue
    let receipt: unknown;
    const [done, call] = op(async function dropped() {
      receipt = await within(getCurrentCall()!.react("🔥")); // while it runs: a receipt
      return 2;
    }).invoke();
    await done;
    expect(receipt).toMatchObject({ id: expect.stringMatching(UUID) });
    const after = await outcome(call!.note("after the end"));
    expect(after.error).toBeInstanceOf(NotSentError);
    expect(after.error).toMatchObject({ reason: "call-not-exported" });
    await s.tracing.flush();
    expect(s.double.spans.map((sp) => sp.name)).toEqual(["first"]);
    expect(s.double.feedback).toEqual([]);
    // Both requests counted as dropped on the calls route, besides the dropped span on the OTLP route.
    expect(s.tracing.stats()).toMatchObject({ calls: { dropped: 2, sent: 0 }, otlp: { dropped: 1, sent: 1 } });
  });
});

describe("callById() never throws", () => {
  it("a malformed id or trace id: a handle whose requests reject with ValidationError", async () => {
    const s = await session({});
    for (const [id, traceId] of [
      ["", ""],
      ["   ", ""],
      [42, ""],
      [null, ""],
      ["ab/cd", ""],
      ["0123456789abcdef", 7],
    ] as [unknown, unknown][]) {
      let handle: ReturnType<typeof callById> | undefined;
      expect(() => {
        handle = callById(id as string, traceId as string);
      }).not.toThrow();
      expect(handle!.ref).toBe("");
      for (const request of [
        handle!.react("👍"),
        handle!.note("n"),
        handle!.score("s", 1),
        handle!.setDisplayName("x"),
      ])
        expect((await outcome(request)).error).toBeInstanceOf(ValidationError);
    }
    await s.tracing.flush();
    expect(s.double.server.requests.filter((r) => !r.path.startsWith("/call/"))).toEqual([]);
  });

  it("without tracing: a handle whose requests reject with NotSentError('tracing-off')", async () => {
    let handle: ReturnType<typeof callById> | undefined;
    expect(() => {
      handle = callById("0123456789abcdef");
    }).not.toThrow();
    expect(handle!.project).toBe("");
    const { error } = await outcome(handle!.react("👍"));
    expect(error).toBeInstanceOf(NotSentError);
    expect(error).toMatchObject({ reason: "tracing-off" });
    expect((error as Error).message).toMatch(/init\(\)/);
  });

  it("the README's server action, callById(id).react(emoji), resolves with the service's answer", async () => {
    const s = await session({});
    const sendFeedback = async (callId: string, emoji: string) => callById(callId).react(emoji);
    await expect(sendFeedback("00f067aa0ba902b7", "👍")).resolves.toMatchObject({ payload: { emoji: "👍" } });
    await expect(sendFeedback("not/an id", "👍")).rejects.toBeInstanceOf(ValidationError);
    expect(s.double.feedback).toEqual([
      expect.objectContaining({ weave_ref: "weave:///acme/demo/call/00f067aa0ba902b7" }),
    ]);
  });
});
