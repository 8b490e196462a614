/**
 * One traced session against a fresh {@link TracingDouble}: `init()` pointed at the double, a logger that records
 * what tracewire says, and `stop()` that shuts tracing down (globals live on `globalThis`, and vitest reuses worker
 * processes across files, so every session must be stopped).
 */
import { expect } from "vitest";
import { type InitOptions, init, type TracewireHandle } from "../../src/index.js";
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
  stop(): Promise<void>;
}

export async function startSession(options: InitOptions = {}): Promise<Session> {
  const double = await TracingDouble.start();
  const { logger, lines } = recordingLogger();
  const tracing = init({
    baseUrl: double.url,
    project: "acme/demo",
    env: {},
    scheduledDelayMillis: 10,
    logger,
    ...options,
  });
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
    async stop() {
      await tracing.shutdown();
      await double.close();
    },
  };
}
