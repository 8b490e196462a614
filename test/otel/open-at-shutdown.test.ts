/**
 * Calls still running when `shutdown()` runs: a wrapped stream the app has not finished reading, a request still
 * waiting on the model, an op() whose promise has not settled. The service must not keep a call that started and
 * never ended: shutdown ends each as cancelled (status UNSET, `tracewire.cancelled`, reason `shutdown`) and sends
 * that end, on both routes. What the app does with the call afterwards (reads on, the promise resolves, it aborts)
 * neither throws nor sends a second end, and is not counted as a drop.
 */
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { getCurrentCall, NotSentError, op, type TracewireHandle } from "../../src/index.js";
import { wrapAnthropic } from "../../src/instrument/anthropic-entry.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { ANTHROPIC_VERSIONS, makeAnthropic, setupAnthropicServer } from "../instrument/anthropic-support.js";
import { setupOpenAIServer } from "../instrument/support.js";
import { type Session, startSession } from "../support/tracing-session.js";

const MESSAGES = [{ role: "user" as const, content: "Say hello." }];
const CHAT = "openai.chat.completions.create";
const STATUS_UNSET = 0;

const ctx = setupOpenAIServer();
const anthropic = setupAnthropicServer();
let session: Session | undefined;
afterEach(async () => {
  await session?.stop();
  session = undefined;
});

/** Three calls left running: a half-read stream, a request the model never answers, an op() awaiting. */
async function leaveCallsRunning() {
  const client = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: ctx.server.baseURL, maxRetries: 0 }));
  const stream = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
  const reader = stream[Symbol.asyncIterator]();
  await reader.next(); // the role
  const first = await reader.next(); // the first words
  const abort = new AbortController();
  const waiting = client.chat.completions
    .create({ model: "m-hang", messages: MESSAGES }, { signal: abort.signal })
    .then(
      () => "resolved" as const,
      (err: unknown) => err,
    );
  let release: (value: string) => void = () => {};
  const pending = op(async function awaitingAnswer() {
    return await new Promise<string>((resolve) => {
      release = resolve;
    });
  });
  const opResult = pending();
  return {
    first,
    /** What the app does after shutdown: reads on, gets its op's answer, gives up on the hung request. */
    async goOn() {
      const more = await reader.next();
      await reader.return?.();
      release("late answer");
      const answer = await opResult;
      abort.abort();
      return { more, answer, waited: await waiting };
    },
  };
}

async function shutDown(tracing: TracewireHandle) {
  const started = Date.now();
  await tracing.shutdown();
  return Date.now() - started;
}

describe("calls route", () => {
  it("shutdown ends every running call as cancelled (reason shutdown); later work sends nothing more", async () => {
    session = await startSession();
    const { double, tracing } = session;
    const running = await leaveCallsRunning();
    expect(running.first.done).toBe(false);

    // Nothing waits for the calls themselves: shutdown is quick.
    expect(await shutDown(tracing)).toBeLessThan(5000);
    const calls = [...double.callsNamed(CHAT), ...double.callsNamed("awaitingAnswer")];
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect({ starts: call.starts, ends: call.ends }).toEqual({ starts: 1, ends: 1 });
      expect(call.end?.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "shutdown" } });
      expect(call.end?.exception).toBeUndefined();
    }
    // The half-read stream's call keeps what it delivered so far.
    const [streamed] = double.callsNamed(CHAT);
    expect(JSON.stringify(streamed?.end?.output)).toContain("Hello");

    const after = await running.goOn();
    expect(after.more.done).toBe(false);
    expect(after.answer).toBe("late answer");
    expect(after.waited).toBeInstanceOf(OpenAI.APIUserAbortError);
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const call of calls) expect(call.ends).toBe(1);
    // The late ends of calls shutdown already ended are not drops.
    expect(tracing.stats().calls.dropped).toBe(0);
  });

  it("a stream still reading on for its usage when shutdown starts ends with its output, redacted as configured", async () => {
    // The redaction hook is the processor's: a call that ends while shutdown waits for it must still go through it.
    session = await startSession({ redact: (payload, { kind }) => (kind === "output" ? { redacted: true } : payload) });
    const client = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: ctx.server.baseURL, maxRetries: 0 }));
    // The stand-in sends the usage chunk 100 ms after the last finish_reason: tracewire reads on for it after `break`.
    const stream = await client.chat.completions.create({ model: "m-usage-late", messages: MESSAGES, stream: true });
    for await (const chunk of stream) if (chunk.choices[0]?.finish_reason) break;
    await session.tracing.shutdown();
    const [call] = session.double.callsNamed(CHAT);
    expect(call?.ends).toBe(1);
    expect(call?.end?.summary).not.toHaveProperty("tracewire");
    expect(call?.end?.summary).toHaveProperty("usage");
    expect(call?.end?.output).toEqual({ redacted: true });
  });
});

