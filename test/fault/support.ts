/**
 * The fault table shared by the fault suite: every way the tracing service misbehaves that the issue lists, each
 * applied to one route's path of the strict {@link TracingDouble}, and the invariants every row must keep: the app's
 * calls return their own values, nothing throws, and once the service is back everything arrives exactly once —
 * except what the queue could not hold (counted as `dropped`, never the case here) or what the protocol says is
 * final (counted as `rejected`).
 */
import { trace } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from "vitest";
import { init, op, type TracewireHandle } from "../../src/index.js";
import { type Fault, TracingDouble } from "../support/tracing-double.js";
import { recordingLogger } from "../support/tracing-session.js";

export type Route = "calls" | "otlp";

export const PATHS: Record<Route, string> = { calls: "/call/upsert_batch", otlp: "/otel/v1/traces" };

/** What a row expects of the OTLP route: everything delivered, or the faulted batch refused for good (counted). */
type OtlpOutcome = "delivered" | "rejected";

export interface FaultRow {
  name: string;
  /** Makes `path` misbehave. */
  apply(double: TracingDouble, path: string): void;
  /** Makes it behave again (a body-size limit stays: the client must adapt to it). */
  recover(double: TracingDouble): void;
  /** The OTLP spec makes 500 final: the batch it refused is counted as rejected, never resent. */
  otlp: OtlpOutcome;
  /** Requests the faulted path must have received before recovery (2: the client retried while it lasted). */
  feltAfter: number;
  /**
   * What the queue of the faulted route must have done before recovery: scheduled a retry (the export gave up for
   * now and kept everything), counted a rejection (final by the protocol), or nothing in particular (413: the
   * client adapts while the limit stays).
   */
  until: "retry" | "rejected" | "request";
  /** `Retry-After` sent with the fault, in ms: the retry must not come sooner. */
  retryAfterMs?: number;
}

const outage = (fault: Fault) => (double: TracingDouble, path: string) => double.down([path], fault);
const recover = (double: TracingDouble) => double.recover();

/** Body limit of the "413" row, in bytes: the workload's first batch is several times larger on both routes. */
export const BODY_LIMIT = 12_000;

export const FAULTS: FaultRow[] = [
  { name: "500", apply: outage({ status: 500 }), recover, otlp: "rejected", feltAfter: 1, until: "retry" },
  { name: "502", apply: outage({ status: 502 }), recover, otlp: "delivered", feltAfter: 2, until: "retry" },
  { name: "503", apply: outage({ status: 503 }), recover, otlp: "delivered", feltAfter: 2, until: "retry" },
  {
    name: "429 with Retry-After: 2",
    apply: outage({ status: 429, headers: { "retry-after": "2" } }),
    recover,
    otlp: "delivered",
    feltAfter: 2,
    until: "retry",
    retryAfterMs: 2000,
  },
  {
    name: "429 without Retry-After",
    apply: outage({ status: 429 }),
    recover,
    otlp: "delivered",
    feltAfter: 2,
    until: "retry",
  },
  { name: "connection reset", apply: outage("reset"), recover, otlp: "delivered", feltAfter: 2, until: "retry" },
  // Each hung request ends at the client's deadline (500 ms here) and is sent again.
  { name: "hang (no answer)", apply: outage("hang"), recover, otlp: "delivered", feltAfter: 2, until: "retry" },
  {
    name: "413 (body limit)",
    apply: (double, path) => {
      if (path === PATHS.calls) double.maxBatchBytes = BODY_LIMIT;
      else double.maxOtlpBytes = BODY_LIMIT;
    },
    recover: () => {},
    otlp: "delivered",
    feltAfter: 1,
    until: "request",
  },
];

/** Every (route, fault) pair, for `it.each`. */
export const CASES = FAULTS.map((fault) => ({ fault }));

/** Test knobs: short deadlines so a hung request ends within the test, and a short batching delay. */
export const FAST = {
  scheduledDelayMillis: 10,
  exportTimeoutMillis: 500,
  otlpTimeoutMillis: 500,
} as const;

