/**
 * The calls route in complete mode, for a project that takes calls only as complete records: the hosted service
 * answers v1 call writes to a project that holds such calls with a 400 `CALLS_COMPLETE_MODE_REQUIRED` (the vendor's
 * SDKs write complete records by default, so any project they have written to is one). From that answer on, the
 * exporter (calls-exporter.ts) hands its records here, for the rest of the process:
 *
 * - a start and its end in the same batch become one record, `POST /v2/{entity}/{project}/calls/complete`;
 * - a start whose end is not in the batch yet (a call still running), or an end whose start went in an earlier batch,
 *   goes alone to `/v2/{entity}/{project}/call/start` or `/call/end`, as the vendor's SDKs send long-running calls.
 *
 * The queue's rule that a batch is finished from the front (`ExportOutcome.done`) does not hold when pairs go first:
 * what is finished is remembered per item, so a retry sends only what is left, never a call twice. A complete record
 * counts as its two items in `stats().calls`. Failures follow the exporter's rules (bisection of an invalid request,
 * halving on 413, backoff on 401/403, retry on the rest).
 */
import type { ApiError } from "../errors.js";
import type { HttpTransport } from "../http/transport.js";
import { describeAs } from "../own-objects.js";
import { bytesToText } from "../runtime.js";
import type { CallRecordItem } from "../wire/call-encode.js";
import { type CallsExportEvents, classify, type Verdict } from "./calls-route.js";
import { type ExportOutcome, retryOutcome } from "./export-outcome.js";

/** A call's start and end, both in the batch. */
type Pair = readonly [start: CallRecordItem, end: CallRecordItem];

/** Why sending stopped: a retry (with the error), or a refusal every request shares (the key). */
type Stop = { retry: unknown } | { backoff: true };

/** The record's JSON object (`{"start":…}` → its start), parsed back from its bytes. */
const parseRecord = (item: CallRecordItem): Record<string, unknown> => {
  const parsed = JSON.parse(bytesToText(item.buf.subarray(item.start, item.end))) as Record<string, unknown>;
  return parsed[item.kind] as Record<string, unknown>;
};

/**
 * A pair's complete record (`CompletedCallSchemaForInsert`): the start's fields, then the end's (its `project_id` and
 * `id` are the start's). Built from the records' bytes, parsed back: complete mode is the exception, not the hot path.
 */
function completeRecord([start, end]: Pair): Record<string, unknown> {
  const { project_id: _project, id: _id, ...ending } = parseRecord(end);
  return { ...parseRecord(start), ...ending };
}

/** The pairs (in the order of their starts) and the items that go alone (in batch order). */
function pairUp(items: readonly CallRecordItem[]): { pairs: Pair[]; singles: CallRecordItem[] } {
  const starts = new Map<string, CallRecordItem>();
  const paired = new Set<CallRecordItem>();
  const pairs: Pair[] = [];
  for (const item of items) {
    if (item.kind === "start") starts.set(item.id, item);
    else {
      const start = starts.get(item.id);
      if (start && !paired.has(start)) {
        pairs.push([start, item]);
        paired.add(start).add(item);
      }
    }
  }
  pairs.sort((a, b) => items.indexOf(a[0]) - items.indexOf(b[0]));
  return { pairs, singles: items.filter((item) => !paired.has(item)) };
}

export class CompleteSender {
  /** Items sent or refused for good, for a batch that stopped halfway and comes back. */
  private readonly finished = new WeakSet<CallRecordItem>();
  private readonly base: string;

  constructor(
    private readonly transport: HttpTransport,
    project: string,
    private readonly events: CallsExportEvents,
    /** Most bytes of records per request; halved on a 413. */
    private budget: number,
  ) {
    const [entity = "", name = ""] = project.split("/");
    this.base = `/v2/${encodeURIComponent(entity)}/${encodeURIComponent(name)}`;
  }

