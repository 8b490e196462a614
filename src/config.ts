/**
 * Configuration: explicit options win over environment variables, environment variables over defaults. Every
 * value is checked here, once, so that a bad setting fails at construction with a {@link ConfigError} that names
 * it — never later inside a traced call. API keys are only ever shown masked.
 */
import { ConfigError, ValidationError } from "./errors.js";
import { DEFAULT_RETRY, type ResolvedRetry, type RetryOptions } from "./http/retry.js";
import type { TransportOptions } from "./http/transport.js";
import { processEnv } from "./runtime.js";

/** Where settings are read from when an option is not given. Defaults to `process.env`. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * What an `env` option takes: the variables by name, such as `process.env`, `Deno.env.toObject()`, a test's `{}`, or
 * a Cloudflare Worker's `env` (`import { env } from "cloudflare:workers"`), whose type is an interface of the
 * worker's bindings rather than a record of strings. Only the variables tracewire knows are read (`TRACEWIRE_*`,
 * `OTEL_*`): give them as vars or secrets (strings); the worker's other bindings are never looked at.
 */
export type EnvOption = Env | object;

/** The variables an `env` option gives, else `process.env` (or nothing where there is no process). */
export function envOf(env: EnvOption | undefined): Env {
  return (env as Env | undefined) ?? processEnv();
}

/** Environment variable names (DESIGN §4). One table, so docs and code cannot drift. */
export const ENV = {
  apiKey: "TRACEWIRE_API_KEY",
  baseUrl: "TRACEWIRE_BASE_URL",
  project: "TRACEWIRE_PROJECT",
  inferenceBaseUrl: "TRACEWIRE_INFERENCE_BASE_URL",
  inferenceProject: "TRACEWIRE_INFERENCE_PROJECT",
  trainingBaseUrl: "TRACEWIRE_TRAINING_BASE_URL",
  timeoutMs: "TRACEWIRE_TIMEOUT_MS",
  maxAttempts: "TRACEWIRE_MAX_ATTEMPTS",
  allowInsecureHttp: "TRACEWIRE_ALLOW_INSECURE_HTTP",
  disabled: "TRACEWIRE_DISABLED",
} as const;

/** Defaults shared by the three clients. */
export const DEFAULTS = {
  timeoutMs: 60_000,
  connectTimeoutMs: 10_000,
  bodyTimeoutMs: 60_000,
  maxConnections: 16,
} as const;

/** Default deadline of the inference and training clients: a long non-streaming completion can take minutes. */
export const MODEL_SERVICE_TIMEOUT_MS = 600_000;

/** Options every native client accepts. */
export interface ClientOptions {
  /** API key, sent as `Authorization: Bearer <key>`. Env: `TRACEWIRE_API_KEY`. */
  apiKey?: string;
  /** The service's base URL. Env: per service (`TRACEWIRE_BASE_URL`, `TRACEWIRE_INFERENCE_BASE_URL`, `TRACEWIRE_TRAINING_BASE_URL`). */
  baseUrl?: string;
  /**
   * Overall deadline of one request in ms, retries included (streams: until the response headers). Env:
   * `TRACEWIRE_TIMEOUT_MS`. Default 60000 for the tracing service, 600000 for the inference and training services
   * (a long non-streaming completion can take minutes).
   */
  timeoutMs?: number;
  /** TCP/TLS connect timeout in ms. Default 10000. */
  connectTimeoutMs?: number;
  /** Longest silence allowed between two chunks of a response body, in ms. Default 60000. */
  bodyTimeoutMs?: number;
  /** Retry settings; `maxAttempts` also from `TRACEWIRE_MAX_ATTEMPTS`. */
  retry?: RetryOptions;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
  /** gzip request bodies of 1 KiB or more. Default false (the JSON endpoints do not all accept it). */
  gzip?: boolean;
  /** Sockets kept open per origin. Default 16. */
  maxConnections?: number;
  /**
   * Allow sending the API key over plain `http://` to a host that is not loopback. Off by default: a key in
   * clear text can be read by anyone on the path. Env: `TRACEWIRE_ALLOW_INSECURE_HTTP=true`.
   */
  allowInsecureHttp?: boolean;
  /** Read settings from this instead of `process.env` (useful in tests and multi-tenant servers). */
  env?: EnvOption;
}

