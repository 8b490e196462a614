/**
 * The native-calls route's sender: turns an ordered batch of call starts, call ends and call-scoped requests
 * (feedback, renames) into `POST /call/upsert_batch` requests and single requests, in order.
 *
 * - Each record was JSON-encoded once, when it was queued (call-encode.ts); retries and splits reuse the bytes.
 * - Requests stay under a byte budget; a 413 halves the request (and the budget) until it fits.
 * - An item the service rejects as invalid (400/422) is found by bisection and dropped alone; its batch-mates go.
 * - 401/403 refuse the whole request (the API key, not an item): its items are counted as rejected without
 *   bisecting, and the export stops so the queue backs off before the next batch.
 * - A 404 from `/call/upsert_batch` switches to `/call/start` + `/call/end` for the rest of the process.
 * - Retryable failures stop the export at the failed item; the queue retries from there, keeping order.
 */

import { ApiError, NotFoundError, RequestTooLargeError } from "../errors.js";
import type { HttpTransport } from "../http/transport.js";
import { describeAs } from "../secrets.js";
import { releaseSlices } from "../wire/arena.js";
import type { CallRecordItem } from "../wire/call-encode.js";
import { JsonWriter, literal } from "../wire/json-writer.js";
import { type ExportOutcome, retryOutcome } from "./export-queue.js";

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
}

const BATCH_PREFIX = literal('{"batch":[');
const BATCH_SUFFIX = literal("]}");
const MODE_START = literal('{"mode":"start","req":');
const MODE_END = literal('{"mode":"end","req":');
const COMMA = literal(",");
const CLOSE = literal("}");
/** Bytes a batch item adds around its record: `{"mode":"start","req":` … `},`. */
const ITEM_OVERHEAD = 25;
const MIN_BUDGET = 64 * 1024;
/** A request buffer that grew past this is not kept for the next request. */
const MAX_RETAINED_BUFFER = 4 * 1024 * 1024;

/** The record's bytes, as a view (valid until the item is released). */
const recordBytes = (item: CallRecordItem): Uint8Array => item.buf.subarray(item.start, item.end);

type Verdict = "ok" | "invalid" | "unauthorized" | "too-large" | "not-found" | "retry";

function classify(err: unknown): Verdict {
  if (err instanceof RequestTooLargeError) return "too-large";
  if (err instanceof NotFoundError) return "not-found";
  if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return "unauthorized";
  if (err instanceof ApiError && err.status !== undefined) {
    // 400/422 bad item, final. 408/429/5xx were retried by the transport.
    if (err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429) return "invalid";
  }
  return "retry";
}

export class CallsExporter {
  private singleMode = false;
  private budget: number;
  private writer = new JsonWriter();

  constructor(
    private readonly transport: HttpTransport,
    maxBatchBytes: number,
    private readonly events: CallsExportEvents,
  ) {
    this.budget = Math.max(MIN_BUDGET, maxBatchBytes);
  }

  /** Exports `batch` in order; see the module comment for the rules. Never throws. */
  async export(batch: CallItem[], signal: AbortSignal): Promise<ExportOutcome> {
    const outcome = await this.exportInOrder(batch, signal);
    // What is finished (sent, or refused for good) is never sent again: its encoding buffers may be reused.
    releaseSlices(batch.slice(0, outcome.done));
    return outcome;
  }

  private async exportInOrder(batch: CallItem[], signal: AbortSignal): Promise<ExportOutcome> {
    let done = 0;
    while (done < batch.length) {
      const head = batch[done]!;
      if (head.kind === "request") {
        const verdict = await this.sendRequest(head, signal);
        if (typeof verdict === "object") return retryOutcome(done, verdict.error);
        done++;
        if (verdict === "unauthorized") return { done, retry: false, backoff: true };
        continue;
      }
      let end = done;
      let bytes = BATCH_PREFIX.length + BATCH_SUFFIX.length;
      while (end < batch.length) {
        const item = batch[end]!;
        if (item.kind === "request") break;
        const size = item.end - item.start + ITEM_OVERHEAD;
        if (end > done && bytes + size > this.budget) break;
        bytes += size;
        end++;
      }
      const result = await this.sendRecords(batch.slice(done, end) as CallRecordItem[], signal);
      done += result.done;
      if (result.retry || result.backoff) return { ...result, done };
    }
    return { done, retry: false };
  }

