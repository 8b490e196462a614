/**
 * Options of {@link TracewireSpanProcessor} and where each comes from: the option, else the environment
 * (`TRACEWIRE_*`, `OTEL_BSP_*`, `OTEL_EXPORTER_OTLP_TRACES_*`), else a default. Resolved once, in the constructor,
 * so a bad value is a `ConfigError` there and never inside a traced call.
 */
import type { ReadableSpan, Span } from "@opentelemetry/sdk-trace-base";
import {
  checkKeyTransport,
  ENV,
  type EnvOption,
  echo,
  envOf,
  kindOf,
  MAX_TIMER_MS,
  readApiKey,
  readBoolean,
  readHeaders,
  readNumber,
  readProject,
  readUrl,
} from "../config.js";
import { ConfigError } from "../errors.js";
import type { Logger } from "./diagnostics.js";
import { checkKnownOptions } from "./known-options.js";
import { type PayloadOptions, type PayloadSettings, resolvePayloadOptions } from "./payload-options.js";

/** Resolved settings of the OTLP exporter (see `resolveProcessorOptions` for where each comes from). */
export interface OtlpExporterConfig {
  /** Full traces URL, used as is. */
  url: string;
  /** API key, sent as `Authorization: Bearer …`; `undefined` sends none (the local service needs none). */
  apiKey: string | undefined;
  /** `entity/project`, sent as the `project_id` header. */
  project: string;
  /** The OTLP body encoding: protobuf (the default of `createOtlpExporter()`) or JSON. */
  protocol: "http/protobuf" | "http/json";
  /** `gzip` compresses bodies of 1 KiB or more; `none` sends every body plain. */
  compression: "gzip" | "none";
  /** How long one export request may take, in milliseconds, before it is abandoned. */
  timeoutMs: number;
  /** Extra headers (from `OTEL_EXPORTER_OTLP_TRACES_HEADERS` and options). */
  headers: Record<string, string>;
  /** String attribute values longer than this many UTF-16 units are cut to it. Default 262144 (256 Ki). */
  attributeValueLengthLimit?: number;
}

/**
 * Default cap on a string attribute value on the OTLP route, in UTF-16 units: 256 Ki, what the tracing service
 * keeps of a custom attribute value anyway.
 */
export const DEFAULT_ATTRIBUTE_VALUE_LENGTH_LIMIT = 256 * 1024;

/** Where a span goes: natively as a call, as OTLP, or nowhere. */
export type SpanRoute = "calls" | "otlp";

/** Options of {@link TracewireSpanProcessor}. Every field is optional. */
export interface TracewireProcessorOptions extends PayloadOptions {
  /** API key. Env `TRACEWIRE_API_KEY`. */
  apiKey?: string;
  /** Tracing service base URL. Env `TRACEWIRE_BASE_URL`. */
  baseUrl?: string;
  /** `entity/project` the data belongs to. Env `TRACEWIRE_PROJECT`. Required. */
  project?: string;
  /**
   * `"auto"` (default): tracewire's own spans go natively as calls (live starts, real JSON payloads), other
   * spans as OTLP. `"otlp"`: everything as OTLP (portable). `"calls"`: everything as calls.
   */
  export?: "auto" | "otlp" | "calls";
  /**
   * Per-span override of the route, called at span start; return `undefined` to keep the default. If it throws, the
   * span keeps the default route and `stats().internalErrors` counts it.
   */
  route?: (span: Span) => SpanRoute | undefined;
  /**
   * Called at span start; return `false` to drop the span (it is neither sent nor counted as dropped). If it throws,
   * the span is dropped (fails closed, like `redact`) and `stats().internalErrors` counts it.
   */
  filter?: (span: Span) => boolean;
  /** Spans/calls held in memory per route before new ones are dropped. Env `OTEL_BSP_MAX_QUEUE_SIZE`. Default 2048. */
  maxQueueSize?: number;
  /** Items per export. Env `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`. Default 512. */
  maxExportBatchSize?: number;
  /** Longest wait before a partial batch is sent, ms. Env `OTEL_BSP_SCHEDULE_DELAY`. Default 1000. */
  scheduledDelayMillis?: number;
  /** Deadline of one export, and of `forceFlush()` / `shutdown()`, ms. Env `OTEL_BSP_EXPORT_TIMEOUT`. Default 30000. */
  exportTimeoutMillis?: number;
  /** Largest `/call/upsert_batch` body in bytes; halved on a 413. Default 4 MiB. */
  maxBatchBytes?: number;
  /** OTLP encoding. Env `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (`http/protobuf` or `http/json`). Default protobuf. */
  otlpProtocol?: "http/protobuf" | "http/json";
  /** OTLP compression. Env `OTEL_EXPORTER_OTLP_TRACES_COMPRESSION`. Default `gzip`. */
  otlpCompression?: "gzip" | "none";
  /** OTLP traces URL, used as is. Env `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. Default `{baseUrl}/otel/v1/traces`. */
  otlpEndpoint?: string;
  /** Extra OTLP headers. Env `OTEL_EXPORTER_OTLP_TRACES_HEADERS` (`k=v,k2=v2`, percent-decoded). */
  otlpHeaders?: Record<string, string>;
  /** Deadline of one OTLP request, retries included, ms. Env `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`. Default 10000. */
  otlpTimeoutMillis?: number;
  /**
   * Longest string attribute value sent on the OTLP route, in UTF-16 units; longer ones are cut (as OTel's
   * `attributeValueLengthLimit` does). Env `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`, else
   * `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`. Default 262144.
   */
  otlpAttributeValueLengthLimit?: number;
  /** Flush on `beforeExit` and `SIGTERM`. Default true. */
  exitHooks?: boolean;
  /**
   * Longest the exit flush (`beforeExit`, `SIGTERM`) waits, ms, so a process whose service is slow or down still
   * exits promptly; what is not sent by then is lost. Env `TRACEWIRE_EXIT_FLUSH_TIMEOUT`. Default 5000.
   */
  exitFlushMillis?: number;
  /** Allow an API key over plain http to a non-loopback host. Env `TRACEWIRE_ALLOW_INSECURE_HTTP`. */
  allowInsecureHttp?: boolean;
  /** Where warnings go. Default `console`. */
  logger?: Logger;
  /** Read settings from this instead of `process.env` (a Worker's `env` too: see {@link EnvOption}). */
  env?: EnvOption;
}

