/**
 * The durable store: one SQLite file in WAL mode, written through one connection. Every write method runs in a
 * transaction (`BEGIN IMMEDIATE`), committed with `synchronous=FULL` before the method returns, so an answered
 * request survives a crash, and a batch is stored whole or not at all. Other processes may open the same file;
 * SQLite's locking serialises their writers (`busy_timeout`).
 */
import type { JsonObject } from "../../api/types/common.js";
import type { SqlDatabase, SqlStatement, SqlValue } from "./sqlite-driver.js";
import {
  CALL_COLUMNS,
  type CallSelection,
  type CallWrite,
  FILTER_COLUMNS,
  type Store,
  type StoredCall,
  type StoredFeedback,
  type StoredObject,
  type StoredRow,
} from "./types.js";

const SCHEMA_VERSION = 2;
const SCHEMA = `
CREATE TABLE IF NOT EXISTS calls (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id TEXT NOT NULL, id TEXT NOT NULL, trace_id TEXT, parent_id TEXT, op_name TEXT, display_name TEXT,
  thread_id TEXT, turn_id TEXT, started_at TEXT, ended_at TEXT, exception TEXT,
  attributes TEXT, inputs TEXT, output TEXT, summary TEXT,
  wb_run_id TEXT, wb_run_step INTEGER, wb_run_step_end INTEGER,
  UNIQUE (project_id, id)
);
CREATE INDEX IF NOT EXISTS calls_by_trace ON calls (project_id, trace_id);
CREATE INDEX IF NOT EXISTS calls_by_parent ON calls (project_id, parent_id);
CREATE INDEX IF NOT EXISTS calls_by_start ON calls (project_id, started_at);
CREATE INDEX IF NOT EXISTS calls_by_thread ON calls (project_id, thread_id);
CREATE TABLE IF NOT EXISTS feedback (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL, weave_ref TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS feedback_by_ref ON feedback (project_id, weave_ref);
CREATE TABLE IF NOT EXISTS score_requests (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id TEXT NOT NULL, call_ids TEXT NOT NULL, scorer_refs TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS objects (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id TEXT NOT NULL, object_id TEXT NOT NULL, digest TEXT NOT NULL, kind TEXT NOT NULL,
  base_object_class TEXT, leaf_object_class TEXT, val TEXT NOT NULL, created_at TEXT NOT NULL,
  version_index INTEGER NOT NULL,
  UNIQUE (project_id, object_id, digest)
);
CREATE TABLE IF NOT EXISTS table_rows (
  project_id TEXT NOT NULL, digest TEXT NOT NULL, val TEXT NOT NULL, PRIMARY KEY (project_id, digest)
);
CREATE TABLE IF NOT EXISTS tables (
  project_id TEXT NOT NULL, digest TEXT NOT NULL, row_digests TEXT NOT NULL, PRIMARY KEY (project_id, digest)
);
CREATE TABLE IF NOT EXISTS files (
  project_id TEXT NOT NULL, digest TEXT NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (project_id, digest)
);
`;

const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
const parse = <T>(v: unknown): T | null => (typeof v === "string" ? (JSON.parse(v) as T) : null);
const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
const int = (v: unknown): number | null => (typeof v === "number" || typeof v === "bigint" ? Number(v) : null);
const placeholders = (n: number): string => Array.from({ length: n }, () => "?").join(", ");

function toObject(row: Record<string, unknown>): StoredObject {
  return {
    project_id: String(row.project_id),
    object_id: String(row.object_id),
    digest: String(row.digest),
    kind: row.kind === "op" ? "op" : "object",
    base_object_class: text(row.base_object_class),
    leaf_object_class: text(row.leaf_object_class),
    val: parse(row.val),
    created_at: String(row.created_at),
    version_index: Number(row.version_index),
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
  };
}

