/**
 * Retries of the task and the scorers when the model they call is rate-limited or failing: 429, 408, 409, 5xx and
 * dropped connections, with full-jitter exponential backoff and the server's `Retry-After`. A 429 also holds back
 * every other row's next attempt until its wait is over (a shared gate), so a rate-limit storm slows the whole run
 * down instead of burning each row's attempts. The waits are not counted as latency: the caller times attempts.
 */

import { ValidationError } from "../errors.js";
import { parseRetryAfter } from "../http/retry.js";
import type { RetryPolicy } from "./types.js";

/** The policy with every field set. */
export interface ResolvedRetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_EVAL_RETRY: ResolvedRetryPolicy = { attempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** Checks and completes `retry` (false: one attempt). */
export function resolveRetry(retry: RetryPolicy | false | undefined): ResolvedRetryPolicy {
  if (retry === false) return { ...DEFAULT_EVAL_RETRY, attempts: 1 };
  if (retry === undefined) return DEFAULT_EVAL_RETRY;
  if (retry === null || typeof retry !== "object")
    throw new ValidationError("evaluate(): retry must be false or { attempts, baseDelayMs, maxDelayMs }.", "retry");
  const out = { ...DEFAULT_EVAL_RETRY };
  for (const key of ["attempts", "baseDelayMs", "maxDelayMs"] as const) {
    const value = retry[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < (key === "attempts" ? 1 : 0)) {
      throw new ValidationError(
        `evaluate(): retry.${key} must be a whole number ${key === "attempts" ? "of at least 1" : "of ms, 0 or more"}, got ${String(value)}.`,
        `retry.${key}`,
      );
    }
    out[key] = value;
  }
  return out;
}

const RETRY_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504, 529]);
const NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EPIPE", "EAI_AGAIN", "UND_ERR_SOCKET"]);

function field(err: unknown, name: string): unknown {
  try {
    return err !== null && typeof err === "object" ? (err as Record<string, unknown>)[name] : undefined;
  } catch {
    return undefined;
  }
}

/** The HTTP status an error carries (`status` of the OpenAI and Anthropic SDKs and ours, `statusCode`, `response.status`). */
export function statusOf(err: unknown): number | undefined {
  for (const value of [field(err, "status"), field(err, "statusCode"), field(field(err, "response"), "status")]) {
    if (typeof value === "number" && value >= 100 && value < 600) return value;
  }
  return undefined;
}

/** `Retry-After` of an error's response headers (a `Headers`, or a plain record), in ms. */
function retryAfterOf(err: unknown): number | undefined {
  const headers = field(err, "headers") ?? field(field(err, "response"), "headers");
  let value: unknown;
  try {
    if (headers && typeof (headers as Headers).get === "function") value = (headers as Headers).get("retry-after");
    else if (headers && typeof headers === "object") value = (headers as Record<string, unknown>)["retry-after"];
  } catch {}
  return typeof value === "string" ? parseRetryAfter(value) : undefined;
}

/** Whether an error is worth another attempt: a retryable status, or a connection that failed or dropped. */
export function isRetryableError(err: unknown): boolean {
  const status = statusOf(err);
  if (status !== undefined) return RETRY_STATUSES.has(status);
  const name = field(err, "name");
  if (name === "APIConnectionError" || name === "APIConnectionTimeoutError") return true;
  const code = field(err, "code") ?? field(field(err, "cause"), "code");
  return typeof code === "string" && NETWORK_CODES.has(code);
}

/** Sleeps `ms`, or until `signal` aborts (then resolves early: the caller checks the signal). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** One attempt's outcome as {@link Retrier.run} reports it. */
export interface Attempted<T> {
  value: T;
  /** Seconds the successful attempt took. */
  seconds: number;
  retries: number;
}

/** Runs attempts under one policy, sharing the rate-limit gate across every row of an evaluation. */
export class Retrier {
  private gateUntil = 0;
  /** Retries made so far (all rows). */
  retries = 0;

  constructor(
    private readonly policy: ResolvedRetryPolicy,
    private readonly signal: AbortSignal,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * Runs `attempt` until it succeeds, fails with an error that is not retryable, runs out of attempts, or the
   * evaluation is cancelled; rethrows the last error. Only the successful attempt is timed.
   */
  async run<T>(attempt: () => Promise<T>, onRetry?: (err: unknown, waitMs: number) => void): Promise<Attempted<T>> {
    for (let n = 1; ; n++) {
      await sleep(this.gateUntil - Date.now(), this.signal);
      const started = performance.now();
      try {
        const value = await attempt();
        return { value, seconds: (performance.now() - started) / 1000, retries: n - 1 };
      } catch (err) {
        if (n >= this.policy.attempts || this.signal.aborted || !isRetryableError(err)) throw err;
        const retryAfter = retryAfterOf(err);
        if (retryAfter !== undefined && retryAfter > this.policy.maxDelayMs) throw err;
        const ceiling = Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** (n - 1));
        const wait = retryAfter ?? Math.floor(this.random() * ceiling);
        if (statusOf(err) === 429) this.gateUntil = Math.max(this.gateUntil, Date.now() + wait);
        this.retries++;
        onRetry?.(err, wait);
        await sleep(wait, this.signal);
        if (this.signal.aborted) throw err;
      }
    }
  }
}
