/**
 * Protobuf wire-format primitives for the OTLP encoder: a growable writer (varint, fixed32/64, double, strings,
 * hex ids as raw bytes, length-delimited sub-messages) and a small reader (responses here, whole requests in the
 * local tracing service). No dependencies.
 *
 * Length-delimited messages are written in one pass: `startMessage` reserves one byte for the length, and
 * `endMessage` fills it in, shifting the body right with `copyWithin` in the rare case the length needs more
 * than one varint byte. Strings are UTF-8 encoded straight into the buffer (a hand loop for short strings,
 * `TextEncoder.encodeInto` for long ones), so nothing is allocated per field.
 */

/** Wire types (protobuf encoding spec). */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

import { ByteWriter, utf8Bound, writeSurrogatePair } from "./byte-writer.js";

const TWO_32 = 4294967296;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const scratch = new DataView(new ArrayBuffer(8));
const scratchBytes = new Uint8Array(scratch.buffer);

/** ASCII char code → nibble value (non-hex characters map to 0; ids from the SDK are always valid hex). */
const HEX = new Uint8Array(128);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX[65 + i] = 10 + i;
  HEX[97 + i] = 10 + i;
}

/** Number of bytes the unsigned 32-bit `v` takes as a varint. */
export function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** A growable, reusable protobuf writer. `reset()` it between messages; `finish()` copies the bytes out. */
export class ProtobufWriter extends ByteWriter {
  /** Unsigned 32-bit varint (tags, lengths, enums, uint32 counts). */
  varint(v: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    v >>>= 0;
    while (v > 0x7f) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos++] = v;
    this.pos = pos;
  }

  /** Field key: `(field << 3) | wireType`. */
  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** 64-bit varint from its two 32-bit halves. */
  varint64(lo: number, hi: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    lo >>>= 0;
    hi >>>= 0;
    while (hi > 0 || lo > 0x7f) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  /** int64 varint of an integral JS number in [-2^63, 2^63) (negatives as ten-byte two's complement). */
  int64(v: number): void {
    const neg = v < 0;
    const abs = neg ? -v : v;
    let lo = abs % TWO_32;
    let hi = (abs - lo) / TWO_32;
    if (neg) {
      lo = (~lo + 1) >>> 0;
      hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
    }
    this.varint64(lo, hi);
  }

  fixed32(v: number): void {
    this.ensure(4);
    const buf = this.buf;
    const pos = this.pos;
    buf[pos] = v & 0xff;
    buf[pos + 1] = (v >>> 8) & 0xff;
    buf[pos + 2] = (v >>> 16) & 0xff;
    buf[pos + 3] = (v >>> 24) & 0xff;
    this.pos = pos + 4;
  }

  fixed64(lo: number, hi: number): void {
    this.fixed32(lo);
    this.fixed32(hi);
  }

  /**
   * fixed64 nanoseconds since the epoch from an HrTime `[seconds, nanos]`, exactly: `seconds * 1e9` can exceed
   * 2^53, so it is computed in 16/32-bit pieces that each stay exact in a double.
   */
  hrTimeNanos(seconds: number, nanos: number): void {
    seconds = Math.trunc(seconds);
    nanos = Math.trunc(nanos);
    const secHi = Math.floor(seconds / 65536);
    const secLo = seconds - secHi * 65536;
    const p = secLo * 1e9 + nanos; // < 2^47
    const q = secHi * 1e9; // < 2^46 until 2106, exact far beyond
    const qLo = q % 65536;
    const r = qLo * 65536 + p; // < 2^48
    const lo = r % TWO_32;
    this.fixed64(lo, (q - qLo) / 65536 + (r - lo) / TWO_32);
  }

  double(v: number): void {
    scratch.setFloat64(0, v, true);
    this.ensure(8);
    this.buf.set(scratchBytes, this.pos);
    this.pos += 8;
  }

  /** Length-prefixed UTF-8 string (without tag). */
  string(s: string): void {
    const len = s.length;
    if (len < 43) {
      // ≤ 3 bytes per UTF-16 unit, so the byte length fits a one-byte varint.
      this.ensure(1 + len * 3);
      const start = this.pos;
      this.pos = start + 1;
      this.utf8(s);
      this.buf[start] = this.pos - start - 1;
      return;
    }
    const max = utf8Bound(s);
    const lenSize = varintSize(max);
    this.ensure(lenSize + max);
    const at = this.pos + lenSize;
    const written = encoder.encodeInto(s, this.buf.subarray(at, at + max)).written;
    const actual = varintSize(written);
    if (actual < lenSize) this.buf.copyWithin(this.pos + actual, at, at + written);
    this.varint(written);
    this.pos += written;
  }

  /** Hand-rolled UTF-8 for short strings (lone surrogates become U+FFFD, as `TextEncoder` does). */
  private utf8(s: string): void {
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        buf[pos++] = c;
      } else if (c < 0x800) {
        buf[pos++] = 0xc0 | (c >> 6);
        buf[pos++] = 0x80 | (c & 0x3f);
      } else {
        if (c >= 0xd800 && c <= 0xdfff) {
          const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
          if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
            pos = writeSurrogatePair(buf, pos, c, d);
            i++;
            continue;
          }
          c = 0xfffd;
        }
        buf[pos++] = 0xe0 | (c >> 12);
        buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
        buf[pos++] = 0x80 | (c & 0x3f);
      }
    }
    this.pos = pos;
  }

  /** String field; proto3 default (empty) is omitted. */
  stringField(field: number, s: string | undefined): void {
    if (!s) return;
    this.tag(field, WIRE_LEN);
    this.string(s);
  }

  /** Bytes field from a hex string (trace/span ids); empty is omitted. */
  hexField(field: number, hex: string | undefined): void {
    if (!hex) return;
    const n = hex.length >>> 1;
    this.tag(field, WIRE_LEN);
    this.varint(n);
    this.ensure(n);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < n; i++) {
      buf[pos++] = (HEX[hex.charCodeAt(2 * i) & 0x7f]! << 4) | HEX[hex.charCodeAt(2 * i + 1) & 0x7f]!;
    }
    this.pos = pos;
  }

  /** uint32 varint field; 0 is omitted. */
  uint32Field(field: number, v: number | undefined): void {
    if (!v) return;
    this.tag(field, WIRE_VARINT);
    this.varint(v);
  }

  /** Opens a length-delimited field; returns the position to pass to `endMessage`. */
  startMessage(field: number): number {
    this.tag(field, WIRE_LEN);
    this.ensure(1);
    return this.pos++;
  }

  /** Closes a field opened by `startMessage`, writing its length. */
  endMessage(start: number): void {
    const len = this.pos - start - 1;
    const size = varintSize(len);
    if (size > 1) {
      this.ensure(size - 1);
      this.buf.copyWithin(start + size, start + 1, this.pos);
    }
    const end = this.pos + size - 1;
    this.pos = start;
    this.varint(len);
    this.pos = end;
  }
}

