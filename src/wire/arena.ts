/**
 * Shared buffers ("arenas") that queued items are encoded into when they are made, so the objects they came from
 * (spans, call records) die young instead of being promoted with the queue (bench/NOTES.md). An item is a slice of
 * an arena; an arena is reused once every slice in it is released (sent, or refused for good), never before: until
 * then its slices still point into it.
 */

import { describeAs } from "../own-objects.js";
import type { ByteWriter } from "./byte-writer.js";

/** Items share buffers of this size; a new one starts when less than `ARENA_SLACK` bytes are left. */
const ARENA_SIZE = 64 * 1024;
const ARENA_SLACK = 4 * 1024;
/**
 * Arenas whose slices were all released are kept for reuse, up to this many (at most 8 MiB): a steady flow of items
 * then allocates no new buffers; fresh 64 KiB buffers (external memory) drove V8 to extra full GCs.
 */
const MAX_SPARE_ARENAS = 64;
/** An arena that grew past this (for one large item) is neither written on further nor reused. */
const MAX_REUSED_SIZE = 2 * ARENA_SIZE;

/** An arena as its slices see it: how many of them are not released yet. */
export interface Arena {
  pending: number;
}

/** Bytes `buf[start, end)` of an arena, until released. */
export interface Slice {
  readonly buf: Uint8Array;
  readonly start: number;
  readonly end: number;
  /** Cleared by {@link releaseSlices}. */
  arena: Arena | undefined;
}

interface PooledArena<W extends ByteWriter> extends Arena {
  writer: W;
  pool: ArenaPool<W>;
}

/** The arenas of one encoder: the one being written, and released ones waiting to be reused. */
export class ArenaPool<W extends ByteWriter> {
  private current: PooledArena<W>;
  private readonly spare: PooledArena<W>[] = [];

  constructor(private readonly newWriter: (size: number) => W) {
    this.current = { writer: newWriter(ARENA_SIZE), pending: 0, pool: this };
  }

  /**
   * The writer to encode the next item into: the current arena's, or a fresh or reused one when it is nearly full.
   * Write the item from `writer.pos` on, then {@link claim} it (or set `pos` back on failure).
   */
  writer(): W {
    const full = this.current;
    const size = full.writer.buf.length;
    // An arena that grew for one large item is retired at once, not written on until it fills: it would otherwise
    // stay alive (and be reused) at that size long after the item was sent.
    if (size - full.writer.pos >= ARENA_SLACK && size <= MAX_REUSED_SIZE) return full.writer;
    const next = this.spare.pop() ?? { writer: this.newWriter(ARENA_SIZE), pending: 0, pool: this };
    next.writer.reset();
    this.current = next;
    this.keep(full); // reusable now if all its items were already released, else when the last one is
    return next.writer;
  }

  /**
   * Counts one more item in the current arena and returns the arena, for the item's `arena` field. Read the item's
   * `buf` from the writer *after* writing: an item that outgrew the arena moved it (earlier items keep the old one).
   */
  claim(): Arena {
    this.current.pending++;
    return this.current;
  }

  /** Keeps a no longer current arena for reuse if none of its slices is pending (and it did not grow huge). */
  keep(arena: PooledArena<W>): void {
    if (
      arena !== this.current &&
      arena.pending === 0 &&
      this.spare.length < MAX_SPARE_ARENAS &&
      arena.writer.buf.length <= MAX_REUSED_SIZE
    ) {
      this.spare.push(arena);
    }
  }
}

/** Releases slices that will never be used again (sent, or refused for good). Idempotent; skips non-slices. */
export function releaseSlices(items: readonly unknown[]): void {
  for (const item of items) {
    const slice = item as Partial<Slice>;
    const arena = slice.arena as PooledArena<ByteWriter> | undefined;
    if (arena === undefined) continue;
    slice.arena = undefined;
    if (--arena.pending === 0) arena.pool.keep(arena);
  }
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(ArenaPool, "ArenaPool");
