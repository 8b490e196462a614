/**
 * `TracewireSpanProcessor`: tracewire's single exit (DESIGN §3). Every span — tracewire's own and every other
 * instrumentation's — is routed to one of two bounded queues:
 *
 * - `calls`: a start item at `onStart` (the service shows long runs live) and an end item at `onEnd`, sent
 *   natively through `/call/upsert_batch` with real JSON inputs and outputs (another instrumentation's span sent this
 *   way has both written at its end: its attributes are only complete then);
 * - `otlp`: the ended span, sent as standard OTLP to `/otel/v1/traces`.
 *
 * The caller's path pays for encoding the one item (a call record as JSON text, an ended span as OTLP bytes in a
 * shared buffer; see otlp-batch.ts for why then) and an array push; requests, compression and I/O happen later,
 * off the caller's stack. Nothing here throws into user code: internal failures are counted and logged once.
 */
import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { envOf, MAX_TIMER_MS } from "../config.js";
import type { HttpTransport } from "../http/transport.js";
import { describeAs } from "../own-objects.js";
import { TRACER_NAME } from "../version.js";
import { releaseSlices } from "../wire/arena.js";
import { CallRecordEncoder, type CallRecordItem } from "../wire/call-encode.js";
import type { EncodedSpan } from "../wire/otlp-batch.js";
import { portableStartAttributes, setExportedSpanName, usageFromAttributes } from "../wire/span-to-call.js";
import { adaptedEnd, adaptedStart } from "./call-adapters.js";
import type { CallRequests } from "./call-requests.js";
import type { CallItem } from "./calls-route.js";
import { createDelivery } from "./delivery.js";
import { Diagnostics, describeError } from "./diagnostics.js";
import { installExitHooks, removeExitHooks } from "./exit-hooks.js";
import type { ExportQueue, TracewireStats } from "./export-queue.js";
import { rememberEnvSecrets, rememberSecret } from "./known-secrets.js";
import { OpenCalls } from "./open-calls.js";
import {
  isSampled,
  type ResolvedProcessorOptions,
  resolveProcessorOptions,
  type SpanRoute,
  type TracewireProcessorOptions,
} from "./options.js";
import type { OtlpTraceExporter } from "./otlp-exporter.js";
import type { PayloadSettings } from "./payload-options.js";
import { RequestFlusher } from "./request-flush.js";
import { callEndData, callStartData, type SpanRouteMark, setSpanRoute, spanRoute } from "./span-data.js";
import { redactedSpan, redactedSpanButAttributes } from "./span-redact.js";
import { keeps, routeOf } from "./span-routing.js";
import { type ActiveProcessor, type AfterExport, callsSettled, globalState, type ServiceOptions } from "./state.js";
import { UsageRollup } from "./usage-rollup.js";

export class TracewireSpanProcessor implements SpanProcessor, ActiveProcessor {
  /** `entity/project` the data goes to. */
  readonly project: string;
  /** Rate-limited logger for internal problems. */
  readonly diagnostics: Diagnostics;
  /** Payload settings (content capture, redaction, limits) that op() and the GenAI instrumentation read. */
  readonly payload: PayloadSettings;
  private readonly options: ResolvedProcessorOptions;
  private readonly calls: ExportQueue<CallItem>;
  private readonly callRecords: CallRecordEncoder;
  private readonly otlp: ExportQueue<EncodedSpan>;
  private readonly transport: HttpTransport;
  private readonly otlpExporter: OtlpTraceExporter;
  /** Flushes each request's spans when its root span ends (serverless, Next.js). */
  private readonly requests = new RequestFlusher(
    () => this.forceFlush(),
    (where, err) => this.internalError(where, err),
  );
  private readonly callRequests: CallRequests;
  /** Usage rolled up the call tree (usage-rollup.ts); off when no span can take the calls route. */
  private readonly rollup: UsageRollup;
  // Made once, not per span: every foreign span's start passes them to the call adapters.
  private readonly adaptFailed = (err: unknown) => this.internalError("adapt", err);
  private readonly adaptEndFailed = (err: unknown) => this.internalError("adapt-end", err);
  private readonly routeFailed = (err: unknown) => this.internalError("route", err);
  private readonly filterFailed = (err: unknown) => this.internalError("filter", err);
  /** Calls still running (the service has their start, or they are ours): `shutdown()` ends them as cancelled. */
  private readonly open: OpenCalls;
  private internalErrors = 0;
  private shutdownPromise: Promise<void> | undefined;

