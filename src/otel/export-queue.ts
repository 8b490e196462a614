/**
 * A bounded, ordered export queue: the one mechanism behind both routes of the span processor.
 *
 * - `offer()` is all the queue adds to the caller's path: an array push and, at most, arming a timer. No I/O.
 * - One export runs at a time, so the service sees items in the order they were offered (a call's start before
 *   its end, feedback after the start it refers to).
 * - An export reports how many items from the front it finished (sent, or dropped as invalid); when it asks for a
 *   retry, the rest stay at the front and go again after a backoff, so an outage loses nothing that fits. A
 *   service's `Retry-After` wins over the backoff, and a flush does not cut it short either. A flush settles early
 *   when nothing can be sent before its deadline (the service refuses connections, or its `Retry-After` is longer).
 * - An export refused for a reason every request shares (401/403) finishes its items and pauses the next one.
 * - At shutdown, an export still in flight is aborted and awaited (briefly), so each item is counted once, as sent or
 *   as dropped.
 * - `hurry()` sends what is queued without waiting for the timer (someone awaits an answer: feedback), and
 *   `whenFinished()` runs a callback once an item is finished, saying whether it was dropped unsent (feedback about
 *   an OTLP span goes to the calls queue once that span's export is done, and never when the span was dropped).
 * - When the queue is full, new items are dropped and counted — except `force`d ones (the end of a call whose start
 *   was accepted), so no call is left open by our own bookkeeping.
 *
 * What an export reports, and the backoff, `Retry-After` and deadline rules applied when one ends, are the exporters'
 * contract with the queue: export-outcome.ts.
 */
import { describeAs } from "../own-objects.js";
import { anySignal, unref } from "../runtime.js";
import {
  type BatchExporter,
  type ExportOutcome,
  exportDeadline,
  nextRetryDelay,
  retryNotBefore,
} from "./export-outcome.js";

/** Queue limits (DESIGN §3; defaults follow `OTEL_BSP_*`). */
export interface QueueOptions {
  maxQueueSize: number;
  maxBatchSize: number;
  scheduleDelayMs: number;
  exportTimeoutMs: number;
  /** First wait before re-sending after a retryable failure; doubles up to `retryMaxDelayMs`. */
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
}

/** Counters of one queue, as reported by `stats()`. */
export interface QueueStats {
  /** Items waiting now. */
  queued: number;
  /** Items the service accepted. */
  sent: number;
  /** Items dropped because the queue was full or shut down with work left. */
  dropped: number;
  /** Items the service refused as invalid (dropped one by one, never with their batch-mates). */
  rejected: number;
  /** Exports that failed and were (or will be) retried. */
  retries: number;
}

/**
 * Counters reported by `stats()`. On each route, every item offered is counted exactly once: `sent + rejected +
 * dropped + queued` is the number of items offered so far (an item in flight still counts as queued).
 */
export interface TracewireStats {
  /**
   * The native-calls route: one item per call start, per call end and per call-scoped request (feedback, rename) —
   * a call is two items. A call whose start was dropped or rejected has its end counted the same way.
   */
  calls: QueueStats;
  /** The OTLP route: one item per span. `rejected` includes spans the service refused in a `partial_success`. */
  otlp: QueueStats;
  /** Internal failures caught inside tracewire (each also logged, rate-limited). */
  internalErrors: number;
}

/** How long shutdown waits for an aborted export still in flight to return. */
const IN_FLIGHT_WAIT_MS = 1000;

export class ExportQueue<T> {
  private items: T[] = [];
  private offered = 0;
  private finished = 0;
  private exporting = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Whether the armed timer is a zero-delay one. */
  private immediate = false;
  private retryDelay = 0;
  /** `Date.now()` before which the service asked not to be sent anything (its `Retry-After`); 0 when none. */
  private notBefore = 0;
  /** `Date.now()` before which the next export waits after a `backoff` outcome (refused credentials); 0 when none. */
  private pausedUntil = 0;
  private closed = false;
  private stopping = false;
  private stopAnnounced = false;
  private readonly waiters: { target: number; deadline: number; resolve: () => void }[] = [];
  /** Callbacks of {@link whenFinished}, each with the count of finished items it waits for. */
  private followers: { target: number; run: (dropped: boolean) => void }[] = [];
  /** Items up to this offer count go out without waiting for the timer (see {@link hurry}). */
  private urgentTarget = 0;
  private readonly abort = new AbortController();
  /** The export in flight, if any, and what aborts it alone (an exit flush past its deadline). */
  private current: Promise<ExportOutcome> | undefined;
  private currentAbort: AbortController | undefined;
  readonly stats: QueueStats = { queued: 0, sent: 0, dropped: 0, rejected: 0, retries: 0 };

  constructor(
    private readonly exporter: BatchExporter<T>,
    private readonly options: QueueOptions,
    /**
     * Told about every item dropped without being sent (to log once, and settle waiting promises). `items` are the
     * dropped items themselves, empty when the caller never built them (see `admit`).
     */
    private readonly onDrop: (count: number, reason: string, items: readonly T[]) => void,
  ) {}