/** Minimal protobuf reader: enough to walk a small message field by field. Throws on truncated input. */
export class ProtobufReader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}

  done(): boolean {
    return this.pos >= this.buf.length;
  }

  private byte(): number {
    if (this.pos >= this.buf.length) throw new RangeError("truncated protobuf message");
    return this.buf[this.pos++]!;
  }

  /** A varint as a JS number (exact up to 2^53; int64 negatives come out as large positives and are not expected). */
  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    throw new RangeError("malformed varint");
  }

  /** A varint as an unsigned 64-bit BigInt (exact for every value). */
  varintBig(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
    }
    throw new RangeError("malformed varint");
  }

  /** An `int64` (two's-complement varint) as a JS number; exact up to 2^53. */
  int64(): number {
    return Number(BigInt.asIntN(64, this.varintBig()));
  }

  /** A little-endian `fixed32`. */
  fixed32(): number {
    return this.view(4).getUint32(0, true);
  }

  /** A little-endian `fixed64` as a BigInt (timestamps in nanoseconds). */
  fixed64(): bigint {
    return this.view(8).getBigUint64(0, true);
  }

  /** A little-endian IEEE-754 `double`. */
  double(): number {
    return this.view(8).getFloat64(0, true);
  }

  private view(n: number): DataView {
    if (this.pos + n > this.buf.length) throw new RangeError("truncated protobuf message");
    const view = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, n);
    this.pos += n;
    return view;
  }

  bytes(): Uint8Array {
    const len = this.varint();
    const end = this.pos + len;
    if (end > this.buf.length) throw new RangeError("truncated protobuf message");
    const out = this.buf.subarray(this.pos, end);
    this.pos = end;
    return out;
  }

  string(): string {
    return decoder.decode(this.bytes());
  }

  /** Skips a field of the given wire type (groups are not supported and throw). */
  skip(wireType: number): void {
    if (wireType === WIRE_VARINT) this.varint();
    else if (wireType === WIRE_FIXED64) this.pos += 8;
    else if (wireType === WIRE_LEN) this.bytes();
    else if (wireType === WIRE_FIXED32) this.pos += 4;
    else throw new RangeError(`unsupported wire type ${wireType}`);
    if (this.pos > this.buf.length) throw new RangeError("truncated protobuf message");
  }
}
