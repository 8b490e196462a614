/**
 * Call adapters: foreign spans tracewire knows the shape of (the AI SDK 6's `ai.*` spans, genai/ai-sdk-spans.ts)
 * become first-class calls with real JSON inputs and output. Registered by the layers above, process-wide (on the
 * global state, so every bundled copy sees them); the processor asks each at a span's start and, for the one that
 * answered, at its end. An adapter that throws costs only its mapping.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { CallEndData, CallStartData } from "./span-data.js";
import { type CallAdapter, globalState } from "./state.js";

export type { CallAdapter };

/** The adapter that made an adapted span's start data, kept on the span for its end. */
const ADAPTER = Symbol.for("tracewire.callAdapter");

/** Registers (or replaces) the call adapter `name`. */
export function registerCallAdapter(name: string, adapter: CallAdapter): void {
  const state = globalState();
  state.adapters ??= new Map();
  state.adapters.set(name, adapter);
}

/** The call start data a registered adapter makes of `span`, or undefined; `failed` hears of an adapter's throw. */
export function adaptedStart(span: ReadableSpan, failed: (err: unknown) => void): CallStartData | undefined {
  const adapters = globalState().adapters;
  if (!adapters) return undefined;
  for (const adapter of adapters.values()) {
    try {
      const data = adapter.start(span);
      if (data) {
        (span as { [ADAPTER]?: CallAdapter })[ADAPTER] = adapter;
        return data;
      }
    } catch (err) {
      failed(err);
    }
  }
  return undefined;
}

/** The end data the adapter of an adapted span makes of it, or undefined for a span no adapter started. */
export function adaptedEnd(span: ReadableSpan, failed: (err: unknown) => void): CallEndData | undefined {
  const adapter = (span as { [ADAPTER]?: CallAdapter })[ADAPTER];
  if (!adapter) return undefined;
  try {
    return adapter.end(span);
  } catch (err) {
    failed(err);
    return {};
  }
}
