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

describe("shared encoding buffers (calls route)", () => {
  it("delivers every call's start and end exactly once and intact while buffers are reused", async () => {
    const tracing = ctx.start({ export: "calls" });
    // One batch fails past the transport's own retries, so the queue sends it again later, after more calls were
    // encoded: its buffers must stay untouched meanwhile.
    ctx.double.fail("/call/upsert_batch", ...Array.from({ length: 4 }, () => ({ status: 503 })));
    const tracer = trace.getTracer("arena-test");
    const total = 1500;
    const ids: string[] = [];
    const calls = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const span = tracer.startSpan(`call-${i}`, { attributes: { i, payload: payload(i) } });
        ids.push(span.spanContext().spanId);
        span.end();
      }
    };
    calls(0, 300);
    // The first batch is now failing; many more calls are encoded (into reused buffers) before it goes again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    calls(300, total);
    await tracing.flush();

    for (const [i, id] of ids.entries()) {
      const call = ctx.double.call(id);
      expect(call).toMatchObject({ starts: 1, ends: 1 });
      expect(call.start?.op_name).toBe(`call-${i}`);
      expect(call.start?.attributes).toEqual({ i, payload: payload(i) });
      expect(call.startSeq).toBeLessThan(call.endSeq!);
    }
    expect(ctx.double.statuses("/call/upsert_batch")).toContain(503);
    expect(tracing.stats().calls).toMatchObject({ sent: 2 * total, dropped: 0, queued: 0 });
  });
});
