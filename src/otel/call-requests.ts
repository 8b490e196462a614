/**
 * Call-scoped requests (feedback, scores, renames): each is sent behind the call it is about — the service never
 * gets feedback for a call it has not seen — at once rather than at the next batch, and the promise the caller holds
 * always settles, by `flush()` and `shutdown()` at the latest. Where the request waits depends on the call's route:
 *
 * - Calls route: behind the call's start in the same queue. The promise settles with the service's answer.
 * - OTLP route, the call has ended: the service learns of the call when its span is exported, so the request joins
 *   the calls queue once that export is done. The promise settles with the service's answer. When the span was
 *   dropped instead (queue full, shutdown), the request is never sent: `NotSentError` `call-not-exported`/`shutdown`.
 * - OTLP route, the call is still running: the request cannot go before the span ends, and the span may end only
 *   after the caller's `await` (`await getCurrentCall()?.react("👍")` inside the op), so waiting for the service's
 *   answer would hang the app. Here "after the call" means after its span's export, and the caller is not kept
 *   waiting for it: the request is parked on the span and the promise resolves at once with a receipt (for feedback:
 *   the client-chosen id the request now carries, so it is the id the service stores, the local time and an empty
 *   `wb_user_id`). When the span ends the request follows its export as above. What becomes of it afterwards is
 *   counted in `stats().calls` and logged when it fails. A call of tracewire's own still running at shutdown is ended
 *   then (open-calls.ts), so its requests follow its export; another instrumentation's span that has not ended by
 *   shutdown takes its requests with it (counted as dropped, logged): the service never saw that call.
 *
 * `flush()` waits for both queues, then for the requests an OTLP export released meanwhile, and rejects what is still
 * unsent with `NotSentError` `flush` (it stays queued and goes later). `shutdown()` flushes, stops both queues and
 * settles whatever is left, so no promise outlives it.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { kindOf } from "../config.js";
import { NotSentError, type NotSentReason, ValidationError } from "../errors.js";
import type { EncodedSpan } from "../wire/otlp-batch.js";
import type { CallItem, CallRequest } from "./calls-route.js";
import type { ExportQueue } from "./export-queue.js";
import { spanRoute } from "./span-data.js";
import type { AfterExport } from "./state.js";

/** Requests about an OTLP-route span, waiting on the span itself for it to end. */
const PARKED = Symbol.for("tracewire.parkedRequests");
/** Set on an OTLP-route span that ended but was not queued for export (the queue was full). */
const NOT_EXPORTED = Symbol.for("tracewire.notExported");

type SpanMarks = { [PARKED]?: CallRequest[]; [NOT_EXPORTED]?: true };

const DROPPED_SPAN = "its call's span was dropped before export (the OTLP queue was full), so the service never saw it";

/** Where a request whose promise has not settled waits: for its call's span export, or in the calls queue. */
type Waiting = "export" | "queue";

export class CallRequests {
  /** Requests whose promise has not settled yet. */
  private readonly pending = new Map<CallRequest, Waiting>();
  /** Requests parked on running spans (their promises resolved with a receipt). */
  private readonly parked = new Set<CallRequest>();
  private closed = false;

  constructor(
    private readonly calls: ExportQueue<CallItem>,
    private readonly otlp: ExportQueue<EncodedSpan>,
    /** Most requests parked on running spans at once (the calls queue's size): more are refused, `queue-full`. */
    private readonly maxParked: number,
  ) {}

  /** See `TracewireSpanProcessor.enqueueRequest`. Throws `ValidationError` for a bad path or body. */
  enqueue(path: string, body: object, replaySafe: boolean, afterExport: AfterExport | undefined): Promise<unknown> {
    if (typeof path !== "string" || !/^\/[A-Za-z0-9_./-]+$/.test(path)) {
      throw new ValidationError(
        `enqueueRequest: path must be a service path such as "/feedback/create", got ${JSON.stringify(path)}.`,
        "path",
      );
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw new ValidationError(`enqueueRequest: body must be a JSON object, got ${kindOf(body)}.`, "body");
    }
    return new Promise((resolve, reject) => {
      const request: CallRequest = {
        kind: "request",
        path,
        body,
        replaySafe,
        // Settles the caller's promise once: later outcomes (the answer to a request resolved with a receipt, or
        // rejected by a flush while it stays queued) are only counted.
        settle: (error, result) => {
          if (!this.pending.delete(request)) return;
          if (error) reject(error);
          else resolve(result);
        },
      };
      this.pending.set(request, "queue");
      if (this.closed) {
        this.refuse([request], "shutdown", "the processor is shut down");
        return;
      }
      const span = afterExport?.span as (ReadableSpan & SpanMarks) | undefined;
      if (!afterExport) this.send([request]);
      else if (span?.[NOT_EXPORTED]) this.refuse([request], "call-not-exported", DROPPED_SPAN);
      else if (span && !span.ended && spanRoute(span) === "otlp") this.park(request, span, afterExport.receipt);
      else this.sendAfterExport([request]);
    });
  }

