/**
 * OTLP/HTTP trace export to the tracing service (`POST {base_url}/otel/v1/traces`) over tracewire's own undici
 * transport: protobuf (default) or JSON, gzip on by default, `Authorization: Bearer` and `project_id` headers,
 * retries only for 429/502/503/504 and connection failures with `Retry-After` honoured, and `partial_success`
 * surfaced (counted and logged) but never retried — the OTLP spec's rules (standards.md §1.3).
 */
import type { ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { kindOf, MAX_TIMER_MS, readHeaders, redactUrlText } from "../config.js";
import { ApiError, ConfigError, ValidationError } from "../errors.js";
import { DEFAULT_RETRY } from "../http/retry.js";
import { HttpTransport } from "../http/transport.js";
import { describeAs } from "../own-objects.js";
import { DEFAULT_REDACTOR, type KeyRedactor } from "../secrets.js";
import { releaseSlices } from "../wire/arena.js";
import { type EncodedSpan, JsonBatchEncoder, ProtoBatchEncoder, type SpanBatchEncoder } from "../wire/otlp-batch.js";
import { decodeExportResponse, type ExportPartialSuccess } from "../wire/otlp-encode.js";
import { type ExportOutcome, retryOutcome } from "./export-outcome.js";
import { DEFAULT_ATTRIBUTE_VALUE_LENGTH_LIMIT, type OtlpExporterConfig } from "./options.js";
import { redactedSpanButAttributes } from "./span-redact.js";

/**
 * `ExportResultCode.SUCCESS` and `FAILED` of `@opentelemetry/core` (a numeric enum of the OTel specification), spelt
 * out: the exporter itself needs nothing of `core` at run time.
 */
const EXPORT_SUCCESS = 0 as ExportResult["code"];
const EXPORT_FAILED = 1 as ExportResult["code"];

export type { OtlpExporterConfig };

/** What happened to a batch, for the processor's counters. */
export interface OtlpExportEvents {
  sent(count: number): void;
  partialSuccess(result: ExportPartialSuccess): void;
  rejected(count: number, error: Error): void;
  /** The service refused our credentials (401/403) for a request of `count` spans (also counted as rejected). */
  unauthorized(count: number, error: ApiError): void;
  failed(error: unknown): void;
}

const OTLP_RETRY_STATUSES = [429, 502, 503, 504];

/** The setting behind every deadline of an OTLP request, for timeout messages. */
const OTLP_TIMEOUT_SETTING =
  "otlpTimeoutMillis (env OTEL_EXPORTER_OTLP_TRACES_TIMEOUT): raise it in the tracing options";

/**
 * Sends spans as OTLP. Used by {@link TracewireSpanProcessor}'s OTLP route, and usable on its own as an OTel
 * `SpanExporter` (for example inside your own `BatchSpanProcessor`).
 */
export class OtlpTraceExporter implements SpanExporter {
  private readonly transport: HttpTransport;
  private readonly encoder: SpanBatchEncoder;
  private readonly pending = new Set<Promise<unknown>>();
  /**
   * Encoded span bytes per request: halved by a 413 (the service's body limit), doubled again by each request that
   * succeeds, up to just under the smallest size refused so far — so one oversized span costs one refused request,
   * not the batch size for the life of the process.
   */
  private requestBudget = Number.POSITIVE_INFINITY;
  /** Smallest encoded span bytes a 413 refused (several spans); requests stay below it. */
  private refusedAt = Number.POSITIVE_INFINITY;
  private requestsInFlight = 0;
  /** Which keys hold credentials, for spans given to {@link send} (the processor encodes its own with its redactor). */
  private readonly redactor: KeyRedactor;
  private readonly events: Partial<OtlpExportEvents>;
  /** Requests refused so far, and the last refusal or failure: what {@link export} reports as its result. */
  private rejections = 0;
  private lastError: Error | undefined;

  /**
   * Usually built by {@link createOtlpExporter} or the processor, which resolve `config` from options and the
   * environment; a config built by hand is checked here (`ConfigError` naming the field).
   */
  constructor(
    private readonly config: OtlpExporterConfig,
    events?: Partial<OtlpExportEvents>,
    /**
     * @internal `queued`: a retrying export queue (the processor's) drives this exporter, so a refused connection is
     * reported at once instead of retried here. Standalone (inside an OTel `BatchSpanProcessor`, which does not
     * retry) the exporter retries it itself. `redactor`: the credential keys of spans given to `send()`/`export()`
     * (default `DEFAULT_REDACT_KEYS`); {@link createOtlpExporter} passes the one its `redactKeys` resolve to.
     */
    internal: { queued?: boolean; redactor?: KeyRedactor } = {},
  ) {
    checkConfig(config);
    this.redactor = internal.redactor ?? DEFAULT_REDACTOR;
    // What went wrong last, for the result export() reports (a BatchSpanProcessor only has that to go by).
    this.events = {
      ...events,
      rejected: (count, error) => {
        this.rejections++;
        this.lastError = error;
        events?.rejected?.(count, error);
      },
      failed: (error) => {
        this.lastError = error instanceof Error ? error : new Error(String(error));
        events?.failed?.(error);
      },
    };
    const limit = config.attributeValueLengthLimit ?? DEFAULT_ATTRIBUTE_VALUE_LENGTH_LIMIT;
    this.encoder = config.protocol === "http/json" ? new JsonBatchEncoder(limit) : new ProtoBatchEncoder(limit);
    this.transport = new HttpTransport({
      baseUrl: config.url,
      ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
      headers: { ...config.headers, project_id: config.project },
      retry: {
        ...DEFAULT_RETRY,
        maxAttempts: 5,
        maxElapsedMs: config.timeoutMs,
        retryableStatuses: OTLP_RETRY_STATUSES,
      },
      timeoutMs: config.timeoutMs,
      connectTimeoutMs: Math.min(10_000, config.timeoutMs),
      bodyTimeoutMs: config.timeoutMs,
      gzip: config.compression === "gzip",
      // Each deadline here is the OTLP timeout (the connect one at most 10 s): a timeout says what sets it.
      timeoutSettings: {
        timeoutMs: OTLP_TIMEOUT_SETTING,
        bodyTimeoutMs: OTLP_TIMEOUT_SETTING,
        connectTimeoutMs: `${OTLP_TIMEOUT_SETTING}; past 10 s, check that the service is reachable`,
      },
      // Batches are sent from a timer, never on a caller's stack. gzip level 1 takes ~0.2 ms for a typical 250 KB
      // batch of spans, up to ~4 ms for 256 KiB that will not compress; larger bodies go to the thread pool.
      gzipSyncMaxBytes: 256 * 1024,
      maxConnections: 4,
      // The export queue retries an unreachable service on its own schedule (and tells a waiting flush at once).
      retryUnreachable: !internal.queued,
    });
  }

  /**
   * Encodes and sends one batch of ended spans, checked for credentials on the way out as the processor's spans are
   * (otel/span-redact.ts). Never throws: the outcome says whether to retry. A 413 halves the
   * bytes per request and sends the same spans again in smaller requests — resending within the size the service
   * accepts, not repeating a refused request; a single span that is still too large is refused alone. Requests that
   * succeed raise the size again.
   */
  async send(spans: ReadableSpan[], signal?: AbortSignal): Promise<ExportOutcome> {
    if (!Array.isArray(spans)) return { done: 0, retry: false };
    let encoded: EncodedSpan[];
    try {
      const redactor = this.redactor;
      encoded = spans.map((span) => this.encoder.encode(redactedSpanButAttributes(span, redactor), redactor));
    } catch (err) {
      this.events?.rejected?.(spans.length, err instanceof Error ? err : new Error(String(err)));
      return { done: spans.length, retry: false };
    }
    return this.sendEncoded(encoded, signal);
  }

  /**
   * @internal For the processor, which encodes each span when it ends, its attributes checked for credentials with
   * `redactor` (otel/span-redact.ts). May throw on a malformed span.
   */
  encode(span: ReadableSpan, redactor?: KeyRedactor): EncodedSpan {
    return this.encoder.encode(span, redactor);
  }

  /** @internal {@link send} for spans already encoded with {@link encode}. */
  async sendEncoded(spans: EncodedSpan[], signal?: AbortSignal): Promise<ExportOutcome> {
    if (!Array.isArray(spans) || spans.length === 0) return { done: 0, retry: false };
    let done = 0;
    while (done < spans.length) {
      // As many spans as fit the budget, at least one.
      let end = done;
      let bytes = 0;
      while (end < spans.length) {
        const size = spans[end]!.end - spans[end]!.start;
        if (end > done && bytes + size > this.requestBudget) break;
        bytes += size;
        end++;
      }
      const chunk = done === 0 && end === spans.length ? spans : spans.slice(done, end);
      const result = await this.sendRequest(chunk, signal);
      if (result === "too-large") {
        // Smaller requests; the same spans go again, split (the halved budget always splits a chunk of several).
        this.refusedAt = Math.min(this.refusedAt, bytes);
        this.requestBudget = Math.floor(bytes / 2);
        continue;
      }
      if (typeof result === "object") return { ...result, done };
      if (result === "done" && this.requestBudget < this.refusedAt - 1) {
        this.requestBudget = Math.min(this.requestBudget * 2, this.refusedAt - 1);
      }
      releaseSlices(chunk);
      done += chunk.length;
      // 401/403: every request with this key would be refused alike; stop, and let the queue back off.
      if (result === "unauthorized") return { done, retry: false, backoff: true };
    }
    return { done, retry: false };
  }

  /** One request: `"done"` (sent, or refused as final and counted), `"too-large"` (413 for several spans), or a retry. */
  private async sendRequest(
    spans: EncodedSpan[],
    signal: AbortSignal | undefined,
  ): Promise<"done" | "unauthorized" | "too-large" | Omit<ExportOutcome, "done">> {
    const json = this.config.protocol === "http/json";
    // The encoder's own request buffer is reused when no other request is using it (the processor sends one batch
    // at a time; `export()` may be called concurrently).
    const reuse = this.requestsInFlight === 0;
    this.requestsInFlight++;
    try {
      const body = this.encoder.request(spans, reuse);
      const res = await this.transport.buffered({
        method: "POST",
        path: "",
        body,
        contentType: json ? "application/json" : "application/x-protobuf",
        ...(signal ? { signal } : {}),
      });
      const partial = decodeExportResponse(res.body, res.headers["content-type"]);
      // A service's count is clamped to this request, so the counters stay exact whatever it says.
      if (partial) partial.rejectedSpans = Math.min(Math.max(Math.trunc(partial.rejectedSpans) || 0, 0), spans.length);
      if (partial) this.events?.partialSuccess?.(partial);
      this.events?.sent?.(spans.length - (partial?.rejectedSpans ?? 0));
      return "done";
    } catch (err) {
      const status = err instanceof ApiError ? err.status : undefined;
      if (status === 413 && spans.length > 1) return "too-large";
      if (status === 401 || status === 403) {
        this.events?.rejected?.(spans.length, err as ApiError);
        this.events?.unauthorized?.(spans.length, err as ApiError);
        return "unauthorized";
      }
      if (status !== undefined && !OTLP_RETRY_STATUSES.includes(status)) {
        // 400, 401, 413 for one span, 500…: the OTLP spec forbids resending the same data.
        this.events?.rejected?.(spans.length, err as ApiError);
        return "done";
      }
      if (!(err instanceof ApiError)) {
        // Not the network or the service (a bug on our side): resending would fail the same way forever.
        this.events?.rejected?.(spans.length, err instanceof Error ? err : new Error(String(err)));
        return "done";
      }
      this.events?.failed?.(err);
      const { done: _, ...retry } = retryOutcome(0, err);
      return retry;
    } finally {
      this.requestsInFlight--;
    }
  }

  /** `SpanExporter.export`: sends the spans once (the transport retries transient failures). */
  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (typeof resultCallback !== "function") {
      throw new ValidationError(
        `OtlpTraceExporter.export expects a result callback, got ${kindOf(resultCallback)}.`,
        "resultCallback",
      );
    }
    if (!Array.isArray(spans)) {
      const error = new ValidationError(
        `OtlpTraceExporter.export expects an array of spans, got ${kindOf(spans)}.`,
        "spans",
      );
      resultCallback({ code: EXPORT_FAILED, error });
      return;
    }
    // FAILED when spans were not stored: a refused request (a wrong key, a malformed span) as well as a failure that
    // outlasted the retries. A partial success is a SUCCESS, as the OTLP specification has it (never sent again).
    const rejectionsBefore = this.rejections;
    const promise = this.send(spans).then((outcome) => {
      const failed = outcome.retry || this.rejections > rejectionsBefore;
      const error = this.lastError ?? new Error("OTLP export failed");
      resultCallback(failed ? { code: EXPORT_FAILED, error } : { code: EXPORT_SUCCESS });
    });
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise));
  }

  /** Waits for exports in flight. */
  async forceFlush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  /** Waits for exports in flight, then closes the connection pool. */
  async shutdown(): Promise<void> {
    await this.forceFlush();
    await this.transport.close();
  }
}

