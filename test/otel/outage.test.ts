/**
 * A 5-second outage of the tracing service (every connection reset), then recovery: every call arrives exactly
 * once with its start before its end, and every OTLP span exactly once. This file is the one place where the
 * requirement itself is about time.
 */
import { trace } from "@opentelemetry/api";
import { expect, it } from "vitest";
import { op } from "../../src/index.js";
import { expectDeliveredOnce, recordingLogger, setupTracedDouble, sleep } from "./helpers.js";

const ctx = setupTracedDouble();

const PATHS = ["/call/upsert_batch", "/otel/v1/traces"];

it("a 5 s outage then recovery: every call exactly once, start before end; every span exactly once", async () => {
  const { lines, logger } = recordingLogger();
  const tracing = ctx.start({ logger });
  const spanIds: string[] = [];
  const step = op(async function step(i: number) {
    trace.getTracer("http").startActiveSpan(`GET /item/${i}`, (span) => {
      spanIds.push(span.spanContext().spanId);
      span.end();
    });
    await sleep(1);
    return i;
  });

  // A long call starts before the outage and ends during it: its start is already at the service.
  let finishLong!: () => void;
  let longId = "";
  const long = op(async function long() {
    longId = trace.getActiveSpan()!.spanContext().spanId;
    await new Promise<void>((resolve) => {
      finishLong = resolve;
    });
    return "done";
  })();
  await tracing.flush();
  expect(ctx.double.call(longId)).toMatchObject({ starts: 1, ends: 0 });

  ctx.double.down(PATHS, "reset");
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => step(i)));
  expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
  finishLong();
  expect(await long).toBe("done");
  await sleep(5_000);

  // The outage was felt: both routes tried (and the calls route went back to its queue for a retry), nothing new
  // reached the service, nothing was dropped. (The OTLP transport's own retries can outlast 5 s, so its queue-level
  // retry count is not asserted.)
  const during = tracing.stats();
  for (const path of PATHS) expect(ctx.double.server.received("POST", path).length).toBeGreaterThan(1);
  expect(during.calls.retries).toBeGreaterThan(0);
  expect(during.calls).toMatchObject({ queued: 41, dropped: 0 });
  expect(during.otlp).toMatchObject({ queued: 20, dropped: 0 });
  expect(ctx.double.calls.size).toBe(1);
  expect(ctx.double.spans).toHaveLength(0);
  expect(lines.warn.some((l) => l.includes("will retry"))).toBe(true);

  ctx.double.recover();
  await tracing.flush();

  expectDeliveredOnce(ctx.double, longId);
  const steps = ctx.double.callsNamed("step");
  expect(steps).toHaveLength(20);
  for (const call of steps) expectDeliveredOnce(ctx.double, call.start!.id as string);
  expect(ctx.double.calls.size).toBe(21);
  expect(ctx.double.spans.map((s) => s.spanId).sort()).toEqual([...spanIds].sort());
  expect(new Set(ctx.double.spans.map((s) => s.spanId)).size).toBe(20);
  expect(tracing.stats()).toMatchObject({
    calls: { sent: 42, dropped: 0, rejected: 0, queued: 0 },
    otlp: { sent: 20, dropped: 0, rejected: 0, queued: 0 },
  });
}, 30_000);
