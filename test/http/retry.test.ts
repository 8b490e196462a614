import { describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_RETRY, isRetryable, nextDelay, parseRetryAfter } from "../../src/http/retry.js";

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP dates, and ignores junk", () => {
    const now = Date.parse("2026-01-05T10:00:00Z");
    expect(parseRetryAfter("1", now)).toBe(1000);
    expect(parseRetryAfter("2.5", now)).toBe(2500);
    expect(parseRetryAfter("Mon, 05 Jan 2026 10:00:03 GMT", now)).toBe(3000);
    expect(parseRetryAfter("Mon, 05 Jan 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe("backoff", () => {
  it("is full jitter under a doubling, capped ceiling", () => {
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(1, policy, () => 0.999)).toBe(99);
    expect(backoffDelay(3, policy, () => 0.999)).toBe(399);
    expect(backoffDelay(10, policy, () => 0.999)).toBe(999);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
  });

  it("lets Retry-After win, but stops when it exceeds the cap or the elapsed budget", () => {
    const policy = { ...DEFAULT_RETRY, maxRetryAfterMs: 5000, maxElapsedMs: 10_000 };
    const status = (retryAfterMs?: number) => ({ kind: "status" as const, status: 503, retryAfterMs });
    expect(nextDelay(status(3000), 1, 0, policy)).toBe(3000);
    expect(nextDelay(status(6000), 1, 0, policy)).toBeUndefined();
    expect(nextDelay(status(3000), 1, 8000, policy)).toBeUndefined();
    expect(nextDelay(status(1), policy.maxAttempts, 0, policy)).toBeUndefined();
  });
});

describe("isRetryable", () => {
  const status = (code: number, retryAfterMs?: number) => ({ kind: "status" as const, status: code, retryAfterMs });
  it.each([
    // [status, idempotent, mode, expected]
    [500, true, "replay", true],
    [500, false, "replay", false],
    [502, false, "replay", true],
    [408, false, "replay", true],
    [400, true, "replay", false],
    [404, true, "replay", false],
    [413, true, "replay", false],
    [422, true, "replay", false],
    [502, false, "refused", false],
    [429, false, "refused", true],
    [503, false, "refused", true],
    [503, false, "refused-with-retry-after", false],
  ] as const)("status %i idempotent=%s mode=%s → %s", (code, idempotent, mode, expected) => {
    expect(isRetryable(status(code), idempotent, mode)).toBe(expected);
  });

  it("429/503 with Retry-After are retryable for training-service POSTs", () => {
    expect(isRetryable(status(429, 1000), false, "refused-with-retry-after")).toBe(true);
    expect(isRetryable(status(503, 0), false, "refused-with-retry-after")).toBe(true);
  });

  it("network failures: unsent always, sent only when replay is safe", () => {
    expect(isRetryable({ kind: "network", sent: false }, false, "refused-with-retry-after")).toBe(true);
    expect(isRetryable({ kind: "network", sent: true }, false, "refused-with-retry-after")).toBe(false);
    expect(isRetryable({ kind: "network", sent: true }, false, "refused")).toBe(false);
    expect(isRetryable({ kind: "network", sent: true }, false, "replay")).toBe(true);
    expect(isRetryable({ kind: "network", sent: true }, true, "refused")).toBe(true);
  });
});