/** Checks a hand-built {@link OtlpExporterConfig}. */
function checkConfig(config: OtlpExporterConfig): void {
  const setting = (field: string) => `OtlpTraceExporter config.${field}`;
  if (config === null || typeof config !== "object") {
    throw new ConfigError(
      "OtlpTraceExporter config",
      kindOf(config),
      "an OtlpExporterConfig (or use createOtlpExporter())",
    );
  }
  let url: URL | undefined;
  try {
    url = typeof config.url === "string" ? new URL(config.url) : undefined;
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new ConfigError(
      setting("url"),
      typeof config.url === "string" ? redactUrlText(config.url) : kindOf(config.url),
      "the absolute http(s) URL of the OTLP traces endpoint",
    );
  }
  if (typeof config.project !== "string" || !/^[^/\s]+\/[^/\s]+$/.test(config.project)) {
    throw new ConfigError(setting("project"), kindOf(config.project), 'a project in the form "entity/project"');
  }
  if (config.apiKey !== undefined && (typeof config.apiKey !== "string" || config.apiKey.trim() === "")) {
    throw new ConfigError(setting("apiKey"), kindOf(config.apiKey), "a non-empty API key, or undefined");
  }
  if (config.protocol !== "http/protobuf" && config.protocol !== "http/json") {
    throw new ConfigError(setting("protocol"), JSON.stringify(config.protocol), "http/protobuf or http/json");
  }
  if (config.compression !== "gzip" && config.compression !== "none") {
    throw new ConfigError(setting("compression"), JSON.stringify(config.compression), "gzip or none");
  }
  if (!Number.isInteger(config.timeoutMs) || config.timeoutMs < 1 || config.timeoutMs > MAX_TIMER_MS) {
    throw new ConfigError(
      setting("timeoutMs"),
      JSON.stringify(config.timeoutMs),
      `an integer between 1 and ${MAX_TIMER_MS}`,
    );
  }
  readHeaders(setting("headers"), config.headers);
  const limit = config.attributeValueLengthLimit;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
    throw new ConfigError(setting("attributeValueLengthLimit"), JSON.stringify(limit), "a positive integer");
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(OtlpTraceExporter, "OtlpTraceExporter");
