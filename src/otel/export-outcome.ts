/**
 * The contract between an export queue (export-queue.ts) and the exporters it drives, and the retry policy that
 * follows from it: what one export reports (`ExportOutcome`, built from a failure by `retryOutcome`), the exporter's
 * signature, how long the queue waits before trying again (a doubling backoff, the service's `Retry-After` clamped to
 * an hour) and the deadline each export runs under.
 *
 * Apart from the queue because the exporters (OTLP, calls, complete calls) need this contract and nothing of the
 * queue itself; the queue reads it only when an export ends, never on the caller's path (`offer`/`admit`).
 */
import { ApiError } from "../errors.js";
import { parseRetryAfter } from "../http/retry.js";
import { isUnreachable } from "../http/transport.js";

/** What one export did with the batch it was given. */
export interface ExportOutcome {
  /** Items from the front of the batch that are finished (sent, or dropped as rejected). */
  done: number;
  /** The rest failed in a way worth retrying later (service down, 429/5xx after the transport's own retries). */
  retry: boolean;
  /** With `retry`: the service's `Retry-After`, in ms; the next attempt waits at least this long. */
  retryAfterMs?: number;
  /**
   * With `retry`: the service refused the connection (or its name did not resolve), so nothing can be sent now. A
   * flush waiting for this export settles at once instead of retrying until its deadline; the items stay queued.
   */
  unreachable?: boolean;
  /**
   * Without `retry`: the items are finished (refused for good), but the service refused the whole request for a
   * reason every next request shares (401/403: the API key). The next export waits a backoff, as after a retry.
   */
  backoff?: boolean;
}

/** A retry outcome after `done` items, carrying the service's `Retry-After` when the failure had one. */
export function retryOutcome(done: number, err: unknown): ExportOutcome {
  const header = err instanceof ApiError ? err.headers["retry-after"] : undefined;
  const retryAfterMs = parseRetryAfter(header);
  const outcome: ExportOutcome = { done, retry: true };
  if (retryAfterMs !== undefined) outcome.retryAfterMs = retryAfterMs;
  if (isUnreachable(err)) outcome.unreachable = true;
  return outcome;
}

/** Sends one batch. Must not throw; `signal` fires at the export timeout or on a forced shutdown. */
export type BatchExporter<T> = (batch: T[], signal: AbortSignal) => Promise<ExportOutcome>;

/** Longest `Retry-After` the queue honours (a longer one is taken as this): an hour. */
const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * The wait before the next attempt after another failure in a row: `baseMs` after the first (`previousMs` 0), then
 * double the previous wait, never more than `maxMs`.
 */
export function nextRetryDelay(previousMs: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, previousMs === 0 ? baseMs : previousMs * 2);
}

/**
 * The `Date.now()` before which the service asked not to be sent anything, from an outcome's `retryAfterMs` (at most
 * an hour away); 0 when it gave no usable one.
 */
export function retryNotBefore(retryAfterMs: number | undefined): number {
  return retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0
    ? Date.now() + Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)
    : 0;
}

/** A signal that aborts after `ms`, its reason naming the setting, so a log line of the aborted request says why. */
export function exportDeadline(ms: number): AbortSignal {
  const deadline = new AbortController();
  const why = `the export took longer than exportTimeoutMillis (env OTEL_BSP_EXPORT_TIMEOUT), ${ms} ms`;
  setTimeout(() => deadline.abort(new Error(why)), ms).unref?.(); // like AbortSignal.timeout: not cleared, unref'd
  return deadline.signal;
}
