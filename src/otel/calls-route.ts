/**
 * The calls route's vocabulary, shared by its senders (calls-exporter.ts, calls-complete.ts) and the processor: the
 * items of its queue, the events a sender reports outcomes through, and what a failed request means for its items
 * (sent, refused for good, refused for a reason every request shares, or worth retrying).
 */
import { ApiError, NotFoundError, RequestTooLargeError } from "../errors.js";
import type { CallRecordItem } from "../wire/call-encode.js";

/** A call-scoped request that must follow the call's start (feedback, a rename). */
export interface CallRequest {
  kind: "request";
  path: string;
  body: object;
  /** Whether resending after a lost answer is harmless (a rename is; a feedback create would duplicate). */
  replaySafe: boolean;
  /** Settles the promise the user holds. */
  settle: (error: unknown, result?: unknown) => void;
}

/** One item of the calls route, in the order it must reach the service (records: call-encode.ts). */
export type CallItem = CallRecordItem | CallRequest;

/** Results reported back to the processor for counting and logging. */
export interface CallsExportEvents {
  sent(count: number): void;
  rejected(items: CallItem[], error: Error): void;
  /** The service refused our credentials (401/403) for a request carrying `count` items. */
  unauthorized(count: number, error: ApiError): void;
  failed(error: unknown): void;
  /** The service asked for complete records (`CALLS_COMPLETE_MODE_REQUIRED`): they go that way from now on. */
  completeMode(error: ApiError): void;
}

/**
 * `ok`; `invalid` (400/422: a bad item, final); `unauthorized` (401/403: the key); `too-large` (413); `not-found`
 * (404: the endpoint); `complete-mode` (the project takes complete calls only); `retry` (408/429/5xx after the
 * transport's own retries, or no answer).
 */
export type Verdict = "ok" | "invalid" | "unauthorized" | "too-large" | "not-found" | "complete-mode" | "retry";

/**
 * The error code of the hosted service's 400 to a v1 call write (`/call/start`, `/call/end`, `/call/upsert_batch`)
 * for a project that already holds calls written as complete records (`/v2/{entity}/{project}/calls/complete`, the
 * vendor's SDKs' default since 2026): such a project takes calls only that way.
 */
export const CALLS_COMPLETE_MODE_REQUIRED = "CALLS_COMPLETE_MODE_REQUIRED";

/** Whether `err` is the service saying this project takes complete calls only (the code anywhere in its body). */
function requiresCompleteMode(err: ApiError): boolean {
  if (err.status !== 400) return false;
  try {
    const body = typeof err.body === "string" ? err.body : JSON.stringify(err.body);
    return (body ?? "").includes(CALLS_COMPLETE_MODE_REQUIRED) || err.message.includes(CALLS_COMPLETE_MODE_REQUIRED);
  } catch {
    return false;
  }
}

export function classify(err: unknown): Verdict {
  if (err instanceof RequestTooLargeError) return "too-large";
  if (err instanceof NotFoundError) return "not-found";
  if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return "unauthorized";
  if (err instanceof ApiError && err.status !== undefined) {
    if (requiresCompleteMode(err)) return "complete-mode";
    // 400/422 bad item, final. 408/429/5xx were retried by the transport.
    if (err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429) return "invalid";
  }
  return "retry";
}
