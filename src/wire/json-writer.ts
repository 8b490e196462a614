/**
 * A JSON text writer for the OTLP/JSON encoder and the calls route: writes UTF-8 straight into a reusable buffer, as
 * `JSON.stringify` would spell each value of the string made well-formed (same escapes, numbers as `String(n)`, but
 * a lone surrogate as U+FFFD, like the protobuf route and `TextEncoder`: a `\udxxx` escape is valid JSON that a
 * service decoding to UTF-8 may refuse, with the whole batch). So spans can be encoded one by one as they end
 * without building objects or strings for them. No dependencies.
 */
import { ByteWriter, utf8Bound, writeSurrogatePair } from "./byte-writer.js";

const encoder = new TextEncoder();
const HEX_DIGITS = "0123456789abcdef";
/** Strings longer than this go through `JSON.stringify` + `encodeInto` (native, faster for long text). */
const HAND_LOOP_MAX = 64;
/** Deeper than this, {@link JsonWriter.plain} leaves the value to `JSON.stringify` (and its own limits). */
const PLAIN_MAX_DEPTH = 1000;

/**
 * Fixed JSON text (punctuation and keys), encoded once. Writing these bytes is far cheaper than reading the
 * characters of a string each time, and than building strings with template literals per span.
 */
export function literal(text: string): Uint8Array {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error(`JSON literal must be printable ASCII: ${text}`);
  return encoder.encode(text);
}

export class JsonWriter extends ByteWriter {
  /** Bytes of a {@link literal}: most are a few bytes, for which a plain loop beats `set()`. */
  literal(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < n; i++) buf[pos++] = bytes[i] as number;
    this.pos = pos;
  }

  /** Text known to be ASCII and valid JSON at this point. */
  ascii(s: string): void {
    const n = s.length;
    this.ensure(n);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < n; i++) buf[pos++] = s.charCodeAt(i);
    this.pos = pos;
  }

  /**
   * A number as `JSON.stringify` writes it (integers digit by digit, without a string); anything that is not a finite
   * number — a span field a caller filled with the wrong type — is `null`, never invalid JSON.
   */
  number(n: number): void {
    if (typeof n !== "number" || !Number.isFinite(n)) {
      this.ascii("null");
      return;
    }
    if (Number.isSafeInteger(n)) {
      if (n < 0) {
        this.ensure(1);
        this.buf[this.pos++] = 0x2d; // "-"; -0 is not below 0 and is written "0", as JSON.stringify does
        n = -n;
      }
      this.digits(n, 0);
    } else {
      this.ascii(String(n));
    }
  }

  /**
   * The decimal digits of a non-negative safe integer, left-padded with zeros to `width` digits (0: no padding).
   */
  digits(n: number, width: number): void {
    let len = 1;
    for (let t = n; t >= 10; t = Math.floor(t / 10)) len++;
    if (len < width) len = width;
    this.ensure(len);
    const buf = this.buf;
    const end = this.pos + len;
    let pos = end;
    do {
      buf[--pos] = 0x30 + (n % 10);
      n = Math.floor(n / 10);
    } while (pos > this.pos);
    this.pos = end;
  }

  /** A JSON string literal (with quotes); a value that is not a string is written as `String(value)`. */
  string(s: string): void {
    if (typeof s !== "string") s = String(s);
    const len = s.length;
    if (len > HAND_LOOP_MAX) {
      const json = JSON.stringify(wellFormed(s));
      this.ensure(utf8Bound(json));
      this.pos += encoder.encodeInto(json, this.buf.subarray(this.pos)).written;
      return;
    }
    this.ensure(len * 6 + 2); // worst case: every unit escaped as \uXXXX
    const buf = this.buf;
    let pos = this.pos;
    buf[pos++] = 0x22;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x20 && c < 0x7f) {
        if (c === 0x22 || c === 0x5c) buf[pos++] = 0x5c;
        buf[pos++] = c;
      } else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) {
        const d = i + 1 < len ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && c >= 0xd800 && d >= 0xdc00 && d <= 0xdfff) {
          pos = writeSurrogatePair(buf, pos, c, d);
          i++;
        } else if (c < 0x20) {
          pos = writeEscape(buf, pos, c);
        } else {
          buf[pos++] = 0xef; // a lone surrogate: U+FFFD
          buf[pos++] = 0xbf;
          buf[pos++] = 0xbd;
        }
      } else if (c < 0x80) {
        buf[pos++] = c; // 0x7f (DEL) is not escaped by JSON.stringify
      } else if (c < 0x800) {
        buf[pos++] = 0xc0 | (c >> 6);
        buf[pos++] = 0x80 | (c & 0x3f);
      } else {
        buf[pos++] = 0xe0 | (c >> 12);
        buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
        buf[pos++] = 0x80 | (c & 0x3f);
      }
    }
    buf[pos++] = 0x22;
    this.pos = pos;
  }

  /** Text that is already valid JSON (what `JSON.stringify` returned), as UTF-8; lone surrogates become U+FFFD. */
  json(text: string): void {
    text = wellFormedJson(text);
    this.ensure(utf8Bound(text));
    this.pos += encoder.encodeInto(text, this.buf.subarray(this.pos)).written;
  }

  /**
   * A plain JSON tree (what the serializer builds: plain objects, arrays, strings, finite or not numbers, booleans,
   * null; `undefined`, functions and symbols dropped from objects and `null` in arrays), written exactly as
   * {@link json} would write `JSON.stringify(value)` — the same bytes, without the intermediate string. Returns false,
   * having written nothing, for anything else (a `toJSON`, a class instance, a BigInt, a Date, nesting past
   * {@link PLAIN_MAX_DEPTH}): the caller then goes through `JSON.stringify`, which decides what those become.
   */
  plain(value: unknown): boolean {
    const start = this.pos;
    if (this.plainValue(value, 0)) return true;
    this.pos = start;
    return false;
  }

  private plainValue(v: unknown, depth: number): boolean {
    switch (typeof v) {
      case "string":
        this.string(v);
        return true;
      case "number":
        this.number(v);
        return true;
      case "boolean":
        this.ascii(v ? "true" : "false");
        return true;
      case "object":
        break;
      default:
        return false; // undefined, a function or a symbol at the top (JSON.stringify: nothing), a BigInt
    }
    if (v === null) {
      this.ascii("null");
      return true;
    }
    if (depth >= PLAIN_MAX_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
    if (Array.isArray(v)) {
      this.byte(0x5b);
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.byte(0x2c);
        const item: unknown = v[i];
        const t = typeof item;
        if (t === "undefined" || t === "function" || t === "symbol") this.ascii("null");
        else if (!this.plainValue(item, depth + 1)) return false;
      }
      this.byte(0x5d);
      return true;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    this.byte(0x7b);
    let first = true;
    for (const key of Object.keys(v)) {
      const item: unknown = (v as Record<string, unknown>)[key];
      const t = typeof item;
      if (t === "undefined" || t === "function" || t === "symbol") continue;
      if (!first) this.byte(0x2c);
      first = false;
      this.string(key);
      this.byte(0x3a);
      if (!this.plainValue(item, depth + 1)) return false;
    }
    this.byte(0x7d);
    return true;
  }

  private byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** A trace or span id as a quoted lower-case hex string (anything but a hex digit is written as `0`). */
  hex(id: string): void {
    if (typeof id !== "string") id = "";
    const n = id.length;
    this.ensure(n + 2);
    const buf = this.buf;
    let pos = this.pos;
    buf[pos++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = id.charCodeAt(i);
      if (c >= 0x30 && c <= 0x39) buf[pos++] = c;
      else if ((c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)) buf[pos++] = c | 0x20;
      else buf[pos++] = 0x30;
    }
    buf[pos++] = 0x22;
    this.pos = pos;
  }
}

