/**
 * One traced session against a fresh {@link TracingDouble}: `init()` pointed at the double, a logger that records
 * what tracewire says, and `stop()` that shuts tracing down (globals live on `globalThis`, and vitest reuses worker
 * processes across files, so every session must be stopped).
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { type InitOptions, init, type TracewireHandle } from "../../src/index.js";
import type { DecodedSpan } from "./otlp.js";
import { type StoredCall, TracingDouble } from "./tracing-double.js";

export interface LogLine {
  level: "warn" | "error";
  message: string;
}

/** A logger that keeps every line, for "exactly one warning" checks. */
export function recordingLogger(): { logger: { warn(m: string): void; error(m: string): void }; lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    logger: {
      warn: (message: string) => lines.push({ level: "warn", message }),
      error: (message: string) => lines.push({ level: "error", message }),
    },
  };
}

export interface Session {
  double: TracingDouble;
  tracing: TracewireHandle;
  logs: LogLine[];
  /** Flushes, then returns the only call recorded under `opName` (fails when there are none or several). */
  only(opName: string): Promise<StoredCall & { start: Record<string, unknown> }>;
  /** Flushes, then returns the only OTLP span recorded (fails when there are none or several). */
  onlySpan(): Promise<DecodedSpan>;
  stop(): Promise<void>;
}

/** `init()` options that record to `double` (project `acme/demo`, no environment, quick batches) with `logger`. */
export function doubleOptions(
  double: TracingDouble,
  logger: ReturnType<typeof recordingLogger>["logger"],
  options: InitOptions = {},
): InitOptions {
  return { baseUrl: double.url, project: "acme/demo", env: {}, scheduledDelayMillis: 10, logger, ...options };
}

export async function startSession(options: InitOptions = {}): Promise<Session> {
  const double = await TracingDouble.start();
  const { logger, lines } = recordingLogger();
  const tracing = init(doubleOptions(double, logger, options));
  expect(tracing.enabled).toBe(true);
  return {
    double,
    tracing,
    logs: lines,
    async only(opName) {
      await tracing.flush();
      const calls = double.callsNamed(opName);
      expect(calls, `calls named ${opName}`).toHaveLength(1);
      return calls[0] as StoredCall & { start: Record<string, unknown> };
    },
    async onlySpan() {
      await tracing.flush();
      expect(double.spans.map((span) => span.name)).toHaveLength(1);
      return double.spans[0]!;
    },
    async stop() {
      await tracing.shutdown();
      await double.close();
    },
  };
}

/** A session started and stopped by hooks: everything of {@link Session} but `stop()`, read through to the live one. */
export type HookedSession = Omit<Session, "stop">;

/** A {@link HookedSession} that a test can also replace: `restart()` stops it and starts another with `options`. */
export interface RestartableSession extends HookedSession {
  restart(options: InitOptions): Promise<void>;
}

type Hook = (fn: () => Promise<void>) => void;

/** Starts a session in the `start` hook and stops it in the `stop` hook; the view reads through to it. */
function hookedSession(start: Hook, stop: Hook, options: InitOptions, name: string): RestartableSession {
  let session: Session | undefined;
  start(async () => {
    session = await startSession(options);
  });
  stop(async () => {
    await session?.stop();
    session = undefined;
  });
  const current = (): Session => {
    if (!session) throw new Error(`${name}: the session exists only while its hooks have it running`);
    return session;
  };
  return {
    get double() {
      return current().double;
    },
    get tracing() {
      return current().tracing;
    },
    get logs() {
      return current().logs;
    },
    only: (opName) => current().only(opName),
    onlySpan: () => current().onlySpan(),
    async restart(next) {
      const stopping = current();
      session = undefined;
      await stopping.stop();
      session = await startSession(next);
    },
  };
}

/** One session for the enclosing suite (or file): started in `beforeAll`, stopped in `afterAll`. */
export function setupSession(options: InitOptions = {}): HookedSession {
  return hookedSession(beforeAll, afterAll, options, "setupSession");
}

/**
 * A fresh session for each test: started in `beforeEach`, stopped in `afterEach`. `restart(options)` stops the test's
 * session and starts another with `options` (not merged with the defaults) for the rest of the test.
 */
export function setupSessionPerTest(options: InitOptions = {}): RestartableSession {
  return hookedSession(beforeEach, afterEach, options, "setupSessionPerTest");
}
