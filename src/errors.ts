/**
 * tracewire's error family. Every error the library throws is a {@link TracewireError}; HTTP failures follow the
 * shape of the `openai` package's errors (`ApiError` with `status`, a subclass per status, `ConnectionError`,
 * `TimeoutError`) so code that already handles those reads naturally here.
 *
 * Nothing in this module may ever print an API key: messages are built from masked values only.
 */
import { DEFAULT_REDACTOR, REDACTED } from "./secrets.js";

/** Base class of every error tracewire throws. */
export class TracewireError extends Error {
  /** The class's name (`"ConfigError"`, `"NotFoundError"`, …), so logs and `String(error)` say which error it is. */
  override name = "TracewireError";
}

/**
 * A setting is missing or malformed. Raised by `init()` and constructors, never later inside a traced call.
 * `setting` names the option (and its environment variable where there is one), `value` is the offending value
 * with secrets masked, and `expected` says what would have been accepted.
 */
export class ConfigError extends TracewireError {
  override name = "ConfigError";
  /** The option that is wrong, with its environment variable where it has one (`"baseUrl (TRACEWIRE_BASE_URL)"`). */
  readonly setting: string;
  /** The value that was given, with secrets masked; `undefined` when the setting was missing. */
  readonly value: string | undefined;
  /** What would have been accepted (`"an http(s) URL"`). */
  readonly expected: string;

  constructor(setting: string, value: string | undefined, expected: string) {
    super(
      value === undefined
        ? `Missing ${setting}: expected ${expected}.`
        : `Invalid ${setting} (got ${value}): expected ${expected}.`,
    );
    this.setting = setting;
    this.value = value;
    this.expected = expected;
  }
}

/** A request failed a client-side check before anything was sent. `param` names the offending field. */
export class ValidationError extends TracewireError {
  override name = "ValidationError";
  /** The request field (or argument) that failed the check, when the check is about one. */
  readonly param: string | undefined;

  constructor(message: string, param?: string) {
    super(message);
    this.param = param;
  }
}

/**
 * Why a call-scoped request (feedback, a score, a rename) was not sent:
 * - `tracing-off`: no processor was set up when the handle was made (`callById` before `init()`, or tracing off);
 * - `queue-full`: the calls queue was full;
 * - `shutdown`: the processor shut down before the request (or the span of its call) could be sent;
 * - `call-not-exported`: its call's span was dropped before export, so the service never saw the call (feedback is
 *   never sent for a call the service does not know);
 * - `flush`: `flush()` returned before the request could be sent; it stays queued (`queued` is true) and goes out
 *   when the service can take it, or is dropped at shutdown (`stats()` counts which).
 */
export type NotSentReason = "tracing-off" | "queue-full" | "shutdown" | "call-not-exported" | "flush";

/** A call-scoped request tracewire did not send (or had not sent when `flush()` returned): `reason` says why. */
export class NotSentError extends TracewireError {
  override name = "NotSentError";
  /** Why the request was not sent (see {@link NotSentReason}). */
  readonly reason: NotSentReason;
  /** Whether the request is still queued and will be sent later (only after a `flush()` that ended first). */
  readonly queued: boolean;

  constructor(reason: NotSentReason, message: string) {
    super(message);
    this.reason = reason;
    this.queued = reason === "flush";
  }
}

/** The server answered in a way that breaks its own wire format (a malformed NDJSON line, a broken SSE frame). */
export class ProtocolError extends TracewireError {
  override name = "ProtocolError";
  /** 1-based line number within the response body, when the failure is tied to a line. */
  readonly line: number | undefined;

  constructor(message: string, line?: number) {
    super(message);
    this.line = line;
  }
}

/** Where a failed request went: kept on every {@link ApiError} so logs say which call failed. */
export interface RequestInfo {
  /** The HTTP method (`"POST"`). */
  method: string;
  /** Path and query, without origin (the origin can carry a tenant name; the path never carries secrets). */
  path: string;
}

/**
 * A request reached the HTTP layer and failed. `status` is the HTTP status, or `undefined` when no response was
 * received (see {@link ConnectionError}) or when the error arrived inside a 200 stream without a status code.
 */
