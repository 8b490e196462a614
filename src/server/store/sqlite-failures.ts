/**
 * `failed_below` of the calls table: true of every call with a failed call somewhere below it (the service's
 * `descendant_error`), kept up to date as calls arrive in any order, end, fail, recover or are deleted, so that a
 * status needs no lookup of the trace.
 */
import { text } from "./sqlite-base.js";
import type { SqlStatement } from "./sqlite-driver.js";

export class FailureMarks {
  constructor(private readonly sql: { stmt(sql: string): SqlStatement }) {}

  private stmt(sql: string): SqlStatement {
    return this.sql.stmt(sql);
  }

  /**
   * Keeps `failed_below` true of every call with a failed call below it, as calls arrive in any order: a start
   * looks for failed children that arrived before it, and a failing call marks its ancestors.
   */
  afterStart(project: string, id: string, seq: number, parent: string | null, failing: boolean): void {
    if (!failing && this.failingChild(project, id)) {
      this.stmt("UPDATE calls SET failed_below = 1 WHERE seq = ?").run(seq);
      failing = true;
    }
    if (parent && failing) this.markAncestors(project, parent);
  }

  /** An end sets or clears the call's exception: its ancestors are marked, or rechecked. */
  afterEnd(project: string, parent: string | null, failing: boolean): void {
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
  markAncestors(project: string, id: string): void {
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
  recheckAncestors(project: string, id: string): void {
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
}