/** `****wxyz`: the last four characters of a long key, enough to tell keys apart and never enough to use one. */
export function maskSecret(secret: string): string {
  if (typeof secret !== "string") {
    // Say what it was, never what it holds: a secret handed over in the wrong shape is still a secret.
    throw new ValidationError(`maskSecret expects the secret as a string, got ${kindOf(secret)}.`, "secret");
  }
  return secret.length < 20 ? "****" : `****${secret.slice(-4)}`;
}

/** `null`, `an array` or the `typeof` of a value, for messages that must not echo the value itself. */
export function kindOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

/** A name lower-cased without `-` and `_`: how an unknown option is matched to the one it probably meant. */
const looseName = (name: string) => name.toLowerCase().replace(/[-_]/g, "");

/** Levenshtein distance of two short names, for "did you mean" hints. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length]!;
}

/**
 * The first key of `options` that is not in `known` (a key whose value is `undefined` is let through: it sets
 * nothing), with the one it probably meant: `otherNames` maps what other SDKs (or likely slips) call an option — by the
 * key as written, or lower-cased without `-` and `_` — to its name here (or to a short pointer such as
 * `init({ redact })`); else a known name that differs only in case or separators, that one starts with the other, or
 * that is at most two edits away. An options object gets no excess-property check in JavaScript, nor in TypeScript
 * once it is built beforehand: a misspelt option (`captureContnet: false`) would otherwise be ignored without a word.
 */
export function unknownOption(
  options: object,
  known: Readonly<Record<string, true>> | readonly string[],
  otherNames: Readonly<Record<string, string>> = {},
): { key: string; hint: string | undefined } | undefined {
  const names: readonly string[] = Array.isArray(known) ? known : Object.keys(known);
  for (const key of Object.keys(options)) {
    if (names.includes(key) || (options as Record<string, unknown>)[key] === undefined) continue;
    const loose = looseName(key);
    const alias = Object.hasOwn(otherNames, key) ? key : Object.hasOwn(otherNames, loose) ? loose : undefined;
    const hint =
      (alias === undefined ? undefined : otherNames[alias]) ??
      names.find((k) => looseName(k) === loose) ??
      names.find((k) => looseName(k).startsWith(loose) || loose.startsWith(looseName(k))) ??
      names.find((k) => distance(looseName(k), loose) <= 2);
    return { key, hint };
  }
  return undefined;
}

/**
 * Throws a `ValidationError` for an option `what` does not read (see {@link unknownOption}), naming the one it probably
 * meant and the options there are: for options passed while the app runs (an evaluation, a feedback record), where
 * JavaScript gets no excess-property check — `nTrials: 3` (the vendor's spelling) would otherwise run one trial.
 */
export function refuseUnknownOptions(
  what: string,
  options: unknown,
  known: Readonly<Record<string, true>> | readonly string[],
  otherNames?: Readonly<Record<string, string>>,
): void {
  if (options === null || typeof options !== "object") return;
  const unknown = unknownOption(options, known, otherNames);
  if (!unknown) return;
  const { key, hint } = unknown;
  const names = Array.isArray(known) ? known : Object.keys(known);
  throw new ValidationError(
    `${what}: unknown option ${key}${hint ? ` (did you mean ${hint}?)` : ""}. The options are ${names.join(", ")}.`,
    key,
  );
}

/**
 * Throws a `ConfigError` for a setting `where` (a constructor or a wrapper, set up once) does not read, naming it and
 * the one it probably meant — never its value, which may be a misspelt key.
 */
export function refuseUnknownSettings(
  where: string,
  options: unknown,
  known: Readonly<Record<string, true>> | readonly string[],
  otherNames?: Readonly<Record<string, string>>,
): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) return;
  const unknown = unknownOption(options, known, otherNames);
  if (!unknown) return;
  const names = Array.isArray(known) ? known : Object.keys(known);
  throw new ConfigError(
    `${where} option ${unknown.key}`,
    "an option it does not know",
    names.length === 1
      ? `${names[0]}, its only option`
      : `${unknown.hint ? `${unknown.hint}, or ` : ""}one of ${names.join(", ")}`,
  );
}