  /**
   * Creates the processor; settings come from `options`, then the environment (`TRACEWIRE_*`, `OTEL_BSP_*`,
   * `OTEL_EXPORTER_OTLP_TRACES_*`). Throws `ConfigError` for a bad or missing setting.
   */
  constructor(options: TracewireProcessorOptions = {}) {
    this.options = resolveProcessorOptions(options);
    this.project = this.options.project;
    this.payload = this.options.payload;
    // The API key (and the credential-named variables): never logged, masked wherever an error text quotes them.
    this.diagnostics = new Diagnostics(this.options.logger, undefined, this.options.apiKey);
    rememberSecret(this.options.apiKey);
    rememberEnvSecrets(envOf(options.env), this.payload.redactor); // OPENAI_API_KEY…: masked wherever quoted
    this.callRecords = new CallRecordEncoder(this.project);
    this.open = new OpenCalls(this.diagnostics);
    this.rollup = new UsageRollup(this.options.exportMode !== "otlp" || this.options.route !== undefined);
    ({
      transport: this.transport,
      calls: this.calls,
      otlp: this.otlp,
      otlpExporter: this.otlpExporter,
      callRequests: this.callRequests,
    } = createDelivery(this.options, this.diagnostics, (count, message) => this.rejectCalls(count, message)));

    const state = globalState();
    state.live.add(this);
    state.active = this;
    if (this.options.exitHooks) installExitHooks();
  }

  /** Routes a starting span; for the calls route, queues its start record. */
  onStart(span: Span, parentContext: Context): void {
    try {
      this.requests.onStart(span);
      this.rollup.started(span, parentContext);
      if (!isSampled(span) || !this.keeps(span)) {
        setSpanRoute(span, "none");
        return;
      }
      let data = callStartData(parentContext);
      let adapted = false;
      if (!data) {
        data = adaptedStart(span, this.adaptFailed);
        adapted = data !== undefined;
      }
      const route = data?.route ?? this.routeOf(span, adapted);
      if (route === "calls" && !data && span.instrumentationScope.name !== TRACER_NAME) {
        // Another instrumentation's span sets attributes until it ends (a status code, an answer's facts), and an end
        // record carries none: its start is written at its end, with all of them (it is not shown while it runs).
        // Tracked as running all the same: at shutdown it is written then, ended as cancelled, as a call of ours is.
        setSpanRoute(span, "calls-at-end");
        this.open.add(span);
      } else if (route === "calls") {
        // A start the full queue would refuse is counted as dropped without being encoded first.
        const mark = this.calls.admit()
          ? this.offerCall(this.callRecords.start(data ? span : this.redacted(span), data))
          : "calls-dropped";
        setSpanRoute(span, mark);
        if (mark === "calls") this.open.add(span); // the service has its start: its end must follow
      } else {
        // Portable mode: what the calls route sends as fields travels as attributes the service maps to them.
        if (data) {
          span.setAttributes(portableStartAttributes(data, span));
          // The service names the call after the span: the op name, as on the calls route.
          if (data.opName !== span.name) setExportedSpanName(span, data.opName);
        }
        setSpanRoute(span, route);
        // A call of ours (or an adapted one) the service gets only at its end: sent as cancelled at shutdown if running.
        if (data && route === "otlp") this.open.add(span);
      }
    } catch (err) {
      this.internalError("onStart", err);
    }
  }

  /** Queues the ended span (OTLP) or its end record (calls). */
  onEnd(span: ReadableSpan): void {
    try {
      this.requests.onEnd(span);
      let route = spanRoute(span);
      if (route === "closed") return; // shutdown sent its end, as cancelled, while it ran
      this.open.delete(span);
      if (route === undefined) {
        // Started before this processor existed (or onStart failed): send what we can.
        if (!isSampled(span) || !this.keeps(span)) return;
        route = this.routeOf(span);
        if (route === "calls") route = this.offerCall(this.callRecords.start(this.redacted(span), undefined));
      }
      this.sendEnd(span, span, route);
    } catch (err) {
      this.internalError("onEnd", err);
    }
  }

