/**
 * `POST /threads/stream_query`: conversations grouped by `thread_id`. Statistics count turn calls (a call whose
 * `turn_id` is its own id); a thread whose turns are not marked falls back to all its calls.
 */
import type { ThreadSchema, ThreadsQueryReq } from "../../api/types/threads.js";
import { HttpError } from "../http.js";
import { compareBy } from "../query-dsl.js";
import type { Router } from "../router.js";
import { THREADS_QUERY_REQ } from "../schemas.js";
import type { ThreadCall } from "../store/types.js";
import { validateBody } from "../validate.js";
import { checkProject } from "./calls.js";

const SORTABLE = new Set([
  "thread_id",
  "turn_count",
  "start_time",
  "last_updated",
  "p50_turn_duration_ms",
  "p99_turn_duration_ms",
]);

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

function threadOf(threadId: string, calls: ThreadCall[]): ThreadSchema {
  const marked = calls.filter((c) => c.turn_id === c.id);
  const turns = (marked.length ? marked : calls).sort((a, b) => (a.started_at ?? "").localeCompare(b.started_at ?? ""));
  const durations = turns
    .filter((t) => t.ended_at && t.started_at)
    .map((t) => Date.parse(t.ended_at!) - Date.parse(t.started_at!))
    .sort((a, b) => a - b);
  const updated = turns.map((t) => t.ended_at ?? t.started_at ?? "").sort();
  return {
    thread_id: threadId,
    turn_count: marked.length,
    start_time: turns[0]?.started_at ?? "",
    last_updated: updated[updated.length - 1] ?? "",
    first_turn_id: marked.length ? turns[0]!.id : null,
    last_turn_id: marked.length ? turns[turns.length - 1]!.id : null,
    p50_turn_duration_ms: percentile(durations, 50),
    p99_turn_duration_ms: percentile(durations, 99),
  };
}

export function threadRoutes(router: Router): void {
  router.on("POST", "/threads/stream_query", async (req, { store }) => {
    const body = validateBody<ThreadsQueryReq>(await req.json(), THREADS_QUERY_REQ);
    const sortBy = body.sort_by?.length ? body.sort_by : [{ field: "last_updated", direction: "desc" as const }];
    for (const s of sortBy) {
      if (!SORTABLE.has(s.field))
        throw new HttpError(400, `Cannot sort threads by ${s.field}: use one of ${[...SORTABLE].join(", ")}.`);
    }
    const filter = body.filter ?? {};
    const calls = store.threadCalls(checkProject(body.project_id), filter.thread_ids);
    const byThread = new Map<string, ThreadCall[]>();
    for (const call of calls) {
      const list = byThread.get(call.thread_id!);
      if (list) list.push(call);
      else byThread.set(call.thread_id!, [call]);
    }
    const after = filter.after_datetime ? Date.parse(filter.after_datetime) : undefined;
    const before = filter.before_datetime ? Date.parse(filter.before_datetime) : undefined;
    const threads = [...byThread]
      .map(([id, threadCalls]) => threadOf(id, threadCalls))
      .filter(
        (t) =>
          (after === undefined || Date.parse(t.start_time) >= after) &&
          (before === undefined || Date.parse(t.start_time) < before),
      )
      .sort(compareBy(sortBy));
    const offset = Math.max(0, body.offset ?? 0);
    return { ndjson: threads.slice(offset, body.limit == null ? undefined : offset + body.limit) };
  });
}