/**
 * Longest delay a Node timer can wait (2^31 - 1 ms, about 24.8 days). A longer one fires after 1 ms instead, so
 * every time setting is capped here.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Reads a header map: an object of string values, with names and values that HTTP can carry (no CR, LF or NUL, which
 * would let a value smuggle in another header, and names that are tokens). Values are never echoed in errors.
 */
export function readHeaders(setting: string, value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(setting, kindOf(value), "an object of header names to string values");
  }
  const headers: Record<string, string> = {};
  for (const [name, text] of Object.entries(value)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new ConfigError(setting, `a header named ${JSON.stringify(name)}`, "header names made of token characters");
    }
    if (typeof text !== "string" || /[\r\n\0]/.test(text)) {
      throw new ConfigError(
        setting,
        `header ${JSON.stringify(name)} = ${typeof text === "string" ? "a string with CR, LF or NUL" : kindOf(text)}`,
        "string header values without CR, LF or NUL",
      );
    }
    headers[name] = text;
  }
  return headers;
}

/** A bad setting as shown in an error: quoted, and cut when long (a 50 MB value must not become a 50 MB message). */
export function echo(raw: unknown): string {
  const text = typeof raw === "number" ? String(raw) : (JSON.stringify(raw) ?? String(raw));
  return text.length > 120 ? `${text.slice(0, 80)}… (${text.length} characters)` : text;
}

/**
 * A URL as text with credentials, query and fragment hidden, for error messages. The value may not parse, so its
 * parts are not known: everything before the last `@` (after a `scheme://`) is taken as user info, as a password may
 * hold `#`, `?` or `/`; then whatever follows a `?` or `#` goes.
 */
