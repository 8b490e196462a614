/**
 * The tracer provider `init()` registers, configured from the settings tracewire reads — the `env` option when one
 * is given, else the process environment — and from nowhere else. OpenTelemetry's `BasicTracerProvider` reads
 * `process.env` for its sampler and limits whatever it is given, which throws on Deno without `--allow-env` (and
 * ignores the `env` option); its base class, `TracerProvider` from `@opentelemetry/sdk-trace` (the package
 * sdk-trace-base 2.x is a thin layer over), reads nothing, so that is the one built here, with the same OTEL_*
 * variables read from the right place.
 */
import { TracerProvider } from "@opentelemetry/sdk-trace";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  type TracerConfig,
} from "@opentelemetry/sdk-trace-base";
import { type Env, echo } from "../config.js";
import { ConfigError } from "../errors.js";

type Resource = NonNullable<TracerConfig["resource"]>;

/** A number from `env[key]`, or undefined when unset, blank or not a number (OTel's rule). */
function numberFrom(env: Env, key: string): number | undefined {
  const raw = env[key];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  return Number.isNaN(value) ? undefined : value;
}

/** The samplers `OTEL_TRACES_SAMPLER` may name. */
const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
];

/**
 * The sampler `OTEL_TRACES_SAMPLER` (+ `OTEL_TRACES_SAMPLER_ARG`) names; parent-based always-on by default. An unknown
 * sampler or a ratio outside 0–1 falls back as OpenTelemetry's SDKs do (every trace sampled), with a warning through
 * `warn`: a typo must not silently change what is traced.
 */
export function samplerFrom(env: Env, warn: (message: string) => void = () => {}): Sampler {
  const ratio = () => {
    const raw = env.OTEL_TRACES_SAMPLER_ARG;
    const value = numberFrom(env, "OTEL_TRACES_SAMPLER_ARG");
    if (value !== undefined && value >= 0 && value <= 1) return value;
    if (raw !== undefined && raw.trim() !== "")
      warn(
        `OTEL_TRACES_SAMPLER_ARG=${JSON.stringify(raw.slice(0, 40))} is not a ratio from 0 to 1; sampling every trace.`,
      );
    return 1;
  };
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase();
  if (name && !SAMPLERS.includes(name))
    warn(
      `OTEL_TRACES_SAMPLER=${JSON.stringify(name.slice(0, 40))} is not a sampler tracewire knows (${SAMPLERS.join(", ")}); ` +
        "sampling every trace (parentbased_always_on).",
    );
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio());
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * A span limit from `env[key]`: a whole number of 0 or more, undefined when unset or blank. Anything else is a
 * `ConfigError` naming the variable: OpenTelemetry's SDK would ignore `lots` silently, and take `-1` as "keep nothing".
 */
function limitFrom(env: Env, key: string): number | undefined {
  const raw = env[key];
  if (raw === undefined || raw.trim() === "") return undefined;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`env ${key}`, echo(raw), "a whole number >= 0");
  return Number(raw.trim());
}

type SpanLimits = NonNullable<TracerConfig["spanLimits"]>;

/**
 * The span limits of the provider, from the `OTEL_*_LIMIT` variables of `env` (128 each by default; attribute values
 * uncut). Throws `ConfigError` for a malformed one: `init()` reads them before it sets anything up.
 */
export function spanLimitsFrom(env: Env): SpanLimits {
  const count = (key: string) => limitFrom(env, key) ?? 128;
  return {
    attributeCountLimit:
      limitFrom(env, "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT") ?? limitFrom(env, "OTEL_ATTRIBUTE_COUNT_LIMIT") ?? 128,
    // Checked as otlpAttributeValueLengthLimit by the processor, which reads the same two variables.
    attributeValueLengthLimit:
      numberFrom(env, "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT") ??
      numberFrom(env, "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT") ??
      Number.POSITIVE_INFINITY,
    linkCountLimit: count("OTEL_SPAN_LINK_COUNT_LIMIT"),
    eventCountLimit: count("OTEL_SPAN_EVENT_COUNT_LIMIT"),
    attributePerEventCountLimit: count("OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT"),
    attributePerLinkCountLimit: count("OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT"),
  };
}

/** The provider's whole configuration, every OTEL_* setting read from `env` (the span limits: {@link spanLimitsFrom}). */
export function providerConfig(
  env: Env,
  resource: Resource,
  processors: SpanProcessor[],
  spanLimits: SpanLimits,
  warn?: (message: string) => void,
): TracerConfig {
  return {
    resource,
    spanProcessors: processors,
    sampler: samplerFrom(env, warn),
    forceFlushTimeoutMillis: 30_000,
    spanLimits,
  };
}

/** A tracer provider that reads no environment of its own (see the module comment); `warn` hears of bad settings. */
export function createProvider(
  env: Env,
  resource: Resource,
  processors: SpanProcessor[],
  spanLimits: SpanLimits,
  warn?: (message: string) => void,
): TracerProvider {
  return new TracerProvider(providerConfig(env, resource, processors, spanLimits, warn));
}
