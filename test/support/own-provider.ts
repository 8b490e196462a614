/**
 * A `TracewireSpanProcessor` on the app's own OpenTelemetry provider — the set-up of an app that keeps its
 * `BasicTracerProvider` — sending to a fresh stand-in service. Registered globally with an AsyncLocalStorage context
 * manager; `close()` shuts the provider down and undoes the registration.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, type Sampler } from "@opentelemetry/sdk-trace-base";
import { expect } from "vitest";
import { type TracewireProcessorOptions, TracewireSpanProcessor } from "../../src/otel/index.js";
import { TracingDouble } from "./tracing-double.js";

export interface OwnProvider {
  double: TracingDouble;
  processor: TracewireSpanProcessor;
  close(): Promise<void>;
}

/** Starts the double and the provider; `options` go to the processor (project `acme/demo`, `env: {}` by default). */
export async function startOwnProvider(
  options: TracewireProcessorOptions = {},
  sampler?: Sampler,
): Promise<OwnProvider> {
  const double = await TracingDouble.start();
  const processor = new TracewireSpanProcessor({ baseUrl: double.url, project: "acme/demo", env: {}, ...options });
  const provider = new BasicTracerProvider({ spanProcessors: [processor], ...(sampler ? { sampler } : {}) });
  expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  expect(context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())).toBe(true);
  return {
    double,
    processor,
    async close() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      await double.close();
    },
  };
}
