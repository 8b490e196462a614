/**
 * `tracewire/otel`: OpenTelemetry building blocks. `TracewireSpanProcessor` for apps that configure their own
 * SDK (NodeSDK, `@vercel/otel`), the OTLP exporter for use in your own pipeline, and the GenAI attribute names.
 *
 * @module tracewire/otel
 */
// This entry sits above the layers (like index.ts) because its processor also installs what `init()` installs on
// top of the export pipeline: the mapping of the Vercel AI SDK 6's `ai.*` spans to calls (genai/ai-sdk-spans.ts),
// so an app that registers the processor in its own provider gets the same calls as one that calls `init()`.
import { installAiSdkSpans } from "./genai/ai-sdk-spans.js";
import type { TracewireProcessorOptions } from "./otel/options.js";
import { TracewireSpanProcessor as ExportProcessor } from "./otel/processor.js";

export * from "./otel/index.js";

/**
 * tracewire's span processor, for a tracer provider you configure yourself (NodeSDK, `@vercel/otel`, your own
 * `BasicTracerProvider`): tracewire's own spans go to the service as calls, the others as OTLP, and the AI SDK 6's
 * spans (`experimental_telemetry`) become calls as they do under `init()`. Never loads `ai` itself.
 */
export class TracewireSpanProcessor extends ExportProcessor {
  /**
   * Creates the processor; settings come from `options`, then the environment (`TRACEWIRE_*`, `OTEL_BSP_*`,
   * `OTEL_EXPORTER_OTLP_TRACES_*`). Throws `ConfigError` for a bad or missing setting.
   */
  constructor(options: TracewireProcessorOptions = {}) {
    super(options);
    installAiSdkSpans();
  }
}