  /**
   * Sends the end of `span` by `route`; `ended` is the span as it ended: itself, or a view of it ended at shutdown
   * while it still ran (open-calls.ts). What the processor keeps on the span (usage rollup, parked requests) is read
   * from `span`.
   */
  private sendEnd(span: ReadableSpan, ended: ReadableSpan, route: SpanRouteMark): void {
    // Another instrumentation's span on the calls route: its start first, with what it holds now (see onStart).
    if (route === "calls-at-end") route = this.startAtEnd(span);
    if (route === "calls") {
      const data = callEndData(span) ?? adaptedEnd(ended, this.adaptEndFailed);
      const redacted = this.redacted(ended);
      const usage = this.rollup.callEnded(span, data?.usage ?? usageFromAttributes(redacted.attributes));
      // Forced: a call whose start was accepted must not be left open by our own queue limit.
      this.offerCall(this.callRecords.end(redacted, data, usage), true);
      return;
    }
    // The start of this call was not queued: its end is one more item lost the same way, counted, never built
    // (what the call used still counts in its parent's usage).
    if (route === "calls-dropped" || route === "calls-rejected") {
      this.rollup.callEnded(span, usageFromAttributes(span.attributes));
      if (route === "calls-dropped") this.calls.drop("its call's start was dropped");
      else this.rejectCalls(1, "The end of a call whose start could not be encoded was dropped.");
      return;
    }
    // Any other span passes on what its descendants used.
    this.rollup.spanEnded(ended);
    if (route === "otlp") {
      // Requests about this call waited for it to end; they go once its export is done (never if it was dropped).
      this.callRequests.spanEnded(span, this.offerSpan(ended));
    }
  }

  /** Queues the start record of a `calls-at-end` span (with the attributes it has now); the route its end takes. */
  private startAtEnd(span: ReadableSpan): SpanRouteMark {
    return this.calls.admit()
      ? this.offerCall(this.callRecords.start(this.redacted(span), undefined))
      : "calls-dropped";
  }

  /** Encodes an ended span now, so the span itself is not kept until its batch is sent (see otlp-batch.ts). */
  private offerSpan(span: ReadableSpan): boolean {
    if (!this.otlp.admit()) return false;
    let encoded: EncodedSpan;
    try {
      // The span's attributes are checked for credentials by the encoder as it writes them.
      const redactor = this.payload.redactor;
      encoded = this.otlpExporter.encode(redactedSpanButAttributes(span, redactor), redactor);
    } catch (err) {
      this.otlp.drop(`it could not be encoded (${describeError(err)})`);
      this.internalError("encode", err);
      return false;
    }
    return this.otlp.offer(encoded);
  }

  /**
   * Sends a call-scoped request (feedback, rename) behind everything queued so far, i.e. after the call's start, and
   * without waiting for the batch timer: the promise settles once the service has answered. `path` is a
   * tracing-service path such as `/feedback/create`; `body` its JSON object. With `afterExport` (a call on the OTLP
   * route), it goes right after the span's export; while the span runs it waits on it (call-requests.ts).
   */
  enqueueRequest(path: string, body: object, replaySafe = false, afterExport?: AfterExport): Promise<unknown> {
    return this.callRequests.enqueue(path, body, replaySafe, afterExport);
  }

  /**
   * The flush on the way out (exit-hooks.ts): within `exitFlushMillis`, and an export still in flight at that deadline
   * is aborted (its items stay queued), so a service that never answers cannot hold the process open. With
   * `closeRunning` (SIGTERM, and the process ends after this flush) calls still running are ended as cancelled first.
   */
  async exitFlush(closeRunning = false): Promise<void> {
    const started = Date.now();
    await callsSettled(this.exitFlushMillis);
    if (closeRunning) this.endRunning();
    await this.callRequests.flush(Math.max(1, this.exitFlushMillis - (Date.now() - started)), true);
  }

  /**
   * Sends everything queued so far on both routes; resolves when done, after `timeoutMs` (default
   * `exportTimeoutMillis`, 30 s), or as soon as nothing can be sent before then (the service refuses connections,
   * or its `Retry-After` outlasts the deadline). What is left stays queued: the background retries send it when the
   * service is back, `shutdown()` counts it as dropped. Call-scoped requests still unsent reject (NotSentError).
   * Calls about to end (a stream reading on for its usage after the consumer stopped) are waited for first.
   */
  async forceFlush(timeoutMs?: number): Promise<void> {
    const deadline =
      typeof timeoutMs === "number" && timeoutMs > 0
        ? Math.min(timeoutMs, MAX_TIMER_MS)
        : this.options.exportTimeoutMillis;
    const started = Date.now();
    await callsSettled(deadline);
    await this.callRequests.flush(Math.max(1, deadline - (Date.now() - started)));
  }

  /**
   * Where this processor sends (base URL, key, project), so that tracewire's own service clients (evaluations publish
   * their objects with a `TracingClient`) reach the same service with the same settings. Not for logging.
   */
  serviceOptions(): ServiceOptions {
    const o = this.options;
    return {
      baseUrl: o.baseUrl,
      project: o.project,
      allowInsecureHttp: o.allowInsecureHttp,
      ...(o.apiKey === undefined ? {} : { apiKey: o.apiKey }),
    };
  }