/** Fully resolved processor settings. */
export interface ResolvedProcessorOptions {
  apiKey: string | undefined;
  baseUrl: string;
  project: string;
  exportMode: "auto" | "otlp" | "calls";
  route: TracewireProcessorOptions["route"];
  filter: TracewireProcessorOptions["filter"];
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMillis: number;
  exportTimeoutMillis: number;
  maxBatchBytes: number;
  otlp: OtlpExporterConfig;
  exitHooks: boolean;
  exitFlushMillis: number;
  allowInsecureHttp: boolean;
  logger: Logger;
  payload: PayloadSettings;
}

/** Parses `k=v,k2=v2` (W3C baggage style, percent-decoded) as the OTLP spec defines for header variables. */
function parseHeaderList(setting: string, text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!text) return headers;
  for (const pair of text.split(",")) {
    if (pair.trim() === "") continue;
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new ConfigError(setting, maskHeaderList(text), "k=v pairs separated by commas");
    try {
      headers[decodeURIComponent(pair.slice(0, eq).trim()).toLowerCase()] = decodeURIComponent(
        pair.slice(eq + 1).trim(),
      );
    } catch {
      throw new ConfigError(setting, JSON.stringify(pair.slice(0, eq)), "percent-encoded k=v pairs");
    }
  }
  return headers;
}

/**
 * The header list as an error shows it: names kept, every value `****`, and an entry without `=` (a token pasted
 * alone, a header whose `=` was lost) wholly `****` — it may be nothing but the credential.
 */
function maskHeaderList(text: string): string {
  const masked = text.split(",").map((pair) => {
    const eq = pair.indexOf("=");
    return eq < 0 ? (pair.trim() === "" ? pair : "****") : `${pair.slice(0, eq)}=****`;
  });
  return echo(masked.join(","));
}

function readChoice<T extends string>(setting: string, value: unknown, choices: readonly T[]): T | undefined {
  if (value === undefined || value === "") return undefined;
  const text = typeof value === "string" ? value.trim().toLowerCase() : value;
  if (!choices.includes(text as T))
    throw new ConfigError(setting, JSON.stringify(value), `one of ${choices.join(", ")}`);
  return text as T;
}

/** Requires a hook option to be a function when given. */
function readHook<T>(setting: string, value: T | undefined): T | undefined {
  if (value !== undefined && typeof value !== "function") {
    throw new ConfigError(setting, kindOf(value), "a function");
  }
  return value;
}

/** Requires the logger to have callable `warn` and `error` (a broken one would silence every warning). */
export function readLogger(value: unknown): Logger | undefined {
  if (value === undefined) return undefined;
  const logger = value as Partial<Logger> | null;
  if (
    logger === null ||
    typeof logger !== "object" ||
    typeof logger.warn !== "function" ||
    typeof logger.error !== "function"
  ) {
    throw new ConfigError(
      "logger",
      kindOf(value),
      "an object with warn(message) and error(message) methods, like console",
    );
  }
  return value as Logger;
}

/**
 * `serviceName` and `disabled` are `init()`'s: the processor in the app's own provider would ignore them (the resource
 * is the provider's; the processor, once added, traces), so they are refused with where they belong. `init()` hands the
 * processor its options without them.
 */
function refuseInitOnlyOptions(options: object): void {
  const { serviceName, disabled } = options as { serviceName?: unknown; disabled?: unknown };
  if (serviceName !== undefined)
    throw new ConfigError(
      "serviceName",
      kindOf(serviceName),
      "no processor option: it is init()'s; with your own provider, set service.name on the provider's resource (or OTEL_SERVICE_NAME)",
    );
  if (disabled !== undefined)
    throw new ConfigError(
      "disabled",
      kindOf(disabled),
      "no processor option: it is init()'s; to trace nothing with your own provider, leave the processor out",
    );
}