/** `s` with lone surrogates replaced by U+FFFD (`String.prototype.toWellFormed`, typed here: lib ES2023). */
function wellFormed(s: string): string {
  const str = s as string & { isWellFormed(): boolean; toWellFormed(): string };
  return str.isWellFormed() ? s : str.toWellFormed();
}

/**
 * `JSON.stringify` output with its lone-surrogate escapes (`\ud800`–`\udfff`, lower-case hex, never part of a
 * pair: pairs are written as characters) replaced by U+FFFD. An escape counts only after an even number of
 * backslashes (`\\ud800` is a backslash and the text `ud800`).
 */
const LONE_SURROGATE_ESCAPE = /(?<=(?:^|[^\\])(?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;
/**
 * JSON text from `JSON.stringify` made well-formed: its lone-surrogate escapes become U+FFFD. The one rule for JSON
 * text on both routes: the calls route's records and the JSON strings the OTLP route carries in attributes
 * (`input.value`, `output.value`), where a `\ud800` escape would decode back into a lone surrogate at the service.
 */
export function wellFormedJson(text: string): string {
  return text.includes("\\ud") ? text.replace(LONE_SURROGATE_ESCAPE, "\ufffd") : text;
}

const SHORT_ESCAPES: Record<number, number> = { 8: 0x62, 9: 0x74, 10: 0x6e, 12: 0x66, 13: 0x72 };

/** A control character or lone surrogate, escaped as JSON.stringify does (`\n`, or `\u` + 4 lower-case hex digits). */
function writeEscape(buf: Uint8Array, pos: number, c: number): number {
  buf[pos++] = 0x5c;
  const short = SHORT_ESCAPES[c];
  if (short !== undefined) {
    buf[pos++] = short;
    return pos;
  }
  buf[pos++] = 0x75;
  for (let shift = 12; shift >= 0; shift -= 4) buf[pos++] = HEX_DIGITS.charCodeAt((c >> shift) & 0xf);
  return pos;
}
