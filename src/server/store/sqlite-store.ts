/**
 * The durable store: one SQLite file in WAL mode, written through one connection. Every write method runs in a
 * transaction (`BEGIN IMMEDIATE`), committed with `synchronous=FULL` before the method returns, so an answered
 * request survives a crash, and a batch is stored whole or not at all. Other processes may open the same file;
 * SQLite's locking serialises their writers (`busy_timeout`).
 *
 * Queries are answered from indexes (sqlite-schema.ts): filters, sorts and pages in SQL, the query language
 * compiled to SQL as far as it goes (query-sql.ts). No statement's parameter count depends on the data: lists of
 * ids travel as one JSON parameter (`json_each`). The text index is filled in the background, in slices between
 * requests; until a call's text is indexed, searches read it directly (text_pending).
 */
import { callRef } from "../../api/refs.js";
import type { JsonObject } from "../../api/types/common.js";
import { summaryFailed, traceName } from "./call-fields.js";
import { type CompileContext, compileQuery, type Field } from "./query-sql.js";
import { parse, placeholders, SqliteBase, text } from "./sqlite-base.js";
import type { SqlDatabase, SqlValue } from "./sqlite-driver.js";
import { migrate } from "./sqlite-schema.js";
import { endText, matchAll, startText, trigrams } from "./text-index.js";
import {
  CALL_COLUMNS,
  type CallSearch,
  type CallSelection,
  type CallWrite,
  FILTER_COLUMNS,
  type Found,
  type Store,
  type StoredCall,
  type ThreadCall,
  type TraceKey,
} from "./types.js";

const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
const int = (v: unknown): number | null => (typeof v === "number" || typeof v === "bigint" ? Number(v) : null);

/** Calls are read in batches of this many when the caller filters them further. */
const BATCH = 256;
/** A slice of background text indexing lasts about this long before it yields to requests. */
const INDEX_SLICE_MS = 20;
/** Calls indexed per slice at most (one transaction: larger ones leave FTS5 less merging to do). */
const INDEX_SLICE_ROWS = 512;
/** A text search reads the index only when its rarest trigrams are in at most this share of the calls. */
const SELECTIVE = 0.1;
/** Trigrams of a needle required in the index lookup: the rarest ones. */
const LOOKUP_TRIGRAMS = 4;

/** What the query language can ask of a call that SQLite answers (see query-sql.ts), by field path. */
function callFields(): Record<string, Field> {
  const column = (sql: string, nullable: boolean): Field => ({
    sql,
    kind: "text",
    nullable,
    haystack: `COALESCE(${sql}, ${nullable ? "'null'" : "''"})`,
  });
  return {
    id: column("id", false),
    project_id: column("project_id", false),
    trace_id: column("trace_id", false),
    op_name: { ...column("op_name", false), fts: "calls_text_in" },
    started_at: column("started_at", false),
    parent_id: column("parent_id", true),
    display_name: { ...column("display_name", true), fts: "calls_text_in" },
    thread_id: column("thread_id", true),
    turn_id: column("turn_id", true),
    ended_at: column("ended_at", true),
    exception: { ...column("exception", true), fts: "calls_text_out" },
    wb_run_id: column("wb_run_id", true),
    wb_run_step: { sql: "wb_run_step", kind: "int", nullable: true },
    wb_run_step_end: { sql: "wb_run_step_end", kind: "int", nullable: true },
    wb_user_id: { sql: "NULL", kind: "null", nullable: true },
    deleted_at: { sql: "NULL", kind: "null", nullable: true },
    "summary.weave.status": column("status", false),
    "summary.weave.trace_name": { ...column("trace_name", false), fts: "calls_text_in" },
    inputs: { sql: "inputs", kind: "json", nullable: false, haystack: "COALESCE(inputs, '{}')", fts: "calls_text_in" },
    output: {
      sql: "output",
      kind: "json",
      nullable: false,
      haystack: `CASE WHEN substr(output, 1, 1) = '"' THEN json_extract(output, '$') ELSE COALESCE(output, 'null') END`,
      fts: "calls_text_out",
    },
    attributes: { sql: "attributes", kind: "json", nullable: false, haystack: "COALESCE(attributes, '{}')" },
  };
}

