/**
 * `tracewire/otel`: OpenTelemetry building blocks. Today: the GenAI semantic-convention attribute names.
 * `TracewireSpanProcessor` and the OTLP exporter factory arrive with the tracing core.
 */
export * from "./semconv.js";
