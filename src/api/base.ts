/**
 * What every service client shares: the transport, the default project, per-call options and the small helpers
 * that turn a method call into one {@link RequestOptions}.
 */
import {
  type ClientOptions,
  kindOf,
  MAX_TIMER_MS,
  readHeaders,
  refuseUnknownSettings,
  unknownOption,
} from "../config.js";
import { ConfigError, ValidationError } from "../errors.js";
import { readNdjson } from "../http/ndjson.js";
import type { RetryOptions } from "../http/retry.js";
import type { HttpTransport, RequestOptions } from "../http/transport.js";

/** Options accepted by every client method. */
export interface CallOptions {
  /** Abort the request (and any stream it returns). */
  signal?: AbortSignal;
  /** Overrides the client's deadline for this call, in ms. */
  timeoutMs?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

/** A request body whose `project_id` may be left out when the client was given a default project. */
export type WithProject<T extends { project_id: string }> = Omit<T, "project_id"> & { project_id?: string };

/** The state a group of endpoint methods needs. */
export interface ServiceContext {
  readonly transport: HttpTransport;
  /** Default `entity/project` filled into request bodies that omit `project_id`. */
  readonly project: string | undefined;
}

/** What other clients (the `openai` package) call the settings tracewire names otherwise. */
const OTHER_NAMES: Readonly<Record<string, string>> = {
  timeout: "timeoutMs",
  maxRetries: "the client option retry: { maxAttempts }",
};

const CALL_OPTIONS = ["signal", "timeoutMs", "headers"] as const satisfies readonly (keyof CallOptions)[];

/** Checks per-call options (a `ValidationError` naming the bad one) before anything is sent. */
function checkCallOptions(options: CallOptions): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ValidationError(`Call options must be an object, got ${kindOf(options)}.`, "options");
  }
  checkKnownKeys(options, CALL_OPTIONS, "Call options", { noun: "option", aliases: OTHER_NAMES });
  const { signal, timeoutMs, headers } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new ValidationError(`Call option signal must be an AbortSignal, got ${kindOf(signal)}.`, "signal");
  }
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_TIMER_MS)) {
    throw new ValidationError(
      `Call option timeoutMs must be an integer number of ms from 1 to ${MAX_TIMER_MS}, got ${typeof timeoutMs === "number" ? timeoutMs : kindOf(timeoutMs)}.`,
      "timeoutMs",
    );
  }
  if (headers !== undefined) {
    try {
      readHeaders("headers", headers);
    } catch (err) {
      throw new ValidationError(`Call option ${(err as Error).message}`, "headers");
    }
  }
}

/** Merges per-call options into a request. */
export function withCall(request: RequestOptions, options: CallOptions | undefined): RequestOptions {
  if (!options) return request;
  checkCallOptions(options);
  return {
    ...request,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.headers ? { headers: { ...request.headers, ...options.headers } } : {}),
  };
}

/** Fills `project_id` from the client's default, or says clearly that one is needed. */
export function withProject<T extends { project_id?: string }>(
  context: ServiceContext,
  body: T,
  method: string,
): T & { project_id: string } {
  requireBody(body, method);
  const project = body.project_id ?? context.project;
  if (project === undefined) {
    throw new ValidationError(
      `${method} needs a project: pass project_id ("entity/project") or give the client a project (option project / env TRACEWIRE_PROJECT).`,
      "project_id",
    );
  }
  if (typeof project !== "string" || !/^[^/\s]+\/[^/\s]+$/.test(project)) {
    throw new ValidationError(
      `${method}: project_id must look like "entity/project", got ${typeof project === "string" && project.length > 200 ? `a string of ${project.length} characters` : JSON.stringify(project)}.`,
      "project_id",
    );
  }
  checkPaging(body as Record<string, unknown>, method);
  return { ...body, project_id: project };
}

/** A bad value as a message shows it: `NaN` and `Infinity` as themselves (JSON would say `null`). */
export function describeValue(value: unknown): string {
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  const json = JSON.stringify(value);
  return json === undefined ? typeof value : json;
}

/** Largest `limit` / `offset` accepted: anything larger is not a page size but a mistake (or an overflow). */
const MAX_PAGING = Number.MAX_SAFE_INTEGER;

/**
 * Checks the paging fields of a request body or query (`limit`, `offset`, `sample_limit`) when present: each must
 * be a whole number >= 0 (the service's own bounds are checked by the service).
 */
export function checkPaging(body: Record<string, unknown>, method: string): void {
  for (const key of ["limit", "offset", "sample_limit"]) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_PAGING) {
      throw new ValidationError(
        `${method}: ${key} must be a whole number >= 0, got ${typeof value === "number" || typeof value === "string" ? describeValue(value) : kindOf(value)}.`,
        key,
      );
    }
  }
}

/**
 * Refuses keys of an options or parameter object that are not in `known`, naming the likeliest meant one (config.ts
 * `unknownOption`): a plain JavaScript caller gets no excess-property check, and a misspelt option (`pollInterval`, or
 * the `openai` package's `timeout`) would otherwise be ignored without a word. `aliases` maps other libraries' names to
 * ours.
 */
