/**
 * Bounded queues: with the service down, what does not fit is dropped and counted exactly, nothing else is lost
 * once the service is back, and memory stays flat however many spans are offered.
 */

import { trace } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { op, type TracewireHandle } from "../../src/index.js";
import { gc } from "../support/gc.js";
import { TracingDouble } from "../support/tracing-double.js";
import { expectDeliveredOnce, recordingLogger, startTracing } from "./helpers.js";

let double: TracingDouble;
let tracing: TracewireHandle | undefined;

beforeEach(async () => {
  double = await TracingDouble.start();
});
afterEach(async () => {
  double.recover(); // so that shutdown's flush does not wait out a dead sink
  await tracing?.shutdown();
  tracing = undefined;
  await double.close();
});

describe("drops are counted exactly", () => {
  it("OTLP route: queue of 100, 1000 spans while the sink is down → 900 dropped, the first 100 delivered later", async () => {
    const { lines, logger } = recordingLogger();
    tracing = startTracing(double, { maxQueueSize: 100, logger });
    double.down(["/otel/v1/traces"], "reset");
    const tracer = trace.getTracer("lib");
    for (let i = 0; i < 50; i++) tracer.startSpan(`span-${i}`).end();
    // Let an export reach the dead sink first, so the rest is offered to a queue that is really stuck.
    await vi.waitFor(() => expect(double.server.received("POST", "/otel/v1/traces").length).toBeGreaterThan(0));
    for (let i = 50; i < 1000; i++) tracer.startSpan(`span-${i}`).end();

    // While the sink is down nothing leaves the queue, so exactly maxQueueSize spans are held (the first 100
    // offered) and each later one is dropped on arrival: 1000 - 100 = 900.
    expect(tracing.stats().otlp).toMatchObject({ queued: 100, dropped: 900, sent: 0 });
    expect(lines.warn.filter((l) => l.includes("Dropped"))).toHaveLength(1); // logged once, not 900 times

    double.recover();
    await tracing.flush();
    expect(double.spans.map((s) => s.name)).toEqual(Array.from({ length: 100 }, (_, i) => `span-${i}`));
    expect(tracing.stats().otlp).toMatchObject({ queued: 0, dropped: 900, sent: 100 });
  });

  it("calls route: a call whose start is dropped leaves no trace; a call whose start fits always gets its end", async () => {
    const { lines, logger } = recordingLogger();
    tracing = startTracing(double, { maxQueueSize: 11, logger });
    double.down(["/call/upsert_batch"], "reset");
    const work = op(function work(i: number) {
      return i;
    });
    for (let i = 0; i < 30; i++) expect(work(i)).toBe(i);

    // Each synchronous call offers its start (refused when 11 items are queued) and, if the start was accepted,
    // its end (always accepted: no call is left open by our own limit); a call whose start was refused has its end
    // counted as dropped too. Before call k's start 2k items are queued, so calls 0..5 fit (2·5 = 10 < 11) and
    // calls 6..29 are dropped: 24 calls, 48 items; 12 items queued.
    expect(tracing.stats().calls).toMatchObject({ queued: 12, dropped: 48, sent: 0 });
    expect(lines.warn).toEqual(["[tracewire] Dropped 1 call item(s) because the queue is full (11)."]);

    double.recover();
    await tracing.flush();
    const delivered = double.callsNamed("work");
    expect(delivered.map((c) => c.start!.inputs)).toEqual(Array.from({ length: 6 }, (_, i) => ({ arg0: i })));
    for (const call of delivered) expectDeliveredOnce(double, call.start!.id as string);
    expect(double.calls.size).toBe(6); // no orphan ends of dropped calls
    expect(tracing.stats().calls).toMatchObject({ queued: 0, dropped: 48, sent: 12 });
  });
});

describe("memory", () => {
  it("200k spans through a queue of 100 with the sink down: heap stays flat after GC", async () => {
    const { logger } = recordingLogger();
    tracing = startTracing(double, { maxQueueSize: 100, logger });
    double.down(["/otel/v1/traces"], "reset");
    const tracer = trace.getTracer("lib");
    const burst = (count: number) => {
      for (let i = 0; i < count; i++) {
        tracer
          .startSpan("db.query", { attributes: { "db.statement": `SELECT * FROM t WHERE id = ${i}`, "db.rows": i } })
          .end();
      }
    };
    burst(5_000); // warm-up: the queue is full from here on
    gc!();
    const before = process.memoryUsage().heapUsed;
    burst(200_000);
    gc!();
    const grown = process.memoryUsage().heapUsed - before;

    expect(tracing.stats().otlp).toMatchObject({ queued: 100, dropped: 205_000 - 100, sent: 0 });
    // Retaining these 200k ended spans measures ~200 MB (~1 KB each); the bounded queue measured ~50 KB. 4 MB
    // leaves room for noise yet fails on anything that keeps even 20 bytes per dropped span.
    expect(grown).toBeLessThan(4 * 1024 * 1024);
  }, 60_000);
});
