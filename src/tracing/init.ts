/**
 * `init()`: two lines to trace a Node service. Creates the {@link TracewireSpanProcessor}, registers a tracer
 * provider, an AsyncLocalStorage context manager and the W3C trace-context and baggage propagators where the app has
 * none, and returns a handle to flush and shut down. Not configured or disabled: one warning, and every traced function runs untraced at almost no cost.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { ENV, echo, envOf, readBoolean } from "../config.js";
import { ConfigError, ValidationError } from "../errors.js";
import { installAiSdkSpans } from "../genai/ai-sdk-spans.js";
import { createContextManager } from "../otel/context-manager.js";
import type { TracewireStats } from "../otel/export-queue.js";
import type { KNOWN_OPTIONS } from "../otel/known-options.js";
import { readLogger, resolveProcessorOptions, type TracewireProcessorOptions } from "../otel/options.js";
import { TracewireSpanProcessor } from "../otel/processor.js";
import { globalState } from "../otel/state.js";
import { describeObjectAs } from "../own-objects.js";
import { TRACER_NAME, VERSION } from "../version.js";
import { createProvider, spanLimitsFrom } from "./provider.js";

/** Options of {@link init}: the processor's (payload capture and redaction among them), plus service identity. */
export interface InitOptions extends TracewireProcessorOptions {
  /** `service.name` on the resource. Env `OTEL_SERVICE_NAME`. */
  serviceName?: string;
  /** Turn tracing off. Env `TRACEWIRE_DISABLED=true`, or the standard `OTEL_SDK_DISABLED=true`. */
  disabled?: boolean;
}

// An option init() reads but the list of known options lacks would be refused as unknown: keep them in step.
type MissingKnown = Exclude<keyof InitOptions, keyof typeof KNOWN_OPTIONS>;
const _everyInitOptionKnown: [MissingKnown] extends [never] ? true : MissingKnown = true;
void _everyInitOptionKnown;

/** What `init()` returns. */
export interface TracewireHandle {
  /** Whether tracing is on. */
  readonly enabled: boolean;
  /** The processor (undefined when tracing is off). */
  readonly processor: TracewireSpanProcessor | undefined;
  /** Sends everything recorded so far. */
  flush(): Promise<void>;
  /** Flushes and stops tracing; traced functions keep working, untraced. */
  shutdown(): Promise<void>;
  /** Queue counters of both routes (all zero when tracing is off). */
  stats(): TracewireStats;
}

const EMPTY_QUEUE = { queued: 0, sent: 0, dropped: 0, rejected: 0, retries: 0 };

function noopHandle(): TracewireHandle {
  return describedHandle({
    enabled: false,
    processor: undefined,
    flush: async () => {},
    shutdown: async () => {},
    stats: () => ({ calls: { ...EMPTY_QUEUE }, otlp: { ...EMPTY_QUEUE }, internalErrors: 0 }),
  });
}

/** The handle recorded, logged or inspected as `{_type: "TracewireHandle", enabled}`: never its processor's insides. */
function describedHandle(handle: TracewireHandle): TracewireHandle {
  describeObjectAs(handle, "TracewireHandle", (h) => ({ enabled: h.enabled }));
  return handle;
}

function warnOnce(key: string, message: string, logger: { warn(m: string): void } = console): void {
  const state = globalState();
  if (state.warned.has(key)) return;
  state.warned.add(key);
  logger.warn(`[tracewire] ${message}`);
}

function checkServiceName(serviceName: unknown): void {
  if (serviceName !== undefined && (typeof serviceName !== "string" || serviceName.trim() === "")) {
    throw new ConfigError(
      "serviceName (env OTEL_SERVICE_NAME)",
      typeof serviceName === "string" ? echo(serviceName) : typeof serviceName,
      "a non-empty service name",
    );
  }
}

/** Where tracing-off validation sends a setting that is not given (it only needs a well-formed one). */
const PLACEHOLDER = { baseUrl: "http://127.0.0.1:4319", project: "entity/project" };

/**
 * Checks the options given in code while tracing is off, so that a bad one is the same `ConfigError` on a developer's
 * machine without a service as in production with one. The environment is not read here: it is production's own.
 */
function checkOptions(options: InitOptions): void {
  checkServiceName(options.serviceName);
  resolveProcessorOptions({
    ...processorOptions(options),
    env: {},
    baseUrl: options.baseUrl ?? PLACEHOLDER.baseUrl,
    project: options.project ?? PLACEHOLDER.project,
  });
}

/** The options the processor reads: all but init()'s own two, which the processor refuses. */
function processorOptions(options: InitOptions): TracewireProcessorOptions {
  const { serviceName: _serviceName, disabled: _disabled, ...rest } = options;
  return rest;
}