describe("otlp route", () => {
  it("shutdown exports every running call's span as cancelled (reason shutdown), once", async () => {
    session = await startSession({ export: "otlp" });
    const { double, tracing } = session;
    const running = await leaveCallsRunning();

    expect(await shutDown(tracing)).toBeLessThan(5000);
    const spans = double.spans;
    expect(spans.map((s) => s.name).sort()).toEqual(["awaitingAnswer", CHAT, CHAT]);
    for (const span of spans) {
      expect(span.status.code).toBe(STATUS_UNSET);
      expect(span.attributes).toMatchObject({ "tracewire.cancelled": true, "tracewire.cancel.reason": "shutdown" });
      expect(span.events).toEqual([]);
    }

    await running.goOn();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(new Set(double.spans.map((s) => s.spanId)).size).toBe(3);
    expect(double.spans).toHaveLength(3);
    expect(tracing.stats().otlp.dropped).toBe(0);
  });

  it("feedback given inside a call still running is sent after the span shutdown exports", async () => {
    session = await startSession({ export: "otlp" });
    const { double, tracing } = session;
    let release: () => void = () => {};
    let receipt: unknown;
    const pending = op(async function reviewed() {
      receipt = await getCurrentCall()?.react("👀"); // parked on the running span: resolves at once
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const done = pending();
    await expect.poll(() => receipt).toBeDefined();
    await tracing.shutdown();
    const [span] = double.spans;
    expect(span?.name).toBe("reviewed");
    expect(double.feedback).toEqual([
      expect.objectContaining({ id: (receipt as { id: string }).id, _callStartedBefore: true }),
    ]);
    expect(tracing.stats().calls).toMatchObject({ sent: 1, dropped: 0 });
    release();
    await done;
  });

  it("a request about a call shutdown ended rejects, typed, instead of resolving and being lost", async () => {
    session = await startSession({ export: "otlp" });
    let release: () => void = () => {};
    const pending = op(async function renamedLate() {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const [done, call] = pending.invoke();
    await session.tracing.shutdown();
    // The span still runs (its owner ends it later), but its call was sent: a rename set on the span would never go.
    for (const request of [call!.setDisplayName("too late"), call!.react("👍"), call!.note("late")]) {
      const error = await request.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(NotSentError);
      expect(error).toMatchObject({ reason: "shutdown" });
    }
    release();
    await done;
    expect(session.double.spans.map((s) => s.attributes["wandb.display_name"])).toEqual([undefined]);
  });
});

describe.each(["calls", "otlp"] as const)("another wrapper (Anthropic), %s route", (route) => {
  it("a Messages stream half read when shutdown runs ends as cancelled, with what it delivered; reading on is fine", async () => {
    session = await startSession({ export: route });
    const client = wrapAnthropic(makeAnthropic(ANTHROPIC_VERSIONS[0]!, anthropic.server));
    const stream = await client.messages.create({
      model: "m-slow",
      max_tokens: 64,
      messages: [{ role: "user", content: "Say hello." }],
      stream: true,
    });
    const reader = stream[Symbol.asyncIterator]();
    for (let i = 0; i < 4; i++) await reader.next();
    await session.tracing.shutdown();
    await reader.next();
    await reader.return?.();
    if (route === "calls") {
      const [call] = session.double.callsNamed("anthropic.messages.create");
      expect(call).toMatchObject({ starts: 1, ends: 1 });
      expect(call?.end?.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "shutdown" } });
      expect(call?.end?.output).toBeDefined();
    } else {
      expect(session.double.spans).toHaveLength(1);
      expect(session.double.spans[0]?.attributes).toMatchObject({
        "tracewire.cancelled": true,
        "tracewire.cancel.reason": "shutdown",
      });
    }
  });
});
