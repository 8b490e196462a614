/**
 * What the processor counts (`stats()`) and logs (once per kind and interval) for each outcome of an export, on each
 * route: the events the calls senders (calls-route.ts) and the OTLP exporter report through.
 */
import { ApiError } from "../errors.js";
import type { CallsExportEvents } from "./calls-route.js";
import { type Diagnostics, describeError } from "./diagnostics.js";
import type { OtlpExportEvents } from "./otlp-exporter.js";

/** The counters of one route's queue (read when an event comes: the queue is made after its exporter). */
interface Counters {
  countSent(n: number): void;
  countRejected(n: number): void;
  /** Whether `shutdown()` has begun (a failed export is then not retried past its deadline). */
  readonly isStopping: boolean;
}

/**
 * The warning for an export that failed in a way worth retrying. During `shutdown()` it does not promise a retry: what
 * is not sent by the deadline is dropped, counted and reported in a line of its own.
 */
function failedExport(queue: Counters, what: string, error: unknown): string {
  return queue.isStopping
    ? `${what} failed during shutdown(), not retried past its deadline: ${describeError(error)}`
    : `${what} failed, will retry: ${describeError(error)}`;
}

/** The calls route's events; `rejectCalls` counts and logs items the service refused. */
export function callsExportEvents(
  queue: () => Counters,
  diagnostics: Diagnostics,
  project: string,
  rejectCalls: (count: number, message: string) => void,
): CallsExportEvents {
  return {
    sent: (n) => queue().countSent(n),
    rejected: (items, error) =>
      rejectCalls(items.length, `The tracing service rejected ${items.length} call item(s): ${error.message}`),
    unauthorized: (count, error) => {
      queue().countRejected(count);
      diagnostics.unauthorized(error.status, `${count} call item(s)`, project);
    },
    failed: (error) => diagnostics.warn("calls-failed", failedExport(queue(), "Sending calls", error)),
    completeMode: () =>
      diagnostics.warn(
        "calls-complete-mode",
        `The tracing service takes complete calls only for ${project} (CALLS_COMPLETE_MODE_REQUIRED): tracewire now sends each finished call as one record (/v2/{entity}/{project}/calls/complete), and calls still running when a batch goes through /v2/{entity}/{project}/call/start and /call/end. Nothing was lost.`,
      ),
  };
}

/** The OTLP route's events. */
export function otlpExportEvents(queue: () => Counters, diagnostics: Diagnostics, project: string): OtlpExportEvents {
  return {
    sent: (n) => queue().countSent(n),
    partialSuccess: (result) => {
      queue().countRejected(result.rejectedSpans);
      diagnostics.warn(
        "otlp-partial",
        `The tracing service accepted the export partially: ${result.rejectedSpans} span(s) rejected: ${result.errorMessage}`,
      );
    },
    rejected: (n, error) => {
      queue().countRejected(n);
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return; // warned by unauthorized
      diagnostics.warn("otlp-rejected", `The tracing service refused ${n} span(s): ${error.message}`);
    },
    unauthorized: (n, error) => diagnostics.unauthorized(error.status, `${n} span(s)`, project),
    failed: (error) => diagnostics.warn("otlp-failed", failedExport(queue(), "OTLP export", error)),
  };
}