/** What one burst of traffic produced. */
export interface Traffic {
  /** Call ids of the ops (calls route), in order. */
  callIds: string[];
  /** Span ids of the foreign child spans (OTLP route), in order. */
  spanIds: string[];
}

/** 1.5 KB per input and per span attribute: enough for the "413" row's limit to bite on both routes. */
const BLOB = "b".repeat(1500);

/** Span id of the foreign child span of the latest `work` call. */
let lastChild = "";

const work = op(function work(i: number, blob: string) {
  trace.getTracer("app-http").startActiveSpan(`GET /item/${i}`, (span) => {
    lastChild = span.spanContext().spanId;
    span.setAttribute("http.response.body", blob);
    span.end();
  });
  return i * 2;
});

/**
 * `n` synchronous traced calls, each with a foreign child span. Asserts each returned its own value at once; the
 * whole burst is offered in one tick (one batch per route).
 */
export function burst(n: number, from = 0): Traffic {
  const traffic: Traffic = { callIds: [], spanIds: [] };
  for (let i = from; i < from + n; i++) {
    const [result, call] = work.invoke(i, BLOB);
    expect(result).toBe(i * 2);
    traffic.callIds.push(call!.id);
    traffic.spanIds.push(lastChild);
  }
  return traffic;
}

/** Flushes until both queues are empty and idle (each flush waits at most `exportTimeoutMillis`). */
export async function drain(tracing: TracewireHandle, timeout = 15_000): Promise<void> {
  await vi.waitFor(
    async () => {
      await tracing.flush();
      expect(tracing.processor?.idle).toBe(true);
    },
    { timeout, interval: 20 },
  );
}

/** Every call arrived exactly once (one start, one end, start first); no other call arrived. */
export function expectCallsExactlyOnce(double: TracingDouble, ids: readonly string[]): void {
  for (const id of ids) {
    const call = double.call(id);
    expect({ id, starts: call.starts, ends: call.ends }).toEqual({ id, starts: 1, ends: 1 });
    expect(call.startSeq!).toBeLessThan(call.endSeq!);
  }
  expect(double.calls.size).toBe(new Set(ids).size);
}

/** Every span arrived at most once; returns the ids that arrived. */
export function spansArrived(double: TracingDouble): string[] {
  const ids = double.spans.map((s) => s.spanId);
  expect(new Set(ids).size, "duplicate spans at the service").toBe(ids.length);
  return ids;
}

/** A session for one row: a fresh double, `init()` pointed at it with {@link FAST} deadlines, a recording logger. */
export interface FaultSession {
  double: TracingDouble;
  tracing: TracewireHandle;
  logs: { level: "warn" | "error"; message: string }[];
  /** The logger `tracing` writes `logs` with (for a row that sets tracing up again). */
  logger: ReturnType<typeof recordingLogger>["logger"];
}

/**
 * The hooks of a route's fault file: no unhandled rejection for the whole file (checked in `afterAll`), and before each
 * row a fresh double with `init()` pointed at it ({@link FAST} deadlines, a recording logger), shut down and closed
 * after the row. Read `session` inside a test.
 */
export function setupFaultSession(): { readonly session: FaultSession } {
  let session: FaultSession | undefined;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(() => {
    process.on("unhandledRejection", onUnhandled);
  });
  afterAll(() => {
    process.off("unhandledRejection", onUnhandled);
    expect(unhandled).toEqual([]);
  });

  beforeEach(async () => {
    const double = await TracingDouble.start();
    const { logger, lines } = recordingLogger();
    const tracing = init({ baseUrl: double.url, project: "acme/demo", env: {}, logger, ...FAST });
    session = { double, tracing, logs: lines, logger };
  });
  afterEach(async () => {
    await session?.tracing.shutdown();
    await session?.double.close();
    session = undefined;
  });

  return {
    get session() {
      if (!session) throw new Error("setupFaultSession: the session starts in beforeEach");
      return session;
    },
  };
}