function toCall(row: Record<string, unknown>): StoredCall {
  return {
    seq: Number(row.seq),
    project_id: String(row.project_id),
    id: String(row.id),
    trace_id: text(row.trace_id),
    parent_id: text(row.parent_id),
    op_name: text(row.op_name),
    display_name: text(row.display_name),
    thread_id: text(row.thread_id),
    turn_id: text(row.turn_id),
    started_at: text(row.started_at),
    ended_at: text(row.ended_at),
    exception: text(row.exception),
    attributes: parse<JsonObject>(row.attributes),
    inputs: parse<JsonObject>(row.inputs),
    has_output: typeof row.output === "string",
    output: parse(row.output),
    summary: parse<JsonObject>(row.summary),
    wb_run_id: text(row.wb_run_id),
    wb_run_step: int(row.wb_run_step),
    wb_run_step_end: int(row.wb_run_step_end),
    descendant_failed: Number(row.failed_below) === 1,
  };
}

interface Where {
  sql: string;
  params: SqlValue[];
  /** Whether the query (if any) is decided exactly by `sql`. */
  exact: boolean;
}

export class SqliteStore extends SqliteBase implements Store {
  readonly kind = "sqlite" as const;
  private readonly context: CompileContext;
  private readonly fts: boolean;
  private indexing: NodeJS.Immediate | undefined;
  private closed = false;

  private readonly background: boolean;

  /** `indexInBackground: false` leaves text indexing to {@link flushTextIndex} (tests). */
  constructor(
    db: SqlDatabase,
    readonly description: string,
    options: { indexInBackground?: boolean } = {},
  ) {
    super(db);
    this.background = options.indexInBackground ?? true;
    db.exec(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000; PRAGMA journal_size_limit = 67108864; PRAGMA recursive_triggers = OFF;",
    );
    this.fts = this.transaction(() => migrate(db, (project, parentId) => this.markAncestors(project, parentId)));
    this.context = {
      fields: callFields(),
      fts: this.fts
        ? { pending: "SELECT seq FROM text_pending", match: (table, folded) => this.textMatch(table, folded) }
        : undefined,
    };
    this.scheduleIndexing();
  }

