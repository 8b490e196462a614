/**
 * The parts of the SQLite store around calls: the connection and its transactions, feedback, scoring requests,
 * objects, tables and files. Every write runs in a transaction (`BEGIN IMMEDIATE`), committed before the method
 * returns. `SqliteStore` (sqlite-store.ts) adds the calls.
 */
import type { Query } from "../../api/types/common.js";
import { parseExactJson, stringifyExactJson } from "../exact-json.js";
import { compileQuery, type Field } from "./query-sql.js";
import type { SqlDatabase, SqlStatement, SqlValue } from "./sqlite-driver.js";
import {
  FEEDBACK_COLUMNS,
  type FeedbackSearch,
  type Found,
  type StoredFeedback,
  type StoredObject,
  type StoredRow,
} from "./types.js";

export const parse = <T>(v: unknown): T | null => (typeof v === "string" ? (parseExactJson(v) as T) : null);
export const text = (v: unknown): string | null => (typeof v === "string" ? v : null);
export const placeholders = (n: number): string => Array.from({ length: n }, () => "?").join(", ");

/** Feedback fields the query language can be answered on by SQLite (query-sql.ts). */
const FEEDBACK_FIELDS: Record<string, Field> = Object.fromEntries(
  ["id", "project_id", "weave_ref", "feedback_type", "created_at", "wb_user_id"].map((name) => [
    name,
    { sql: name, kind: "text", nullable: false, haystack: name },
  ]),
);

/** At most this many statements of varying text (queries) are kept prepared. */
const CACHED_STATEMENTS = 256;

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

export class SqliteBase {
  private depth = 0;
  private readonly statements = new Map<string, SqlStatement>();
  private readonly queries = new Map<string, SqlStatement>();

  constructor(protected readonly db: SqlDatabase) {}

  /** A prepared statement of fixed text, kept for the life of the connection. */
  stmt(sql: string): SqlStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** A prepared statement built for a query; the least recently built go first when there are many. */
  protected cached(sql: string): SqlStatement {
    let statement = this.queries.get(sql);
    if (statement) {
      this.queries.delete(sql);
    } else {
      statement = this.db.prepare(sql);
      if (this.queries.size >= CACHED_STATEMENTS) this.queries.delete(this.queries.keys().next().value!);
    }
    this.queries.set(sql, statement);
    return statement;
  }

  /**
   * Runs `fn` in one transaction. `durable: false` commits without waiting for the disk (`synchronous = NORMAL` for
   * this commit): for work that can be redone from what is stored, such as the text index (a crash loses at most
   * that last slice, whose calls are still pending). The next durable commit syncs the log, that slice with it.
   */
  transaction<T>(fn: () => T, durable = true): T {
    if (this.depth > 0) return fn();
    if (!durable) this.db.exec("PRAGMA synchronous = NORMAL");
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
      if (!durable) this.db.exec("PRAGMA synchronous = FULL");
    }
  }

  insertFeedback(rows: StoredFeedback[]): void {
    const insert = this.stmt("INSERT INTO feedback (id, project_id, weave_ref, doc) VALUES (?, ?, ?, ?)");
    this.transaction(() => {
      for (const row of rows) insert.run(row.id, row.project_id, row.weave_ref, stringifyExactJson(row));
    });
  }

  selectFeedback(project: string, weaveRefs?: string[]): StoredFeedback[] {
    const rows = weaveRefs
      ? this.stmt(
          "SELECT doc FROM feedback WHERE project_id = ? AND weave_ref IN (SELECT value FROM json_each(?)) ORDER BY seq",
        ).all(project, JSON.stringify(weaveRefs))
      : this.stmt("SELECT doc FROM feedback WHERE project_id = ? ORDER BY seq").all(project);
    return rows.map((r) => parseExactJson(String(r.doc)) as StoredFeedback);
  }

  findFeedback(search: FeedbackSearch): Found<StoredFeedback> {
    const where = this.feedbackWhere(search.project, search.query);
    const order = (search.sortBy ?? [])
      .filter((s) => FEEDBACK_COLUMNS.has(s.field))
      .map((s) => `${s.field} ${s.direction === "desc" ? "DESC" : "ASC"}`);
    let sql = `SELECT doc FROM feedback WHERE ${where.sql} ORDER BY ${[...order, "seq"].join(", ")}`;
    const params = [...where.params];
    if (where.exact && (search.limit !== undefined || search.offset)) {
      sql += " LIMIT ? OFFSET ?";
      params.push(search.limit ?? -1, search.offset ?? 0);
    }
    const rows = this.cached(sql)
      .all(...params)
      .map((r) => parseExactJson(String(r.doc)) as StoredFeedback);
    return { exact: where.exact, rows };
  }

  countFeedback(project: string, query: Query | undefined): number | undefined {
    const where = this.feedbackWhere(project, query);
    if (!where.exact) return undefined;
    return Number(this.cached(`SELECT COUNT(*) AS n FROM feedback WHERE ${where.sql}`).get(...where.params)?.n ?? 0);
  }

  private feedbackWhere(
    project: string,
    query: Query | undefined,
  ): { sql: string; params: SqlValue[]; exact: boolean } {
    const compiled = compileQuery(query, { fields: FEEDBACK_FIELDS });
    return {
      sql: compiled ? `project_id = ? AND ${compiled.sql}` : "project_id = ?",
      params: [project, ...(compiled?.params ?? [])],
      exact: !query || Boolean(compiled?.exact),
    };
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
        stringifyExactJson(stored.val),
        stored.created_at,
        stored.version_index,
      );
      return stored;
    });
  }

  selectObjects(project: string, objectIds?: string[]): StoredObject[] {
    const rows = objectIds
      ? this.stmt(
          "SELECT * FROM objects WHERE project_id = ? AND object_id IN (SELECT value FROM json_each(?)) ORDER BY seq",
        ).all(project, JSON.stringify(objectIds))
      : this.stmt("SELECT * FROM objects WHERE project_id = ? ORDER BY seq").all(project);
    return rows.map(toObject);
  }

  putTable(project: string, digest: string, rows: StoredRow[]): void {
    const row = this.stmt("INSERT OR IGNORE INTO table_rows (project_id, digest, val) VALUES (?, ?, ?)");
    const table = this.stmt("INSERT OR IGNORE INTO tables (project_id, digest, row_digests) VALUES (?, ?, ?)");
    this.transaction(() => {
      for (const r of rows) row.run(project, r.digest, stringifyExactJson(r.val));
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

  close(): void {
    this.statements.clear();
    this.queries.clear();
    this.db.close();
  }
}

/** `changes` of a run result (both drivers return `{changes, lastInsertRowid}`). */
export function readChanges(result: unknown): number {
  return Number((result as { changes?: number | bigint }).changes ?? 0);
}
