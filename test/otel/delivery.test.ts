/**
 * The calls route against a strict service: 413 halves batches, a 404 from `/call/upsert_batch` falls back to
 * `/call/start` + `/call/end`, an invalid item is dropped alone. And the lifecycle: `forceFlush()` waits for both
 * routes, `shutdown()` flushes, is idempotent, and drops (and counts) what comes after.
 */
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { TracewireSpanProcessor } from "../../src/otel/index.js";
import { expectDeliveredOnce, PACKAGE_VERSION, PROJECT, recordingLogger, setupTracedDouble } from "./helpers.js";

const ctx = setupTracedDouble();

const BATCH = "/call/upsert_batch";

/** Ids of calls recorded under `opName`, in start-arrival order. */
const idsNamed = (opName: string) => ctx.double.callsNamed(opName).map((c) => c.start!.id as string);

describe("calls route against a strict service", () => {
  it("413: batches are halved until they fit; every call arrives exactly once", async () => {
    ctx.double.maxBatchBytes = 100_000;
    const tracing = ctx.start();
    const work = op(function work(i: number, blob: string) {
      return blob.length + i;
    });
    const blob = "z".repeat(1500);
    // Synchronous calls: 400 items (200 starts with a 1.5 KB input, 200 ends) are queued before the first export.
    for (let i = 0; i < 200; i++) expect(work(i, blob)).toBe(1500 + i);
    await tracing.flush();

    const answers = ctx.double.answers.filter((a) => a.path === BATCH);
    expect(answers[0]!.status).toBe(413);
    expect(answers[0]!.bytes).toBeGreaterThan(300_000); // the whole batch went first
    expect(answers[1]!.bytes).toBeLessThan(answers[0]!.bytes * 0.6); // then half of it
    expect(answers.filter((a) => a.status === 413).length).toBeGreaterThanOrEqual(2);
    for (const a of answers.filter((a) => a.status === 200)) expect(a.bytes).toBeLessThanOrEqual(100_000);

    const ids = idsNamed("work");
    expect(ids).toHaveLength(200);
    for (const id of ids) expectDeliveredOnce(ctx.double, id);
    expect(ctx.double.callsNamed("work").map((c) => (c.start!.inputs as { arg0: number }).arg0)).toEqual(
      Array.from({ length: 200 }, (_, i) => i),
    );
    expect(tracing.stats().calls).toMatchObject({ sent: 400, rejected: 0, dropped: 0, queued: 0 });
  });

  it("404 from /call/upsert_batch: falls back to /call/start + /call/end for good; everything arrives", async () => {
    ctx.double.supportsBatch = false;
    const tracing = ctx.start();
    const step = op(async function step(i: number) {
      return i;
    });
    for (let i = 0; i < 5; i++) await step(i);
    await tracing.flush();
    for (let i = 5; i < 8; i++) await step(i);
    await tracing.flush();

    expect(ctx.double.statuses(BATCH)).toEqual([404]); // probed once, never again
    expect(ctx.double.statuses("/call/start")).toEqual(Array(8).fill(200));
    expect(ctx.double.statuses("/call/end")).toEqual(Array(8).fill(200));
    const ids = idsNamed("step");
    expect(ids).toHaveLength(8);
    for (const id of ids) expectDeliveredOnce(ctx.double, id);
    expect(tracing.stats().calls).toMatchObject({ sent: 16, rejected: 0, dropped: 0 });
  });

  it.each([
    ["/call/upsert_batch", true],
    ["/call/start + /call/end", false],
  ])("an invalid item is dropped alone, never with its batch-mates (%s)", async (_title, batch) => {
    ctx.double.supportsBatch = batch;
    ctx.double.rejectOpName = "poison";
    const { lines, logger } = recordingLogger();
    const tracing = ctx.start({ logger });
    const good = op(function good(i: number) {
      return i;
    });
    const poison = op(function poison() {
      return "bad";
    });
    let poisonId = "";
    for (let i = 0; i < 10; i++) {
      good(i);
      if (i === 4) poisonId = poison.invoke()[1]!.id;
    }
    await tracing.flush();

    if (batch) {
      // The first request carried all 22 items, poison among them, and was refused as a whole.
      const first = ctx.double.server.received("POST", BATCH)[0]!;
      expect((first.json as { batch: unknown[] }).batch).toHaveLength(22);
      expect(ctx.double.statuses(BATCH)[0]).toBe(422);
    }
    expect([...ctx.double.rejectedIds]).toEqual([poisonId]);
    expect(ctx.double.calls.has(poisonId)).toBe(false);
    const ids = idsNamed("good");
    expect(ctx.double.callsNamed("good").map((c) => c.start!.inputs)).toEqual(
      Array.from({ length: 10 }, (_, i) => ({ arg0: i })),
    );
    for (const id of ids) expectDeliveredOnce(ctx.double, id);
    // The poison call's start and end, each refused alone.
    expect(tracing.stats().calls).toMatchObject({ rejected: 2, sent: 20, dropped: 0, retries: 0 });
    expect(lines.warn.filter((l) => l.includes("rejected"))).toHaveLength(1);
  });
});