/** Resolves every option; throws {@link ConfigError} naming the first bad one. */
export function resolveProcessorOptions(options: TracewireProcessorOptions): ResolvedProcessorOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ConfigError("options", kindOf(options), "an options object (or nothing)");
  }
  checkKnownOptions(options);
  refuseInitOnlyOptions(options);
  if (options.env !== undefined && (options.env === null || typeof options.env !== "object")) {
    throw new ConfigError("env", kindOf(options.env), "an object of environment variables, like process.env");
  }
  const env = envOf(options.env);
  const baseUrl = readUrl("baseUrl", ENV.baseUrl, options.baseUrl, env);
  if (baseUrl === undefined) {
    throw new ConfigError(
      "baseUrl (env TRACEWIRE_BASE_URL)",
      undefined,
      "the tracing service URL, e.g. http://127.0.0.1:4319",
    );
  }
  const project = readProject("project", ENV.project, options.project, env);
  if (project === undefined) {
    throw new ConfigError(
      "project (env TRACEWIRE_PROJECT)",
      undefined,
      'the project to trace into, as "entity/project"',
    );
  }
  const apiKey = readApiKey(options.apiKey, env);
  const allowInsecureHttp =
    readBoolean("allowInsecureHttp", ENV.allowInsecureHttp, options.allowInsecureHttp, env) ?? false;
  checkKeyTransport("baseUrl (env TRACEWIRE_BASE_URL)", baseUrl, apiKey, allowInsecureHttp);

  const int = (
    option: keyof TracewireProcessorOptions,
    envName: string | undefined,
    min: number,
    fallback: number,
    max = MAX_TIMER_MS,
  ) => readNumber(option, envName, options[option], env, { min, max, integer: true }) ?? fallback;
  const maxQueueSize = int("maxQueueSize", "OTEL_BSP_MAX_QUEUE_SIZE", 1, 2048);
  const maxExportBatchSize = Math.min(
    maxQueueSize,
    int("maxExportBatchSize", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1, 512),
  );

  const otlpUrl =
    readUrl("otlpEndpoint", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", options.otlpEndpoint, env) ??
    `${baseUrl}/otel/v1/traces`;
  checkKeyTransport("otlpEndpoint (env OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)", otlpUrl, apiKey, allowInsecureHttp);
  const protocolSetting = "otlpProtocol (env OTEL_EXPORTER_OTLP_TRACES_PROTOCOL)";
  const protocol =
    readChoice(protocolSetting, options.otlpProtocol ?? env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, [
      "http/protobuf",
      "http/json",
    ] as const) ?? "http/protobuf";
  const compression =
    readChoice(
      "otlpCompression (env OTEL_EXPORTER_OTLP_TRACES_COMPRESSION)",
      options.otlpCompression ?? env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION,
      ["gzip", "none"] as const,
    ) ?? "gzip";
  const exportMode = readChoice("export", options.export, ["auto", "otlp", "calls"] as const) ?? "auto";

  return {
    apiKey,
    baseUrl,
    project,
    exportMode,
    route: readHook("route", options.route),
    filter: readHook("filter", options.filter),
    maxQueueSize,
    maxExportBatchSize,
    scheduledDelayMillis: int("scheduledDelayMillis", "OTEL_BSP_SCHEDULE_DELAY", 0, 1000),
    exportTimeoutMillis: int("exportTimeoutMillis", "OTEL_BSP_EXPORT_TIMEOUT", 1, 30_000),
    maxBatchBytes: int("maxBatchBytes", undefined, 1024, 4 * 1024 * 1024, 1024 * 1024 * 1024),
    otlp: {
      url: otlpUrl,
      apiKey,
      project,
      protocol,
      compression,
      timeoutMs: int("otlpTimeoutMillis", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", 1, 10_000),
      attributeValueLengthLimit: int(
        "otlpAttributeValueLengthLimit",
        env.OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT
          ? "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT"
          : "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT",
        1,
        DEFAULT_ATTRIBUTE_VALUE_LENGTH_LIMIT,
        2 ** 30,
      ),
      headers: {
        ...readHeaders(
          "env OTEL_EXPORTER_OTLP_TRACES_HEADERS",
          parseHeaderList("env OTEL_EXPORTER_OTLP_TRACES_HEADERS", env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
        ),
        ...readHeaders("otlpHeaders", options.otlpHeaders),
      },
    },
    exitHooks: readBoolean("exitHooks", undefined, options.exitHooks, env) ?? true,
    exitFlushMillis: int("exitFlushMillis", "TRACEWIRE_EXIT_FLUSH_TIMEOUT", 1, 5000),
    allowInsecureHttp,
    logger: readLogger(options.logger) ?? console,
    payload: resolvePayloadOptions(options, env),
  };
}

/** Whether a span was ended and sampled: spans that are not sampled are never exported. */
export function isSampled(span: ReadableSpan): boolean {
  return (span.spanContext().traceFlags & 1) === 1;
}
