/**
 * `shutdown()` raced by everything an app may do around it: `init()` again before the shutdown finished (a test
 * runner, a hot reload, a serverless handler that re-inits), `shutdown()` twice or concurrently, `flush()` during and
 * after it, against a service that answers or one that never does. Every promise settles, in bounded time, and the
 * tracing that is running afterwards is whole.
 */
import { trace } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { init, op, type TracewireHandle } from "../../src/index.js";
import { TracingDouble } from "../support/tracing-double.js";
import { doubleOptions, recordingLogger } from "../support/tracing-session.js";

let double: TracingDouble;
const handles: TracewireHandle[] = [];
beforeEach(async () => {
  double = await TracingDouble.start();
});
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.shutdown();
  await double.close();
});

let logs: ReturnType<typeof recordingLogger>["lines"] = [];
function start(options: Parameters<typeof init>[0] = {}): TracewireHandle {
  const { logger, lines } = recordingLogger();
  logs = lines;
  const handle = init(doubleOptions(double, logger, options));
  handles.push(handle);
  return handle;
}

/** An op with a child op and a span of another library inside: the tree that must come out whole. */
const parent = op(async function parent() {
  await child();
  trace.getTracer("other-lib").startActiveSpan("lib work", (span) => span.end());
});
const child = op(async function child() {
  await new Promise((resolve) => setTimeout(resolve, 1));
});

/** Settles within `ms` or fails the test (a promise pending forever must not pass by hanging until the test timeout). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} still pending after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

describe("init() again while the last shutdown() is still running", () => {
  it("the new tracing keeps its provider, context manager and propagator: the tree comes out whole", async () => {
    const first = start();
    await parent();
    const stopping = first.shutdown(); // not awaited: the app starts over at once
    const { logger, lines } = recordingLogger();
    const second = start({ logger });
    expect(second).not.toBe(first);
    // Not told that "a tracer provider is already registered": the old one was given back first.
    expect(lines).toEqual([]);
    await stopping;

    await parent();
    await second.flush();
    const parents = double.callsNamed("parent");
    const children = double.callsNamed("child");
    expect(parents).toHaveLength(2);
    expect(children).toHaveLength(2);
    // The second round: the child nests under its parent (the context manager still works) ...
    expect(children[1]?.start?.parent_id).toBe(parents[1]?.start?.id);
    // ... and the other library's span reaches tracewire through the global provider, under the op.
    const libSpans = double.spans.filter((s) => s.name === "lib work");
    expect(libSpans).toHaveLength(2);
    expect(libSpans[1]?.parentSpanId).toBe(parents[1]?.start?.id);
  });
});

describe("shutdown() twice, concurrently, and flush() around it", () => {
  it("against a service that answers: one shutdown, every promise settles, later flushes return at once", async () => {
    const tracing = start();
    await parent();
    const all = Promise.all([tracing.flush(), tracing.shutdown(), tracing.shutdown(), tracing.flush()]);
    await within(all, 5_000, "flush/shutdown");
    await within(tracing.flush(), 1_000, "flush after shutdown");
    await within(tracing.shutdown(), 1_000, "shutdown again");
    expect(double.callsNamed("parent")).toHaveLength(1);
  });

  it("against a service that never answers: all of them settle within the export deadline, the drops counted", async () => {
    double.down(["/call/upsert_batch", "/otel/v1/traces"], "hang");
    const tracing = start({ exportTimeoutMillis: 1_000 });
    await parent();
    const started = Date.now();
    const all = Promise.all([tracing.flush(), tracing.shutdown(), tracing.flush(), tracing.shutdown()]);
    await within(all, 8_000, "flush/shutdown against a hung service");
    expect(Date.now() - started).toBeLessThan(8_000);
    await within(tracing.flush(), 1_000, "flush after shutdown");
    const { calls, otlp } = tracing.stats();
    expect(calls).toMatchObject({ queued: 0, sent: 0, dropped: 4 });
    expect(otlp).toMatchObject({ queued: 0, sent: 0, dropped: 1 });
    // The exports cut short by the shutdown are not promised a retry: they are dropped, and the log says so.
    const failed = logs
      .map((l) => l.message)
      .filter((m) => /^\[tracewire\] (Sending calls|OTLP export) failed/.test(m));
    expect(failed.map((m) => m.replace(/^\[tracewire\] | failed.*$/gs, "")).sort()).toEqual([
      "OTLP export",
      "Sending calls",
    ]);
    for (const message of failed) {
      expect(message).toContain("failed during shutdown(), not retried past its deadline: AbortError");
      expect(message).not.toContain("will retry");
    }
    expect(logs.map((l) => l.message)).toEqual(
      expect.arrayContaining([
        "[tracewire] Dropped 4 call item(s) because they could not be sent before shutdown.",
        "[tracewire] Dropped 1 span(s) because they could not be sent before shutdown.",
      ]),
    );
  });
});