export function checkKnownKeys(
  value: object,
  known: readonly string[],
  what: string,
  { noun = "parameter", aliases = {} }: { noun?: string; aliases?: Readonly<Record<string, string>> } = {},
): void {
  const unknown = unknownOption(value, known, aliases);
  if (!unknown) return;
  const { key, hint } = unknown;
  throw new ValidationError(
    `${what}: unknown ${noun} ${key}${hint ? ` (did you mean ${hint}?)` : ""}. Known: ${known.join(", ")}.`,
    key,
  );
}

/** Every option of {@link ClientOptions}; the compiler says when one is added there and not here. */
const CLIENT_OPTIONS = [
  "apiKey",
  "baseUrl",
  "timeoutMs",
  "connectTimeoutMs",
  "bodyTimeoutMs",
  "retry",
  "headers",
  "gzip",
  "maxConnections",
  "allowInsecureHttp",
  "env",
] as const satisfies readonly (keyof ClientOptions)[];
const clientOptionsComplete: Exclude<keyof ClientOptions, (typeof CLIENT_OPTIONS)[number]> extends never
  ? true
  : never = true;
void clientOptionsComplete;

/** Every setting of {@link RetryOptions}; the compiler says when one is added there and not here. */
const RETRY_OPTIONS = [
  "maxAttempts",
  "baseDelayMs",
  "maxDelayMs",
  "maxElapsedMs",
  "maxRetryAfterMs",
  "nonIdempotent",
  "retryableStatuses",
] as const satisfies readonly (keyof RetryOptions)[];
const retryOptionsComplete: Exclude<keyof RetryOptions, (typeof RETRY_OPTIONS)[number]> extends never ? true : never =
  true;
void retryOptionsComplete;

/** The `openai` package's and other clients' names for a retry setting. */
const RETRY_OTHER_NAMES: Readonly<Record<string, string>> = { maxRetries: "maxAttempts", attempts: "maxAttempts" };

/**
 * Options of one client or another beyond {@link ClientOptions} (`project`: tracing and inference; `trace`: the chat
 * clients). Every client takes all of them, so that one options object can be shared by the three.
 */
const SERVICE_OPTIONS = ["project", "trace"];

/**
 * Refuses a client constructor option no client knows (a {@link ConfigError} naming it and the option meant; never
 * its value, which may be a misspelt key): the `openai` package's `timeout` or a typo would otherwise do nothing.
 */
export function checkClientOptions(client: string, options: unknown): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) return; // resolveTransport says so
  refuseUnknownSettings(client, options, [...CLIENT_OPTIONS, ...SERVICE_OPTIONS], OTHER_NAMES);
  // A misspelt retry setting (`retry: { maxAttemps: 1 }`) would otherwise leave the default in force without a word.
  const { retry } = options as { retry?: unknown };
  if (retry === null || typeof retry !== "object" || Array.isArray(retry)) return; // resolveTransport says so
  const unknownRetry = unknownOption(retry, RETRY_OPTIONS, RETRY_OTHER_NAMES);
  if (!unknownRetry) return;
  throw new ConfigError(
    `${client} option retry.${unknownRetry.key}`,
    "a retry setting it does not know",
    `${unknownRetry.hint ? `retry.${unknownRetry.hint}, or ` : ""}one of ${RETRY_OPTIONS.map((k) => `retry.${k}`).join(", ")}`,
  );
}

/** Requires a request object (not null, not an array, not a primitive). */
export function requireBody<T>(body: T, method: string): T {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ValidationError(`${method} expects a request object, got ${kindOf(body)}.`);
  }
  return body;
}

/** Requires `body[field]` to be an array; returns it. */
export function requireArray<T>(value: T[] | undefined, field: string, method: string): T[] {
  if (!Array.isArray(value))
    throw new ValidationError(`${method}: ${field} must be an array, got ${kindOf(value)}.`, field);
  return value;
}

/**
 * Requires a non-empty string argument (ids, names, digests), at most `max` characters when given. `method`
 * prefixes the message (`calls.read: id must be …`); leave it out where the parameter name says enough.
 */
export function requireString(value: unknown, name: string, method?: string, max?: number): string {
  const where = method ? `${method}: ` : "";
  if (typeof value !== "string" || value.trim() === "") {
    const got =
      typeof value === "string"
        ? value.length > 60
          ? `a blank string of ${value.length} characters`
          : JSON.stringify(value)
        : kindOf(value);
    throw new ValidationError(`${where}${name} must be a non-empty string, got ${got}.`, name);
  }
  if (max !== undefined && value.length > max) {
    throw new ValidationError(`${where}${name} must be at most ${max} characters, got ${value.length}.`, name);
  }
  return value;
}

/**
 * An NDJSON endpoint as an async iterable. Nothing is sent until iteration starts; each object is yielded as its
 * line arrives; breaking out of the loop closes the connection.
 */
export async function* ndjsonRequest<T>(transport: HttpTransport, request: RequestOptions): AsyncGenerator<T> {
  const response = await transport.stream({ ...request, headers: { accept: "application/jsonl", ...request.headers } });
  yield* readNdjson<T>(response.body);
}
