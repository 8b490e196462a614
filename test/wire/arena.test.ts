/**
 * The arena pool on its own: an arena is reused only once every slice in it is released, and an arena that grew
 * for one large item is retired at once instead of being written on (and kept alive) at that size.
 */
import { expect, it } from "vitest";
import { ArenaPool, releaseSlices, type Slice } from "../../src/wire/arena.js";
import { JsonWriter } from "../../src/wire/json-writer.js";

function write(pool: ArenaPool<JsonWriter>, text: string): Slice {
  const w = pool.writer();
  const start = w.pos;
  w.json(JSON.stringify(text));
  return { buf: w.buf, start, end: w.pos, arena: pool.claim() };
}
const read = (slice: Slice) => JSON.parse(Buffer.from(slice.buf.subarray(slice.start, slice.end)).toString("utf8"));

it("retires an arena that grew for one large item, and sizes a large item by its UTF-8 length", () => {
  const pool = new ArenaPool((size) => new JsonWriter(size));
  const large = write(pool, "x".repeat(12_000_000)); // 12 MB of UTF-8, not room for 3 bytes per unit (36 MB)
  expect(large.buf.length).toBeLessThanOrEqual(16 * 1024 * 1024);
  expect(read(large)).toHaveLength(12_000_000);
  releaseSlices([large]);
  const small = write(pool, "next");
  expect(small.buf).not.toBe(large.buf);
  expect(small.buf.length).toBeLessThanOrEqual(128 * 1024);
  expect(read(small)).toBe("next");
});

it("reuses an arena only after every slice in it is released", () => {
  const pool = new ArenaPool((size) => new JsonWriter(size));
  const text = "x".repeat(1000);
  const first: Slice[] = [];
  while (first.length < 2 || first.at(-1)!.buf === first[0]!.buf) first.push(write(pool, text));
  const firstBuf = first[0]!.buf;
  const kept = first.filter((s) => s.buf === firstBuf);
  // All but one slice of the first arena released: filling more arenas never hands the first one out again.
  releaseSlices(kept.slice(1));
  const later: Slice[] = [];
  for (let i = 0; i < 500; i++) later.push(write(pool, text));
  expect(later.some((s) => s.buf === firstBuf)).toBe(false);
  expect(read(kept[0]!)).toBe(text);
  // Once the last one goes, it is reused.
  releaseSlices([kept[0]!]);
  releaseSlices(later);
  const again: Slice[] = [];
  for (let i = 0; i < 500; i++) again.push(write(pool, text));
  expect(again.some((s) => s.buf === firstBuf)).toBe(true);
});
