/**
 * The SQLite schema and its upgrades. Version 3 (#27) answers the viewer's and the SDKs' queries from indexes: the
 * derived status and trace name are generated columns (`failed_below` is kept up to date as calls are written, so
 * `descendant_error` needs no lookup of the trace), every list the viewer sorts has an index that holds its order,
 * a trigram FTS5 index narrows text searches over inputs, outputs and exceptions, and each project's call count is
 * kept by triggers. A database of version 1 or 2 is upgraded in place when it is opened: the new columns are added
 * and filled in from what is stored, and the text index is built in the background.
 */
import { summaryFailed, traceName } from "./call-fields.js";
import type { SqlDatabase } from "./sqlite-driver.js";

export const SCHEMA_VERSION = 3;

const STATUS = `CASE WHEN exception IS NOT NULL THEN 'error' WHEN ended_at IS NULL THEN 'running'
  WHEN failed_below OR summary_error THEN 'descendant_error' ELSE 'success' END`;
const TRACE_NAME = "CASE WHEN display_name IS NOT NULL AND display_name <> '' THEN display_name ELSE op_label END";

/** Columns version 3 added to `calls` (in new databases they sit before the large JSON columns). */
const NEW_CALL_COLUMNS = [
  "op_label TEXT",
  "failed_below INTEGER NOT NULL DEFAULT 0",
  "summary_error INTEGER NOT NULL DEFAULT 0",
  `status TEXT GENERATED ALWAYS AS (${STATUS}) VIRTUAL`,
  `trace_name TEXT GENERATED ALWAYS AS (${TRACE_NAME}) VIRTUAL`,
];
const NEW_FEEDBACK_COLUMNS = [
  "feedback_type TEXT GENERATED ALWAYS AS (json_extract(doc, '$.feedback_type')) VIRTUAL",
  "created_at TEXT GENERATED ALWAYS AS (json_extract(doc, '$.created_at')) VIRTUAL",
  "wb_user_id TEXT GENERATED ALWAYS AS (json_extract(doc, '$.wb_user_id')) VIRTUAL",
];

const TABLES = `
CREATE TABLE IF NOT EXISTS calls (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id TEXT NOT NULL, id TEXT NOT NULL, trace_id TEXT, parent_id TEXT, op_name TEXT, display_name TEXT,
  thread_id TEXT, turn_id TEXT, started_at TEXT, ended_at TEXT, exception TEXT,
  ${NEW_CALL_COLUMNS.join(", ")},
  attributes TEXT, inputs TEXT, output TEXT, summary TEXT,
  wb_run_id TEXT, wb_run_step INTEGER, wb_run_step_end INTEGER,
  UNIQUE (project_id, id)
);
CREATE TABLE IF NOT EXISTS feedback (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL, weave_ref TEXT NOT NULL, doc TEXT NOT NULL,
  ${NEW_FEEDBACK_COLUMNS.join(", ")}
);
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

// A call id's trace and thread indexes hold the start time too: one trace's or one thread's calls in time order come
// from them alone, where an index on the id only lost to calls_by_start (the order, but a walk over the project).
const INDEXES = `
DROP INDEX IF EXISTS calls_by_parent;
DROP INDEX IF EXISTS calls_by_trace;
DROP INDEX IF EXISTS calls_by_thread;
CREATE INDEX IF NOT EXISTS calls_by_trace_start ON calls (project_id, trace_id, started_at);
CREATE INDEX IF NOT EXISTS calls_by_parent_start ON calls (project_id, parent_id, started_at);
CREATE INDEX IF NOT EXISTS calls_by_start ON calls (project_id, started_at);
CREATE INDEX IF NOT EXISTS calls_by_thread_start ON calls (project_id, thread_id, started_at);
CREATE INDEX IF NOT EXISTS calls_by_op ON calls (project_id, op_name, started_at);
CREATE INDEX IF NOT EXISTS calls_by_status ON calls (project_id, status, started_at);
CREATE INDEX IF NOT EXISTS calls_by_age ON calls (started_at);
CREATE INDEX IF NOT EXISTS feedback_by_ref ON feedback (project_id, weave_ref);
CREATE TABLE IF NOT EXISTS call_counts (project_id TEXT PRIMARY KEY, calls INTEGER NOT NULL);
DROP TRIGGER IF EXISTS calls_counted;
DROP TRIGGER IF EXISTS calls_counted_late;
DROP TRIGGER IF EXISTS calls_uncounted;
`;

/**
 * The trigram tables (text-index.ts) and the calls whose text they do not hold yet. FTS5 merges 16 segments of a
 * level at a time instead of 4: indexing costs ~30% less CPU per call, and a search reads a few more segments
 * (bench/NOTES.md, #27).
 */
const TEXT_INDEX = `
CREATE VIRTUAL TABLE IF NOT EXISTS calls_text_in USING fts5(body,
  tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1, detail = none);
