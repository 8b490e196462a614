/**
 * The small parts of one HTTP request (http/transport.ts): path and query encoding, response headers flattened,
 * which socket errors mean the request never left, an abortable sleep between attempts, and body reading.
 */
import { ConnectionError, TimeoutError, ValidationError } from "../errors.js";
import { concatBytes } from "../runtime.js";

/** A query parameter value; arrays repeat the key, `undefined` leaves it out. */
export type QueryValue = string | number | boolean | undefined | readonly (string | number)[];

/**
 * Encodes one path segment (`/objs/${encodePath(id)}`). `.` and `..` are refused with a {@link ValidationError}:
 * encoded or not, a server or proxy resolves them as dot segments, so `DELETE /v1/preview/models/..` would reach
 * `DELETE /v1/preview` — another endpoint than the one called.
 */
export function encodePath(segment: string): string {
  if (segment === "." || segment === "..") {
    throw new ValidationError(
      `A path parameter (an id, name or digest) cannot be ${JSON.stringify(segment)}: in a URL it addresses another endpoint. Pass the real id.`,
    );
  }
  return encodeURIComponent(segment);
}

/** Error codes that mean the connection never opened: the server cannot have seen the request. */
export const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EHOSTDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
]);
export const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/**
 * Whether `err` says the service could not be reached at all: the connection was refused or the host did not resolve
 * (a connect timeout is not included: the service may only be slow). Nothing was sent; waiting for it is pointless.
 */
export function isUnreachable(err: unknown): boolean {
  if (!(err instanceof ConnectionError) || err instanceof TimeoutError) return false;
  const code = errorCode(err.cause);
  return code !== undefined && code !== "UND_ERR_CONNECT_TIMEOUT" && NOT_SENT_CODES.has(code);
}

export function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, String(item));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** The whole body, as one `Buffer` where the runtime has one (Node, Bun, Deno), else a `Uint8Array`. */
export async function readAll(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return concatBytes(chunks);
}

export function parseMaybeJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
