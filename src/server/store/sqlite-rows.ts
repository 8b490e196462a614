/** How calls are laid out in SQLite: a row as a stored call, and the fields the query compiler may use. */
import type { JsonObject } from "../../api/types/common.js";
import { stringifyExactJson } from "../exact-json.js";
import type { Field } from "./query-sql.js";
import { parse, text } from "./sqlite-base.js";
import type { StoredCall } from "./types.js";

export const json = (v: unknown): string | null => (v === undefined ? null : stringifyExactJson(v));
export const int = (v: unknown): number | null => (typeof v === "number" || typeof v === "bigint" ? Number(v) : null);

/** What the query language can ask of a call that SQLite answers (see query-sql.ts), by field path. */
export function callFields(): Record<string, Field> {
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

export function toCall(row: Record<string, unknown>): StoredCall {
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