CREATE VIRTUAL TABLE IF NOT EXISTS calls_text_out USING fts5(body,
  tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1, detail = none);
DROP TABLE IF EXISTS calls_text_in_terms;
DROP TABLE IF EXISTS calls_text_out_terms;
INSERT INTO calls_text_in (calls_text_in, rank) VALUES ('automerge', 16);
INSERT INTO calls_text_out (calls_text_out, rank) VALUES ('automerge', 16);
CREATE TABLE IF NOT EXISTS text_pending (seq INTEGER PRIMARY KEY);
CREATE TRIGGER IF NOT EXISTS calls_unindexed AFTER DELETE ON calls BEGIN
  DELETE FROM calls_text_in WHERE rowid = old.seq;
  DELETE FROM calls_text_out WHERE rowid = old.seq;
  DELETE FROM text_pending WHERE seq = old.seq;
END;
`;

const columnsOf = (db: SqlDatabase, table: string): Set<string> =>
  new Set(
    db
      .prepare(`SELECT name FROM pragma_table_xinfo('${table}')`)
      .all()
      .map((r) => String(r.name)),
  );

/**
 * Creates or upgrades the schema (inside the caller's transaction). Returns whether the text index is available
 * (FTS5 compiled into this SQLite), and `markUp`, called with each failed call of an upgraded database so the
 * caller marks its ancestors.
 */
export function migrate(db: SqlDatabase, markFailedAncestors: (project: string, parentId: string) => void): boolean {
  const version = Number(db.prepare("PRAGMA user_version").get()?.user_version ?? 0);
  const existing = columnsOf(db, "calls");
  const upgrading = existing.size > 0 && !existing.has("op_label");
  if (upgrading) {
    for (const column of NEW_CALL_COLUMNS) db.exec(`ALTER TABLE calls ADD COLUMN ${column}`);
    const feedback = columnsOf(db, "feedback");
    for (const column of NEW_FEEDBACK_COLUMNS) {
      if (feedback.size > 0 && !feedback.has(column.split(" ")[0]!))
        db.exec(`ALTER TABLE feedback ADD COLUMN ${column}`);
    }
  }
  db.exec(TABLES);
  db.exec(INDEXES);
  let fts = true;
  try {
    db.exec("SAVEPOINT text_index");
    db.exec(TEXT_INDEX);
    db.exec("RELEASE text_index");
  } catch {
    db.exec("ROLLBACK TO text_index");
    db.exec("RELEASE text_index");
    fts = false;
  }
  if (upgrading) fill(db, markFailedAncestors, fts);
  if (version !== SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  return fts;
}

/** Fills the columns an upgrade added from what each call holds. */
function fill(db: SqlDatabase, markFailedAncestors: (project: string, parentId: string) => void, fts: boolean) {
  const label = db.prepare("UPDATE calls SET op_label = ? WHERE op_name = ?");
  for (const row of db.prepare("SELECT DISTINCT op_name FROM calls WHERE op_name IS NOT NULL").all()) {
    const op = String(row.op_name);
    label.run(traceName({ display_name: null, op_name: op }), op);
  }
  const failedSummary = db.prepare("UPDATE calls SET summary_error = 1 WHERE seq = ?");
  for (const row of db.prepare("SELECT seq, summary FROM calls WHERE summary LIKE '%status_counts%'").all()) {
    if (summaryFailed(JSON.parse(String(row.summary)))) failedSummary.run(Number(row.seq));
  }
  const failed = db
    .prepare(
      "SELECT project_id, parent_id FROM calls WHERE exception IS NOT NULL AND parent_id IS NOT NULL AND started_at IS NOT NULL",
    )
    .all();
  for (const row of failed) markFailedAncestors(String(row.project_id), String(row.parent_id));
  db.exec(`DELETE FROM call_counts;
    INSERT INTO call_counts (project_id, calls)
      SELECT project_id, COUNT(*) FROM calls WHERE started_at IS NOT NULL GROUP BY project_id;`);
  if (fts) db.exec("INSERT OR IGNORE INTO text_pending (seq) SELECT seq FROM calls");
}
