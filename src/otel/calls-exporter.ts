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
 * - A 400 `CALLS_COMPLETE_MODE_REQUIRED` (the project takes complete calls only) switches to complete records for the
 *   rest of the process (calls-complete.ts), and the refused records go that way at once.
 * - Retryable failures stop the export at the failed item; the queue retries from there, keeping order.
 */

import type { ApiError } from "../errors.js";
import type { HttpTransport } from "../http/transport.js";
import { describeAs } from "../own-objects.js";
import { releaseSlices } from "../wire/arena.js";
import type { CallRecordItem } from "../wire/call-encode.js";
import { JsonWriter, literal } from "../wire/json-writer.js";
import { CompleteSender } from "./calls-complete.js";
import { type CallItem, type CallRequest, type CallsExportEvents, classify, type Verdict } from "./calls-route.js";
import { type ExportOutcome, retryOutcome } from "./export-outcome.js";

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

export class CallsExporter {
  /** How records go: v1 batches, v1 singles (a service without `/call/upsert_batch`), or v2 complete records. */
  private mode: "batch" | "single" | "complete" = "batch";
  private budget: number;
  private writer = new JsonWriter();
  private readonly complete: CompleteSender;

  constructor(
    private readonly transport: HttpTransport,
    maxBatchBytes: number,
    private readonly events: CallsExportEvents,
    /** `entity/project`, for the v2 paths of complete mode. */
    project: string,
  ) {
    this.budget = Math.max(MIN_BUDGET, maxBatchBytes);
    this.complete = new CompleteSender(transport, project, events, this.budget);
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
    if (this.mode === "complete") return this.complete.send(items, signal);
    if (this.mode === "single") return this.sendSingles(items, signal);
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
        this.mode = "single";
        return this.sendSingles(items, signal);
      case "complete-mode":
        return this.switchToComplete(items, error as ApiError, signal);
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

  /** The service takes complete records only: `items` (none of them sent yet) and all later records go that way. */
  private switchToComplete(items: CallRecordItem[], error: ApiError, signal: AbortSignal): Promise<ExportOutcome> {
    if (this.mode !== "complete") {
      this.mode = "complete";
      this.events.completeMode(error);
    }
    return this.complete.send(items, signal);
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
        if (verdict === "complete-mode") {
          const rest = await this.switchToComplete(items.slice(i), err as ApiError, signal);
          return { ...rest, done: i + rest.done };
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
