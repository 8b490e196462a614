/**
 * The OTLP route encodes spans into shared buffers as they end and reuses a buffer once all its spans are sent.
 * Here spans keep ending while earlier batches are in flight, one of them answered 503 and sent again, so buffers
 * are recycled while other spans still point into theirs: every span must still arrive exactly once, byte-exact.
 */
import { trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { setupTracedDouble } from "./helpers.js";

const ctx = setupTracedDouble({
  export: "otlp",
  maxExportBatchSize: 40,
  maxQueueSize: 10_000,
  scheduledDelayMillis: 60_000,
});

/** A payload whose length and content depend on the span's index (300–1,100 bytes, some multi-byte). */
const payload = (i: number): string =>
  `${i}:${"é".repeat(i % 50)}${String.fromCharCode(97 + (i % 26)).repeat(300 + ((i * 37) % 700))}`;

describe.each(["http/protobuf", "http/json"] as const)("shared encoding buffers (%s)", (otlpProtocol) => {
  it("delivers every span exactly once and intact while buffers are reused", async () => {
    const tracing = ctx.start({ otlpProtocol });
    ctx.double.fail("/otel/v1/traces", { status: 503 }); // one batch goes twice: its buffers must stay untouched
    const tracer = trace.getTracer("arena-test");
    const total = 3000;
    for (let i = 0; i < total; i++) {
      tracer.startSpan(`span-${i}`, { attributes: { i, payload: payload(i) } }).end();
      // Let exports run (and finish, freeing buffers) between bursts of spans.
      if (i % 150 === 149) await new Promise((resolve) => setImmediate(resolve));
    }
    await tracing.flush();

    const received = ctx.double.spans.filter((s) => s.name.startsWith("span-"));
    expect(received).toHaveLength(total);
    const seen = new Set<number>();
    for (const span of received) {
      const i = span.attributes.i as number;
      expect(span.name).toBe(`span-${i}`);
      expect(span.attributes.payload).toBe(payload(i));
      seen.add(i);
    }
    expect(seen.size).toBe(total);
    expect(ctx.double.statuses("/otel/v1/traces")).toContain(503);
    expect(tracing.stats().otlp).toMatchObject({ sent: total, dropped: 0, queued: 0 });
  });
});
