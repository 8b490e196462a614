/**
 * Which spans the processor keeps and by which route each leaves: the user's `filter` and `route` hooks, with the
 * export mode's default. A hook that throws is reported through `failed` (an internal error) and never reaches the
 * app: a failing `route` keeps the default, a failing `filter` drops the span (fails closed).
 */
import type { ReadableSpan, Span } from "@opentelemetry/sdk-trace-base";
import { TRACER_NAME } from "../version.js";
import type { ResolvedProcessorOptions, SpanRoute } from "./options.js";

/**
 * The user's `route` hook, else the export mode; in `auto` mode tracewire's own spans and adapted ones (another
 * library's GenAI spans made calls) take the calls route, every other span the OTLP route.
 */
export function routeOf(
  options: ResolvedProcessorOptions,
  span: Span | ReadableSpan,
  adapted: boolean,
  failed: (err: unknown) => void,
): SpanRoute {
  let custom: SpanRoute | undefined;
  try {
    custom = options.route?.(span as Span);
  } catch (err) {
    failed(err);
  }
  if (custom === "calls" || custom === "otlp") return custom;
  if (options.exportMode !== "auto") return options.exportMode;
  return adapted || span.instrumentationScope.name === TRACER_NAME ? "calls" : "otlp";
}

/** The user's `filter` hook: whether the span is exported at all. */
export function keeps(
  options: ResolvedProcessorOptions,
  span: Span | ReadableSpan,
  failed: (err: unknown) => void,
): boolean {
  if (!options.filter) return true;
  try {
    return Boolean(options.filter(span as Span));
  } catch (err) {
    failed(err);
    return false;
  }
}
