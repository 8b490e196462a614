/**
 * tracewire's own voice: internal failures are counted and reported through one logger, each kind at most once
 * per interval, so an outage produces a handful of lines instead of one per span.
 */

import { describeAs } from "../own-objects.js";
import { DEFAULT_REDACTOR, knownSecretValue, REDACTED, scrubText } from "../secrets.js";

/** Where tracewire writes its warnings. Defaults to `console`. */
export interface Logger {
  /** Something the app should know about: a failed or dropped export, a setting or value that was ignored. */
  warn(message: string): void;
  /** An internal error of tracewire itself (caught; the app's own call is unaffected, the trace may be partial). */
  error(message: string): void;
}

const PREFIX = "[tracewire]";

/** Rate-limits messages by key: the first one of each key is printed, then at most one per `intervalMs`. */
export class Diagnostics {
  private readonly last = new Map<string, number>();
  private readonly suppressed = new Map<string, number>();
  /**
   * The secret as masked here too, not only through the known secrets: those keep the newest, and this logger's own
   * key must stay masked in its lines however many others are registered. Undefined when too short to mask.
   */
  private readonly masked: string | undefined;

  /**
   * `secret`: a credential this logger must never print (the processor's API key), masked wherever a message
   * quotes it; `Bearer …`, `key=…`, URL passwords and the known secrets are masked in every message. A secret
   * shorter than 8 characters is not masked (it would mangle every line: a key `k` would mask every letter k).
   */
  constructor(
    private readonly logger: Logger = console,
    private readonly intervalMs = 60_000,
    private readonly secret?: string,
  ) {
    this.masked = knownSecretValue(secret);
  }

  /** Warns about `key` unless it was warned about within the interval; says how many were held back. */
  warn(key: string, message: string): void {
    this.emit(key, message, "warn");
  }

  /** Same as {@link warn}, at error level. */
  error(key: string, message: string): void {
    this.emit(key, message, "error");
  }

  /**
   * One warning (per minute, whichever route) when the service refuses our credentials (`status`) for `what` sent
   * to `project`: the status and what to check — never the key itself.
   */
  unauthorized(status: number | undefined, what: string, project: string): void {
    const key = this.secret === undefined ? "no API key is set" : "the API key was refused";
    const check =
      status === 403
        ? `check that the API key (apiKey / TRACEWIRE_API_KEY) has write access to project "${project}"`
        : "check apiKey / TRACEWIRE_API_KEY (set, current, not revoked)";
    this.warn(
      "unauthorized",
      `The tracing service answered ${status} (${key}); ${what} rejected, and exports back off. To fix: ${check}.`,
    );
  }

  private emit(key: string, message: string, level: "warn" | "error"): void {
    const now = Date.now();
    const previous = this.last.get(key);
    if (previous !== undefined && now - previous < this.intervalMs) {
      this.suppressed.set(key, (this.suppressed.get(key) ?? 0) + 1);
      return;
    }
    const held = this.suppressed.get(key) ?? 0;
    this.suppressed.delete(key);
    this.last.set(key, now);
    const suffix = held > 0 ? ` (${held} similar message${held === 1 ? "" : "s"} suppressed)` : "";
    try {
      let text = scrubText(`${PREFIX} ${message}${suffix}`);
      if (this.masked) text = text.replaceAll(this.masked, REDACTED);
      this.logger[level](text);
    } catch {
      // A broken logger must not break tracing, and there is nowhere left to report it.
    }
  }
}

/** Longest error text kept (a thrown 50 MB string must not become a 50 MB status message or log line). */
export const MAX_ERROR_TEXT = 8192;

/** `text`, cut to {@link MAX_ERROR_TEXT} with a visible marker. */
export function capErrorText(text: string): string {
  return text.length > MAX_ERROR_TEXT
    ? `${text.slice(0, MAX_ERROR_TEXT)}…[truncated ${text.length - MAX_ERROR_TEXT} chars]`
    : text;
}

/**
 * `text` as an error text may be recorded or logged: credentials masked (`scrubText`: known secrets, `Bearer …`,
 * `key=…`), then cut by {@link capErrorText}. Masked before it is cut, so a cut never leaves half a key behind; a
 * huge text is first cut to twice the limit, so masking costs a bounded scan.
 */
export function errorText(text: string): string {
  return capErrorText(scrubText(text.length > 2 * MAX_ERROR_TEXT ? text.slice(0, 2 * MAX_ERROR_TEXT) : text));
}