/**
 * Starts tracing. Settings: options, else environment (`TRACEWIRE_*`, `OTEL_*`), else defaults. Throws
 * `ConfigError` for a malformed setting, also while tracing is off (not configured, or disabled): the options given in
 * code are checked either way. Calling it again returns the running handle.
 */
export function init(options: InitOptions = {}): TracewireHandle {
  if (options === null || typeof options !== "object")
    throw new ValidationError("init() options must be an object.", "options");
  const state = globalState();
  if (state.handle) return state.handle as TracewireHandle;
  // The last handle's shutdown() may still be flushing: its globals go now, so that this one's can be registered.
  state.releaseGlobals?.();
  const env = envOf(options.env);
  // Checked first: even "tracing is off" is said through it.
  const logger = readLogger(options.logger);

  // The option wins over both variables (as every option does); either variable alone turns tracing off.
  const disabledSetting = readBoolean("disabled", ENV.disabled, options.disabled, env);
  const disabled =
    options.disabled !== undefined
      ? disabledSetting === true
      : disabledSetting === true || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true";
  if (disabled) {
    checkOptions(options);
    warnOnce(
      "disabled",
      "Tracing is disabled (TRACEWIRE_DISABLED / OTEL_SDK_DISABLED); traced functions run untraced.",
      logger,
    );
    return noopHandle();
  }
  // An option that is given but not a string still counts (the processor then says what is wrong with it).
  const given = (v: unknown) => v !== undefined && v !== null && !(typeof v === "string" && v.trim() === "");
  const hasTarget = [options.apiKey, options.baseUrl, env[ENV.apiKey], env[ENV.baseUrl]].some(given);
  if (!hasTarget) {
    checkOptions(options);
    warnOnce(
      "not-configured",
      "Tracing is off: no API key and no base URL. Set TRACEWIRE_BASE_URL (and TRACEWIRE_API_KEY, TRACEWIRE_PROJECT) to send traces.",
      logger,
    );
    return noopHandle();
  }

  checkServiceName(options.serviceName);
  // Read before anything is set up, so that a malformed limit leaves nothing running.
  const spanLimits = spanLimitsFrom(env);
  const processor = new TracewireSpanProcessor(processorOptions(options));
  // The AI SDK 6's own spans become first-class calls (genai/ai-sdk-spans.ts).
  installAiSdkSpans();

  // A blank variable counts as unset, as for every other setting.
  const serviceName = options.serviceName ?? (env.OTEL_SERVICE_NAME?.trim() || undefined);
  const resource = defaultResource().merge(
    resourceFromAttributes({
      ...(serviceName ? { "service.name": serviceName } : {}),
      "telemetry.distro.name": TRACER_NAME,
      "telemetry.distro.version": VERSION,
    }),
  );
  // Sampler and span limits from the same settings as everything else: `env` when given, else the environment.
  const provider = createProvider(env, resource, [processor], spanLimits, (message) =>
    warnOnce("sampler", message, logger),
  );
  const ownsGlobal = trace.setGlobalTracerProvider(provider);
  if (!ownsGlobal) {
    warnOnce(
      "foreign-provider",
      "An OpenTelemetry tracer provider is already registered. tracewire's own calls are traced; to send the app's other spans too, add `new TracewireSpanProcessor()` to that provider.",
      logger,
    );
  }
  // OTel's AsyncLocalStorage manager on Node, Bun and Deno; a portable one on Workers and the edge.
  const contextManager = createContextManager();
  const ownsContext = contextManager !== undefined && context.setGlobalContextManager(contextManager);
  // So that instrumentation of outgoing requests (HTTP, fetch, Next.js) sends `traceparent` and `baggage`.
  const ownsPropagation = propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  state.tracer = provider.getTracer(TRACER_NAME, VERSION);

  let stopped: Promise<void> | undefined;
  let released = false;
  /** Gives back the globals this handle registered, once (see `TracewireGlobal.releaseGlobals`). */
  const releaseGlobals = () => {
    if (released) return;
    released = true;
    if (state.releaseGlobals === releaseGlobals) state.releaseGlobals = undefined;
    if (ownsGlobal) trace.disable();
    if (ownsContext) context.disable();
    if (ownsPropagation) propagation.disable();
  };
  const handle: TracewireHandle = describedHandle({
    enabled: true,
    processor,
    flush: () => processor.forceFlush(),
    shutdown: () => {
      stopped ??= (async () => {
        if (state.handle === handle) state.handle = undefined;
        state.tracer = undefined;
        state.releaseGlobals = releaseGlobals;
        try {
          await provider.shutdown();
        } finally {
          releaseGlobals();
        }
      })();
      return stopped;
    },
    stats: () => processor.stats(),
  });
  state.handle = handle;
  return handle;
}
