/**
 * What the local service stores and the one interface both storages (SQLite, memory) implement. Writes are
 * synchronous and atomic per call: when a method returns, the data is committed, so an acknowledged write
 * survives a crash of the process.
 */
import type { CallEnd, CallStart, CallsFilter } from "../../api/types/calls.js";
import type { JsonObject, Query, SortBy } from "../../api/types/common.js";

/** A call as stored: its start and end halves merged. Either half may be missing while the other has arrived. */
export interface StoredCall {
  /** Arrival order of the first half; breaks ties between equal timestamps. */
  seq: number;
  project_id: string;
  id: string;
  trace_id: string | null;
  parent_id: string | null;
  op_name: string | null;
  display_name: string | null;
  thread_id: string | null;
  turn_id: string | null;
  started_at: string | null;
  ended_at: string | null;
  exception: string | null;
  attributes: JsonObject | null;
  inputs: JsonObject | null;
  /** Whether the end carried an `output` (which may itself be null). */
  has_output: boolean;
  output: unknown;
  summary: JsonObject | null;
  wb_run_id: string | null;
  wb_run_step: number | null;
  wb_run_step_end: number | null;
  /** Whether a call below this one (through `parent_id`) failed: the service's `descendant_error`. */
  descendant_failed: boolean;
}

/** A feedback record as stored and returned by `/feedback/query`. */
export interface StoredFeedback {
  id: string;
  project_id: string;
  weave_ref: string;
  feedback_type: string;
  payload: JsonObject;
  created_at: string;
  wb_user_id: string;
  creator?: string | null;
  annotation_ref?: string | null;
  runnable_ref?: string | null;
  call_ref?: string | null;
  trigger_ref?: string | null;
  queue_id?: string | null;
  [key: string]: unknown;
}

/** An object version as stored (`/obj/create`); `version_index` counts the object's versions from 0. */
export interface StoredObject {
  project_id: string;
  object_id: string;
  digest: string;
  /** `op` for saved functions, else `object`. */
  kind: "op" | "object";
  base_object_class: string | null;
  leaf_object_class: string | null;
  val: unknown;
  created_at: string;
  version_index: number;
}

/** One table row: its digest and value. */
export interface StoredRow {
  digest: string;
  val: unknown;
}

/** One half of a call to write. `start.id` and `start.trace_id` are filled in before they reach the store. */
export type CallWrite =
  | { kind: "start"; start: CallStart & { id: string; trace_id: string } }
  | { kind: "end"; end: CallEnd };

/** Columns a store can sort and page on by itself. */
export const CALL_COLUMNS = new Set([
  "id",
  "trace_id",
  "parent_id",
  "op_name",
  "display_name",
  "thread_id",
  "turn_id",
  "started_at",
  "ended_at",
  "exception",
  "wb_run_id",
]);

/** The list filters of {@link CallsFilter}, each with the call column its values must contain the call's value of. */
export const FILTER_COLUMNS: [keyof CallsFilter, keyof StoredCall][] = [
  ["op_names", "op_name"],
  ["trace_ids", "trace_id"],
  ["call_ids", "id"],
  ["parent_ids", "parent_id"],
  ["thread_ids", "thread_id"],
  ["turn_ids", "turn_id"],
  ["wb_run_ids", "wb_run_id"],
];

/** Which calls to read: started calls of one project matching `filter`; `page` sorts on columns and pages. */
export interface CallSelection {
  project: string;
  filter?: CallsFilter;
  /** Only calls that have a thread. */
  threaded?: boolean;
  page?: { sortBy: SortBy[]; limit?: number; offset?: number };
}

/**
 * What `findCalls` reads: started calls of one project matching `filter` and `query`, sorted on call columns
 * ({@link CALL_COLUMNS}; ties broken by arrival, in the first sort's direction), then paged.
 */
export interface CallSearch {
  project: string;
  filter?: CallsFilter;
  /** A query of the query language, over the call as the service returns it (call-query.ts). */
  query?: Query;
  sortBy?: SortBy[];
  offset?: number;
  limit?: number;
}

/**
 * An answer of `findCalls` / `findFeedback`. `exact`: the rows are the answer (query applied, sorted, paged).
 * Otherwise the store could not decide all of the query: the rows are a superset in the asked order (everything
 * else applied), not paged, and the caller runs the query on them and pages. Rows are read lazily, in bounded
 * batches, so a caller may stop early.
 */