describe("flush and shutdown", () => {
  it("forceFlush() waits for both routes, through a retry on each", async () => {
    // Nothing is sent on its own within the test: only the flush can deliver.
    const tracing = ctx.start({ scheduledDelayMillis: 60_000 });
    ctx.double.fail(BATCH, { status: 503 });
    ctx.double.fail("/otel/v1/traces", { status: 503 });
    let opId = "";
    let spanId = "";
    await op(async function job() {
      opId = trace.getActiveSpan()!.spanContext().spanId;
      trace.getTracer("lib").startActiveSpan("child", (s) => {
        spanId = s.spanContext().spanId;
        s.end();
      });
    })();
    expect(ctx.double.server.requests).toHaveLength(0);

    await tracing.flush();
    expect(ctx.double.statuses(BATCH)).toEqual([503, 200]);
    expect(ctx.double.statuses("/otel/v1/traces")).toEqual([503, 200]);
    expectDeliveredOnce(ctx.double, opId);
    expect(ctx.double.spans.map((s) => s.spanId)).toEqual([spanId]);
    expect(tracing.stats()).toMatchObject({ calls: { sent: 2, queued: 0 }, otlp: { sent: 1, queued: 0 } });
  });

  it("shutdown() flushes, is idempotent, and later spans are dropped and counted", async () => {
    const { lines, logger } = recordingLogger();
    const processor = new TracewireSpanProcessor({
      logger,
      baseUrl: ctx.double.url,
      project: PROJECT,
      env: {},
      scheduledDelayMillis: 60_000,
      exitHooks: false,
    });
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    const own = provider.getTracer("tracewire", PACKAGE_VERSION);
    const foreign = provider.getTracer("other-lib");
    own.startSpan("queued-call").end();
    foreign.startSpan("queued-span").end();
    const open = own.startSpan("open-across-shutdown");

    const first = processor.shutdown();
    expect(processor.shutdown()).toBe(first);
    await first;
    // What was queued went out with the shutdown's flush; the call still running was ended as cancelled and sent.
    expect(ctx.double.callsNamed("queued-call")).toHaveLength(1);
    expect(ctx.double.spans.map((s) => s.name)).toEqual(["queued-span"]);
    expect(ctx.double.callsNamed("open-across-shutdown")[0]?.end?.summary).toEqual({
      tracewire: { status: "cancelled", cancel_reason: "shutdown" },
    });
    const requests = ctx.double.server.requests.length;
    expect(processor.stats()).toMatchObject({ calls: { sent: 4, dropped: 0 }, otlp: { sent: 1, dropped: 0 } });

    own.startSpan("late-call").end(); // its start is dropped, and its end is counted as dropped with it
    foreign.startSpan("late-span").end();
    foreign.startSpan("late-span-2").end();
    open.end(); // the call shutdown ended: its own end sends nothing, and is no drop
    await processor.shutdown();
    await processor.forceFlush();
    expect(processor.stats()).toMatchObject({
      calls: { sent: 4, dropped: 2, queued: 0 },
      otlp: { sent: 1, dropped: 2, queued: 0 },
    });
    expect(ctx.double.server.requests).toHaveLength(requests);
    expect(lines.warn).toEqual([
      "[tracewire] Dropped 1 call item(s) because the processor is shut down.",
      "[tracewire] Dropped 1 span(s) because the processor is shut down.",
    ]);
    await provider.shutdown();
  });

  it("the init() handle: shutdown() twice is one shutdown; ops keep working untraced afterwards", async () => {
    const tracing = ctx.start({ scheduledDelayMillis: 60_000 });
    const add = op(function add(a: number, b: number) {
      return a + b;
    });
    expect(add(1, 2)).toBe(3);
    const first = tracing.shutdown();
    expect(tracing.shutdown()).toBe(first);
    await first;
    expect(idsNamed("add")).toHaveLength(1);
    const requests = ctx.double.server.requests.length;

    expect(add(2, 3)).toBe(5);
    trace.getTracer("lib").startSpan("after").end();
    await tracing.flush();
    expect(ctx.double.server.requests).toHaveLength(requests);
    expect(idsNamed("add")).toHaveLength(1);
  });
});
