/**
 * The trigram text index of the SQLite store (text-index.ts): filled in the background, in slices of one
 * transaction between requests, from `text_pending` (the calls written since); and the lookup that narrows a text
 * search to the calls holding the needle's trigrams when they are few enough.
 */
import { text } from "./sqlite-base.js";
import type { SqlStatement } from "./sqlite-driver.js";
import { endText, matchAll, startText, trigrams } from "./text-index.js";

/** A slice of background text indexing lasts about this long before it yields to requests. */
const INDEX_SLICE_MS = 20;
/**
 * Background indexing starts once no write has come for this long: writes go first (an SDK's export, and its
 * `shutdown()`, wait for them; a search reads the calls not indexed yet directly, so it misses nothing meanwhile)...
 */
const QUIET_MS = 25;
/** ...and while writes keep coming, one slice runs at least this often, so that the pending calls stay few. */
const SLICE_EVERY_MS = 200;
/** After a slice failed (a full disk, a lock held too long), the next one waits this long. */
const RETRY_AFTER_FAILURE_MS = 10_000;
/** Calls indexed per slice at most (one transaction: larger ones leave FTS5 less merging to do). */
const INDEX_SLICE_ROWS = 512;
/**
 * A text search reads the index's candidates only when there are at most this many (and at least
 * {@link MIN_PROBE}): past that, reading the calls in order finds a page of matches sooner. With a page of ~50 and
 * `n` calls, reading in order checks about 50·n/m calls when `m` match, and the candidates cost about `m`: the two
 * meet near √(50·n). The probe that counts them stops one past the bound, so it costs no more than that either.
 */
const probeBound = (calls: number): number => Math.max(MIN_PROBE, Math.ceil(Math.sqrt(64 * calls)));
const MIN_PROBE = 2_000;
/** Trigrams of a needle weighed at most, spread over it; and how many of the rarest the lookup requires. */
const WEIGHED_TRIGRAMS = 16;
const LOOKUP_TRIGRAMS = 4;
/** Trigrams are counted up to this many times the probe bound: enough to tell rare from common from everywhere. */
const WEIGH_UP_TO = 8;
/** Counts kept between searches at most (see `docsOf`). */
const KNOWN_COUNTS = 4_096;
/** A kept count is counted again once the store has grown or shrunk by this factor since. */
const RECOUNT_AFTER = 1.25;

const probeSql = (table: string) => `SELECT count(*) AS n FROM (SELECT 1 FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`;

export class TextIndex {
  private indexing: ReturnType<typeof setTimeout> | undefined;
  private lastWrite = Number.NEGATIVE_INFINITY;
  private lastSlice = Number.NEGATIVE_INFINITY;
  private closed = false;
  /** Bounded counts by table and FTS5 query, oldest first (`docsOf`). */
  private readonly known = new Map<string, { docs: number; calls: number }>();

  /** The message of the last slice that failed, so that a lasting fault is reported once. */
  private lastFailure: string | undefined;

  /** `warn` hears about a background slice that failed (the calls stay pending and are indexed later). */
  constructor(
    private readonly sql: { stmt(sql: string): SqlStatement; transaction<T>(fn: () => T, durable?: boolean): T },
    private readonly callCount: () => number,
    private readonly background: boolean,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  private stmt(sql: string): SqlStatement {
    return this.sql.stmt(sql);
  }

  /**
   * The FTS5 query that narrows a search for `folded` in `table` to the calls holding its rarest trigrams, or
   * undefined when too many calls hold them (more than {@link probeBound}: reading the calls in order is then as
   * good). Trigrams are weighed by bounded counts (`docsOf`), and a needle made only of common trigrams is probed
   * whole: its trigrams together may still be rare.
   */
  match(table: string, folded: string): string | undefined {
    const terms = spread(trigrams(folded), WEIGHED_TRIGRAMS);
    if (terms.length === 0) return undefined;
    const calls = this.callCount();
    const bound = probeBound(calls);
    const weighed = terms
      .map((term, at) => ({ term, at, docs: this.docsOf(table, matchAll([term]), WEIGH_UP_TO * bound, calls) }))
      .sort((a, b) => a.docs - b.docs || a.at - b.at);
    const rarest = matchAll(weighed.slice(0, LOOKUP_TRIGRAMS).map((w) => w.term));
    // Together they are in no more calls than the rarest alone.
    if (weighed[0]!.docs <= bound || this.docsOf(table, rarest, bound, calls) <= bound) return rarest;
    if (terms.length <= LOOKUP_TRIGRAMS) return undefined;
    const all = matchAll(terms);
    return this.docsOf(table, all, bound, calls) <= bound ? all : undefined;
  }

  /**
   * How many calls `query` (an FTS5 query: a trigram, or several) finds in `table`, counted up to `most + 1` (FTS5's
   * own term statistics read a term's whole doclist: 136 ms for a needle's trigrams at a million calls,
   * bench/NOTES.md #27). Counts are kept between searches until the store has changed size by a quarter: they only
   * choose between the index and reading in order, and a stale one can make a search slower, never miss a call.
   */
  private docsOf(table: string, query: string, most: number, calls: number): number {
    const key = `${table}\n${query}`;
    const known = this.known.get(key);
    if (known && calls <= known.calls * RECOUNT_AFTER && calls * RECOUNT_AFTER >= known.calls) return known.docs;
    const docs = Number(this.stmt(probeSql(table)).get(query, most + 1)?.n ?? 0);
    if (this.known.size >= KNOWN_COUNTS) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, { docs, calls });
    return docs;
  }