  private async sendRecords(items: CallRecordItem[], signal: AbortSignal): Promise<ExportOutcome> {
    if (this.singleMode) return this.sendSingles(items, signal);
    const body = this.batchBody(items);
    let verdict: Verdict = "ok";
    let error: unknown;
    try {
      await this.transport.json({
        method: "POST",
        path: "/call/upsert_batch",
        body,
        contentType: "application/json",
        signal,
      });
    } catch (err) {
      error = err;
      verdict = classify(err);
    }
    switch (verdict) {
      case "ok":
        this.events.sent(items.length);
        return { done: items.length, retry: false };
      case "not-found":
        this.singleMode = true;
        return this.sendSingles(items, signal);
      case "retry":
        this.events.failed(error);
        return retryOutcome(0, error);
      case "too-large":
        this.budget = Math.max(MIN_BUDGET, Math.floor(body.byteLength / 2));
        return items.length === 1 ? this.reject(items, error as ApiError) : this.bisect(items, signal);
      case "invalid":
        return items.length === 1 ? this.reject(items, error as ApiError) : this.bisect(items, signal);
      case "unauthorized":
        // Every request with this key would be refused alike: bisecting would only multiply the refusals.
        this.events.unauthorized(items.length, error as ApiError);
        return { done: items.length, retry: false, backoff: true };
    }
  }

  /**
   * `{"batch":[…]}` around the items' records, in the exporter's own buffer: valid until the next call (requests
   * are sent one at a time, each awaited before the next is built).
   */
  private batchBody(items: CallRecordItem[]): Uint8Array {
    const w = this.writer;
    w.reset();
    w.literal(BATCH_PREFIX);
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (i > 0) w.literal(COMMA);
      w.literal(item.kind === "start" ? MODE_START : MODE_END);
      w.raw(item.buf, item.start, item.end);
      w.literal(CLOSE);
    }
    w.literal(BATCH_SUFFIX);
    const body = w.buf.subarray(0, w.pos);
    if (w.buf.length > MAX_RETAINED_BUFFER) this.writer = new JsonWriter();
    return body;
  }

  /** Sends the two halves in order; stops at the first half that needs a retry. */
  private async bisect(items: CallRecordItem[], signal: AbortSignal): Promise<ExportOutcome> {
    const middle = Math.ceil(items.length / 2);
    const first = await this.sendRecords(items.slice(0, middle), signal);
    if (first.retry || first.backoff) return first;
    const second = await this.sendRecords(items.slice(middle), signal);
    return { ...second, done: first.done + second.done };
  }

  private reject(items: CallRecordItem[], error: ApiError): ExportOutcome {
    this.events.rejected(items, error);
    return { done: items.length, retry: false };
  }

  /** Fallback for services without `/call/upsert_batch`: one `/call/start` or `/call/end` per item. */
  private async sendSingles(items: CallRecordItem[], signal: AbortSignal): Promise<ExportOutcome> {
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      try {
        await this.transport.json({
          method: "POST",
          path: `/call/${item.kind}`,
          body: recordBytes(item),
          contentType: "application/json",
          signal,
        });
        this.events.sent(1);
      } catch (err) {
        const verdict = classify(err);
        if (verdict === "retry") {
          this.events.failed(err);
          return retryOutcome(i, err);
        }
        if (verdict === "unauthorized") {
          this.events.unauthorized(1, err as ApiError);
          return { done: i + 1, retry: false, backoff: true };
        }
        this.events.rejected([item], err as ApiError);
      }
    }
    return { done: items.length, retry: false };
  }

  /** `"ok"` (counted as sent), `"invalid"` or `"unauthorized"` (settled with the error, counted), or the retryable error. */
  private async sendRequest(
    item: CallRequest,
    signal: AbortSignal,
  ): Promise<"ok" | "invalid" | "unauthorized" | { error: unknown }> {
    try {
      const result = await this.transport.json({
        method: "POST",
        path: item.path,
        json: item.body,
        signal,
        ...(item.replaySafe ? {} : { retry: { nonIdempotent: "refused" as const } }),
      });
      this.events.sent(1);
      item.settle(undefined, result);
      return "ok";
    } catch (err) {
      const verdict = classify(err);
      if (verdict === "retry") {
        this.events.failed(err);
        return { error: err };
      }
      if (verdict === "unauthorized") this.events.unauthorized(1, err as ApiError);
      else this.events.rejected([item], err instanceof Error ? err : new Error(String(err)));
      item.settle(err);
      return verdict === "unauthorized" ? "unauthorized" : "invalid";
    }
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(CallsExporter, "CallsExporter");
