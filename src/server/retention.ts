/**
 * Retention of the local service (`tracewire dev --keep 30d --max-calls 1000000`): traces whose oldest call
 * started longer ago than `keep`, and the oldest traces beyond `maxCalls` stored calls, are deleted whole, with
 * the feedback on their calls. Objects, tables and files stay: other data may refer to them. The check runs when
 * the service starts and then every few seconds, deleting in small batches between requests.
 */
import { ConfigError } from "../errors.js";
import type { Store } from "./store/types.js";

/** Kept by default: a month of traces, and at most a million calls. */
export const DEFAULT_KEEP = "30d";
export const DEFAULT_MAX_CALLS = 1_000_000;

export interface RetentionOptions {
  /** How long traces are kept: milliseconds, or a duration like `7d`, `12h`, `30m`, `2w`; 0 keeps them forever. */
  keep?: number | string;
  /** How many calls are kept at most (the oldest traces go first); 0 for no limit. */
  maxCalls?: number;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

const KEEP_EXPECTED = "a duration like 7d, 12h, 30m or 2w, or 0 to keep traces forever";
const MAX_CALLS_EXPECTED = "a whole number of calls, or 0 for no limit";

/** `keep` in milliseconds (0: forever). Throws a `ConfigError` (setting `keep`) for anything but a duration. */
export function parseKeep(keep: number | string | undefined): number {
  if (keep === undefined) return parseKeep(DEFAULT_KEEP);
  if (typeof keep === "number") {
    if (Number.isFinite(keep) && keep >= 0) return keep;
  } else {
    const match = /^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$/i.exec(keep);
    if (match && (match[2] || Number(match[1]) === 0)) return Number(match[1]) * (UNITS[match[2]!.toLowerCase()] ?? 0);
  }
  throw new ConfigError("keep", JSON.stringify(keep), KEEP_EXPECTED);
}

/** `maxCalls` checked (0: no limit). Throws a `ConfigError` (setting `maxCalls`). */
export function parseMaxCalls(maxCalls: number | string | undefined): number {
  if (maxCalls === undefined) return DEFAULT_MAX_CALLS;
  const n = typeof maxCalls === "string" && /^\s*\d+\s*$/.test(maxCalls) ? Number(maxCalls) : maxCalls;
  if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) return n;
  throw new ConfigError("maxCalls", JSON.stringify(maxCalls), MAX_CALLS_EXPECTED);
}

/** The earliest instant a `Date` holds. */
const EARLIEST_DATE_MS = -8.64e15;

/** Traces deleted per transaction: small enough that requests in between wait little. */
const TRACES_PER_BATCH = 200;
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface Retention {
  /** Deletes what is due now; resolves with how many calls went. */
  prune(): Promise<number>;
  /** Stops the timer; resolves when a pass under way has stopped. */
  stop(): Promise<void>;
}

/**
 * Applies retention to `store` now and every `intervalMs`. `log` hears about each pass that deleted something
 * and about a pass that failed (the next pass tries again).
 */
export function startRetention(
  store: Store,
  options: { keepMs: number; maxCalls: number; intervalMs?: number; log(message: string): void },
): Retention {
  let stopped = false;
  let running: Promise<number> | undefined;

  async function pass(): Promise<number> {
    let deleted = 0;
    const cutoff = Date.now() - options.keepMs;
    // A keep reaching back past the earliest date (`--keep 99999999999d`) leaves nothing old enough.
    if (options.keepMs > 0 && cutoff >= EARLIEST_DATE_MS) {
      const before = new Date(cutoff).toISOString();
      while (!stopped) {
        const traces = store.oldestTraces(TRACES_PER_BATCH, before);
        if (traces.length === 0) break;
        deleted += store.deleteTraces(traces);
        await yieldToRequests();
      }
    }
    if (options.maxCalls > 0) {
      while (!stopped) {
        const excess = store.callCount() - options.maxCalls;
        if (excess <= 0) break;
        const traces = store.oldestTraces(Math.min(excess, TRACES_PER_BATCH * 10));
        if (traces.length === 0) break;
        deleted += store.deleteTraces(traces.slice(0, TRACES_PER_BATCH));
        await yieldToRequests();
      }
    }
    return deleted;
  }

  function prune(): Promise<number> {
    running ??= pass()
      .then(
        (deleted) => {
          if (deleted > 0) options.log(`retention: deleted ${deleted} calls (oldest traces first)`);
          return deleted;
        },
        (err: unknown) => {
          options.log(`retention failed (will try again): ${(err as Error)?.message ?? String(err)}`);
          return 0;
        },
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  const timer = setInterval(() => void prune(), options.intervalMs ?? 10_000);
  timer.unref();
  void prune();
  return {
    prune,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