  /** Sends `items` (a run of records, in queue order); `done` counts the finished items at the front. */
  async send(items: CallRecordItem[], signal: AbortSignal): Promise<ExportOutcome> {
    const { pairs, singles } = pairUp(items.filter((item) => !this.finished.has(item)));
    const stop = (await this.sendPairs(pairs, signal)) ?? (await this.sendSingles(singles, signal));
    if (stop === undefined) return { done: items.length, retry: false };
    let done = 0;
    while (done < items.length && this.finished.has(items[done]!)) done++;
    // What is left stays at the front of the queue; what was finished out of order is skipped when it comes back.
    return "backoff" in stop ? { done, retry: false, backoff: true } : retryOutcome(done, stop.retry);
  }

  /** The pairs as complete records, as few requests as the budget allows. */
  private async sendPairs(pairs: Pair[], signal: AbortSignal): Promise<Stop | undefined> {
    let from = 0;
    while (from < pairs.length) {
      let to = from;
      let bytes = 0;
      while (to < pairs.length) {
        const [start, end] = pairs[to]!;
        const size = start.end - start.start + end.end - end.start;
        if (to > from && bytes + size > this.budget) break;
        bytes += size;
        to++;
      }
      const stop = await this.sendChunk(pairs.slice(from, to), signal);
      if (stop) return stop;
      from = to;
    }
    return undefined;
  }

  private async sendChunk(pairs: Pair[], signal: AbortSignal): Promise<Stop | undefined> {
    let body: string;
    try {
      body = JSON.stringify({ batch: pairs.map(completeRecord) });
    } catch (err) {
      // Not expected (the records are tracewire's own JSON); refused rather than retried forever.
      this.refuse(pairs.flat(), err instanceof Error ? err : new Error(String(err)));
      return undefined;
    }
    try {
      await this.transport.json({
        method: "POST",
        path: `${this.base}/calls/complete`,
        body,
        contentType: "application/json",
        signal,
      });
      for (const [start, end] of pairs) this.finished.add(start).add(end);
      this.events.sent(pairs.length * 2);
      return undefined;
    } catch (err) {
      const verdict = classify(err);
      const stop = this.stopFor(verdict, err, pairs.flat());
      if (stop) return stop;
      if (verdict === "too-large") this.budget = Math.max(1024, Math.floor(body.length / 2));
      if (pairs.length === 1) {
        this.refuse(pairs.flat(), err as ApiError);
        return undefined;
      }
      const middle = Math.ceil(pairs.length / 2);
      return (await this.sendChunk(pairs.slice(0, middle), signal)) ?? this.sendChunk(pairs.slice(middle), signal);
    }
  }

  /** Starts of running calls and ends of calls started in an earlier batch, one request each, in order. */
  private async sendSingles(items: CallRecordItem[], signal: AbortSignal): Promise<Stop | undefined> {
    for (const item of items) {
      try {
        await this.transport.json({
          method: "POST",
          path: `${this.base}/call/${item.kind}`,
          body: item.buf.subarray(item.start, item.end),
          contentType: "application/json",
          signal,
        });
        this.finished.add(item);
        this.events.sent(1);
      } catch (err) {
        const stop = this.stopFor(classify(err), err, [item]);
        if (stop) return stop;
        this.refuse([item], err as ApiError);
      }
    }
    return undefined;
  }

  /**
   * Whether a failed request for `items` stops this export: a retry (nothing of them finished), or refused
   * credentials (they are counted and finished, the rest waits out a backoff). Undefined for a refusal of the items.
   */
  private stopFor(verdict: Verdict, err: unknown, items: CallRecordItem[]): Stop | undefined {
    if (verdict === "retry") {
      this.events.failed(err);
      return { retry: err };
    }
    if (verdict !== "unauthorized") return undefined;
    for (const item of items) this.finished.add(item);
    this.events.unauthorized(items.length, err as ApiError);
    return { backoff: true };
  }

  private refuse(items: CallRecordItem[], error: Error): void {
    for (const item of items) this.finished.add(item);
    this.events.rejected(items, error);
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(CompleteSender, "CompleteSender");
