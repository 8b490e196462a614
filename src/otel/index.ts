/**
 * `tracewire/otel`: OpenTelemetry building blocks. `TracewireSpanProcessor` for apps that configure their own
 * SDK (NodeSDK, `@vercel/otel`), the OTLP exporter for use in your own pipeline, and the GenAI attribute names.
 */

export * from "../semconv.js";
export type { Logger } from "./diagnostics.js";
export type { QueueStats, TracewireStats } from "./export-queue.js";
export type { SpanRoute, TracewireProcessorOptions } from "./options.js";
export { type OtlpExporterConfig, OtlpTraceExporter } from "./otlp-exporter.js";
export { createOtlpExporter, type OtlpExporterOptions } from "./otlp-exporter-factory.js";
export type { PayloadOptions, RedactHook } from "./payload-options.js";
export { TracewireSpanProcessor } from "./processor.js";