  /**
   * An OTLP-route span ended; `queued` says whether it was queued for export. The requests parked on it go after that
   * export, or are dropped with the span.
   */
  spanEnded(span: ReadableSpan, queued: boolean): void {
    const marks = span as SpanMarks;
    if (!queued) marks[NOT_EXPORTED] = true;
    const parked = marks[PARKED];
    if (!parked) return;
    delete marks[PARKED];
    // Only those still parked here: a shutdown may have dropped them already.
    const requests = parked.filter((r) => this.parked.delete(r));
    if (queued) this.sendAfterExport(requests);
    else this.refuse(requests, "call-not-exported", DROPPED_SPAN);
  }

  /** The calls queue dropped `items` (`reason`: full, or shut down): their promises reject with `NotSentError`. */
  dropped(items: readonly CallItem[], reason: string): void {
    const code: NotSentReason = this.calls.isClosed ? "shutdown" : "queue-full";
    for (const item of items)
      if (item.kind === "request") item.settle(new NotSentError(code, `tracewire dropped ${item.path}: ${reason}.`));
  }

  /**
   * Flushes both queues within `timeoutMs`, then rejects the requests made before the flush that are still unsent
   * with `NotSentError` `flush` (they stay queued). `abortLate`: abort exports still in flight at the deadline (see
   * {@link ExportQueue.flush}).
   */
  async flush(timeoutMs: number, abortLate = false): Promise<void> {
    const before = [...this.pending.keys()];
    await this.flushQueues(timeoutMs, abortLate);
    for (const request of before) {
      const waiting = this.pending.get(request);
      if (waiting === undefined) continue;
      const where =
        waiting === "export" ? "it waits for the export of its call's span" : "the service has not taken it yet";
      request.settle(
        new NotSentError(
          "flush",
          `flush() returned before ${request.path} was sent (${where}: the service is unreachable, asked to wait, or the deadline passed). It stays queued and is sent later, or dropped at shutdown.`,
        ),
      );
    }
  }

  /** Flushes, stops both queues (what is left is dropped and counted) and settles every request still pending. */
  async shutdown(timeoutMs: number): Promise<void> {
    const started = Date.now();
    await this.flushQueues(timeoutMs);
    this.closed = true;
    const left = Math.max(0, timeoutMs - (Date.now() - started));
    await Promise.all([this.calls.shutdown(left), this.otlp.shutdown(left)]);
    if (this.parked.size > 0) {
      const parked = [...this.parked];
      this.parked.clear();
      this.refuse(
        parked,
        "call-not-exported",
        "its call's span had not ended by shutdown, so the service never saw it",
      );
    }
    for (const request of [...this.pending.keys()])
      request.settle(new NotSentError("shutdown", `tracewire did not send ${request.path}: the processor shut down.`));
  }

  /**
   * Both queues within `timeoutMs`, then the calls queue again within what is left: requests an OTLP export released
   * during the flush joined it after its flush began.
   */
  private async flushQueues(timeoutMs: number, abortLate = false): Promise<void> {
    const started = Date.now();
    await Promise.all([this.calls.flush(timeoutMs, abortLate), this.otlp.flush(timeoutMs, abortLate)]);
    const left = timeoutMs - (Date.now() - started);
    if (left > 0) await this.calls.flush(left, abortLate); // at once when nothing joined
  }

  /** Parks a request on its running span and resolves its promise with the receipt. */
  private park(request: CallRequest, span: ReadableSpan & SpanMarks, receipt: (() => unknown) | undefined): void {
    if (this.parked.size >= this.maxParked) {
      this.refuse([request], "queue-full", `${this.maxParked} requests already wait for their calls to end`);
      return;
    }
    span[PARKED] ??= [];
    span[PARKED].push(request);
    this.parked.add(request);
    request.settle(undefined, receipt?.());
  }

  /** Never sent: counted as dropped on the calls route (and logged), and the promise, if pending, rejects. */
  private refuse(requests: readonly CallRequest[], reason: NotSentReason, why: string): void {
    for (const request of requests) {
      this.calls.drop(`a request (${request.path}) was not sent: ${why}`);
      request.settle(new NotSentError(reason, `tracewire did not send ${request.path}: ${why}.`));
    }
  }

  /** Queues call-scoped requests and sends them without waiting for the timer. */
  private send(requests: readonly CallRequest[]): void {
    for (const request of requests) {
      if (this.pending.has(request)) this.pending.set(request, "queue");
      this.calls.offer(request);
    }
    this.calls.hurry();
  }

  /**
   * Sends `requests` once every span queued for OTLP so far has been exported (now, not at the timer). Not when the
   * last of those spans was dropped unsent at shutdown: a dropped span takes every span queued after it along, so
   * this never misses the requests' own span (and refuses, at shutdown only, some whose span did go out).
   */
  private sendAfterExport(requests: readonly CallRequest[]): void {
    if (requests.length === 0) return;
    for (const request of requests) if (this.pending.has(request)) this.pending.set(request, "export");
    this.otlp.whenFinished((dropped) => {
      if (dropped) this.refuse(requests, "shutdown", "its call's span could not be exported before shutdown");
      else this.send(requests);
    });
    this.otlp.hurry();
  }
}
