import {
  AbortError,
  type ApiError,
  ConnectionError,
  ProtocolError,
  type RequestInfo,
  TimeoutError,
  TracewireError,
} from "../errors.js";
import { describeAs } from "../own-objects.js";
import { anySignal, bytesToText, runtimeTag, utf8Length } from "../runtime.js";
import { DEFAULT_REDACTOR, maskKnownSecrets, REDACTED } from "../secrets.js";
import { VERSION } from "../version.js";
import { makeApiError } from "./error-body.js";
import { gzipBody } from "./gzip.js";
import {
  buildQuery,
  errorCode,
  isUnreachable,
  NOT_SENT_CODES,
  parseMaybeJson,
  readAll,
  sleep,
  TIMEOUT_CODES,
} from "./request-parts.js";
import { type AttemptOutcome, isRetryable, nextDelay, parseRetryAfter } from "./retry.js";
import { createSender, type Sender } from "./send.js";
import { GZIP_MIN_BYTES, type OpenResponse, type RequestOptions, type TransportOptions } from "./transport-options.js";

export { encodePath, isUnreachable, type QueryValue } from "./request-parts.js";
export {
  GZIP_MIN_BYTES,
  type OpenResponse,
  type RequestOptions,
  type TransportOptions,
} from "./transport-options.js";

/** A response body as the senders hand it out: its chunks, and a way to end it early. */
type Body = AsyncIterable<Uint8Array> & { destroy?: (err?: Error) => void };

/** Why a response stream still open at `close()` ended. */
const CLOSED_WHILE_OPEN =
  "the response stream was ended because the client was closed (close() was called) while it was open";

let userAgentText: string | undefined;

/** The `User-Agent` of every request: `tracewire/<version> <runtime>/<version>` (read on first use, not at import). */
export function userAgent(): string {
  userAgentText ??= `tracewire/${VERSION} ${runtimeTag()}`;
  return userAgentText;
}

/** A body's size in bytes. */
function byteLength(body: Uint8Array | string): number {
  return typeof body === "string" ? utf8Length(body) : body.byteLength;
}

/**
 * The one HTTP path of every native client: an undici `Pool` per origin with keep-alive on Node, the runtime's
 * `fetch` elsewhere (src/http/send.ts chooses), an overall deadline,
 * connect/headers/body timeouts, the caller's `AbortSignal` at every stage, retries by the rules of
 * {@link isRetryable}, and typed errors. Streaming reads hand back the body as soon as the headers say success.
 */
export class HttpTransport {
  readonly origin: string;
  private readonly basePath: string;
  private readonly options: TransportOptions;
  /** How requests leave: undici's pool on Node, `fetch` elsewhere; made by the first request. */
  private sender: Sender | undefined;
  private closed = false;
  /** Response streams handed out and not yet read to their end or released: what `close()` ends. */
  private readonly openBodies = new Set<Body>();
  /** The credentials this transport sends (its key, credential-named headers), longest first: see {@link redact}. */
  private readonly secrets: readonly string[];

  constructor(options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.options = options;
    const secrets = new Set<string>();
    const add = (value: string | undefined) => {
      const trimmed = value?.replace(/^(?:Bearer|Basic|Token)\s+/i, "").trim();
      if (trimmed && trimmed.length >= 8) secrets.add(trimmed);
    };
    add(options.apiKey);
    for (const [name, value] of Object.entries(options.headers ?? {})) if (DEFAULT_REDACTOR.matches(name)) add(value);
    this.secrets = [...secrets].sort((a, b) => b.length - a.length);
  }