export function redactUrlText(raw: unknown): string {
  const text = String(raw);
  const at = text.lastIndexOf("@");
  const scheme = at < 0 ? "" : (/^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? "");
  const shown = at < 0 ? text : `${scheme}****${text.slice(at)}`;
  return echo(shown.replace(/([?#])[\s\S]*$/, "$1…"));
}

/** The option name plus its environment variable, for error messages. */
function label(option: string, envName?: string): string {
  return envName ? `${option} (env ${envName})` : option;
}

/** Option, else environment (blank counts as unset), else `undefined`. */
function pick<T>(option: T | undefined, env: Env, envName: string | undefined): T | string | undefined {
  if (option !== undefined) return option;
  if (envName === undefined) return undefined;
  const value = env[envName];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

const LOOPBACK_HOSTS = new Set(["localhost", "[::1]", "::1"]);

/** Whether a hostname is this machine (loopback range or `localhost`). */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname) || hostname.endsWith(".localhost");
}

/** Reads a URL setting: must be absolute http(s) with no credentials, query or fragment. Trailing slashes dropped. */
export function readUrl(option: string, envName: string | undefined, value: unknown, env: Env): string | undefined {
  const raw = pick(value as string | undefined, env, envName);
  if (raw === undefined) return undefined;
  const expected = "an absolute http:// or https:// URL such as https://host.example.com or http://127.0.0.1:4319";
  // Every echo of the value goes through redactUrlText: a bad URL may still carry a key in it.
  if (typeof raw !== "string" || raw.trim() === "") {
    throw new ConfigError(label(option, envName), redactUrlText(raw), expected);
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(label(option, envName), redactUrlText(raw), expected);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(label(option, envName), redactUrlText(raw), expected);
  }
  if (url.username || url.password) {
    throw new ConfigError(
      label(option, envName),
      redactUrlText(raw),
      "a URL without credentials (pass the key as apiKey / TRACEWIRE_API_KEY)",
    );
  }
  if (url.search || url.hash) {
    throw new ConfigError(label(option, envName), redactUrlText(raw), "a base URL without ?query or #fragment");
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** Reads an `entity/project` setting. */
export function readProject(option: string, envName: string | undefined, value: unknown, env: Env): string | undefined {
  const raw = pick(value as string | undefined, env, envName);
  if (raw === undefined) return undefined;
  if (typeof raw !== "string" || !/^[^/\s]+\/[^/\s]+$/.test(raw.trim())) {
    throw new ConfigError(label(option, envName), echo(raw), 'a project in the form "entity/project"');
  }
  return raw.trim();
}

/** Reads a number setting with bounds; strings from the environment must be plain decimal numbers. */
export function readNumber(
  option: string,
  envName: string | undefined,
  value: unknown,
  env: Env,
  rule: { min: number; max?: number; integer?: boolean },
): number | undefined {
  const raw = pick(value as number | undefined, env, envName);
  if (raw === undefined) return undefined;
  const number = typeof raw === "number" ? raw : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  const kind = rule.integer ? "an integer" : "a number";
  const range = rule.max === undefined ? `>= ${rule.min}` : `>= ${rule.min} and <= ${rule.max}`;
  if (
    !Number.isFinite(number) ||
    (rule.integer && !Number.isInteger(number)) ||
    number < rule.min ||
    (rule.max !== undefined && number > rule.max)
  ) {
    throw new ConfigError(label(option, envName), echo(raw), `${kind} ${range}`);
  }
  return number;
}

/** Reads a boolean setting: `true/false/1/0/yes/no/on/off` from the environment. */
export function readBoolean(
  option: string,
  envName: string | undefined,
  value: unknown,
  env: Env,
): boolean | undefined {
  const raw = pick(value as boolean | undefined, env, envName);
  if (raw === undefined || typeof raw === "boolean") return raw;
  const text = String(raw).toLowerCase();
  if (["true", "1", "yes", "on"].includes(text)) return true;
  if (["false", "0", "no", "off"].includes(text)) return false;
  throw new ConfigError(label(option, envName), echo(raw), "true or false");
}

/** Reads the API key: a non-empty string without whitespace. The value is masked in any error. */
export function readApiKey(value: unknown, env: Env): string | undefined {
  const raw = pick(value as string | undefined, env, ENV.apiKey);
  if (raw === undefined) return undefined;
  if (typeof raw !== "string" || raw.trim() === "" || /\s/.test(raw.trim())) {
    const shown = typeof raw === "string" ? maskSecret(raw) : typeof raw;
    throw new ConfigError(label("apiKey", ENV.apiKey), shown, "a non-empty API key without spaces");
  }
  return raw.trim();
}

/**
 * Refuses to send a key in clear text over the network: `http://` is fine for loopback (the local service), and
 * elsewhere only with the explicit opt-in.
 */
export function checkKeyTransport(
  option: string,
  url: string,
  apiKey: string | undefined,
  allowInsecure: boolean,
): void {
  const { protocol, hostname } = new URL(url);
  if (protocol === "http:" && apiKey !== undefined && !allowInsecure && !isLoopbackHost(hostname)) {
    throw new ConfigError(
      option,
      url,
      `an https:// URL: an API key sent over plain http:// to ${hostname} can be read on the network. ` +
        "Use https://, or set allowInsecureHttp: true (env TRACEWIRE_ALLOW_INSECURE_HTTP=true) if you accept that",
    );
  }
}

function readRetry(options: RetryOptions | undefined, env: Env): ResolvedRetry {
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw new ConfigError("retry", kindOf(options), "an object of retry settings");
  }
  const retry = options ?? {};
  const num = (key: keyof RetryOptions, min: number, max: number) =>
    readNumber(`retry.${key}`, key === "maxAttempts" ? ENV.maxAttempts : undefined, retry[key], env, {
      min,
      max,
      integer: true,
    });
  const modes = ["replay", "refused", "refused-with-retry-after"];
  if (retry.nonIdempotent !== undefined && !modes.includes(retry.nonIdempotent)) {
    throw new ConfigError("retry.nonIdempotent", JSON.stringify(retry.nonIdempotent), `one of ${modes.join(", ")}`);
  }
  const statuses = retry.retryableStatuses;
  if (
    statuses !== undefined &&
    (!Array.isArray(statuses) || !statuses.every((s) => Number.isInteger(s) && s >= 100 && s <= 599))
  ) {
    throw new ConfigError(
      "retry.retryableStatuses",
      Array.isArray(statuses) ? JSON.stringify(statuses.slice(0, 20)) : kindOf(statuses),
      "an array of HTTP status codes (integers 100-599)",
    );
  }
  return {
    maxAttempts: num("maxAttempts", 1, 1000) ?? DEFAULT_RETRY.maxAttempts,
    baseDelayMs: num("baseDelayMs", 0, MAX_TIMER_MS) ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: num("maxDelayMs", 0, MAX_TIMER_MS) ?? DEFAULT_RETRY.maxDelayMs,
    maxElapsedMs: num("maxElapsedMs", 0, MAX_TIMER_MS) ?? DEFAULT_RETRY.maxElapsedMs,
    maxRetryAfterMs: num("maxRetryAfterMs", 0, MAX_TIMER_MS) ?? DEFAULT_RETRY.maxRetryAfterMs,
    nonIdempotent: retry.nonIdempotent ?? DEFAULT_RETRY.nonIdempotent,
    retryableStatuses: statuses ? [...statuses] : DEFAULT_RETRY.retryableStatuses,
  };
}

/** What a service-specific resolver needs to know about its service. */
export interface ServiceSpec {
  /** Human name used in errors, e.g. "TracingClient". */
  client: string;
  /** Environment variable holding the base URL. */
  baseUrlEnv: string;
  /** Retry mode for non-idempotent requests (DESIGN §2). */
  nonIdempotent: RetryOptions["nonIdempotent"];
  /** Normalises the URL once read (e.g. the training host without `/v1`). */
  normalizeUrl?: (url: string) => string;
  /** The service's default deadline, when it differs from {@link DEFAULTS} (model services answer slowly). */
  defaultTimeoutMs?: number;
}

/** Resolves the transport settings of one client, or throws a {@link ConfigError}. */
export function resolveTransport(spec: ServiceSpec, options: ClientOptions): TransportOptions {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new ConfigError(`${spec.client} options`, typeof options, "an options object");
  }
  const env = envOf(options.env);
  const read = readUrl("baseUrl", spec.baseUrlEnv, options.baseUrl, env);
  if (read === undefined) {
    throw new ConfigError(
      label("baseUrl", spec.baseUrlEnv),
      undefined,
      `the ${spec.client} base URL: pass { baseUrl } or set ${spec.baseUrlEnv}`,
    );
  }
  const baseUrl = spec.normalizeUrl ? spec.normalizeUrl(read) : read;
  const apiKey = readApiKey(options.apiKey, env);
  const allowInsecure =
    readBoolean("allowInsecureHttp", ENV.allowInsecureHttp, options.allowInsecureHttp, env) ?? false;
  checkKeyTransport(label("baseUrl", spec.baseUrlEnv), baseUrl, apiKey, allowInsecure);
  if (options.retry !== undefined && (options.retry === null || typeof options.retry !== "object")) {
    throw new ConfigError("retry", kindOf(options.retry), "an object of retry settings");
  }
  const retry = readRetry({ nonIdempotent: spec.nonIdempotent, ...options.retry }, env);
  const ms = (option: keyof ClientOptions, envName?: string, max = MAX_TIMER_MS) =>
    readNumber(option, envName, options[option], env, { min: 1, max, integer: true });
  const headers = readHeaders("headers", options.headers);
  return {
    baseUrl,
    ...(apiKey === undefined ? {} : { apiKey }),
    headers: { ...headers },
    retry,
    timeoutMs: ms("timeoutMs", ENV.timeoutMs) ?? spec.defaultTimeoutMs ?? DEFAULTS.timeoutMs,
    connectTimeoutMs: ms("connectTimeoutMs") ?? DEFAULTS.connectTimeoutMs,
    bodyTimeoutMs: ms("bodyTimeoutMs") ?? DEFAULTS.bodyTimeoutMs,
    maxConnections: ms("maxConnections", undefined, 10_000) ?? DEFAULTS.maxConnections,
    gzip: readBoolean("gzip", undefined, options.gzip, env) ?? false,
  };
}
