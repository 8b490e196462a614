/**
 * Instrumentation never waits on the network in the caller's path — proved by structure, not by timing: with the
 * service hanging every request (reading it, never answering), hundreds of traced calls of every shape complete
 * while the service has sent zero responses. Then: with the queue full behind a hung request, what does not fit is
 * dropped and counted exactly, and the rest arrives exactly once when the service comes back.
 */
import { SpanKind, trace } from "@opentelemetry/api";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { getCurrentCall, init, op, type TracewireHandle } from "../../src/index.js";
import { TracingDouble } from "../support/tracing-double.js";
import { recordingLogger } from "../support/tracing-session.js";
import { drain, expectCallsExactlyOnce, PATHS, spansArrived } from "./support.js";

let double: TracingDouble;
let tracing: TracewireHandle | undefined;

beforeEach(async () => {
  double = await TracingDouble.start();
});
afterEach(async () => {
  double.recover();
  double.releaseHung();
  await tracing?.shutdown();
  tracing = undefined;
  await double.close();
});

const tracer = () => trace.getTracer("app-db");

const syncOp = op(function lookup(key: string) {
  tracer().startSpan("SELECT", { kind: SpanKind.CLIENT }).end();
  return `value of ${key}`;
});
const asyncOp = op(async function fetchUser(id: number) {
  await new Promise((resolve) => setImmediate(resolve));
  return { id, name: `user ${id}` };
});
const streamOp = op(async function* tokens(n: number) {
  for (let i = 0; i < n; i++) yield `t${i}`;
});
const withFeedback = op(function answer(q: string) {
  // Feedback and renames from inside a call go through the same queue: they must not wait either.
  const call = getCurrentCall()!;
  void call.react("👍");
  void call.setDisplayName(`answer: ${q}`);
  return q.length;
});

it("with every request hanging, 300 traced calls of every shape return while the service has answered nothing", async () => {
  const { logger } = recordingLogger();
  // Default deadlines (30 s per export, 10 s per OTLP request): nothing times out during the test.
  tracing = init({ baseUrl: double.url, project: "acme/demo", env: {}, scheduledDelayMillis: 1, logger });
  double.down([PATHS.calls, PATHS.otlp, "/feedback/create", "/call/update"], "hang");

  // Get both exporters stuck in a request the service will never answer.
  const callIds: string[] = [syncOp.invoke("warm-up")[1]!.id];
  await vi.waitFor(() => {
    expect(double.server.received("POST", PATHS.calls).length).toBe(1);
    expect(double.server.received("POST", PATHS.otlp).length).toBe(1);
  });

  let returned = 0;
  for (let i = 0; i < 100; i++) {
    const [value, call] = syncOp.invoke(`k${i}`);
    expect(value).toBe(`value of k${i}`);
    callIds.push(call!.id);
    returned++;

    const [user, userCall] = asyncOp.invoke(i);
    expect(await user).toEqual({ id: i, name: `user ${i}` });
    callIds.push(userCall!.id);
    returned++;

    const items: string[] = [];
    for await (const t of streamOp(2)) items.push(t);
    expect(items).toEqual(["t0", "t1"]);
    returned++;
  }
  const [length, answerCall] = withFeedback.invoke("why?");
  expect(length).toBe(4);
  callIds.push(answerCall!.id);

  // The structural fact: every call above returned, and the service has not sent a single response.
  expect(returned).toBe(300);
  expect(double.answers).toEqual([]);
  expect(double.hangs).toBe(2);
  const held = tracing.stats();
  expect(held.calls.sent + held.otlp.sent).toBe(0);
  expect(held.calls.dropped + held.otlp.dropped).toBe(0);
  expect(held.calls.queued).toBeGreaterThan(0);
  expect(held.otlp.queued).toBeGreaterThan(0);

  // The service restarts: the hung connections drop, the client resends, everything arrives exactly once.
  double.recover();
  double.releaseHung();
  await drain(tracing, 20_000);
  const streamIds = double.callsNamed("tokens").map((c) => c.start!.id as string);
  expect(streamIds).toHaveLength(100);
  expectCallsExactlyOnce(double, [...callIds, ...streamIds]);
  expect(spansArrived(double)).toHaveLength(101); // one SELECT per lookup() call
  expect(double.feedback).toHaveLength(1);
  expect(double.updates).toHaveLength(1);
  const stats = tracing.stats();
  expect(stats.calls).toMatchObject({ dropped: 0, rejected: 0, queued: 0 });
  expect(stats.otlp).toMatchObject({ sent: 101, dropped: 0, rejected: 0, queued: 0 });
  expect(stats.internalErrors).toBe(0);
}, 30_000);

it("queue full behind a hung request: the overflow is dropped and counted exactly; the rest arrives once", async () => {
  const { logger, lines } = recordingLogger();
  tracing = init({
    baseUrl: double.url,
    project: "acme/demo",
    env: {},
    scheduledDelayMillis: 1,
    maxQueueSize: 50,
    logger,
  });
  double.down([PATHS.otlp], "hang");
  const lib = trace.getTracer("lib");
  lib.startSpan("first").end();
  await vi.waitFor(() => expect(double.hangs).toBe(1));

  // The hung batch is still queued (it is not done until answered): 49 more fit, the other 950 are dropped.
  for (let i = 0; i < 999; i++) lib.startSpan(`span-${i}`).end();
  expect(tracing.stats().otlp).toMatchObject({ queued: 50, dropped: 950, sent: 0 });
  expect(lines.filter((l) => l.message.includes("Dropped"))).toHaveLength(1);

  double.recover();
  double.releaseHung();
  await drain(tracing);
  expect(double.spans.map((s) => s.name)).toEqual(["first", ...Array.from({ length: 49 }, (_, i) => `span-${i}`)]);
  spansArrived(double);
  expect(tracing.stats().otlp).toMatchObject({ queued: 0, dropped: 950, sent: 50, rejected: 0 });
});
