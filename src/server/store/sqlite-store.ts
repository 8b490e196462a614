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
import { summaryFailed, traceName } from "./call-fields.js";
import { type CompileContext, compileQuery } from "./query-sql.js";
import { placeholders, SqliteBase, text } from "./sqlite-base.js";
import type { SqlDatabase, SqlValue } from "./sqlite-driver.js";
import { FailureMarks } from "./sqlite-failures.js";
import { callFields, json, toCall } from "./sqlite-rows.js";
import { migrate } from "./sqlite-schema.js";
import { TextIndex } from "./sqlite-text.js";
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

/** Calls are read in batches of this many when the caller filters them further. */
const BATCH = 256;
interface Where {
  sql: string;
  params: SqlValue[];
  /** Whether the query (if any) is decided exactly by `sql`. */
  exact: boolean;
  /** Whether a filter lists several ids (`IN (…)`), or the query a text index's candidates: see {@link SqliteStore.orderBy}. */
  listed: boolean;
}

export class SqliteStore extends SqliteBase implements Store {
  readonly kind = "sqlite" as const;
  private readonly context: CompileContext;
  private readonly fts: boolean;
  private readonly failures = new FailureMarks(this);
  /** The text index, when FTS5 loaded. */
  private readonly text: TextIndex | undefined;

  /** `indexInBackground: false` leaves text indexing to {@link flushTextIndex} (tests); `warn` hears of its failures. */
  constructor(
    db: SqlDatabase,
    readonly description: string,
    options: { indexInBackground?: boolean; warn?: (message: string) => void } = {},
  ) {
    super(db);
    db.exec(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000; PRAGMA journal_size_limit = 67108864; PRAGMA recursive_triggers = OFF;",
    );
    this.fts = this.transaction(() =>
      migrate(db, (project, parentId) => this.failures.markAncestors(project, parentId)),
    );
    this.text = this.fts
      ? new TextIndex(this, () => this.callCount(), options.indexInBackground ?? true, options.warn)
      : undefined;
    this.context = {
      fields: callFields(),
      fts: this.fts
        ? { pending: "SELECT seq FROM text_pending", match: (table, folded) => this.text?.match(table, folded) }
        : undefined,
    };
    this.text?.schedule();
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
          this.failures.afterStart(
            record.project_id,
            record.id,
            seq,
            write.start.parent_id ?? null,
            failed || failedBelow,
          );
        } else {
          const failed = write.end.exception !== undefined && write.end.exception !== null;
          this.failures.afterEnd(record.project_id, text(old?.parent_id), failed || failedBelow);
        }
      }
      this.count(newlyStarted);
    });
    this.text?.wrote();
  }

  /** Adds to the projects' counts of started calls (negative to subtract). */
  private count(delta: Map<string, number>): void {
    const add = this.stmt(
      `INSERT INTO call_counts (project_id, calls) VALUES (?, ?)
       ON CONFLICT (project_id) DO UPDATE SET calls = calls + excluded.calls`,
    );
    for (const [project, n] of delta) if (n !== 0) add.run(project, n);
  }

  /** The WHERE clause of a search: project, started, filters, and the query as far as it compiles. */
  private where(search: CallSearch & { threaded?: boolean }): Where {
    // `+started_at`: that a call started narrows nothing; the planner picks an index by the real filters.
    const where = ["project_id = ?", "+started_at IS NOT NULL"];
    const params: SqlValue[] = [search.project];
    const filter = search.filter ?? {};
    let listed = false;
    for (const [key, column] of FILTER_COLUMNS) {
      const values = filter[key] as string[] | undefined;
      if (!values) continue;
      if (values.length === 1) {
        where.push(`${column} = ?`);
        params.push(values[0]!);
      } else {
        where.push(`${column} IN (SELECT value FROM json_each(?))`);
        params.push(JSON.stringify(values));
        listed = true;
      }
    }
    if (filter.trace_roots_only) where.push("parent_id IS NULL");
    if (search.threaded) where.push("thread_id IS NOT NULL");
    const compiled = compileQuery(search.query, this.context);
    if (compiled) {
      where.push(compiled.sql);
      params.push(...compiled.params);
    }
    // A text search with index candidates is a list of seqs: read those, then sort. Without statistics SQLite
    // guesses that the project index finds few rows, and would test every call of the project against the list
    // (1M calls: 170 ms against 7), so neither the project nor the sort keys may pick an index here.
    if (compiled?.candidates) {
      where[0] = "+project_id = ?";
      listed = true;
    }
    return { sql: where.join(" AND "), params, exact: !search.query || Boolean(compiled?.exact), listed };
  }

  /**
   * The ORDER BY of a search. With a list of ids (`trace_id IN (…)`: the viewer's 50 traces; a text search's
   * candidates) the sort keys get a
   * unary `+`, so that no index can supply the order: SQLite would otherwise walk `calls_by_start` over the whole
   * project to avoid sorting, where the id index finds the few rows at once (1M calls: seconds against milliseconds).
   */
  private orderBy(sortBy: CallSearch["sortBy"], listed = false): string {
    const plus = listed ? "+" : "";
    const order = (sortBy ?? [])
      .filter((s) => CALL_COLUMNS.has(s.field))
      .map((s) => `${plus}${s.field} ${s.direction === "desc" ? "DESC" : "ASC"}`);
    return [...order, `${plus}seq ${sortBy?.[0]?.direction === "desc" ? "DESC" : "ASC"}`].join(", ");
  }

  findCalls(search: CallSearch): Found<StoredCall> {
    const where = this.where(search);
    const order = this.orderBy(search.sortBy, where.listed);
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
    const sql = `SELECT * FROM calls WHERE ${where.sql} ORDER BY ${this.orderBy(page?.sortBy, where.listed)}${paged ? " LIMIT ? OFFSET ?" : ""}`;
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
    this.text?.wrote();
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
      if (parent && !deleted.has(parent)) this.failures.recheckAncestors(project, parent);
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

  /** Indexes all text still pending (tests and benchmarks; the server does it in the background). */
  flushTextIndex(): void {
    this.text?.flush();
  }

  override close(): void {
    this.text?.close();
    super.close();
  }
}