export interface Found<T> {
  exact: boolean;
  rows: Iterable<T>;
}

/** What `findFeedback` reads: a project's feedback matching `query`, in `sortBy` order (creation order on ties). */
export interface FeedbackSearch {
  project: string;
  query?: Query;
  /** Top-level feedback fields only ({@link FEEDBACK_COLUMNS}). */
  sortBy?: SortBy[];
  offset?: number;
  limit?: number;
}

/** Feedback fields a store can sort on by itself. */
export const FEEDBACK_COLUMNS = new Set(["id", "weave_ref", "feedback_type", "created_at", "wb_user_id"]);

/** The columns of a threaded call that `/threads/stream_query` reads. */
export type ThreadCall = Pick<StoredCall, "id" | "thread_id" | "turn_id" | "started_at" | "ended_at">;

/** A trace, as retention deletes it. */
export interface TraceKey {
  project_id: string;
  trace_id: string;
}

export interface Store {
  /** `sqlite` (durable, in `--data`) or `memory` (lost on exit). */
  readonly kind: "sqlite" | "memory";
  /** Where the data lives and which driver keeps it, for the startup banner. */
  readonly description: string;
  /** Runs `fn` atomically: every write inside commits together or not at all. */
  transaction<T>(fn: () => T): T;
  writeCalls(writes: CallWrite[]): void;
  selectCalls(selection: CallSelection): StoredCall[];
  /** Calls matching a search, as far as the store can decide the query ({@link Found}). */
  findCalls(search: CallSearch): Found<StoredCall>;
  /**
   * How many calls match (`filter` and `query`), counting no further than `cap` + 1; undefined when the store cannot
   * decide the query (the caller counts what `findCalls` returns).
   */
  countCalls(search: Omit<CallSearch, "sortBy" | "offset" | "limit">, cap?: number): number | undefined;
  /** A project's started calls that have a thread (only of `threadIds` when given), slim. */
  threadCalls(project: string, threadIds?: string[]): ThreadCall[];
  readCall(project: string, id: string): StoredCall | undefined;
  /** Sets a call's display name (kept even when it arrives before the call's start). */
  renameCall(project: string, id: string, displayName: string): void;
  /** Deletes the calls and their descendants; returns how many went. */
  deleteCalls(project: string, ids: string[]): number;
  insertFeedback(rows: StoredFeedback[]): void;
  /** Feedback of a project in creation order, only on `weaveRefs` when given. */
  selectFeedback(project: string, weaveRefs?: string[]): StoredFeedback[];
  deleteFeedback(project: string, ids: string[]): number;
  /** Feedback matching a search, as far as the store can decide the query ({@link Found}). */
  findFeedback(search: FeedbackSearch): Found<StoredFeedback>;
  /** How many feedback records match `query`; undefined when the store cannot decide the query. */
  countFeedback(project: string, query: FeedbackSearch["query"]): number | undefined;
  /** Records a `/calls/score` request. */
  recordScoreRequest(project: string, callIds: string[], scorerRefs: string[]): void;
  /**
   * Stores an object version unless one with the same digest exists; returns the stored version (the new one, or
   * the one that was there), with its `version_index`.
   */
  putObject(obj: Omit<StoredObject, "version_index">): StoredObject;
  /** A project's object versions, oldest first, only of `objectIds` when given. */
  selectObjects(project: string, objectIds?: string[]): StoredObject[];
  /** Stores a table: its rows (content-addressed, shared between tables) and their order. */
  putTable(project: string, digest: string, rows: StoredRow[]): void;
  /** A table's rows in order, or undefined when there is no such table. */
  readTable(project: string, digest: string): StoredRow[] | undefined;
  /** Stores a file's bytes under their digest (a second upload of the same bytes changes nothing). */
  putFile(project: string, digest: string, bytes: Uint8Array): void;
  readFile(project: string, digest: string): Uint8Array | undefined;
  /**
   * The traces of the oldest calls (by start, across projects), oldest first, at most `limit` calls read; only
   * calls that started before `before` (ISO) when given.
   */
  oldestTraces(limit: number, before?: string): TraceKey[];
  /** Deletes traces whole, with the feedback on their calls; returns how many calls went. */
  deleteTraces(traces: TraceKey[]): number;
  /** How many started calls are stored, over every project. */
  callCount(): number;
  /** Projects that have calls, with their call count and latest start. */
  projects(): { project_id: string; calls: number; last_started_at: string | null }[];
  close(): void;
}
