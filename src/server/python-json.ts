/**
 * JSON as the tracing service's Python reads and writes it, for its content digests (digest.ts): the service parses a
 * request body with `json.loads` and hashes `json.dumps(value, sort_keys=True)` of what it read. What Python reads
 * is not what `JSON.parse` reads: `1.0` stays a float (`1.0`) where JavaScript has `1`, an integer keeps every digit
 * (`123456789012345678901234567890`), `-0` is the integer `0` but `-0.0` the float `-0.0`, and `NaN`, `Infinity` and
 * `-Infinity` are accepted. So the routes that digest a value parse the body twice here: once into plain values (to
 * validate and store), once keeping each number's text as a {@link PyNumber}, which {@link pythonDumps} then writes as
 * Python would.
 */

/** A JSON number as it was written in the request: Python reads it as an `int` or a `float` from this text. */
export class PyNumber {
  constructor(readonly text: string) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const INTEGER = /^-?\d+$/;
const WHITESPACE = /[ \t\n\r]*/y;
/** The end of a JSON string's body: the first `"` not escaped. Raw control characters are refused when decoding. */
const STRING_BODY = /(?:[^"\\]|\\.)*"/sy;

function fail(at: number, what: string): never {
  // "position N", as JSON.parse says it: the caller reports it in FastAPI's shape (server/http.ts).
  throw new SyntaxError(`${what} in JSON at position ${at}`);
}

/**
 * `json.loads(text)`: standard JSON plus `NaN`, `Infinity` and `-Infinity`. Numbers become JavaScript numbers, or
 * {@link PyNumber}s with `keepNumbers`. Throws a `SyntaxError` naming the position of the first error.
 */
export function parsePythonJson(text: string, keepNumbers = false): unknown {
  return scanJson(text, keepNumbers ? (raw) => new PyNumber(raw) : Number, true);
}

/**
 * The JSON reader behind {@link parsePythonJson} and exact-json.ts: each number's text becomes `number(text)`, and
 * `NaN`, `Infinity` and `-Infinity` are read only with `nonFinite` (JSON.parse refuses them).
 */
export function scanJson(text: string, number: (raw: string) => unknown, nonFinite: boolean): unknown {
  let pos = 0;
  const skip = () => {
    WHITESPACE.lastIndex = pos;
    WHITESPACE.exec(text);
    pos = WHITESPACE.lastIndex;
  };
  const literal = (word: string, value: unknown): unknown => {
    if (!text.startsWith(word, pos)) fail(pos, "Unexpected token");
    pos += word.length;
    return value;
  };
  const string = (): string => {
    STRING_BODY.lastIndex = pos + 1;
    if (!STRING_BODY.test(text)) fail(pos, "Unterminated string");
    const end = STRING_BODY.lastIndex;
    let decoded: string;
    try {
      decoded = JSON.parse(text.slice(pos, end)) as string;
    } catch {
      fail(pos, "Bad string");
    }
    pos = end;
    return decoded;
  };
  const value = (depth: number): unknown => {
    if (depth > 1000) fail(pos, "Nesting too deep");
    skip();
    const c = text[pos];
    if (c === "{") {
      pos++;
      const obj: Record<string, unknown> = {};
      skip();
      if (text[pos] === "}") {
        pos++;
        return obj;
      }
      for (;;) {
        skip();
        if (text[pos] !== '"') fail(pos, "Expected a property name");
        const key = string();
        skip();
        if (text[pos] !== ":") fail(pos, "Expected ':'");
        pos++;
        const v = value(depth + 1);
        // An own property, as JSON.parse makes it, even for "__proto__".
        Object.defineProperty(obj, key, { value: v, writable: true, enumerable: true, configurable: true });
        skip();
        if (text[pos] === ",") pos++;
        else if (text[pos] === "}") {
          pos++;
          return obj;
        } else fail(pos, "Expected ',' or '}'");
      }
    }
    if (c === "[") {
      pos++;
      const list: unknown[] = [];
      skip();
      if (text[pos] === "]") {
        pos++;
        return list;
      }
      for (;;) {
        list.push(value(depth + 1));
        skip();
        if (text[pos] === ",") pos++;
        else if (text[pos] === "]") {
          pos++;
          return list;
        } else fail(pos, "Expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true", true);
    if (c === "f") return literal("false", false);
    if (c === "n") return literal("null", null);
    if (nonFinite && c === "N") return literal("NaN", number("NaN"));
    if (nonFinite && c === "I") return literal("Infinity", number("Infinity"));
    if (nonFinite && c === "-" && text.startsWith("-Infinity", pos)) return literal("-Infinity", number("-Infinity"));
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (!match) fail(pos, c === undefined ? "Unexpected end" : "Unexpected token");
    pos = NUMBER.lastIndex;
    return number(match[0]);
  };
  const result = value(0);
  skip();
  if (pos < text.length) fail(pos, "Unexpected non-whitespace character after JSON");
  return result;
}

/**
 * Python's `repr()` of a float, which `json.dumps` writes: the shortest digits that read back as the same double
 * (JavaScript picks the same ones), in fixed notation when the decimal point falls 4 places left of the first digit
 * to 16 places right of it, with at least one decimal (`1.0`, `1000000000000000.0`, `0.0001`), else in scientific
 * notation with a signed exponent of at least two digits (`1e+16`, `1e-05`, `1.5e+300`). `-0.0` keeps its sign.
 */
export function pythonFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const [mantissa, exponent] = Math.abs(x).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const point = Number(exponent) + 1; // the decimal point sits after this many digits
  if (point > -4 && point <= 16) {
    if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
    if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const e = point - 1;
  const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
  return `${sign}${digits[0]}${fraction}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

/**
 * A number as `json.dumps` writes what `json.loads` read from `text`: an integer keeps its digits (`-0` is `0`), a
 * number with a fraction or an exponent is a float (see {@link pythonFloat}).
 */
export function pythonNumber(text: string): string {
  if (INTEGER.test(text)) return text === "-0" ? "0" : text;
  return pythonFloat(Number(text));
}

/** A JSON string literal as Python writes it (`ensure_ascii`: every code unit outside space…`~` as `\uXXXX`). */
function pythonString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const SURROGATE = /[\ud800-\udfff]/;

/** Python's order of `str` keys: by code point (UTF-16 order differs once a key holds a character past U+FFFF). */
function byCodePoint(a: string, b: string): number {
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * `json.dumps(value, sort_keys=True)`: `", "` and `": "` separators, keys sorted by code point, non-ASCII escaped.
 * A {@link PyNumber} is written as Python read it; a JavaScript number as Python reads what `JSON.stringify` writes
 * for it (`1` an int, `1e+21` a float), NaN and ±Infinity as Python writes them.
 */
export function pythonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pythonString(value);
  if (typeof value === "number") return Number.isFinite(value) ? pythonNumber(String(value)) : pythonFloat(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof PyNumber) return pythonNumber(value.text);
  if (typeof value === "bigint") return value.toString(); // an integer past 2^53, as exact-json.ts reads one
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => byCodePoint(a, b));
  return `{${entries.map(([k, v]) => `${pythonString(k)}: ${pythonDumps(v)}`).join(", ")}}`;
}
