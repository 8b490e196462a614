/**
 * Exact accounting under an outage that overflows the queues: every item offered to a route — a call start, a call
 * end (calls route), a span (OTLP route) — ends up counted exactly once as sent, rejected or dropped, or is still
 * queued. A call whose start was dropped has its end counted as dropped too (before, it vanished: half the loss).
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { init, type TracewireHandle, type TracewireStats } from "../../src/index.js";
import { TracingDouble } from "../support/tracing-double.js";
import { recordingLogger } from "../support/tracing-session.js";
import { burst, FAST, PATHS } from "./support.js";

let double: TracingDouble;
let tracing: TracewireHandle;

function start(deadlines: { exportTimeoutMillis?: number; otlpTimeoutMillis?: number } = {}): void {
  tracing = init({
    baseUrl: double.url,
    project: "acme/demo",
    env: {},
    logger: recordingLogger().logger,
    ...FAST,
    ...deadlines,
    maxQueueSize: 64,
    maxExportBatchSize: 32,
  });
}

beforeEach(async () => {
  double = await TracingDouble.start();
  start();
});
afterEach(async () => {
  await tracing.shutdown();
  await double.close();
});

const CALLS = 200;

/** offered = sent + rejected + dropped + queued, on each route. */
function expectExact(stats: TracewireStats): void {
  const total = (s: TracewireStats["calls"]) => s.sent + s.rejected + s.dropped + s.queued;
  expect({ calls: total(stats.calls), otlp: total(stats.otlp) }).toEqual({ calls: 2 * CALLS, otlp: CALLS });
}

it("after an outage that overflows the queues, and after shutdown, every item is counted exactly once", async () => {
  double.down([PATHS.calls, PATHS.otlp], "reset");
  burst(CALLS, 0);
  await vi.waitFor(() => {
    expect(tracing.stats().calls.retries).toBeGreaterThanOrEqual(1);
    expect(tracing.stats().otlp.retries).toBeGreaterThanOrEqual(1);
  });
  const during = tracing.stats();
  expectExact(during);
  expect(during.calls.dropped).toBeGreaterThan(CALLS); // starts and ends of the calls that did not fit
  expect(during.otlp.dropped).toBeGreaterThan(0);

  await tracing.shutdown();
  const after = tracing.stats();
  expectExact(after);
  expect(after.calls).toMatchObject({ sent: 0, rejected: 0, queued: 0 });
  expect(after.otlp).toMatchObject({ sent: 0, rejected: 0, queued: 0 });
});

it("after the service comes back, what was counted as sent is exactly what arrived", async () => {
  // Longer deadlines than FAST's 500 ms, so that a loaded machine rarely turns a stored batch into a resent one.
  await tracing.shutdown();
  start({ exportTimeoutMillis: 3000, otlpTimeoutMillis: 3000 });
  double.down([PATHS.calls, PATHS.otlp], "reset");
  burst(CALLS, 0);
  await vi.waitFor(() => expect(tracing.stats().calls.retries).toBeGreaterThanOrEqual(1), { timeout: 10_000 });
  double.recover();
  await vi.waitFor(
    async () => {
      await tracing.flush();
      expect(tracing.processor?.idle).toBe(true);
    },
    { timeout: 15_000 },
  );
  const stats = tracing.stats();
  expectExact(stats);
  expect(stats.calls.queued).toBe(0);
  // Delivery is at-least-once: a batch the service stored but whose answer the client never saw is sent again, so
  // what counts is the distinct items that arrived (call id + start/end, span id).
  const stored = [...double.calls.values()];
  expect(stats.calls.sent).toBe(stored.reduce((n, c) => n + Math.min(c.starts, 1) + Math.min(c.ends, 1), 0));
  // Never an end without its start, nor a start without its end: both halves of a call share its fate.
  for (const call of stored) expect({ start: call.starts > 0, end: call.ends > 0 }).toEqual({ start: true, end: true });
  expect(stats.otlp.sent).toBe(new Set(double.spans.map((span) => span.spanId)).size);
});