/**
 * Runs one row of the table on one route: traffic while the fault lasts (every traced call returns its own value at
 * once), proof that the fault was felt and nothing of that route got through, recovery, more traffic, then the
 * accounting: every call and span exactly once, or — for the rows the protocol makes final — counted as rejected;
 * nothing dropped (the queue never filled), nothing thrown, no internal error.
 */
export async function runRow(route: Route, row: FaultRow, session: FaultSession): Promise<void> {
  const { double, logs } = session;
  if (!row.name.startsWith("hang")) {
    // Only the hang row needs FAST's 500 ms deadline (each hung request ends there). On a loaded machine a request
    // the double stored can outlast 500 ms: the client then sends it again, and the unfaulted route's spans arrive
    // twice, which these rows count as a defect. Longer deadlines keep that rare.
    await session.tracing.shutdown();
    session.tracing = init({
      baseUrl: double.url,
      project: "acme/demo",
      env: {},
      logger: session.logger,
      ...FAST,
      exportTimeoutMillis: 3000,
      otlpTimeoutMillis: 3000,
    });
  }
  const { tracing } = session;
  const path = PATHS[route];
  row.apply(double, path);
  const during = burst(20, 0);

  const until = route === "otlp" && row.otlp === "rejected" ? "rejected" : row.until;
  await vi.waitFor(
    () => {
      expect(double.server.received("POST", path).length).toBeGreaterThanOrEqual(row.feltAfter);
      if (until === "retry") expect(tracing.stats()[route].retries).toBeGreaterThanOrEqual(1);
      if (until === "rejected") expect(tracing.stats()[route].rejected).toBeGreaterThanOrEqual(1);
    },
    { timeout: 10_000, interval: 10 },
  );
  const sizeLimited = row.name.startsWith("413");
  if (!sizeLimited) {
    // While it lasts nothing of this route reaches the service, and nothing is dropped.
    if (route === "calls") expect(double.calls.size).toBe(0);
    else expect(double.spans).toHaveLength(0);
  }
  expect(tracing.stats()[route].dropped).toBe(0);
  if (row.retryAfterMs !== undefined) {
    // The requirement itself is about time here: the service said "not before 1 s", so the retry waits that long.
    const [first, second] = double.server.received("POST", path);
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(row.retryAfterMs - 50);
  }

  row.recover(double);
  const after = burst(20, 20);
  await drain(tracing);

  const callIds = [...during.callIds, ...after.callIds];
  const spanIds = [...during.spanIds, ...after.spanIds];
  expectCallsExactlyOnce(double, callIds);
  const arrived = spansArrived(double);
  const stats = tracing.stats();
  expect(stats.calls).toMatchObject({ sent: 2 * callIds.length, dropped: 0, rejected: 0, queued: 0 });
  if (route === "otlp" && row.otlp === "rejected") {
    // Final by the OTLP spec: the batch refused during the fault is counted, never resent; later ones arrive.
    expect(arrived.sort()).toEqual([...after.spanIds].sort());
    expect(stats.otlp).toMatchObject({ sent: after.spanIds.length, rejected: during.spanIds.length, dropped: 0 });
    expect(double.statuses(path)).toEqual([500, 200]);
    expect(logs.some((l) => l.message.includes("refused 20 span(s)"))).toBe(true);
  } else {
    expect(arrived.sort()).toEqual([...spanIds].sort());
    expect(stats.otlp).toMatchObject({ sent: spanIds.length, dropped: 0, rejected: 0, queued: 0 });
    // The faulted path did answer with the fault before it answered 200 (resets and hangs have no answer).
    const statuses = double.statuses(path);
    expect(statuses.at(-1)).toBe(200);
  }
  if (sizeLimited) {
    expect(double.statuses(path)).toContain(413);
    for (const a of double.answers.filter((x) => x.path === path && x.status === 200 && x.bytes > 0))
      expect(a.bytes).toBeLessThanOrEqual(BODY_LIMIT);
    if (route === "otlp") for (const r of double.otlpRequests) expect(r.body.length).toBeLessThanOrEqual(BODY_LIMIT);
  }
  expect(stats.internalErrors).toBe(0);
  expect(logs.filter((l) => l.level === "error")).toEqual([]);
}
