/**
 * `createOtlpExporter()`: the OTLP exporter as a plain OTel `SpanExporter`, for apps that build their own pipeline
 * (`new BatchSpanProcessor(createOtlpExporter())`). Settings resolve as the processor's do; what happens to each export
 * is logged (rate-limited) and reported in its result, since no processor of ours counts it.
 */
import { kindOf } from "../config.js";
import { ConfigError } from "../errors.js";
import { Diagnostics, describeError } from "./diagnostics.js";
import { otlpExportEvents } from "./export-events.js";
import { checkKnownOptions } from "./known-options.js";
import { readLogger, resolveProcessorOptions, type TracewireProcessorOptions } from "./options.js";
import { OtlpTraceExporter } from "./otlp-exporter.js";

/** Every option {@link createOtlpExporter} reads: connection settings and the `otlp*` options of the processor. */
const EXPORTER_OPTIONS = [
  "apiKey",
  "baseUrl",
  "project",
  "otlpProtocol",
  "otlpCompression",
  "otlpEndpoint",
  "otlpHeaders",
  "otlpTimeoutMillis",
  "otlpAttributeValueLengthLimit",
  "allowInsecureHttp",
  "redactKeys",
  "logger",
  "env",
] as const satisfies readonly (keyof TracewireProcessorOptions)[];

/** Options of {@link createOtlpExporter}: connection settings and the `otlp*` options of the processor. */
export type OtlpExporterOptions = Pick<TracewireProcessorOptions, (typeof EXPORTER_OPTIONS)[number]>;

/**
 * An OTel `SpanExporter` that sends to the tracing service's OTLP endpoint, for apps that build their own
 * pipeline (`new BatchSpanProcessor(createOtlpExporter())`). Settings resolve like the processor's; span attributes,
 * exception texts and status messages leave the process checked for credentials as on the processor's OTLP route
 * (`redactKeys`, env `TRACEWIRE_REDACT_KEYS`).
 */
export function createOtlpExporter(options: OtlpExporterOptions = {}): OtlpTraceExporter {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ConfigError("options", kindOf(options), "an options object (or nothing)");
  }
  checkKnownOptions(options);
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || (EXPORTER_OPTIONS as readonly string[]).includes(key)) continue;
    // Read by init() or the processor, not here: a queue or timeout setting belongs to your own BatchSpanProcessor.
    throw new ConfigError(
      key,
      kindOf(value),
      `an option createOtlpExporter() reads (${EXPORTER_OPTIONS.join(", ")}); ${key} is init()'s or the processor's, not the exporter's`,
    );
  }
  const resolved = resolveProcessorOptions({ ...options, exitHooks: false });
  const diagnostics = new Diagnostics(readLogger(options.logger) ?? console, undefined, resolved.apiKey);
  // No queue of ours counts these spans: only the log lines. A failure is not retried here (a BatchSpanProcessor
  // does not retry either), so its line promises no retry.
  const events = {
    ...otlpExportEvents(() => UNCOUNTED, diagnostics, resolved.project),
    failed: (error: unknown) => diagnostics.warn("otlp-failed", `OTLP export failed: ${describeError(error)}`),
  };
  return new OtlpTraceExporter(resolved.otlp, events, { redactor: resolved.payload.redactor });
}

/** The counters of a standalone exporter: none. */
const UNCOUNTED = { countSent: () => {}, countRejected: () => {}, isStopping: false };