  /** Items offered so far on both routes. */
  get offered(): number {
    return this.calls.offeredCount + this.otlp.offeredCount;
  }

  /**
   * Call items queued on the native route now, the queue's capacity, and how many were dropped so far: producers of
   * many calls at once (evaluations) pace themselves by it instead of overflowing the queue.
   */
  callsBacklog(): { queued: number; capacity: number; dropped: number } {
    const { queued, dropped } = this.calls.stats;
    return { queued, capacity: this.options.maxQueueSize, dropped };
  }

  /** Deadline of the exit flush, ms: `exitFlushMillis`, or the export deadline when that is shorter. */
  get exitFlushMillis(): number {
    return Math.min(this.options.exitFlushMillis, this.options.exportTimeoutMillis);
  }

  /**
   * Flushes both routes (waiting at most `exportTimeoutMillis`), then stops: what could not be sent and later spans
   * are dropped and counted. Idempotent.
   */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= (async () => {
      const state = globalState();
      state.live.delete(this);
      if (state.live.size === 0) removeExitHooks();
      this.calls.announceStop();
      this.otlp.announceStop();
      const deadline = this.options.exportTimeoutMillis;
      const started = Date.now();
      // A call about to end (see forceFlush) ends before the queues close, rather than be dropped as late.
      await callsSettled(deadline);
      // Calls still running end now, as cancelled: the service must not keep a call that started and never ended.
      // While this processor is still the active one, so that their ends record their output under its payload
      // settings (redaction included), like those of the calls that settled just above.
      this.endRunning(true);
      if (state.active === this) state.active = undefined;
      await this.callRequests.shutdown(Math.max(1, deadline - (Date.now() - started))); // both queues; every request's promise settles
      await Promise.allSettled([this.transport.close(), this.otlpExporter.shutdown()]);
    })();
    return this.shutdownPromise;
  }

  /**
   * Ends the calls still running as cancelled, reason `shutdown`, and queues their ends (open-calls.ts): at shutdown,
   * or when the process is about to end (exit-hooks.ts) so they never could. `stop` (shutdown): calls that start
   * afterwards are no longer tracked; otherwise they are, as the script may go on.
   * @internal
   */
  endRunning(stop = false): void {
    this.open.closeAll(
      "shutdown",
      (span, ended, route) => this.sendEnd(span, ended, route),
      (err) => this.internalError("close", err),
      stop,
    );
  }

  /** Counters of both routes: queued, sent, dropped, rejected, retries; and internal errors. */
  stats(): TracewireStats {
    return { calls: { ...this.calls.stats }, otlp: { ...this.otlp.stats }, internalErrors: this.internalErrors };
  }

  /** Whether nothing is queued or in flight. */
  get idle(): boolean {
    return this.calls.idle && this.otlp.idle;
  }

  /**
   * Queues an encoded call record; a record that could not be encoded is refused alone (counted, logged once).
   * Says what became of it, which is also what becomes of the call's end.
   */
  private offerCall(item: CallRecordItem | Error, force = false): "calls" | "calls-dropped" | "calls-rejected" {
    if (item instanceof Error) {
      this.rejectCalls(1, `A call record could not be encoded and was dropped: ${item.message}`);
      return "calls-rejected";
    }
    if (this.calls.offer(item, force)) return "calls";
    releaseSlices([item]); // refused (queue full or shut down): never sent, its arena may be reused
    return "calls-dropped";
  }

  private rejectCalls(count: number, message: string): void {
    this.calls.countRejected(count);
    this.diagnostics.warn("calls-rejected", message);
  }

  private routeOf(span: Span | ReadableSpan, adapted = false): SpanRoute {
    return routeOf(this.options, span, adapted, this.routeFailed);
  }

  private keeps(span: Span | ReadableSpan): boolean {
    return keeps(this.options, span, this.filterFailed);
  }

  /** The span as it may leave the process: credential-bearing attributes and texts masked (otel/span-redact.ts). */
  private redacted(span: ReadableSpan): ReadableSpan {
    return redactedSpan(span, this.payload.redactor);
  }

  private internalError(where: string, err: unknown): void {
    this.reportInternalError(
      `internal-${where}`,
      `Internal error in ${where} (tracing continues): ${describeError(err)}`,
    );
  }

  /** Counts and logs a failure of tracewire's own code elsewhere (see `ActiveProcessor.reportInternalError`). */
  reportInternalError(key: string, message: string): void {
    this.internalErrors++;
    this.diagnostics.error(key, message);
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(TracewireSpanProcessor, "TracewireSpanProcessor", (p) => ({ project: p.project }));