export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  private depth = 0;
  private readonly statements = new Map<string, SqlStatement>();

  constructor(
    private readonly db: SqlDatabase,
    readonly description: string,
  ) {
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
    this.transaction(() => {
      db.exec(SCHEMA);
      db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    });
  }

  private stmt(sql: string): SqlStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.db.exec("BEGIN IMMEDIATE");
    this.depth++;
    try {
      const result = fn();
      this.db.exec("COMMIT");
      return result;
    } catch (err) {
      this.db.exec("ROLLBACK");
      throw err;
    } finally {
      this.depth--;
    }
  }

  writeCalls(writes: CallWrite[]): void {
    const start = this.stmt(`INSERT INTO calls (project_id, id, trace_id, parent_id, op_name, display_name, thread_id,
        turn_id, started_at, attributes, inputs, wb_run_id, wb_run_step) VALUES (${placeholders(13)})
      ON CONFLICT (project_id, id) DO UPDATE SET trace_id = excluded.trace_id, parent_id = excluded.parent_id,
        op_name = excluded.op_name, display_name = COALESCE(excluded.display_name, calls.display_name),
        thread_id = excluded.thread_id, turn_id = excluded.turn_id, started_at = excluded.started_at,
        attributes = excluded.attributes, inputs = excluded.inputs, wb_run_id = excluded.wb_run_id,
        wb_run_step = excluded.wb_run_step`);
    const end = this.stmt(`INSERT INTO calls (project_id, id, ended_at, output, exception, summary, wb_run_step_end)
        VALUES (${placeholders(7)})
      ON CONFLICT (project_id, id) DO UPDATE SET ended_at = excluded.ended_at, output = excluded.output,
        exception = excluded.exception, summary = excluded.summary, wb_run_step_end = excluded.wb_run_step_end`);
    this.transaction(() => {
      for (const write of writes) {
        if (write.kind === "start") {
          const s = write.start;
          start.run(
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
          );
        } else {
          const e = write.end;
          end.run(
            e.project_id,
            e.id,
            e.ended_at,
            json(e.output),
            e.exception ?? null,
            json(e.summary),
            e.wb_run_step_end ?? null,
          );
        }
      }
    });
  }

  selectCalls(selection: CallSelection): StoredCall[] {
    const where = ["project_id = ?", "started_at IS NOT NULL"];
    const params: SqlValue[] = [selection.project];
    const filter = selection.filter ?? {};
    for (const [key, column] of FILTER_COLUMNS) {
      const values = filter[key] as string[] | undefined;
      if (!values) continue;
      where.push(`${column} IN (${placeholders(values.length)})`);
      params.push(...values);
    }
    if (filter.trace_roots_only) where.push("parent_id IS NULL");
    if (selection.threaded) where.push("thread_id IS NOT NULL");
    let sql = `SELECT * FROM calls WHERE ${where.join(" AND ")}`;
    const page = selection.page;
    const order = (page?.sortBy ?? [])
      .filter((s) => CALL_COLUMNS.has(s.field))
      .map((s) => `${s.field} ${s.direction === "desc" ? "DESC" : "ASC"}`);
    const tieBreak = page?.sortBy[0]?.direction === "desc" ? "seq DESC" : "seq ASC";
    sql += ` ORDER BY ${[...order, tieBreak].join(", ")}`;
    if (page?.limit !== undefined || page?.offset) {
      sql += " LIMIT ? OFFSET ?";
      params.push(page.limit ?? -1, page.offset ?? 0);
    }
    return this.db
      .prepare(sql)
      .all(...params)
      .map(toCall);
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
    this.transaction(() =>
      this.stmt(
        `INSERT INTO calls (project_id, id, display_name) VALUES (?, ?, ?)
         ON CONFLICT (project_id, id) DO UPDATE SET display_name = excluded.display_name`,
      ).run(project, id, displayName),
    );
  }

  deleteCalls(project: string, ids: string[]): number {
    if (ids.length === 0) return 0;
    return this.transaction(() => {
      const doomed = this.db
        .prepare(
          `WITH RECURSIVE doomed(id) AS (
             SELECT id FROM calls WHERE project_id = ? AND id IN (${placeholders(ids.length)})
             UNION SELECT c.id FROM calls c JOIN doomed d ON c.parent_id = d.id WHERE c.project_id = ?)
           SELECT id FROM doomed`,
        )
        .all(project, ...ids, project)
        .map((r) => String(r.id));
      const remove = this.stmt("DELETE FROM calls WHERE project_id = ? AND id = ?");
      for (const id of doomed) remove.run(project, id);
      return doomed.length;
    });
  }

  insertFeedback(rows: StoredFeedback[]): void {
    const insert = this.stmt("INSERT INTO feedback (id, project_id, weave_ref, doc) VALUES (?, ?, ?, ?)");
    this.transaction(() => {
      for (const row of rows) insert.run(row.id, row.project_id, row.weave_ref, JSON.stringify(row));
    });
  }

  replaceFeedback(id: string, row: StoredFeedback): boolean {
    return this.transaction(() => {
      const existing = this.stmt("SELECT seq FROM feedback WHERE id = ? AND project_id = ?").get(id, row.project_id);
      if (!existing) return false;
      this.stmt("UPDATE feedback SET weave_ref = ?, doc = ? WHERE id = ?").run(row.weave_ref, JSON.stringify(row), id);
      return true;
    });
  }

  selectFeedback(project: string, weaveRefs?: string[]): StoredFeedback[] {
    const params: SqlValue[] = [project];
    let sql = "SELECT doc FROM feedback WHERE project_id = ?";
    if (weaveRefs) {
      if (weaveRefs.length === 0) return [];
      sql += ` AND weave_ref IN (${placeholders(weaveRefs.length)})`;
      params.push(...weaveRefs);
    }
    return this.db
      .prepare(`${sql} ORDER BY seq`)
      .all(...params)
      .map((r) => JSON.parse(String(r.doc)) as StoredFeedback);
  }

  deleteFeedback(project: string, ids: string[]): number {
    const remove = this.stmt("DELETE FROM feedback WHERE project_id = ? AND id = ?");
    return this.transaction(() => ids.filter((id) => Number(readChanges(remove.run(project, id))) > 0).length);
  }

  recordScoreRequest(project: string, callIds: string[], scorerRefs: string[]): void {
    this.transaction(() =>
      this.stmt("INSERT INTO score_requests (project_id, call_ids, scorer_refs, created_at) VALUES (?, ?, ?, ?)").run(
        project,
        JSON.stringify(callIds),
        JSON.stringify(scorerRefs),
        new Date().toISOString(),
      ),
    );
  }

  putObject(obj: Omit<StoredObject, "version_index">): StoredObject {
    return this.transaction(() => {
      const existing = this.stmt("SELECT * FROM objects WHERE project_id = ? AND object_id = ? AND digest = ?").get(
        obj.project_id,
        obj.object_id,
        obj.digest,
      );
      if (existing) return toObject(existing);
      const count = this.stmt("SELECT COUNT(*) AS n FROM objects WHERE project_id = ? AND object_id = ?").get(
        obj.project_id,
        obj.object_id,
      );
      const stored: StoredObject = { ...obj, version_index: Number(count?.n ?? 0) };
      this.stmt(
        `INSERT INTO objects (project_id, object_id, digest, kind, base_object_class, leaf_object_class, val,
           created_at, version_index) VALUES (${placeholders(9)})`,
      ).run(
        stored.project_id,
        stored.object_id,
        stored.digest,
        stored.kind,
        stored.base_object_class,
        stored.leaf_object_class,
        JSON.stringify(stored.val),
        stored.created_at,
        stored.version_index,
      );
      return stored;
    });
  }

  selectObjects(project: string, objectIds?: string[]): StoredObject[] {
    const params: SqlValue[] = [project];
    let sql = "SELECT * FROM objects WHERE project_id = ?";
    if (objectIds) {
      if (objectIds.length === 0) return [];
      sql += ` AND object_id IN (${placeholders(objectIds.length)})`;
      params.push(...objectIds);
    }
    return this.db
      .prepare(`${sql} ORDER BY seq`)
      .all(...params)
      .map(toObject);
  }

  putTable(project: string, digest: string, rows: StoredRow[]): void {
    const row = this.stmt("INSERT OR IGNORE INTO table_rows (project_id, digest, val) VALUES (?, ?, ?)");
    const table = this.stmt("INSERT OR IGNORE INTO tables (project_id, digest, row_digests) VALUES (?, ?, ?)");
    this.transaction(() => {
      for (const r of rows) row.run(project, r.digest, JSON.stringify(r.val));
      table.run(project, digest, JSON.stringify(rows.map((r) => r.digest)));
    });
  }

  readTable(project: string, digest: string): StoredRow[] | undefined {
    const table = this.stmt("SELECT row_digests FROM tables WHERE project_id = ? AND digest = ?").get(project, digest);
    if (!table) return undefined;
    const digests = JSON.parse(String(table.row_digests)) as string[];
    const read = this.stmt("SELECT val FROM table_rows WHERE project_id = ? AND digest = ?");
    return digests.map((d) => ({ digest: d, val: parse(read.get(project, d)?.val) }));
  }

  putFile(project: string, digest: string, bytes: Uint8Array): void {
    this.transaction(() =>
      this.stmt("INSERT OR IGNORE INTO files (project_id, digest, bytes) VALUES (?, ?, ?)").run(project, digest, bytes),
    );
  }

  readFile(project: string, digest: string): Uint8Array | undefined {
    const row = this.stmt("SELECT bytes FROM files WHERE project_id = ? AND digest = ?").get(project, digest);
    return row ? new Uint8Array(row.bytes as Uint8Array) : undefined;
  }

  projects(): { project_id: string; calls: number; last_started_at: string | null }[] {
    return this.stmt(
      "SELECT project_id, COUNT(*) AS calls, MAX(started_at) AS last_started_at FROM calls GROUP BY project_id ORDER BY last_started_at DESC",
    )
      .all()
      .map((r) => ({
        project_id: String(r.project_id),
        calls: Number(r.calls),
        last_started_at: text(r.last_started_at),
      }));
  }

  close(): void {
    this.statements.clear();
    this.db.close();
  }
}

/** `changes` of a run result (both drivers return `{changes, lastInsertRowid}`). */
function readChanges(result: unknown): number {
  return Number((result as { changes?: number | bigint }).changes ?? 0);
}