  writeCalls(writes: CallWrite[]): void {
    // What was stored before each write is read first (RETURNING costs more than this lookup on an upsert).
    const before = this.stmt(
      "SELECT seq, parent_id, started_at, exception, failed_below FROM calls WHERE project_id = ? AND id = ?",
    );
    const start = this.stmt(`INSERT INTO calls (project_id, id, trace_id, parent_id, op_name, display_name, thread_id,
        turn_id, started_at, attributes, inputs, wb_run_id, wb_run_step, op_label) VALUES (${placeholders(14)})
      ON CONFLICT (project_id, id) DO UPDATE SET trace_id = excluded.trace_id, parent_id = excluded.parent_id,
        op_name = excluded.op_name, display_name = COALESCE(excluded.display_name, calls.display_name),
        thread_id = excluded.thread_id, turn_id = excluded.turn_id, started_at = excluded.started_at,
        attributes = excluded.attributes, inputs = excluded.inputs, wb_run_id = excluded.wb_run_id,
        wb_run_step = excluded.wb_run_step, op_label = excluded.op_label`);
    const end = this.stmt(`INSERT INTO calls (project_id, id, ended_at, output, exception, summary, wb_run_step_end,
        summary_error) VALUES (${placeholders(8)})
      ON CONFLICT (project_id, id) DO UPDATE SET ended_at = excluded.ended_at, output = excluded.output,
        exception = excluded.exception, summary = excluded.summary, wb_run_step_end = excluded.wb_run_step_end,
        summary_error = excluded.summary_error`);
    const pending = this.fts ? this.stmt("INSERT OR IGNORE INTO text_pending (seq) VALUES (?)") : undefined;
    this.transaction(() => {
      const newlyStarted = new Map<string, number>();
      for (const write of writes) {
        const record = write.kind === "start" ? write.start : write.end;
        const old = before.get(record.project_id, record.id);
        let result: unknown;
        if (write.kind === "start") {
          const s = write.start;
          if (typeof old?.started_at !== "string")
            newlyStarted.set(s.project_id, (newlyStarted.get(s.project_id) ?? 0) + 1);
          result = start.run(
            s.project_id,
            s.id,
            s.trace_id,
            s.parent_id ?? null,
            s.op_name,
            s.display_name ?? null,
            s.thread_id ?? null,
            s.turn_id ?? null,
            s.started_at,
            json(s.attributes),
            json(s.inputs),
            s.wb_run_id ?? null,
            s.wb_run_step ?? null,
            traceName({ display_name: null, op_name: s.op_name }),
          );
        } else {
          const e = write.end;
          result = end.run(
            e.project_id,
            e.id,
            e.ended_at,
            json(e.output),
            e.exception ?? null,
            json(e.summary),
            e.wb_run_step_end ?? null,
            summaryFailed(e.summary) ? 1 : 0,
          );
        }
        const seq = old ? Number(old.seq) : Number((result as { lastInsertRowid: number | bigint }).lastInsertRowid);
        pending?.run(seq);
        const failedBelow = Number(old?.failed_below ?? 0) === 1;
        if (write.kind === "start") {
          const failed = old?.exception !== undefined && old.exception !== null;
          this.afterStart(record.project_id, record.id, seq, write.start.parent_id ?? null, failed || failedBelow);
        } else {
          const failed = write.end.exception !== undefined && write.end.exception !== null;
          this.afterEnd(record.project_id, text(old?.parent_id), failed || failedBelow);
        }
      }
      this.count(newlyStarted);
    });
    this.scheduleIndexing();
  }

  /** Adds to the projects' counts of started calls (negative to subtract). */
  private count(delta: Map<string, number>): void {
    const add = this.stmt(
      `INSERT INTO call_counts (project_id, calls) VALUES (?, ?)
       ON CONFLICT (project_id) DO UPDATE SET calls = calls + excluded.calls`,
    );
    for (const [project, n] of delta) if (n !== 0) add.run(project, n);
  }

  /**
   * Keeps `failed_below` true of every call with a failed call below it, as calls arrive in any order: a start
   * looks for failed children that arrived before it, and a failing call marks its ancestors.
   */
  private afterStart(project: string, id: string, seq: number, parent: string | null, failing: boolean): void {
    if (!failing && this.failingChild(project, id)) {
      this.stmt("UPDATE calls SET failed_below = 1 WHERE seq = ?").run(seq);
      failing = true;
    }
    if (parent && failing) this.markAncestors(project, parent);
  }

  /** An end sets or clears the call's exception: its ancestors are marked, or rechecked. */
  private afterEnd(project: string, parent: string | null, failing: boolean): void {
    if (!parent) return;
    if (failing) this.markAncestors(project, parent);
    else this.recheckAncestors(project, parent);
  }

  private failingChild(project: string, id: string): boolean {
    return (
      this.stmt(
        `SELECT 1 AS x FROM calls WHERE project_id = ? AND parent_id = ? AND started_at IS NOT NULL
           AND (exception IS NOT NULL OR failed_below = 1) LIMIT 1`,
      ).get(project, id) !== undefined
    );
  }

