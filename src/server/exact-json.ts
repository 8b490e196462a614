/**
 * JSON with integers past 2^53 kept exact, as the hosted service (Python, whose `int` has no limit) keeps them: a
 * call's `inputs.id = 12345678901234567890` must come back with all its digits, where `JSON.parse` would round it to
 * 12345678901234567000. Such an integer is read as a `bigint` and written back as its digits.
 *
 * Node 20 (V8 11.3) has neither `JSON.parse`'s source text access nor `JSON.rawJSON`, so both directions stay on the
 * built-in JSON and only pay for more when they must: {@link parseExactJson} looks for a run of 16 or more digits
 * standing as a value (where a big integer literal must appear) and reads the text with python-json.ts's scanner
 * only when it finds one; {@link stringifyExactJson} is `JSON.stringify` until that throws on a `bigint`, and only
 * then writes the value itself.
 */
import { scanJson } from "./python-json.js";

/**
 * A run of 16+ digits after `[`, `:` or `,` and before `,`, `]`, `}` or the end: where a number too long for a double
 * stands as a value (the largest exact integer, 2^53 - 1, has 16 digits). It can also match inside a string (then
 * the scanner reads the text, correctly, only slower), but not a long fraction or a digit string like an OTLP
 * timestamp (`"1700000000000000000"`, quoted), which are common.
 */
const LONG_INTEGER = /(?:^|[[:,])\s*-?\d{16,}\s*(?:[,\]}]|$)/;
const INTEGER = /^-?\d+$/;

/** A number's text as JavaScript holds it exactly: a `number`, or a `bigint` for an integer a double would round. */
function exactNumber(raw: string): number | bigint {
  const n = Number(raw);
  return INTEGER.test(raw) && !Number.isSafeInteger(n) ? BigInt(raw) : n;
}

/** `JSON.parse(text)`, except that integers past 2^53 are `bigint`s. Throws `SyntaxError`s as JSON.parse does. */
export function parseExactJson(text: string): unknown {
  return LONG_INTEGER.test(text) ? scanJson(text, exactNumber, false) : JSON.parse(text);
}

/**
 * `json.loads(text)` as the digest routes read a body to store it (python-json.ts: `NaN` and `Infinity` too), with
 * integers past 2^53 as `bigint`s, so that a stored object or table row gives back what was sent.
 */
export function parsePythonJsonExact(text: string): unknown {
  return scanJson(text, exactNumber, true);
}

/** Deeper than this is a cycle (values here come from JSON, which has none) or an attack: refused, as JSON.parse does. */
const MAX_DEPTH = 5000;

/** `JSON.stringify(value)` for values holding `bigint`s: written as digits. Undefined where JSON.stringify's is. */
function write(value: unknown, depth: number): string | undefined {
  if (depth > MAX_DEPTH) throw new TypeError("Value too deeply nested to write as JSON");
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === "function") return write(json.call(value), depth + 1);
  if (Array.isArray(value)) return `[${value.map((v) => write(v, depth + 1) ?? "null").join(",")}]`;
  const parts: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const written = write(v, depth + 1);
    if (written !== undefined) parts.push(`${JSON.stringify(key)}:${written}`);
  }
  return `{${parts.join(",")}}`;
}

/** `JSON.stringify(value)`, writing a `bigint` as its digits (JSON.stringify throws on one). */
export function stringifyExactJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err;
    return write(value, 0) as string;
  }
}