/**
 * Describes an unknown thrown value in one line, `Name: message` for errors, credentials masked ({@link errorText}):
 * it becomes span status messages and log lines, and an LLM error can quote the API key it refused. Never throws,
 * whatever was thrown (a Proxy whose traps throw, an error whose getters throw), and never returns more than
 * {@link MAX_ERROR_TEXT} chars.
 */
export function describeError(err: unknown): string {
  try {
    return errorText(err instanceof Error ? `${err.name}: ${err.message}` : describeThrown(err));
  } catch {
    try {
      // An Error whose getters throw: its class is still worth saying.
      return err instanceof Error
        ? `${Object.prototype.toString.call(err).slice(8, -1)}: unprintable error`
        : "unprintable error";
    } catch {
      return "unprintable error";
    }
  }
}

/**
 * A thrown value that is not an Error, in one line: an error-like object (another realm's Error, a library's `{name,
 * message}`) as `name: message`; an object whose `toString` says something, as that; any other object with fields as
 * bounded JSON after its class name (credential keys `REDACTED`, cycles `[Circular]`), never `[object Object]`;
 * anything else as `String()` does.
 */
function describeThrown(err: unknown): string {
  if (err === null || (typeof err !== "object" && typeof err !== "function")) return String(err);
  const { name, message } = err as { name?: unknown; message?: unknown };
  if (typeof message === "string") return typeof name === "string" && name !== "" ? `${name}: ${message}` : message;
  let text = "[object Object]"; // a null-prototype object has no toString at all
  try {
    text = String(err);
  } catch {}
  if (!/^\[object \w+\]$/.test(text) || Object.keys(err).length === 0) return text; // a Response: [object Response]
  const json = boundedJson(err, new WeakSet(), { left: 2 * MAX_ERROR_TEXT }, 0) ?? text;
  const type = (Object.getPrototypeOf(err) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof type === "string" && type !== "" && type !== "Object" ? `${type} ${json}` : json;
}

/** JSON text of `value`, at most about `budget.left` characters and 4 levels deep; undefined where JSON has none. */
function boundedJson(
  value: unknown,
  seen: WeakSet<object>,
  budget: { left: number },
  depth: number,
): string | undefined {
  if (value === null || typeof value === "boolean") return String(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : JSON.stringify(String(value));
  if (typeof value === "string")
    return JSON.stringify(value.length > budget.left ? value.slice(0, budget.left) : value);
  if (typeof value === "bigint") return JSON.stringify(value.toString());
  if (typeof value !== "object") return undefined;
  if (seen.has(value)) return '"[Circular]"';
  if (depth >= 4) return '"[Object]"';
  seen.add(value);
  const array = Array.isArray(value);
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    if (budget.left <= 0) break;
    const item = DEFAULT_REDACTOR.matches(key)
      ? JSON.stringify(REDACTED)
      : boundedJson((value as Record<string, unknown>)[key], seen, budget, depth + 1);
    if (item === undefined && !array) continue;
    const part = array ? (item ?? "null") : `${JSON.stringify(key)}:${item}`;
    budget.left -= part.length;
    parts.push(part);
  }
  seen.delete(value);
  return array ? `[${parts.join(",")}]` : `{${parts.join(",")}}`;
}

/** What a span records of a thrown value (`span.recordException` takes it as it takes an error). */
export interface ExceptionFields {
  name?: string;
  message: string;
  stack?: string;
  code?: string | number;
}

/**
 * What is recorded of a thrown value: name, message and stack read once, defensively (a getter or Proxy trap that
 * throws costs that field, never the call), each masked and cut ({@link errorText}: recorded whole, the
 * error of a refused key could carry the key to every exporter of the span). Non-errors keep only their description.
 * Never throws.
 */
export function exceptionFields(err: unknown): ExceptionFields {
  let isError = false;
  try {
    isError = err instanceof Error;
  } catch {}
  if (!isError) return { message: describeError(err) };
  const read = (key: "name" | "message" | "stack"): string | undefined => {
    try {
      const value: unknown = (err as Record<string, unknown>)[key];
      return typeof value === "string" ? errorText(value) : undefined;
    } catch {
      return undefined;
    }
  };
  const name = read("name");
  const stack = read("stack");
  let code: unknown;
  try {
    code = (err as { code?: unknown }).code; // Node's system errors: the OTel SDK records it as exception.type
  } catch {}
  return {
    message: read("message") ?? "unprintable error",
    ...(name === undefined ? {} : { name }),
    ...(stack === undefined ? {} : { stack }),
    ...(typeof code === "number" || (typeof code === "string" && code.length <= 256) ? { code } : {}),
  };
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(Diagnostics, "Diagnostics");