  /**
   * `text` (an answer's body, before it goes into an error) with the credentials this transport sends, and every
   * known secret, replaced by `REDACTED`: some servers and proxies quote the key they refused ("Incorrect API key
   * provided: …"), and error messages and bodies end up in logs and traces.
   */
  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return maskKnownSecrets(out);
  }

  private connect(): Sender {
    if (this.sender) return this.sender;
    this.sender = createSender({
      origin: this.origin,
      maxConnections: this.options.maxConnections,
      connectTimeoutMs: this.options.connectTimeoutMs,
      headersTimeoutMs: this.options.timeoutMs,
      bodyTimeoutMs: this.options.bodyTimeoutMs,
    });
    // Closed before its first request: requests fail as on any closed transport.
    if (this.closed) this.sender.close().catch(() => {});
    return this.sender;
  }

  /** Sends a request and parses the JSON answer (`undefined` for an empty body). */
  async json<T>(request: RequestOptions): Promise<T> {
    return this.execute(request, async (res) => {
      const text = bytesToText(await readAll(res.body));
      if (text === "") return undefined as T;
      let parsed: T;
      try {
        parsed = JSON.parse(text) as T;
      } catch {
        // A proxy's HTML page, say: the request may well have been processed, so this is final, not retried.
        const clean = this.redact(text);
        const preview = clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
        throw new ProtocolError(
          `${request.method} ${res.request.path} answered ${res.status} with a body that is not JSON: ${JSON.stringify(preview)}`,
        );
      }
      return parsed;
    });
  }

  /** Sends a request and returns the raw answer bytes (a `Buffer` where the runtime has one: Node, Bun, Deno). */
  async bytes(request: RequestOptions): Promise<Buffer> {
    return this.execute(request, async (res) => (await readAll(res.body)) as Buffer);
  }

  /** Sends a request and returns status, headers and the whole body (for answers whose format the headers tell). */
  async buffered(
    request: RequestOptions,
  ): Promise<{ status: number; headers: Record<string, string>; body: Uint8Array }> {
    return this.execute(request, async (res) => ({
      status: res.status,
      headers: res.headers,
      body: await readAll(res.body),
    }));
  }

  /**
   * Sends a request and returns once the response headers say success; the body is read by the caller. Errors
   * while reading it arrive as {@link ConnectionError}, {@link TimeoutError} or {@link AbortError}. Breaking out of
   * the iteration releases the connection.
   */
  async stream(request: RequestOptions): Promise<OpenResponse> {
    return this.execute(request, async (res) => {
      this.openBodies.add(res.body as Body);
      return { ...res, body: this.guardBody(res.body, res.request, request) };
    });
  }

  /**
   * Closes the transport: requests in flight get their answers first, later ones fail at once with a
   * {@link ConnectionError}, and response streams still open are ended (reading one then throws a
   * {@link ConnectionError} that says the client was closed). A stream handed out and never read would otherwise hold
   * its connection, and this promise, for as long as the server keeps it open.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const body of this.openBodies) body.destroy?.(new Error(CLOSED_WHILE_OPEN));
    this.openBodies.clear();
    await this.sender?.close();
  }

  private async encodeBody(
    request: RequestOptions,
  ): Promise<{ body: Uint8Array | string | undefined; headers: Record<string, string> }> {
    const headers: Record<string, string> = {};
    let body: Uint8Array | string | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers["content-type"] = "application/json";
    } else if (request.body !== undefined) {
      body = request.body;
      if (request.contentType) headers["content-type"] = request.contentType;
    }
    const wantGzip = request.gzip ?? this.options.gzip;
    const size = body === undefined || !wantGzip ? 0 : byteLength(body);
    if (body !== undefined && wantGzip && size >= GZIP_MIN_BYTES) {
      // Sent plain where the runtime cannot compress (Vercel's edge).
      const gzipped = await gzipBody(body, size <= (this.options.gzipSyncMaxBytes ?? 0));
      if (gzipped) {
        body = gzipped;
        headers["content-encoding"] = "gzip";
      }
    }
    return { body, headers };
  }

  private buildHeaders(request: RequestOptions, bodyHeaders: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { "user-agent": userAgent(), accept: "application/json" };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    Object.assign(headers, bodyHeaders);
    for (const source of [this.options.headers, request.headers]) {
      if (source) for (const [key, value] of Object.entries(source)) headers[key.toLowerCase()] = value;
    }
    return headers;
  }

  private async execute<T>(request: RequestOptions, consume: (res: OpenResponse) => Promise<T>): Promise<T> {
    const path = `${this.basePath}${request.path}${buildQuery(request.query)}`;
    const info: RequestInfo = { method: request.method, path };
    const caller = request.signal;
    if (caller?.aborted) throw new AbortError(info, caller.reason);
    // The pool refuses it anyway, as a network failure that reads like a broken connection and was retried.
    if (this.closed) {
      throw new ConnectionError(
        `${request.method} ${path} was not sent: the client was closed (close() was called): make a new client to send more requests.`,
        info,
      );
    }

    const idempotent = request.idempotent ?? request.method !== "POST";
    const policy = request.retry ? { ...this.options.retry, ...request.retry } : this.options.retry;
    const { body, headers: bodyHeaders } = await this.encodeBody(request);
    const headers = this.buildHeaders(request, bodyHeaders);
    const sender = this.connect();

    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = caller ? anySignal([caller, deadline.signal]) : deadline.signal;
    const started = Date.now();

    // Our own abort, not a network failure: say which signal fired.
    const abortedError = (cause: unknown): ApiError | undefined => {
      if (caller?.aborted) return new AbortError(info, caller.reason);
      if (deadline.signal.aborted) {
        return new TimeoutError(
          `${request.method} ${path} timed out after ${timeoutMs} ms (${this.raise("timeoutMs")}).`,
          info,
          cause,
        );
      }
      return undefined;
    };

    // Set once an attempt may have done its work on the server with its answer lost: a DELETE retried after that can
    // find the thing already gone (404), which the error then says.
    let mayHaveRun = false;
    try {
      for (let attempt = 1; ; attempt++) {
        let outcome: AttemptOutcome;
        let failure: ApiError;
        try {
          const res = await sender.send({
            path,
            method: request.method,
            headers,
            body,
            signal,
            headersTimeoutMs: timeoutMs,
            bodyTimeoutMs: this.options.bodyTimeoutMs,
          });
          const resHeaders = res.headers;
          // Only 2xx is success: a redirect would silently drop a write (neither sender follows it).
          if (res.status >= 200 && res.status < 300) {
            return await consume({ status: res.status, headers: resHeaders, body: res.body, request: info });
          }
          const errorBody = parseMaybeJson(this.redact(bytesToText(await readAll(res.body))));
          failure = makeApiError(res.status, errorBody, info, resHeaders);
          if (mayHaveRun && res.status === 404 && request.method === "DELETE")
            failure.message += ` An earlier attempt of this DELETE reached the server and its answer was lost: it may have deleted it.`;
          outcome = {
            kind: "status",
            status: res.status,
            retryAfterMs: parseRetryAfter(resHeaders["retry-after"]),
          };
        } catch (err) {
          const aborted = abortedError(err);
          if (aborted) throw aborted;
          // Our own errors (an unreadable answer) are final; only network failures are classified below.
          if (err instanceof TracewireError) throw err;
          const code = errorCode(err);
          const reason = err instanceof Error ? err.message : String(err);
          const message = `${request.method} ${path} failed: ${reason}${code ? ` (${code})` : ""}${this.timeoutHint(code, timeoutMs)}`;
          failure = TIMEOUT_CODES.has(code ?? "")
            ? new TimeoutError(message, info, err)
            : new ConnectionError(message, info, err);
          outcome = { kind: "network", sent: !NOT_SENT_CODES.has(code ?? "") };
        }
        if (outcome.kind === "network" ? outcome.sent : outcome.status >= 500 && outcome.status !== 503)
          mayHaveRun = true;
        if (!isRetryable(outcome, idempotent, policy.nonIdempotent, policy.retryableStatuses)) throw failure;
        if (this.options.retryUnreachable === false && isUnreachable(failure)) throw failure;
        const elapsed = Date.now() - started;
        const delay = nextDelay(outcome, attempt, elapsed, policy);
        // A wait that would outlast the deadline ends the same way, later and with less to say: give up now.
        if (delay === undefined || elapsed + delay >= timeoutMs) throw failure;
        try {
          await sleep(delay, signal);
        } catch (err) {
          throw abortedError(err) ?? failure;
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** For a timeout's error code, which setting ran out and how to change it (empty for other codes). */
  private timeoutHint(code: string | undefined, timeoutMs: number): string {
    switch (code) {
      case "UND_ERR_BODY_TIMEOUT":
        return ` — no data for ${this.options.bodyTimeoutMs} ms (${this.raise("bodyTimeoutMs")})`;
      case "UND_ERR_CONNECT_TIMEOUT":
        return ` — no connection within ${this.options.connectTimeoutMs} ms (${this.raise("connectTimeoutMs")})`;
      case "UND_ERR_HEADERS_TIMEOUT":
        return ` — no answer within ${timeoutMs} ms (${this.raise("timeoutMs")})`;
      default:
        return "";
    }
  }

  /** Which setting gives `deadline` longer, as the owner of this transport spells it. */
  private raise(deadline: "timeoutMs" | "connectTimeoutMs" | "bodyTimeoutMs"): string {
    const own = `${deadline}: raise it in the client options${deadline === "timeoutMs" ? " or per call" : ""}`;
    return this.options.timeoutSettings?.[deadline] ?? own;
  }

  /** Maps failures while a streamed body is read onto the typed errors, and frees the socket on early exit. */
  private async *guardBody(body: Body, info: RequestInfo, request: RequestOptions): AsyncGenerator<Uint8Array> {
    let finished = false;
    try {
      for await (const chunk of body) yield chunk;
      finished = true;
    } catch (err) {
      if (request.signal?.aborted) throw new AbortError(info, request.signal.reason);
      if (this.closed && err instanceof Error && err.message === CLOSED_WHILE_OPEN)
        throw new ConnectionError(`${info.method} ${info.path}: ${CLOSED_WHILE_OPEN}`, info, err);
      const code = errorCode(err);
      const message = `${info.method} ${info.path}: the response stream broke: ${err instanceof Error ? err.message : String(err)}${this.timeoutHint(code, request.timeoutMs ?? this.options.timeoutMs)}`;
      throw TIMEOUT_CODES.has(code ?? "")
        ? new TimeoutError(message, info, err)
        : new ConnectionError(message, info, err);
    } finally {
      this.openBodies.delete(body);
      if (!finished) body.destroy?.();
    }
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(HttpTransport, "HttpTransport", (t) => ({ origin: t.origin }));
