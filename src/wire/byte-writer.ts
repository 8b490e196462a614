/** The byte buffer under tracewire's own encoders (protobuf-writer.ts, json-writer.ts). No dependencies. */

import { describeAs } from "../own-objects.js";
import { utf8Length } from "../runtime.js";

/**
 * A growable, reusable byte buffer: what the protobuf and JSON writers share. `reset()` it between messages;
 * `finish()` copies the bytes out.
 */
export class ByteWriter {
  buf: Uint8Array;
  pos = 0;

  constructor(initialSize = 64 * 1024) {
    this.buf = new Uint8Array(initialSize);
  }

  reset(): void {
    this.pos = 0;
  }

  /** A copy of the bytes written so far (the internal buffer is reused). */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  /** Make room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** Copies bytes already encoded elsewhere (`src[start, end)`) as they are. */
  raw(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.ensure(n);
    this.buf.set(src.subarray(start, end), this.pos);
    this.pos += n;
  }

  /** Copies a whole byte string (such as a cached field). */
  bytes(src: Uint8Array): void {
    this.ensure(src.length);
    this.buf.set(src, this.pos);
    this.pos += src.length;
  }
}

/**
 * Writes the 4-byte UTF-8 form of a surrogate pair (`high` 0xD800–0xDBFF, `low` 0xDC00–0xDFFF) at `pos`; returns
 * the position after it.
 */
export function writeSurrogatePair(buf: Uint8Array, pos: number, high: number, low: number): number {
  const cp = ((high - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  buf[pos] = 0xf0 | (cp >> 18);
  buf[pos + 1] = 0x80 | ((cp >> 12) & 0x3f);
  buf[pos + 2] = 0x80 | ((cp >> 6) & 0x3f);
  buf[pos + 3] = 0x80 | (cp & 0x3f);
  return pos + 4;
}

/**
 * Room to reserve for `text` as UTF-8: 3 bytes per UTF-16 unit is always enough, but for long text (a 20 MB input)
 * that would triple the buffer, so its exact length is counted instead.
 */
export function utf8Bound(text: string): number {
  return text.length <= 4096 ? text.length * 3 : utf8Length(text);
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(ByteWriter, "ByteWriter");
