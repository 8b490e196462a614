/**
 * Call-scoped requests (feedback, renames): sent behind the call they are about, and at once rather than at the next
 * batch, so an awaited `react()` settles when the service has answered. On the calls route a request follows the
 * call's start in the same queue. On the OTLP route the service only learns of the call when its span is exported:
 * a request about a running call is parked on the span until it ends, then sent once the span's export is done.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { kindOf } from "../config.js";
import { ValidationError } from "../errors.js";
import type { EncodedSpan } from "../wire/otlp-batch.js";
import type { CallItem, CallRequest } from "./calls-exporter.js";
import type { ExportQueue } from "./export-queue.js";
import { spanRoute } from "./span-data.js";
import type { AfterExport } from "./state.js";

/** Requests about an OTLP-route span, waiting on the span itself for it to end. */
const PARKED = Symbol.for("tracewire.parkedRequests");

type Parking = { [PARKED]?: CallRequest[] };

export class CallRequests {
  constructor(
    private readonly calls: ExportQueue<CallItem>,
    private readonly otlp: ExportQueue<EncodedSpan>,
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
      const settle = (error: unknown, result?: unknown) => (error ? reject(error) : resolve(result));
      const request: CallRequest = { kind: "request", path, body, replaySafe, settle };
      const span = afterExport?.span as (ReadableSpan & Parking) | undefined;
      if (!afterExport) this.send(request);
      else if (span && !span.ended && spanRoute(span) === "otlp") {
        span[PARKED] ??= [];
        span[PARKED].push(request);
      } else this.sendAfterExport([request]);
    });
  }

  /** An OTLP-route span ended (and was offered for export): the requests parked on it go after that export. */
  spanEnded(span: ReadableSpan): void {
    const holder = span as Parking;
    const parked = holder[PARKED];
    if (!parked) return;
    delete holder[PARKED];
    this.sendAfterExport(parked);
  }

  /** Queues call-scoped requests and sends them without waiting for the timer. */
  private send(...requests: CallRequest[]): void {
    for (const request of requests) this.calls.offer(request);
    this.calls.hurry();
  }

  /** Sends `requests` once every span queued for OTLP so far has been exported (now, not at the timer). */
  private sendAfterExport(requests: CallRequest[]): void {
    this.otlp.whenFinished(() => this.send(...requests));
    this.otlp.hurry();
  }
}
