/**
 * When to try a request again and how long to wait. Pure functions: the transport feeds them what happened and
 * does the waiting, so the rules can be read (and tested) in one place.
 */

/**
 * How a request that is *not* idempotent may be retried. The difference between the services is what a retry can
 * cost: a duplicated trace write is harmless (call ids are client-chosen), a duplicated training job is not.
 * - `"replay"`: like an idempotent request except for 500 (tracing service: writes are keyed by client ids).
 * - `"refused"`: only when the server cannot have acted on it — a connection that never opened, or 429/503
 *   (the inference service's concurrency limit and overload answers).
 * - `"refused-with-retry-after"`: a connection that never opened, or 429/503 *with* `Retry-After` (training
 *   service: its POSTs carry no idempotency key, DESIGN §2.3).
 */
export type NonIdempotentRetry = "replay" | "refused" | "refused-with-retry-after";

/** Retry settings. Every field has a default; see {@link DEFAULT_RETRY}. */
export interface RetryOptions {
  /** Attempts in total, the first included. `1` turns retries off. Default 4. */
  maxAttempts?: number;
  /** First backoff ceiling in ms; each retry doubles it (full jitter: the wait is uniform in [0, ceiling]). Default 500. */
  baseDelayMs?: number;
  /** Largest backoff ceiling in ms. Default 8000. */
  maxDelayMs?: number;
  /** No retry starts once this many ms have passed since the first attempt. Default 60000. */
  maxElapsedMs?: number;
  /** A server's `Retry-After` is honoured up to this many ms; a longer one gives up instead of sleeping. Default 60000. */
  maxRetryAfterMs?: number;
  /** How non-idempotent requests may be retried. The client sets this per service. */
  nonIdempotent?: NonIdempotentRetry;
  /**
   * Statuses that mean "try again later". Default 408, 429, 502, 503, 504 (500 is added for idempotent requests).
   * OTLP export narrows this to 429, 502, 503, 504 as its spec requires.
   */
  retryableStatuses?: readonly number[];
}

export type ResolvedRetry = Required<RetryOptions>;

export const DEFAULT_RETRY: ResolvedRetry = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxElapsedMs: 60_000,
  maxRetryAfterMs: 60_000,
  nonIdempotent: "replay",
  retryableStatuses: [408, 429, 502, 503, 504],
};

/** What ended one attempt, as far as the retry rules care. */
export type AttemptOutcome =
  | { kind: "status"; status: number; retryAfterMs: number | undefined }
  /** `sent: false` means the connection never opened, so the server cannot have seen the request. */
  | { kind: "network"; sent: boolean };

/** Statuses that say the server refused the work, so nothing was done. */
const REFUSED_STATUSES = new Set([429, 503]);

/** Whether the rules allow another attempt after this outcome (budget checks are separate). */
export function isRetryable(
  outcome: AttemptOutcome,
  idempotent: boolean,
  mode: NonIdempotentRetry,
  retryableStatuses: readonly number[] = DEFAULT_RETRY.retryableStatuses,
): boolean {
  if (outcome.kind === "network") {
    if (!outcome.sent) return true;
    return idempotent || mode === "replay";
  }
  const { status } = outcome;
  if (idempotent) return retryableStatuses.includes(status) || status === 500;
  switch (mode) {
    case "replay":
      return retryableStatuses.includes(status);
    case "refused":
      return REFUSED_STATUSES.has(status);
    case "refused-with-retry-after":
      return REFUSED_STATUSES.has(status) && outcome.retryAfterMs !== undefined;
  }
}

/**
 * Parses `Retry-After`: delta-seconds (`"1"`, `"1.5"`) or an HTTP date. Returns ms from `now`, never negative;
 * `undefined` when absent or unparseable.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Full-jitter exponential backoff for retry number `retry` (1 = first retry). `random` is injectable for tests. */
export function backoffDelay(retry: number, policy: ResolvedRetry, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * The wait before the next attempt, or `undefined` when the budget says stop. `Retry-After` wins over backoff;
 * one longer than `maxRetryAfterMs`, or one that would overrun `maxElapsedMs`, means stop rather than sleep.
 */
export function nextDelay(
  outcome: AttemptOutcome,
  attempt: number,
  elapsedMs: number,
  policy: ResolvedRetry,
): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  const retryAfter = outcome.kind === "status" ? outcome.retryAfterMs : undefined;
  if (retryAfter !== undefined && retryAfter > policy.maxRetryAfterMs) return undefined;
  const delay = retryAfter ?? backoffDelay(attempt, policy);
  return elapsedMs + delay > policy.maxElapsedMs ? undefined : delay;
}
