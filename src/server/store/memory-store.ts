/**
 * The store used when no SQLite driver is available (or `storage: "memory"`): plain maps, lost on exit. It keeps
 * the same semantics as the SQLite store, transactions included (a failed transaction restores the snapshot). It
 * decides no query itself: `findCalls` and `findFeedback` hand every row the filters let through to the caller,
 * which runs the query language on them (the reference the SQLite store's compiled queries agree with).
 */
import { callRef } from "../../api/refs.js";
import type { Query } from "../../api/types/common.js";
import { compareBy } from "../query-dsl.js";
import { failedBelow, key } from "./memory-failures.js";
import {
  CALL_COLUMNS,
  type CallSearch,
  type CallSelection,
  type CallWrite,
  FEEDBACK_COLUMNS,
  type FeedbackSearch,
  FILTER_COLUMNS,
  type Found,
  type Store,
  type StoredCall,
  type StoredFeedback,
  type StoredObject,
  type StoredRow,
  type ThreadCall,
  type TraceKey,
} from "./types.js";

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
    descendant_failed: false,
  };
}

/** Pages `rows` (already in order). */
function page<T>(rows: T[], offset = 0, limit?: number): T[] {
  return offset || limit !== undefined ? rows.slice(offset, limit === undefined ? undefined : offset + limit) : rows;
}