  /**
   * Whether an item offered now would be queued. When not, counts and reports the drop, so that a caller can skip
   * building an item that would only be dropped (and must then not offer it).
   */
  admit(force = false): boolean {
    if (!this.refuses(force)) return true;
    this.stats.dropped++;
    this.onDrop(1, this.dropReason(), []);
    return false;
  }

  /** Counts and reports one item dropped before it could be offered (say, it could not be built). */
  drop(reason: string): void {
    this.stats.dropped++;
    this.onDrop(1, reason, []);
  }

  /** Queues an item. Returns false (and counts a drop) when full or closed, unless `force` and not closed. */
  offer(item: T, force = false): boolean {
    if (this.refuses(force)) {
      this.stats.dropped++;
      this.onDrop(1, this.dropReason(), [item]);
      return false;
    }
    this.items.push(item);
    this.offered++;
    this.stats.queued = this.items.length;
    // The caller's path: arm a timer only when it changes something. While an export runs, pump() re-arms itself
    // when it finishes; a zero-delay timer already armed is as soon as it gets.
    if (!this.exporting) {
      const paused = this.pausedUntil === 0 ? 0 : this.pausedUntil - Date.now();
      if (
        this.items.length >= this.options.maxBatchSize &&
        this.retryDelay === 0 &&
        this.notBefore === 0 &&
        paused <= 0
      ) {
        if (!this.immediate) this.kick(0);
      } else if (!this.timer) this.kick(Math.max(this.options.scheduleDelayMs, paused));
    }
    return true;
  }

  /**
   * Sends everything offered so far without waiting for the batch timer (someone awaits an answer: feedback). A
   * retry backoff, the service's `Retry-After` or a credentials pause still applies; the next export goes at once
   * when none is running, else right after the one in flight.
   */
  hurry(): void {
    this.urgentTarget = this.offered;
    if (this.exporting || this.immediate || this.finished >= this.offered) return;
    if (this.retryDelay !== 0 || this.notBefore !== 0 || this.pausedUntil > Date.now()) return;
    // Someone awaits the answer, so this timer keeps the process alive like the request it starts: unref'd, a script
    // whose last step is `await call.react()` would see its event loop drain before the request left.
    this.kick(0, true);
  }

  /**
   * Calls `run` once the first `target` items offered (default: all offered so far) are finished: sent, refused, or
   * dropped. `dropped` says whether item number `target` itself was dropped unsent at shutdown; it is false when the
   * items were already finished (at once). Does not hurry them: call {@link hurry} for that. Unlike a flush there is
   * no deadline, and nothing waiting here keeps the process alive.
   */
  whenFinished(run: (dropped: boolean) => void, target = this.offered): void {
    if (this.finished >= target) run(false);
    else this.followers.push({ target, run });
  }

  /** Whether the queue is shut down (it refuses every offer). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether `shutdown()` has begun (or its processor's): what is not sent by its deadline is dropped, not retried. */
  get isStopping(): boolean {
    return this.stopping || this.stopAnnounced;
  }

  /**
   * Says that a shutdown is under way before this queue's own `shutdown()` runs (the processor first waits for calls
   * about to end): an export failing meanwhile is reported as failing during shutdown, not promised a retry.
   */
  announceStop(): void {
    this.stopAnnounced = true;
  }

  private refuses(force: boolean): boolean {
    return this.closed || (!force && this.items.length >= this.options.maxQueueSize);
  }

  private dropReason(): string {
    return this.closed ? "the processor is shut down" : `the queue is full (${this.options.maxQueueSize})`;
  }