  /** Marks `id` and its ancestors as having a failed call below, up to the first that already is. */
  private markAncestors(project: string, id: string): void {
    const mark = this.stmt(
      "UPDATE calls SET failed_below = 1 WHERE project_id = ? AND id = ? AND failed_below = 0 RETURNING parent_id",
    );
    const seen = new Set<string>();
    for (let up: string | null = id; up && !seen.has(up); ) {
      seen.add(up);
      up = text(mark.get(project, up)?.parent_id);
    }
  }

  /** Recomputes `failed_below` of `id` and up while it changes (after a failed call went away or recovered). */
  private recheckAncestors(project: string, id: string): void {
    const read = this.stmt("SELECT failed_below, parent_id FROM calls WHERE project_id = ? AND id = ?");
    const write = this.stmt("UPDATE calls SET failed_below = ? WHERE project_id = ? AND id = ?");
    const seen = new Set<string>();
    for (let up: string | null = id; up && !seen.has(up); ) {
      seen.add(up);
      const row = read.get(project, up);
      if (!row || Number(row.failed_below) === 0) return;
      if (this.failingChild(project, up)) return;
      write.run(0, project, up);
      up = text(row.parent_id);
    }
  }

  /** The WHERE clause of a search: project, started, filters, and the query as far as it compiles. */
  private where(search: CallSearch & { threaded?: boolean }): Where {
    // `+started_at`: that a call started narrows nothing; the planner picks an index by the real filters.
    const where = ["project_id = ?", "+started_at IS NOT NULL"];
    const params: SqlValue[] = [search.project];
    const filter = search.filter ?? {};
    for (const [key, column] of FILTER_COLUMNS) {
      const values = filter[key] as string[] | undefined;
      if (!values) continue;
      if (values.length === 1) {
        where.push(`${column} = ?`);
        params.push(values[0]!);
      } else {
        where.push(`${column} IN (SELECT value FROM json_each(?))`);
        params.push(JSON.stringify(values));
      }
    }
    if (filter.trace_roots_only) where.push("parent_id IS NULL");
    if (search.threaded) where.push("thread_id IS NOT NULL");
    const compiled = compileQuery(search.query, this.context);
    if (compiled) {
      where.push(compiled.sql);
      params.push(...compiled.params);
    }
    return { sql: where.join(" AND "), params, exact: !search.query || Boolean(compiled?.exact) };
  }

  private orderBy(sortBy: CallSearch["sortBy"]): string {
    const order = (sortBy ?? [])
      .filter((s) => CALL_COLUMNS.has(s.field))
      .map((s) => `${s.field} ${s.direction === "desc" ? "DESC" : "ASC"}`);
    return [...order, sortBy?.[0]?.direction === "desc" ? "seq DESC" : "seq ASC"].join(", ");
  }

  findCalls(search: CallSearch): Found<StoredCall> {
    const where = this.where(search);
    const order = this.orderBy(search.sortBy);
    if (where.exact) {
      const paged = search.limit !== undefined || Boolean(search.offset);
      const sql = `SELECT * FROM calls WHERE ${where.sql} ORDER BY ${order}${paged ? " LIMIT ? OFFSET ?" : ""}`;
      const params = paged ? [...where.params, search.limit ?? -1, search.offset ?? 0] : where.params;
      return {
        exact: true,
        rows: this.cached(sql)
          .all(...params)
          .map(toCall),
      };
    }
    // The caller filters further: the matching rows' positions first, then the rows in bounded batches.
    const seqs = this.cached(`SELECT seq FROM calls WHERE ${where.sql} ORDER BY ${order}`)
      .all(...where.params)
      .map((r) => Number(r.seq));
    return { exact: false, rows: this.readBySeq(seqs) };
  }

  private *readBySeq(seqs: number[]): Generator<StoredCall> {
    const read = this.stmt("SELECT * FROM calls WHERE seq IN (SELECT value FROM json_each(?))");
    for (let i = 0; i < seqs.length; i += BATCH) {
      const batch = seqs.slice(i, i + BATCH);
      const bySeq = new Map(read.all(JSON.stringify(batch)).map((r) => [Number(r.seq), r]));
      for (const seq of batch) {
        const row = bySeq.get(seq);
        if (row) yield toCall(row);
      }
    }
  }

