/**
 * The store used when no SQLite driver is available (or `storage: "memory"`): plain maps, lost on exit. It keeps
 * the same semantics as the SQLite store, transactions included (a failed transaction restores the snapshot).
 */
import { compareBy } from "../query-dsl.js";
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

const key = (project: string, id: string) => `${project}\u0000${id}`;
const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

function emptyCall(project: string, id: string, seq: number): StoredCall {
  return {
    seq,
    project_id: project,
    id,
    trace_id: null,
    parent_id: null,
    op_name: null,
    display_name: null,
    thread_id: null,
    turn_id: null,
    started_at: null,
    ended_at: null,
    exception: null,
    attributes: null,
    inputs: null,
    has_output: false,
    output: null,
    summary: null,
    wb_run_id: null,
    wb_run_step: null,
    wb_run_step_end: null,
  };
}

export class MemoryStore implements Store {
  readonly kind = "memory" as const;
  readonly description = "in memory (lost when the server stops)";
  private calls = new Map<string, StoredCall>();
  private feedback = new Map<string, StoredFeedback>();
  private scoreRequests: { project_id: string; call_ids: string[]; scorer_refs: string[] }[] = [];
  private objects: StoredObject[] = [];
  private rows = new Map<string, unknown>();
  private tables = new Map<string, string[]>();
  private files = new Map<string, Uint8Array>();
  private seq = 0;
  private depth = 0;

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    const snapshot = {
      calls: new Map(this.calls),
      feedback: new Map(this.feedback),
      objects: [...this.objects],
      seq: this.seq,
    };
    this.depth++;
    try {
      return fn();
    } catch (err) {
      Object.assign(this, snapshot);
      throw err;
    } finally {
      this.depth--;
    }
  }

  writeCalls(writes: CallWrite[]): void {
    this.transaction(() => {
      for (const write of writes) {
        const record = write.kind === "start" ? write.start : write.end;
        const k = key(record.project_id, record.id);
        // Copy on write, so a snapshot taken by `transaction` stays intact.
        const call = { ...(this.calls.get(k) ?? emptyCall(record.project_id, record.id, ++this.seq)) };
        if (write.kind === "start") {
          const s = write.start;
          Object.assign(call, {
            trace_id: s.trace_id,
            parent_id: s.parent_id ?? null,
            op_name: s.op_name,
            display_name: s.display_name ?? call.display_name,
            thread_id: s.thread_id ?? null,
            turn_id: s.turn_id ?? null,
            started_at: s.started_at,
            attributes: clone(s.attributes),
            inputs: clone(s.inputs),
            wb_run_id: s.wb_run_id ?? null,
            wb_run_step: s.wb_run_step ?? null,
          });
        } else {
          const e = write.end;
          Object.assign(call, {
            ended_at: e.ended_at,
            has_output: e.output !== undefined,
            output: clone(e.output) ?? null,
            exception: e.exception ?? null,
            summary: clone(e.summary),
            wb_run_step_end: e.wb_run_step_end ?? null,
          });
        }
        this.calls.set(k, call);
      }
    });
  }

  selectCalls(selection: CallSelection): StoredCall[] {
    const filter = selection.filter ?? {};
    let rows = [...this.calls.values()].filter((c) => {
      if (c.project_id !== selection.project || c.started_at === null) return false;
      for (const [name, field] of FILTER_COLUMNS) {
        const values = filter[name] as string[] | undefined;
        if (values && !values.includes(c[field] as string)) return false;
      }
      if (filter.trace_roots_only && c.parent_id !== null) return false;
      return !(selection.threaded && c.thread_id === null);
    });
    const page = selection.page;
    const sortBy = (page?.sortBy ?? []).filter((s) => CALL_COLUMNS.has(s.field));
    const tieBreak = page?.sortBy[0]?.direction === "desc" ? "desc" : "asc";
    rows.sort(compareBy([...sortBy, { field: "seq", direction: tieBreak }]));
    if (page)
      rows = rows.slice(page.offset ?? 0, page.limit === undefined ? undefined : (page.offset ?? 0) + page.limit);
    return rows.map((c) => clone(c));
  }

  readCall(project: string, id: string): StoredCall | undefined {
    const call = this.calls.get(key(project, id));
    return call && call.started_at !== null ? clone(call) : undefined;
  }

  renameCall(project: string, id: string, displayName: string): void {
    const k = key(project, id);
    const call = this.calls.get(k) ?? emptyCall(project, id, ++this.seq);
    this.calls.set(k, { ...call, display_name: displayName });
  }

  deleteCalls(project: string, ids: string[]): number {
    const doomed = new Set(ids.filter((id) => this.calls.has(key(project, id))));
    for (let grew = true; grew; ) {
      grew = false;
      for (const call of this.calls.values()) {
        if (call.project_id === project && call.parent_id && doomed.has(call.parent_id) && !doomed.has(call.id)) {
          doomed.add(call.id);
          grew = true;
        }
      }
    }
    for (const id of doomed) this.calls.delete(key(project, id));
    return doomed.size;
  }

  insertFeedback(rows: StoredFeedback[]): void {
    this.transaction(() => {
      for (const row of rows) {
        if (this.feedback.has(row.id)) throw new Error(`UNIQUE constraint failed: feedback.id (${row.id})`);
        this.feedback.set(row.id, clone(row));
      }
    });
  }

  replaceFeedback(id: string, row: StoredFeedback): boolean {
    const existing = this.feedback.get(id);
    if (!existing || existing.project_id !== row.project_id) return false;
    this.feedback.set(id, clone(row));
    return true;
  }

  selectFeedback(project: string, weaveRefs?: string[]): StoredFeedback[] {
    const refs = weaveRefs && new Set(weaveRefs);
    return [...this.feedback.values()]
      .filter((f) => f.project_id === project && (!refs || refs.has(f.weave_ref)))
      .map((f) => clone(f));
  }

  deleteFeedback(project: string, ids: string[]): number {
    return ids.filter((id) => this.feedback.get(id)?.project_id === project && this.feedback.delete(id)).length;
  }

  recordScoreRequest(project: string, callIds: string[], scorerRefs: string[]): void {
    this.scoreRequests.push({ project_id: project, call_ids: [...callIds], scorer_refs: [...scorerRefs] });
  }

  putObject(obj: Omit<StoredObject, "version_index">): StoredObject {
    const versions = this.objects.filter((o) => o.project_id === obj.project_id && o.object_id === obj.object_id);
    const existing = versions.find((o) => o.digest === obj.digest);
    if (existing) return clone(existing);
    const stored = { ...clone(obj), version_index: versions.length };
    this.objects = [...this.objects, stored];
    return clone(stored);
  }

  selectObjects(project: string, objectIds?: string[]): StoredObject[] {
    const ids = objectIds && new Set(objectIds);
    return this.objects.filter((o) => o.project_id === project && (!ids || ids.has(o.object_id))).map(clone);
  }

  putTable(project: string, digest: string, rows: StoredRow[]): void {
    for (const row of rows) {
      if (!this.rows.has(key(project, row.digest))) this.rows.set(key(project, row.digest), clone(row.val));
    }
    this.tables.set(
      key(project, digest),
      rows.map((r) => r.digest),
    );
  }

  readTable(project: string, digest: string): StoredRow[] | undefined {
    return this.tables
      .get(key(project, digest))
      ?.map((d) => ({ digest: d, val: clone(this.rows.get(key(project, d))) ?? null }));
  }

  putFile(project: string, digest: string, bytes: Uint8Array): void {
    if (!this.files.has(key(project, digest))) this.files.set(key(project, digest), new Uint8Array(bytes));
  }

  readFile(project: string, digest: string): Uint8Array | undefined {
    return this.files.get(key(project, digest));
  }

  projects(): { project_id: string; calls: number; last_started_at: string | null }[] {
    const byProject = new Map<string, { project_id: string; calls: number; last_started_at: string | null }>();
    for (const call of this.calls.values()) {
      const entry = byProject.get(call.project_id) ?? { project_id: call.project_id, calls: 0, last_started_at: null };
      entry.calls++;
      if (call.started_at && (!entry.last_started_at || call.started_at > entry.last_started_at))
        entry.last_started_at = call.started_at;
      byProject.set(call.project_id, entry);
    }
    return [...byProject.values()].sort((a, b) => (b.last_started_at ?? "").localeCompare(a.last_started_at ?? ""));
  }

  close(): void {}
}