  /**
   * Resolves once every item offered before the call is finished, or after `timeoutMs`, or as soon as nothing can be
   * sent before then: the service refused the connection, or its `Retry-After` outlasts the deadline. Items not sent
   * stay queued (a later flush, the background retries or `shutdown()` deal with them).
   *
   * `abortLate`: at the deadline, also abort the export still in flight (its items stay queued). The exit flush asks
   * for it: a request to a service that never answers holds its socket, and with it the process, until the export
   * timeout (30 s), long after the flush gave up.
   */
  flush(timeoutMs: number, abortLate = false): Promise<void> {
    const target = this.offered;
    if (this.finished >= target) return Promise.resolve();
    if (!this.exporting && this.notBefore > Date.now() + timeoutMs) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiter = {
        target,
        deadline: Date.now() + timeoutMs,
        resolve: () => {
          clearTimeout(timeout);
          const index = this.waiters.indexOf(waiter);
          if (index !== -1) this.waiters.splice(index, 1);
          resolve();
        },
      };
      const timeout = setTimeout(() => {
        if (abortLate) this.currentAbort?.abort();
        waiter.resolve();
      }, timeoutMs);
      this.waiters.push(waiter);
      this.retryDelay = 0; // a flush does not wait out a backoff, only the service's own Retry-After
      if (!this.exporting) this.kick(this.retryAfterLeft());
    });
  }

  /** Flushes, then drops (and counts) whatever could not be sent by `timeoutMs`. Later offers are dropped. */
  async shutdown(timeoutMs: number): Promise<void> {
    this.stopping = true;
    await this.flush(timeoutMs);
    this.closed = true;
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    // An export still in flight is aborted above; wait (briefly) for it to say what it finished, so its items are
    // counted once — as sent, or as dropped below — never as both.
    if (this.current) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.current, new Promise((resolve) => (timer = setTimeout(resolve, IN_FLIGHT_WAIT_MS)))]);
      clearTimeout(timer);
    }
    this.dropAll("they could not be sent before shutdown");
  }

  /** Drops (and counts) everything queued. */
  private dropAll(reason: string): void {
    const left = this.items;
    if (left.length === 0) return;
    this.items = [];
    this.stats.dropped += left.length;
    this.stats.queued = 0;
    this.onDrop(left.length, reason, left);
    this.complete(left.length, true);
  }

  /** Items offered so far (queued, sent or finished otherwise). */
  get offeredCount(): number {
    return this.offered;
  }

  /** Whether anything is waiting or in flight (used by the exit hook to decide whether to flush). */
  get idle(): boolean {
    return this.items.length === 0 && !this.exporting;
  }

  private kick(delayMs: number, keepAlive = false): void {
    if (this.closed && this.items.length === 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.immediate = delayMs === 0;
    // Never export on the caller's stack: even delay 0 goes through the timer queue.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.immediate = false;
      void this.pump();
    }, delayMs);
    if (!keepAlive && this.waiters.length === 0) unref(this.timer);
  }

  /** What is left of the service's Retry-After, in ms (0 when none). */
  private retryAfterLeft(): number {
    return this.notBefore === 0 ? 0 : Math.max(0, this.notBefore - Date.now());
  }

  private async pump(): Promise<void> {
    if (this.exporting || this.items.length === 0) return;
    this.exporting = true;
    const batch = this.items.slice(0, this.options.maxBatchSize);
    let outcome: ExportOutcome;
    try {
      const timeout = exportDeadline(this.options.exportTimeoutMs);
      this.currentAbort = new AbortController();
      this.current = this.exporter(batch, anySignal([timeout, this.abort.signal, this.currentAbort.signal]));
      outcome = await this.current;
    } catch {
      outcome = { done: 0, retry: true }; // exporters should not throw; treat it as transient
    }
    this.current = undefined;
    this.currentAbort = undefined;
    this.exporting = false;
    const done = Math.min(Math.max(outcome.done, 0), batch.length);
    this.items.splice(0, done);
    this.stats.queued = this.items.length;
    this.complete(done);
    if (this.closed) {
      // Shut down while this batch was in flight: what it did not finish is not sent again.
      this.dropAll("they could not be sent before shutdown");
      return;
    }

    const retry = outcome.retry && done < batch.length;
    if (!retry && outcome.backoff) {
      // Refused for a reason every next request shares (the API key): the next batch waits, whenever it comes.
      this.retryDelay = nextRetryDelay(this.retryDelay, this.options.retryBaseDelayMs, this.options.retryMaxDelayMs);
      this.pausedUntil = Date.now() + this.retryDelay;
      if (this.items.length > 0) this.kick(this.waiters.length > 0 ? 0 : this.retryDelay);
      return;
    }
    if (retry) {
      this.stats.retries++;
      this.retryDelay = nextRetryDelay(this.retryDelay, this.options.retryBaseDelayMs, this.options.retryMaxDelayMs);
      this.notBefore = retryNotBefore(outcome.retryAfterMs);
      // A flush does not wait for what cannot happen before its deadline: an unreachable service, a Retry-After
      // past the deadline. It settles now; the items stay queued and the retries go on in the background.
      for (const waiter of [...this.waiters])
        if (outcome.unreachable || this.notBefore > waiter.deadline) waiter.resolve();
      const backoff = this.waiters.length > 0 ? Math.min(this.retryDelay, 250) : this.retryDelay;
      this.kick(Math.max(backoff, this.retryAfterLeft()));
      return;
    }
    this.retryDelay = 0;
    this.notBefore = 0;
    this.pausedUntil = 0;
    const waited = this.waiters.length > 0 || this.finished < this.urgentTarget;
    if (this.items.length >= this.options.maxBatchSize || (this.items.length > 0 && waited)) {
      this.kick(0);
    } else if (this.items.length > 0) {
      this.kick(this.options.scheduleDelayMs);
    }
  }

  /** Marks `count` items finished (`dropped`: unsent) and releases the flushes and followers waiting for them. */
  private complete(count: number, dropped = false): void {
    const before = this.finished;
    this.finished += count;
    for (const waiter of [...this.waiters]) if (this.finished >= waiter.target) waiter.resolve();
    if (this.followers.length > 0) {
      const ready = this.followers.filter((f) => this.finished >= f.target);
      if (ready.length === 0) return;
      this.followers = this.followers.filter((f) => this.finished < f.target);
      for (const follower of ready) follower.run(dropped && follower.target > before);
    }
  }

  /** Counts items the exporter dropped as invalid (they are also part of `done`). */
  countRejected(count: number): void {
    this.stats.rejected += count;
  }

  /** Counts items the service accepted. */
  countSent(count: number): void {
    this.stats.sent += count;
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(ExportQueue, "ExportQueue");
