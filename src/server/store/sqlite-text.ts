/**
 * The trigram text index of the SQLite store (text-index.ts): filled in the background, in slices of one
 * transaction between requests, from `text_pending` (the calls written since); and the lookup that narrows a text
 * search to the calls holding the needle's rarest trigrams.
 */
import { text } from "./sqlite-base.js";
import type { SqlStatement } from "./sqlite-driver.js";
import { endText, matchAll, startText, trigrams } from "./text-index.js";

/** A slice of background text indexing lasts about this long before it yields to requests. */
const INDEX_SLICE_MS = 20;
/** Calls indexed per slice at most (one transaction: larger ones leave FTS5 less merging to do). */
const INDEX_SLICE_ROWS = 512;
/** A text search reads the index only when its rarest trigrams are in at most this share of the calls. */
const SELECTIVE = 0.1;
/** Trigrams of a needle required in the index lookup: the rarest ones. */
const LOOKUP_TRIGRAMS = 4;

export class TextIndex {
  private indexing: NodeJS.Immediate | undefined;
  private closed = false;

  constructor(
    private readonly sql: { stmt(sql: string): SqlStatement; transaction<T>(fn: () => T): T },
    private readonly callCount: () => number,
    private readonly background: boolean,
  ) {}

  private stmt(sql: string): SqlStatement {
    return this.sql.stmt(sql);
  }

  /**
   * The FTS5 query that narrows a search for `folded` in `table` to the calls holding its rarest trigrams, or
   * undefined when even those are common (reading the calls in order is then as good, and stops early).
   */
  match(table: string, folded: string): string | undefined {
    const terms = trigrams(folded);
    if (terms.length === 0) return undefined;
    const count = this.stmt(`SELECT doc FROM ${table}_terms WHERE term = ?`);
    const docs = terms.map((term) => ({ term, docs: Number(count.get(term)?.doc ?? 0) }));
    docs.sort((a, b) => a.docs - b.docs);
    if (docs[0]!.docs > Math.max(1_000, this.callCount() * SELECTIVE)) return undefined;
    return matchAll(docs.slice(0, LOOKUP_TRIGRAMS).map((d) => d.term));
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
    });
    return true;
  }

  /** Indexes all text still pending. */
  flush(): void {
    while (this.indexText(1_000)) {
      // next slice
    }
  }

  schedule(): void {
    if (!this.background || this.indexing || this.closed) return;
    this.indexing = setImmediate(() => {
      this.indexing = undefined;
      if (this.indexText()) this.schedule();
    });
  }

  close(): void {
    this.closed = true;
    if (this.indexing) clearImmediate(this.indexing);
    this.indexing = undefined;
  }
}
