/**
 * The span processor's delivery pipeline (processor.ts): one HTTP transport to the tracing service, the calls and
 * OTLP exporters, their two bounded export queues (export-queue.ts), and the call-scoped requests (feedback, renames)
 * queued behind their calls (call-requests.ts). Built once per processor, from its resolved options.
 */
import { DEFAULT_RETRY } from "../http/retry.js";
import { HttpTransport } from "../http/transport.js";
import type { EncodedSpan } from "../wire/otlp-batch.js";
import { CallRequests } from "./call-requests.js";
import { CallsExporter } from "./calls-exporter.js";
import type { CallItem } from "./calls-route.js";
import type { Diagnostics } from "./diagnostics.js";
import { callsExportEvents, otlpExportEvents } from "./export-events.js";
import { ExportQueue } from "./export-queue.js";
import type { ResolvedProcessorOptions } from "./options.js";
import { OtlpTraceExporter } from "./otlp-exporter.js";

/** What {@link createDelivery} builds. */
export interface Delivery {
  transport: HttpTransport;
  calls: ExportQueue<CallItem>;
  otlp: ExportQueue<EncodedSpan>;
  otlpExporter: OtlpTraceExporter;
  callRequests: CallRequests;
}

/**
 * Builds the pipeline for `options`; `diagnostics` hears of drops and failures, `rejectCalls` of call items the
 * service refused (counted, logged once by the processor).
 */
export function createDelivery(
  options: ResolvedProcessorOptions,
  diagnostics: Diagnostics,
  rejectCalls: (count: number, message: string) => void,
): Delivery {
  const queueOptions = {
    maxQueueSize: options.maxQueueSize,
    maxBatchSize: options.maxExportBatchSize,
    scheduleDelayMs: options.scheduledDelayMillis,
    exportTimeoutMs: options.exportTimeoutMillis,
    retryBaseDelayMs: 1000,
    retryMaxDelayMs: 30_000,
  };

  const transport = new HttpTransport({
    baseUrl: options.baseUrl,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    retry: { ...DEFAULT_RETRY, maxAttempts: 3, maxElapsedMs: options.exportTimeoutMillis },
    timeoutMs: options.exportTimeoutMillis,
    connectTimeoutMs: 10_000,
    bodyTimeoutMs: options.exportTimeoutMillis,
    gzip: false,
    maxConnections: 4,
    // The export queue retries an unreachable service on its own schedule (and tells a waiting flush at once).
    retryUnreachable: false,
  });
  const callsExporter = new CallsExporter(
    transport,
    options.maxBatchBytes,
    callsExportEvents(() => calls, diagnostics, options.project, rejectCalls),
    options.project,
  );
  const calls: ExportQueue<CallItem> = new ExportQueue<CallItem>(
    (batch, signal) => callsExporter.export(batch, signal),
    queueOptions,
    (count, reason, items) => {
      callRequests.dropped(items, reason); // their promises reject with NotSentError
      diagnostics.warn(`calls-dropped:${dropKind(reason)}`, `Dropped ${count} call item(s) because ${reason}.`);
    },
  );

  const otlpExporter = new OtlpTraceExporter(
    options.otlp,
    otlpExportEvents(() => otlp, diagnostics, options.project),
    { queued: true },
  );
  const otlp: ExportQueue<EncodedSpan> = new ExportQueue<EncodedSpan>(
    (batch, signal) => otlpExporter.sendEncoded(batch, signal),
    queueOptions,
    (count, reason) =>
      diagnostics.warn(`otlp-dropped:${dropKind(reason)}`, `Dropped ${count} span(s) because ${reason}.`),
  );

  const callRequests = new CallRequests(calls, otlp, options.maxQueueSize);
  return { transport, calls, otlp, otlpExporter, callRequests };
}

/**
 * The kind of a drop, for the once-a-minute limit of its warning: what `shutdown()` could not send is a line of its
 * own, not held back behind an earlier one (a full queue): the process is ending, and no later line would count it.
 */
function dropKind(reason: string): string {
  return reason.startsWith("they could not be sent before shutdown") ? "shutdown" : "other";
}