  selectCalls(selection: CallSelection): StoredCall[] {
    const page = selection.page;
    const where = this.where({ ...selection, query: undefined });
    const paged = page?.limit !== undefined || Boolean(page?.offset);
    const sql = `SELECT * FROM calls WHERE ${where.sql} ORDER BY ${this.orderBy(page?.sortBy)}${paged ? " LIMIT ? OFFSET ?" : ""}`;
    const params = paged ? [...where.params, page?.limit ?? -1, page?.offset ?? 0] : where.params;
    return this.cached(sql)
      .all(...params)
      .map(toCall);
  }

  countCalls(search: Omit<CallSearch, "sortBy" | "offset" | "limit">, cap?: number): number | undefined {
    const where = this.where(search);
    if (!where.exact) return undefined;
    const filter = search.filter ?? {};
    if (!search.query && Object.values(filter).every((v) => v === undefined || v === false)) {
      return Number(this.stmt("SELECT calls FROM call_counts WHERE project_id = ?").get(search.project)?.calls ?? 0);
    }
    const limit = cap === undefined ? "" : " LIMIT ?";
    const sql = `SELECT COUNT(*) AS n FROM (SELECT 1 FROM calls WHERE ${where.sql}${limit})`;
    return Number(this.cached(sql).get(...where.params, ...(cap === undefined ? [] : [cap + 1]))?.n ?? 0);
  }

  threadCalls(project: string, threadIds?: string[]): ThreadCall[] {
    const where = this.where({ project, threaded: true, ...(threadIds ? { filter: { thread_ids: threadIds } } : {}) });
    return this.cached(`SELECT id, thread_id, turn_id, started_at, ended_at FROM calls WHERE ${where.sql}`)
      .all(...where.params)
      .map((r) => ({
        id: String(r.id),
        thread_id: text(r.thread_id),
        turn_id: text(r.turn_id),
        started_at: text(r.started_at),
        ended_at: text(r.ended_at),
      }));
  }

  readCall(project: string, id: string): StoredCall | undefined {
    const row = this.stmt("SELECT * FROM calls WHERE project_id = ? AND id = ? AND started_at IS NOT NULL").get(
      project,
      id,
    );
    return row ? toCall(row) : undefined;
  }

  renameCall(project: string, id: string, displayName: string): void {
    // A rename that overtakes its call's start is kept: the start fills in the rest of the row.
    this.transaction(() => {
      this.stmt(
        `INSERT INTO calls (project_id, id, display_name) VALUES (?, ?, ?)
         ON CONFLICT (project_id, id) DO UPDATE SET display_name = excluded.display_name`,
      ).run(project, id, displayName);
      // The new name is searched in the text index.
      if (this.fts) {
        this.stmt("INSERT OR IGNORE INTO text_pending (seq) SELECT seq FROM calls WHERE project_id = ? AND id = ?").run(
          project,
          id,
        );
      }
    });
    this.scheduleIndexing();
  }

  deleteCalls(project: string, ids: string[]): number {
    if (ids.length === 0) return 0;
    return this.transaction(() => {
      const doomed = this.stmt(
        `WITH RECURSIVE doomed(id, parent_id) AS (
           SELECT id, parent_id FROM calls WHERE project_id = ? AND id IN (SELECT value FROM json_each(?))
           UNION SELECT c.id, c.parent_id FROM doomed d CROSS JOIN calls c
             ON c.project_id = ? AND c.parent_id = d.id)
         SELECT id, parent_id FROM doomed`,
      ).all(project, JSON.stringify(ids), project);
      return this.deleteRows(
        project,
        doomed.map((r) => ({ id: String(r.id), parent_id: text(r.parent_id) })),
      );
    });
  }