export class MemoryStore implements Store {
  readonly kind = "memory" as const;
  readonly description = "in memory (lost when the server stops)";
  private calls = new Map<string, StoredCall>();
  /** Ids of the started calls under each `project\0parent_id`. */
  private children = new Map<string, Set<string>>();
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
      this.relink();
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
          this.unlink(call);
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
        this.link(call);
      }
    });
  }

  private link(call: StoredCall): void {
    if (!call.parent_id || call.started_at === null) return;
    const k = key(call.project_id, call.parent_id);
    const siblings = this.children.get(k);
    if (siblings) siblings.add(call.id);
    else this.children.set(k, new Set([call.id]));
  }

  private unlink(call: StoredCall): void {
    if (!call.parent_id) return;
    const k = key(call.project_id, call.parent_id);
    const siblings = this.children.get(k);
    siblings?.delete(call.id);
    if (siblings?.size === 0) this.children.delete(k);
  }

  /** Rebuilds the children index from the calls (after a rolled-back transaction). */
  private relink(): void {
    this.children = new Map();
    for (const call of this.calls.values()) this.link(call);
  }

  /** A copy of a stored call, with `descendant_failed` as it is now. */
  private out(call: StoredCall, memo: Map<string, boolean>): StoredCall {
    return {
      ...clone(call),
      descendant_failed: failedBelow(this.children, this.calls, call.project_id, call.id, memo),
    };
  }

  private filtered(search: CallSearch & { threaded?: boolean }): StoredCall[] {
    const filter = search.filter ?? {};
    const lists = FILTER_COLUMNS.flatMap(([name, field]) => {
      const values = filter[name] as string[] | undefined;
      return values ? [[field, new Set(values)] as const] : [];
    });
    const rows = [...this.calls.values()].filter((c) => {
      if (c.project_id !== search.project || c.started_at === null) return false;
      for (const [field, values] of lists) if (!values.has(c[field] as string)) return false;
      if (filter.trace_roots_only && c.parent_id !== null) return false;
      return !(search.threaded && c.thread_id === null);
    });
    const sortBy = (search.sortBy ?? []).filter((s) => CALL_COLUMNS.has(s.field));
    const tieBreak = search.sortBy?.[0]?.direction === "desc" ? "desc" : "asc";
    return rows.sort(compareBy([...sortBy, { field: "seq", direction: tieBreak }]));
  }

  findCalls(search: CallSearch): Found<StoredCall> {
    const memo = new Map<string, boolean>();
    const rows = this.filtered(search);
    if (search.query)
      return {
        exact: false,
        rows: (function* (store) {
          for (const row of rows) yield store.out(row, memo);
        })(this),
      };
    return { exact: true, rows: page(rows, search.offset, search.limit).map((c) => this.out(c, memo)) };
  }

  countCalls(search: Omit<CallSearch, "sortBy" | "offset" | "limit">, cap?: number): number | undefined {
    if (search.query) return undefined;
    const count = this.filtered(search).length;
    return cap === undefined ? count : Math.min(count, cap + 1);
  }

  threadCalls(project: string, threadIds?: string[]): ThreadCall[] {
    return this.filtered({ project, threaded: true, ...(threadIds ? { filter: { thread_ids: threadIds } } : {}) }).map(
      (c) => ({ id: c.id, thread_id: c.thread_id, turn_id: c.turn_id, started_at: c.started_at, ended_at: c.ended_at }),
    );
  }

  selectCalls(selection: CallSelection): StoredCall[] {
    const memo = new Map<string, boolean>();
    const p = selection.page;
    const rows = this.filtered({ ...selection, ...(p ? { sortBy: p.sortBy } : {}) });
    return page(rows, p?.offset, p?.limit).map((c) => this.out(c, memo));
  }

  readCall(project: string, id: string): StoredCall | undefined {
    const call = this.calls.get(key(project, id));
    return call && call.started_at !== null ? this.out(call, new Map()) : undefined;
  }

  renameCall(project: string, id: string, displayName: string): void {
    const k = key(project, id);
    const call = this.calls.get(k) ?? emptyCall(project, id, ++this.seq);
    this.calls.set(k, { ...call, display_name: displayName });
  }

  deleteCalls(project: string, ids: string[]): number {
    const doomed = new Set(ids.filter((id) => this.calls.has(key(project, id))));
    for (const id of doomed) for (const child of this.children.get(key(project, id)) ?? []) doomed.add(child);
    return this.deleteIds(project, doomed);
  }

  /** Deletes calls and the feedback on them. */
  private deleteIds(project: string, ids: Iterable<string>): number {
    let deleted = 0;
    const refs = new Set<string>();
    for (const id of ids) {
      const call = this.calls.get(key(project, id));
      if (!call) continue;
      this.unlink(call);
      this.calls.delete(key(project, id));
      refs.add(callRef(project, id));
      deleted++;
    }
    for (const [fid, row] of this.feedback) {
      if (row.project_id === project && refs.has(row.weave_ref)) this.feedback.delete(fid);
    }
    return deleted;
  }

  oldestTraces(limit: number, before?: string): TraceKey[] {
    const oldest = [...this.calls.values()]
      .filter((c) => c.started_at !== null && (before === undefined || c.started_at < before))
      .sort((a, b) => (a.started_at! < b.started_at! ? -1 : a.started_at! > b.started_at! ? 1 : a.seq - b.seq))
      .slice(0, limit);
    const seen = new Map<string, TraceKey>();
    for (const c of oldest)
      seen.set(key(c.project_id, c.trace_id ?? ""), { project_id: c.project_id, trace_id: c.trace_id ?? "" });
    return [...seen.values()];
  }

  deleteTraces(traces: TraceKey[]): number {
    const wanted = new Set(traces.map((t) => key(t.project_id, t.trace_id)));
    const byProject = new Map<string, string[]>();
    for (const c of this.calls.values()) {
      if (c.trace_id !== null && wanted.has(key(c.project_id, c.trace_id)))
        byProject.set(c.project_id, [...(byProject.get(c.project_id) ?? []), c.id]);
    }
    let deleted = 0;
    for (const [project, ids] of byProject) deleted += this.deleteIds(project, ids);
    return deleted;
  }

  callCount(): number {
    let n = 0;
    for (const c of this.calls.values()) if (c.started_at !== null) n++;
    return n;
  }

  insertFeedback(rows: StoredFeedback[]): void {
    this.transaction(() => {
      for (const row of rows) {
        if (this.feedback.has(row.id)) throw new Error(`UNIQUE constraint failed: feedback.id (${row.id})`);
        this.feedback.set(row.id, clone(row));
      }
    });
  }

  selectFeedback(project: string, weaveRefs?: string[]): StoredFeedback[] {
    const refs = weaveRefs && new Set(weaveRefs);
    return [...this.feedback.values()]
      .filter((f) => f.project_id === project && (!refs || refs.has(f.weave_ref)))
      .map((f) => clone(f));
  }

  findFeedback(search: FeedbackSearch): Found<StoredFeedback> {
    const rows = [...this.feedback.values()].filter((f) => f.project_id === search.project);
    const sortBy = (search.sortBy ?? []).filter((s) => FEEDBACK_COLUMNS.has(s.field));
    rows.sort(compareBy(sortBy));
    const exact = !search.query;
    return { exact, rows: (exact ? page(rows, search.offset, search.limit) : rows).map((f) => clone(f)) };
  }

  countFeedback(project: string, query: Query | undefined): number | undefined {
    return query ? undefined : this.selectFeedback(project).length;
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
      if (call.started_at === null) continue;
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