export class ApiError extends TracewireError {
  override name = "ApiError";
  /** The HTTP status; `undefined` when no response arrived or the error came inside a 200 stream. */
  readonly status: number | undefined;
  /** The parsed JSON error body, the raw text when it was not JSON, or `undefined`. */
  readonly body: unknown;
  /** The server's request id (`x-request-id` / `request-id`), for support tickets. */
  readonly requestId: string | undefined;
  /** The request's HTTP method (`"POST"`). */
  readonly method: string;
  /** The request's path and query, without the origin (`"/call/read"`). */
  readonly path: string;
  /** Response headers, lower-cased. Empty when there was no response. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number | undefined,
    message: string,
    request: RequestInfo,
    options: { body?: unknown; requestId?: string; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.body = options.body;
    this.requestId = options.requestId;
    this.method = request.method;
    this.path = request.path;
    this.headers = maskCredentialHeaders(options.headers ?? {});
  }
}

/** Response headers as kept on an error: a `set-cookie` (or any credential header) is masked, never printed. */
function maskCredentialHeaders(headers: Record<string, string>): Record<string, string> {
  const keys = Object.keys(headers);
  if (!keys.some((key) => DEFAULT_REDACTOR.matches(key))) return headers;
  const masked: Record<string, string> = {};
  for (const key of keys) masked[key] = DEFAULT_REDACTOR.matches(key) ? REDACTED : headers[key]!;
  return masked;
}

/** 400: the server rejected the request as malformed. Final. */
export class BadRequestError extends ApiError {
  override name = "BadRequestError";
}
/** 401: the API key is missing, wrong or not valid for this entity/project. Final. */
export class AuthenticationError extends ApiError {
  override name = "AuthenticationError";
}
/** 402: the account is out of quota (inference service). Final. */
export class QuotaExceededError extends ApiError {
  override name = "QuotaExceededError";
}
/** 403: the key is valid but not allowed to do this. Final. */
export class PermissionDeniedError extends ApiError {
  override name = "PermissionDeniedError";
}
/** 404: no such resource, model or endpoint. Final. */
export class NotFoundError extends ApiError {
  override name = "NotFoundError";
}
/** 409: the request conflicts with the resource's current state. Final. */
export class ConflictError extends ApiError {
  override name = "ConflictError";
}
/** 413: the request body is too large for the server. Final (split the request). */
export class RequestTooLargeError extends ApiError {
  override name = "RequestTooLargeError";
}

/** One entry of a FastAPI validation error (`{"detail": [...]}` with status 422). */
export interface ValidationDetail {
  /** Where the problem is: the path into the request (`["body", "start", "op_name"]`). */
  loc: (string | number)[];
  /** The server's description of the problem. */
  msg: string;
  /** The kind of problem (`"missing"`, `"string_type"`, …). */
  type: string;
  [key: string]: unknown;
}

/** 422: the server's validation rejected the request. `detail` holds the server's list of problems. */
export class UnprocessableEntityError extends ApiError {
  override name = "UnprocessableEntityError";
  /** The server's list of validation problems (`body.detail`), or `[]` when the body has none. */
  get detail(): ValidationDetail[] {
    const detail = (this.body as { detail?: unknown } | undefined)?.detail;
    return Array.isArray(detail) ? (detail as ValidationDetail[]) : [];
  }
}
/** 429: rate or concurrency limit. Retried with backoff before it reaches you. */
export class RateLimitError extends ApiError {
  override name = "RateLimitError";
}
/** 5xx: the server failed. Retried where that is safe before it reaches you. */
export class InternalServerError extends ApiError {
  override name = "InternalServerError";
}

/** No usable response: the connection was refused, reset or failed before a complete response arrived. */
export class ConnectionError extends ApiError {
  override name = "ConnectionError";
  constructor(message: string, request: RequestInfo, cause?: unknown) {
    super(undefined, message, request, { cause });
  }
}
/** The request's deadline (or a connect, headers or body timeout) passed before it completed. */
export class TimeoutError extends ConnectionError {
  override name = "TimeoutError";
}
/** The caller's `AbortSignal` fired. `cause` is the signal's reason. */
export class AbortError extends ApiError {
  override name = "AbortError";
  constructor(request: RequestInfo, reason?: unknown) {
    // An Error as the reason (a deadline that names its setting) says why; DOMException's defaults add nothing.
    const why = reason instanceof Error && reason.name === "Error" && reason.message ? `: ${reason.message}` : "";
    super(undefined, `${request.method} ${request.path} was aborted by the caller${why}.`, request, { cause: reason });
  }
}

const STATUS_CLASSES: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: QuotaExceededError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: RequestTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The {@link ApiError} subclass for an HTTP status. */
export function apiErrorClass(status: number | undefined): typeof ApiError {
  if (status === undefined) return ApiError;
  if (!Number.isInteger(status)) {
    throw new ValidationError(
      `apiErrorClass expects an HTTP status (an integer) or undefined, got ${typeof status === "number" ? status : typeof status}.`,
      "status",
    );
  }
  return STATUS_CLASSES[status] ?? (status >= 500 ? InternalServerError : ApiError);
}