  /** Deletes calls (given with their parents), the feedback on them, and rechecks the ancestors left. */
  private deleteRows(project: string, calls: { id: string; parent_id: string | null }[]): number {
    const ids = JSON.stringify(calls.map((c) => c.id));
    const gone = this.stmt(
      "DELETE FROM calls WHERE project_id = ? AND id IN (SELECT value FROM json_each(?)) RETURNING started_at",
    ).all(project, ids);
    this.count(new Map([[project, -gone.filter((r) => r.started_at !== null).length]]));
    this.stmt("DELETE FROM feedback WHERE project_id = ? AND weave_ref IN (SELECT value FROM json_each(?))").run(
      project,
      JSON.stringify(calls.map((c) => callRef(project, c.id))),
    );
    const deleted = new Set(calls.map((c) => c.id));
    for (const parent of new Set(calls.map((c) => c.parent_id))) {
      if (parent && !deleted.has(parent)) this.recheckAncestors(project, parent);
    }
    return calls.length;
  }

  oldestTraces(limit: number, before?: string): TraceKey[] {
    const rows = before
      ? this.stmt(
          "SELECT project_id, trace_id FROM calls WHERE started_at IS NOT NULL AND started_at < ? ORDER BY started_at LIMIT ?",
        ).all(before, limit)
      : this.stmt(
          "SELECT project_id, trace_id FROM calls WHERE started_at IS NOT NULL ORDER BY started_at LIMIT ?",
        ).all(limit);
    const seen = new Map<string, TraceKey>();
    for (const r of rows) {
      const key: TraceKey = { project_id: String(r.project_id), trace_id: String(r.trace_id) };
      seen.set(`${key.project_id}\u0000${key.trace_id}`, key);
    }
    return [...seen.values()];
  }

  deleteTraces(traces: TraceKey[]): number {
    const read = this.stmt("SELECT id, parent_id FROM calls WHERE project_id = ? AND trace_id = ?");
    return this.transaction(() => {
      let deleted = 0;
      for (const trace of traces) {
        const calls = read.all(trace.project_id, trace.trace_id);
        deleted += this.deleteRows(
          trace.project_id,
          calls.map((r) => ({ id: String(r.id), parent_id: text(r.parent_id) })),
        );
      }
      return deleted;
    });
  }

  callCount(): number {
    return Number(this.stmt("SELECT COALESCE(SUM(calls), 0) AS n FROM call_counts").get()?.n ?? 0);
  }

  projects(): { project_id: string; calls: number; last_started_at: string | null }[] {
    return this.stmt(
      `SELECT project_id, calls, (SELECT MAX(started_at) FROM calls c WHERE c.project_id = call_counts.project_id)
         AS last_started_at FROM call_counts WHERE calls > 0 ORDER BY last_started_at DESC`,
    )
      .all()
      .map((r) => ({
        project_id: String(r.project_id),
        calls: Number(r.calls),
        last_started_at: text(r.last_started_at),
      }));
  }

  /**
   * The FTS5 query that narrows a search for `folded` in `table` to the calls holding its rarest trigrams, or
   * undefined when even those are common (reading the calls in order is then as good, and stops early).
   */
  private textMatch(table: string, folded: string): string | undefined {
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
    if (!this.fts || this.closed) return false;
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
    this.transaction(() => {
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

  /** Indexes all text still pending (tests and benchmarks; the server does it in the background). */
  flushTextIndex(): void {
    while (this.indexText(1_000)) {
      // next slice
    }
  }

  private scheduleIndexing(): void {
    if (!this.fts || !this.background || this.indexing || this.closed) return;
    this.indexing = setImmediate(() => {
      this.indexing = undefined;
      if (this.indexText()) this.scheduleIndexing();
    });
  }

  override close(): void {
    this.closed = true;
    if (this.indexing) clearImmediate(this.indexing);
    this.indexing = undefined;
    super.close();
  }
}
