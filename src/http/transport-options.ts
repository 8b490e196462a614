/**
 * The shapes an {@link HttpTransport} (transport.ts) takes and gives: one request's options, the transport's settings,
 * a response whose body is still to be read.
 */
import type { RequestInfo } from "../errors.js";
import type { QueryValue } from "./request-parts.js";
import type { ResolvedRetry, RetryOptions } from "./retry.js";

/** One HTTP request, relative to the transport's base URL. */
export interface RequestOptions {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path below the base URL, starting with `/`. Path parameters must already be encoded ({@link encodePath}). */
  path: string;
  query?: Record<string, QueryValue>;
  /** A JSON body (serialised once, before the first attempt). */
  json?: unknown;
  /** A raw body; `contentType` says what it is. Mutually exclusive with `json`. */
  body?: Uint8Array | string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Overrides the method's default (GET/PUT/DELETE idempotent, POST not). Reads sent by POST set this. */
  idempotent?: boolean;
  /** gzip the body (overrides the transport's setting). */
  gzip?: boolean;
  signal?: AbortSignal;
  /** Overrides the transport's overall deadline for this request, in ms. */
  timeoutMs?: number;
  /**
   * Narrows the retry rules for this request: e.g. `{ nonIdempotent: "refused" }` for a write with no
   * client-chosen key (a replay would duplicate it), or OTLP's own retryable statuses.
   */
  retry?: Pick<RetryOptions, "nonIdempotent" | "retryableStatuses" | "maxAttempts">;
}

/** Settings of one transport (one service, one origin). */
export interface TransportOptions {
  /** Service base URL; may carry a path prefix (`https://host/traces`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`. Never logged. */
  apiKey?: string;
  /** Headers sent with every request (after the defaults, before per-request headers). */
  headers?: Record<string, string>;
  retry: ResolvedRetry;
  /** Overall deadline of one request in ms, retries included; for streaming reads it runs until the headers. */
  timeoutMs: number;
  /** TCP (+TLS) connect timeout in ms. */
  connectTimeoutMs: number;
  /** Longest silence allowed while a response body streams, in ms. */
  bodyTimeoutMs: number;
  /** gzip request bodies of at least {@link GZIP_MIN_BYTES} bytes. */
  gzip: boolean;
  /**
   * Compress bodies up to this many bytes on the calling thread instead of the thread pool (default 0: never).
   * For background exports only: it saves the thread-pool round trips, which cost about as much CPU again as
   * compressing, at the price of blocking the event loop while it runs.
   */
  gzipSyncMaxBytes?: number;
  /** Sockets kept per origin. */
  maxConnections: number;
  /** How a timeout error names the setting behind a deadline when not the client options' (`otlpTimeoutMillis`). */
  timeoutSettings?: Partial<Record<"timeoutMs" | "connectTimeoutMs" | "bodyTimeoutMs", string>>;
  /**
   * Retry a request whose connection was refused or whose host did not resolve (default true). The export queues
   * turn it off: they retry on their own schedule, and a flush must learn at once that the service is down.
   */
  retryUnreachable?: boolean;
}

/** Bodies smaller than this are not worth compressing. */
export const GZIP_MIN_BYTES = 1024;

/** A response whose status was < 400; `body` is still to be read. */
export interface OpenResponse {
  status: number;
  headers: Record<string, string>;
  body: AsyncIterable<Uint8Array>;
  request: RequestInfo;
}
