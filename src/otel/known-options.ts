/**
 * The options `init()`, `TracewireSpanProcessor` and `createOtlpExporter()` read, so that one they do not read is a
 * `ConfigError` instead of being ignored: `init({ captureContnet: false })` from JavaScript (or with an options object
 * built beforehand, which TypeScript does not check for extra keys) would otherwise record content without a word.
 */
import { kindOf, unknownOption } from "../config.js";
import { ConfigError } from "../errors.js";

/**
 * Every option read. init()'s own two (`serviceName`, `disabled`) are here too: `init()` hands its options to the
 * processor whole. tracing/init.ts checks at compile time that this list covers `InitOptions` (the processor's options
 * and those two); it is not checked here, which would import options.ts back.
 */
export const KNOWN_OPTIONS = {
  apiKey: true,
  baseUrl: true,
  project: true,
  export: true,
  route: true,
  filter: true,
  maxQueueSize: true,
  maxExportBatchSize: true,
  scheduledDelayMillis: true,
  exportTimeoutMillis: true,
  maxBatchBytes: true,
  otlpProtocol: true,
  otlpCompression: true,
  otlpEndpoint: true,
  otlpHeaders: true,
  otlpTimeoutMillis: true,
  otlpAttributeValueLengthLimit: true,
  exitHooks: true,
  exitFlushMillis: true,
  allowInsecureHttp: true,
  logger: true,
  env: true,
  captureContent: true,
  redact: true,
  redactKeys: true,
  maxStringLength: true,
  maxPayloadBytes: true,
  serviceName: true,
  disabled: true,
} as const;

/** What other tracing SDKs (or likely slips) call an option, lower-cased without `-`/`_`, by its name here. */
const OTHER_NAMES: Record<string, keyof typeof KNOWN_OPTIONS> = {
  key: "apiKey",
  token: "apiKey",
  url: "baseUrl",
  baseurl: "baseUrl",
  endpoint: "baseUrl",
  host: "baseUrl",
  server: "baseUrl",
  projectname: "project",
  projectid: "project",
  enabled: "disabled",
  capturecontents: "captureContent",
  recordcontent: "captureContent",
  tracecontent: "captureContent",
  recordinputs: "captureContent",
  recordoutputs: "captureContent",
  mask: "redact",
  redactkey: "redactKeys",
  maskkeys: "redactKeys",
  headers: "otlpHeaders",
  batchsize: "maxExportBatchSize",
  flushat: "maxExportBatchSize",
  flushinterval: "scheduledDelayMillis",
  timeout: "exportTimeoutMillis",
  queuesize: "maxQueueSize",
  service: "serviceName",
};

/** Throws a {@link ConfigError} for the first option not in {@link KNOWN_OPTIONS}, naming the one it probably meant. */
export function checkKnownOptions(options: object): void {
  const unknown = unknownOption(options, KNOWN_OPTIONS, OTHER_NAMES);
  if (!unknown) return;
  const { key, hint } = unknown;
  // The value is not echoed: a misspelt `apikey` holds the key itself.
  throw new ConfigError(
    key,
    kindOf((options as Record<string, unknown>)[key]),
    `an option tracewire reads${hint ? ` — did you mean ${hint}?` : ""} (the options are ${Object.keys(KNOWN_OPTIONS).join(", ")})`,
  );
}