  /** Indexes the text of calls written since the last slice, for about `budgetMs`; true when some are left. */
  indexText(budgetMs = INDEX_SLICE_MS): boolean {
    if (this.closed) return false;
    const next = this.stmt(
      `SELECT p.seq, c.inputs, c.output, c.exception, c.op_name, c.display_name, c.trace_name
         FROM text_pending p JOIN calls c ON c.seq = p.seq LIMIT ${INDEX_SLICE_ROWS}`,
    );
    const into = this.stmt("INSERT OR REPLACE INTO calls_text_in (rowid, body) VALUES (?, ?)");
    const out = this.stmt("INSERT OR REPLACE INTO calls_text_out (rowid, body) VALUES (?, ?)");
    const done = this.stmt("DELETE FROM text_pending WHERE seq = ?");
    const deadline = performance.now() + budgetMs;
    const rows = next.all();
    if (rows.length === 0) return false;
    let indexed = 0;
    this.sql.transaction(() => {
      for (const row of rows) {
        const seq = Number(row.seq);
        into.run(
          seq,
          startText({
            inputs: text(row.inputs),
            op_name: text(row.op_name),
            display_name: text(row.display_name),
            trace_name: text(row.trace_name),
          }),
        );
        out.run(seq, endText(text(row.output), text(row.exception)));
        done.run(seq);
        if (++indexed % 32 === 0 && performance.now() > deadline) break;
      }
    }, false);
    return true;
  }

  /** Indexes all text still pending. */
  flush(): void {
    while (this.indexText(1_000)) {
      // next slice
    }
  }

  /** A write has just stored calls whose text is pending: indexing waits until writes pause (see {@link QUIET_MS}). */
  wrote(): void {
    this.lastWrite = performance.now();
    this.schedule();
  }

  /** Indexes in the background: slices once writes pause, and one every {@link SLICE_EVERY_MS} while they do not. */
  schedule(): void {
    if (!this.background || this.indexing || this.closed) return;
    const due = () => Math.min(this.lastWrite + QUIET_MS, this.lastSlice + SLICE_EVERY_MS);
    this.indexing = setTimeout(
      () => {
        this.indexing = undefined;
        if (performance.now() < due()) return this.schedule(); // a write came meanwhile
        this.lastSlice = performance.now();
        let more: boolean;
        try {
          more = this.indexText();
          this.lastFailure = undefined;
        } catch (err) {
          // Thrown here it would end the process: the calls stay pending (searches read them directly) and wait.
          const message = (err as Error)?.message ?? String(err);
          if (message !== this.lastFailure)
            this.warn(`text index: could not index new calls (will try again): ${message}`);
          this.lastFailure = message;
          this.lastSlice = performance.now() + RETRY_AFTER_FAILURE_MS - SLICE_EVERY_MS;
          this.lastWrite = Number.NEGATIVE_INFINITY;
          more = true;
        }
        if (more) this.schedule();
      },
      Math.max(0, due() - performance.now()),
    );
  }

  close(): void {
    this.closed = true;
    if (this.indexing) clearTimeout(this.indexing);
    this.indexing = undefined;
  }
}

/** At most `most` of `terms`, evenly spread from the first to the last (a needle's trigrams, in order). */
export function spread<T>(terms: T[], most: number): T[] {
  if (terms.length <= most) return terms;
  return Array.from({ length: most }, (_, i) => terms[Math.round((i * (terms.length - 1)) / (most - 1))]!);
}
