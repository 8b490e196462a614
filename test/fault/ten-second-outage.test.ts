/**
 * The service down for 10 s — its port refusing connections, as when it is stopped or restarting — while the app
 * keeps working: a call started before the outage ends during it, and new traced calls (each with a foreign child
 * span) keep coming every 100 ms. Every call returns while the service is down; nothing is dropped (it all fits the
 * queue); once the port accepts again, every call arrives exactly once, start before end, and every span exactly
 * once. The one test of the suite whose requirement is about time. (test/otel/outage.test.ts covers a 5 s outage by
 * connection resets.)
 */
import { trace } from "@opentelemetry/api";
import { afterEach, beforeEach, expect, it } from "vitest";
import { init, op, type TracewireHandle } from "../../src/index.js";
import { TcpGate } from "../support/tcp-gate.js";
import { TracingDouble } from "../support/tracing-double.js";
import { recordingLogger } from "../support/tracing-session.js";
import { drain, expectCallsExactlyOnce, spansArrived } from "./support.js";

let double: TracingDouble;
let gate: TcpGate;
let tracing: TracewireHandle | undefined;

beforeEach(async () => {
  double = await TracingDouble.start();
  gate = await TcpGate.start(double.server.port);
});
afterEach(async () => {
  await gate.open();
  await tracing?.shutdown();
  tracing = undefined;
  await gate.close();
  await double.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const OUTAGE_MS = 10_000;

it("10 s down (connection refused): the app keeps its pace, then every call and span arrives exactly once", async () => {
  const { logger, lines } = recordingLogger();
  tracing = init({ baseUrl: gate.url, project: "acme/demo", env: {}, scheduledDelayMillis: 50, logger });
  const spanIds: string[] = [];
  const step = op(async function step(i: number) {
    trace.getTracer("app-http").startActiveSpan(`GET /step/${i}`, (span) => {
      spanIds.push(span.spanContext().spanId);
      span.end();
    });
    await sleep(1);
    return i;
  });

  let finishLong!: () => void;
  const [long, longCall] = op(async function long() {
    await new Promise<void>((resolve) => {
      finishLong = resolve;
    });
    return "done";
  }).invoke();
  await tracing.flush();
  expect(double.call(longCall!.id)).toMatchObject({ starts: 1, ends: 0 });
  const connectionsBefore = gate.connections;

  await gate.close();
  const downAt = Date.now();
  const callIds: string[] = [longCall!.id];
  let completedWhileDown = 0;
  for (let i = 0; Date.now() - downAt < OUTAGE_MS; i++) {
    const [result, call] = step.invoke(i);
    expect(await result).toBe(i);
    callIds.push(call!.id);
    completedWhileDown++;
    if (i === 10) {
      finishLong();
      expect(await long).toBe("done");
    }
    await sleep(100);
  }

  // Still down: every traced call of the last 10 s has returned; the client kept trying (and was refused) without
  // dropping anything; nothing got through.
  expect(gate.isOpen).toBe(false);
  expect(completedWhileDown).toBeGreaterThan(50);
  expect(gate.connections).toBe(connectionsBefore);
  const during = tracing.stats();
  expect(during.calls.retries + during.otlp.retries).toBeGreaterThan(0);
  expect(during.calls).toMatchObject({ sent: 1, dropped: 0, queued: 2 * completedWhileDown + 1 });
  expect(during.otlp).toMatchObject({ sent: 0, dropped: 0, queued: completedWhileDown });
  expect(lines.some((l) => l.message.includes("will retry"))).toBe(true);

  await gate.open();
  await drain(tracing, 30_000);

  expectCallsExactlyOnce(double, callIds);
  expect(spansArrived(double).sort()).toEqual([...spanIds].sort());
  expect(tracing.stats()).toMatchObject({
    calls: { sent: 2 * callIds.length, dropped: 0, rejected: 0, queued: 0 },
    otlp: { sent: spanIds.length, dropped: 0, rejected: 0, queued: 0 },
    internalErrors: 0,
  });
  expect(Date.now() - downAt).toBeGreaterThanOrEqual(OUTAGE_MS);
}, 60_000);
