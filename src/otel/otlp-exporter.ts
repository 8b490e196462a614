/**
 * OTLP/HTTP trace export to the tracing service (`POST {base_url}/otel/v1/traces`) over tracewire's own undici
 * transport: protobuf (default) or JSON, gzip on by default, `Authorization: Bearer` and `project_id` headers,
 * retries only for 429/502/503/504 and connection failures with `Retry-After` honoured, and `partial_success`
 * surfaced (counted and logged) but never retried — the OTLP spec's rules (standards.md §1.3).
 */
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { ApiError } from "../errors.js";
import { DEFAULT_RETRY } from "../http/retry.js";
import { HttpTransport } from "../http/transport.js";
import type { ExportOutcome } from "./export-queue.js";
import { resolveProcessorOptions, type TracewireProcessorOptions } from "./options.js";
import {
  decodeExportResponse,
  type ExportPartialSuccess,
  encodeTraceRequestJson,
  encodeTraceRequestProto,
} from "./otlp-encode.js";

/** Resolved settings of the OTLP exporter (see `resolveProcessorOptions` for where each comes from). */
export interface OtlpExporterConfig {
  /** Full traces URL, used as is. */
  url: string;
  apiKey: string | undefined;
  /** `entity/project`, sent as the `project_id` header. */
  project: string;
  protocol: "http/protobuf" | "http/json";
  compression: "gzip" | "none";
  timeoutMs: number;
  /** Extra headers (from `OTEL_EXPORTER_OTLP_TRACES_HEADERS` and options). */
  headers: Record<string, string>;
}

/** What happened to a batch, for the processor's counters. */
export interface OtlpExportEvents {
  sent(count: number): void;
  partialSuccess(result: ExportPartialSuccess): void;
  rejected(count: number, error: ApiError): void;
  failed(error: unknown): void;
}

const OTLP_RETRY_STATUSES = [429, 502, 503, 504];

/**
 * Sends spans as OTLP. Used by {@link TracewireSpanProcessor}'s OTLP route, and usable on its own as an OTel
 * `SpanExporter` (for example inside your own `BatchSpanProcessor`).
 */
export class OtlpTraceExporter implements SpanExporter {
  private readonly transport: HttpTransport;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly config: OtlpExporterConfig,
    private readonly events?: Partial<OtlpExportEvents>,
  ) {
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
      maxConnections: 4,
    });
  }

  /** Encodes and sends one batch. Never throws: the outcome says whether to retry. */
  async send(spans: ReadableSpan[], signal?: AbortSignal): Promise<ExportOutcome> {
    if (spans.length === 0) return { done: 0, retry: false };
    const json = this.config.protocol === "http/json";
    try {
      const body = json ? encodeTraceRequestJson(spans) : encodeTraceRequestProto(spans);
      const res = await this.transport.buffered({
        method: "POST",
        path: "",
        body,
        contentType: json ? "application/json" : "application/x-protobuf",
        ...(signal ? { signal } : {}),
      });
      const partial = decodeExportResponse(res.body, res.headers["content-type"]);
      if (partial) this.events?.partialSuccess?.(partial);
      this.events?.sent?.(spans.length - (partial?.rejectedSpans ?? 0));
      return { done: spans.length, retry: false };
    } catch (err) {
      const status = err instanceof ApiError ? err.status : undefined;
      if (status !== undefined && !OTLP_RETRY_STATUSES.includes(status)) {
        // 400, 401, 413, 500…: the OTLP spec forbids resending the same data.
        this.events?.rejected?.(spans.length, err as ApiError);
        return { done: spans.length, retry: false };
      }
      this.events?.failed?.(err);
      return { done: 0, retry: true };
    }
  }

  /** `SpanExporter.export`: sends the spans once (the transport retries transient failures). */
  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    const promise = this.send(spans).then((outcome) => {
      const ok = !outcome.retry;
      resultCallback(
        ok
          ? { code: ExportResultCode.SUCCESS }
          : { code: ExportResultCode.FAILED, error: new Error("OTLP export failed") },
      );
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

/** Options of {@link createOtlpExporter}: connection settings and the `otlp*` options of the processor. */
export type OtlpExporterOptions = Pick<
  TracewireProcessorOptions,
  | "apiKey"
  | "baseUrl"
  | "project"
  | "otlpProtocol"
  | "otlpCompression"
  | "otlpEndpoint"
  | "otlpHeaders"
  | "otlpTimeoutMillis"
  | "allowInsecureHttp"
  | "env"
>;

/**
 * An OTel `SpanExporter` that sends to the tracing service's OTLP endpoint, for apps that build their own
 * pipeline (`new BatchSpanProcessor(createOtlpExporter())`). Settings resolve like the processor's.
 */
export function createOtlpExporter(options: OtlpExporterOptions = {}): OtlpTraceExporter {
  return new OtlpTraceExporter(resolveProcessorOptions({ ...options, exitHooks: false }).otlp);
}
