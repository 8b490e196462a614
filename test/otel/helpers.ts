/**
 * Helpers shared by the processor tests: start tracing against a {@link TracingDouble}, a logger that records, and
 * small lookups over what the double received. No test doubles of tracewire's own code live here.
 */
import { readFileSync } from "node:fs";
import type { HrTime } from "@opentelemetry/api";
import { afterEach, beforeEach, expect } from "vitest";
import { type InitOptions, init, type TracewireHandle } from "../../src/index.js";
import { type DecodedTraceRequest, decodeTraceRequest } from "../support/otlp.js";
import { TracingDouble } from "../support/tracing-double.js";

export const PROJECT = "acme/demo";

/** The package version, read independently of `src/version.ts`. */
export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/** A logger that keeps every line. */
export function recordingLogger() {
  const lines = { warn: [] as string[], error: [] as string[] };
  return {
    lines,
    logger: { warn: (m: string) => lines.warn.push(m), error: (m: string) => lines.error.push(m) },
  };
}

/** `init()` pointed at the double, isolated from the environment, with a short schedule delay. */
export function startTracing(double: TracingDouble, options: InitOptions = {}): TracewireHandle {
  return init({ baseUrl: double.url, project: PROJECT, env: {}, scheduledDelayMillis: 10, ...options });
}

/** One test's service and tracing, from {@link setupTracedDouble}; read `double` inside tests and hooks. */
export interface TracedDouble {
  /** This test's double (a fresh one for each test). */
  readonly double: TracingDouble;
  /** {@link startTracing} against the double, with the file's defaults under `options`; shut down after the test. */
  start(options?: InitOptions): TracewireHandle;
}

/**
 * The lifecycle the processor tests share: a fresh {@link TracingDouble} before each test; after it, the tracing
 * that `start()` began (if any) is shut down, then the double is closed.
 */
export function setupTracedDouble(defaults: InitOptions = {}): TracedDouble {
  let double: TracingDouble | undefined;
  let tracing: TracewireHandle | undefined;
  const current = (): TracingDouble => {
    if (!double) throw new Error("setupTracedDouble: the double starts in beforeEach");
    return double;
  };

  beforeEach(async () => {
    double = await TracingDouble.start();
  });
  afterEach(async () => {
    await tracing?.shutdown();
    tracing = undefined;
    await double?.close();
    double = undefined;
  });

  return {
    get double() {
      return current();
    },
    start(options: InitOptions = {}): TracewireHandle {
      tracing = startTracing(current(), { ...defaults, ...options });
      return tracing;
    },
  };
}

/** Exact nanoseconds of an HrTime, computed with BigInt. */
export const nanos = (t: HrTime): string => (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString();

/** Every OTLP request the double accepted, decoded by the independent protobufjs / JSON decoder. */
export function decodedOtlp(double: TracingDouble): DecodedTraceRequest[] {
  return double.otlpRequests.map((r) => decodeTraceRequest(r.body, r.headers["content-type"] ?? ""));
}

/** The instrumentation scope name under which the double received span `spanId` by OTLP. */
export function scopeOfSpan(double: TracingDouble, spanId: string): string | undefined {
  for (const request of decodedOtlp(double))
    for (const rs of request.resourceSpans)
      for (const ss of rs.scopeSpans) if (ss.spans.some((s) => s.spanId === spanId)) return ss.scope.name;
  return undefined;
}

/** Asserts that call `id` arrived exactly once (one start, one end) and its start arrived before its end. */
export function expectDeliveredOnce(double: TracingDouble, id: string): void {
  const call = double.call(id);
  expect({ id, starts: call.starts, ends: call.ends }).toEqual({ id, starts: 1, ends: 1 });
  expect(call.startSeq!).toBeLessThan(call.endSeq!);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
