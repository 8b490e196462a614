/**
 * Call endpoints: the write paths, reads, renames, deletes. Calls are written three ways, as by the hosted service:
 * v1 `/call/start`, `/call/end` and `/call/upsert_batch`, and v2 `/v2/{entity}/{project}/calls/complete` (a call's
 * start and end in one record) with its eager `/v2/{entity}/{project}/call/start` and `/call/end`. Like the hosted
 * service, a project that holds calls written through v2 refuses v1 writes with a 400 whose `error_code` is
 * `CALLS_COMPLETE_MODE_REQUIRED` (remembered for the life of this process).
 */
import { randomUUID } from "node:crypto";
import type {
  CallEnd,
  CallEndReq,
  CallReadReq,
  CallStart,
  CallStartReq,
  CallsCompleteReq,
  CallsDeleteReq,
  CallsQueryReq,
  CallsQueryStatsReq,
  CallsScoreReq,
  CallUpdateReq,
  CallUpsertBatchReq,
  CompletedCall,
} from "../../api/types/calls.js";
import { countCalls, queryCalls, toCallSchema } from "../call-query.js";
import { HttpError } from "../http.js";
import type { Router } from "../router.js";
import {
  CALL_END_REQ,
  CALL_READ_REQ,
  CALL_START_REQ,
  CALL_UPDATE_REQ,
  CALL_UPSERT_BATCH_REQ,
  CALLS_COMPLETE_REQ,
  CALLS_DELETE_REQ,
  CALLS_QUERY_REQ,
  CALLS_QUERY_STATS_REQ,
  CALLS_SCORE_REQ,
} from "../schemas.js";
import type { CallWrite } from "../store/types.js";
import { validateBody } from "../validate.js";

const PROJECT = /^[^/\s]+\/[^/\s]+$/;

/** The service's project ids are `entity/project`; anything else is a 400. */
export function checkProject(project: string): string {
  if (!PROJECT.test(project)) {
    throw new HttpError(400, `Invalid project_id ${JSON.stringify(project)}: expected "entity/project".`);
  }
  return project;
}

/** Timestamps are stored in one format (UTC, milliseconds), so they sort as text. */
export const isoTimestamp = (value: string): string => new Date(value).toISOString();

export function startWrite(start: CallStart): CallWrite {
  checkProject(start.project_id);
  const id = start.id || randomUUID();
  return {
    kind: "start",
    start: {
      ...start,
      id,
      trace_id: start.trace_id || randomUUID(),
      started_at: isoTimestamp(start.started_at),
    },
  };
}

export function endWrite(end: CallEnd): CallWrite {
  checkProject(end.project_id);
  return { kind: "end", end: { ...end, ended_at: isoTimestamp(end.ended_at) } };
}

/** The start and end writes of a completed call (`CompletedCallSchemaForInsert`). */
function completeWrites(call: CompletedCall): CallWrite[] {
  const { ended_at, output, exception, summary, wb_run_step_end, ...start } = call;
  const end: CallEnd = { project_id: call.project_id, id: call.id, ended_at, summary };
  if (output !== undefined) end.output = output;
  if (exception !== undefined) end.exception = exception;
  if (wb_run_step_end !== undefined) end.wb_run_step_end = wb_run_step_end;
  return [startWrite(start), endWrite(end)];
}

/** The error the hosted service answers a v1 write to a project in calls-complete mode with. */
export const CALLS_COMPLETE_MODE_REQUIRED = "CALLS_COMPLETE_MODE_REQUIRED";

export function callRoutes(router: Router): void {
  /** Projects that received v2 call writes: v1 writes to them are refused, as the hosted service does. */
  const completeMode = new Set<string>();
  const refuseV1 = (projects: Iterable<string>): void => {
    for (const project of projects) {
      if (!completeMode.has(project)) continue;
      const message = `Project ${project} stores complete calls: write them through /v2/{entity}/{project}/calls/complete.`;
      throw new HttpError(400, message, { error_code: CALLS_COMPLETE_MODE_REQUIRED, message });
    }
  };
  /** Checks that every record of a v2 write belongs to the path's project, which takes complete calls from now on. */
  const v2Project = (req: { params: Record<string, string> }, ids: readonly string[]): void => {
    const project = checkProject(`${req.params.entity}/${req.params.project}`);
    const other = ids.find((id) => id !== project);
    if (other !== undefined)
      throw new HttpError(400, `project_id ${JSON.stringify(other)} does not match the path's ${project}.`);
    completeMode.add(project);
  };

  router.on("POST", "/v2/:entity/:project/calls/complete", async (req, { store }) => {
    const body = validateBody<CallsCompleteReq>(await req.json(), CALLS_COMPLETE_REQ);
    const writes = body.batch.flatMap(completeWrites);
    v2Project(
      req,
      body.batch.map((call) => call.project_id),
    );
    store.writeCalls(writes);
    return { json: {} };
  });

  router.on("POST", "/v2/:entity/:project/call/start", async (req, { store }) => {
    const body = validateBody<CallStartReq>(await req.json(), CALL_START_REQ);
    const write = startWrite(body.start);
    v2Project(req, [body.start.project_id]);
    store.writeCalls([write]);
    return { json: write.kind === "start" ? { id: write.start.id, trace_id: write.start.trace_id } : {} };
  });

  router.on("POST", "/v2/:entity/:project/call/end", async (req, { store }) => {
    const body = validateBody<CallEndReq>(await req.json(), CALL_END_REQ);
    const write = endWrite(body.end);
    v2Project(req, [body.end.project_id]);
    store.writeCalls([write]);
    return { json: {} };
  });

  router.on("POST", "/call/start", async (req, { store }) => {
    const body = validateBody<CallStartReq>(await req.json(), CALL_START_REQ);
    refuseV1([body.start.project_id]);
    const write = startWrite(body.start);
    store.writeCalls([write]);
    return { json: write.kind === "start" ? { id: write.start.id, trace_id: write.start.trace_id } : {} };
  });

  router.on("POST", "/call/end", async (req, { store }) => {
    const body = validateBody<CallEndReq>(await req.json(), CALL_END_REQ);
    refuseV1([body.end.project_id]);
    store.writeCalls([endWrite(body.end)]);
    return { json: {} };
  });

  router.on("POST", "/call/upsert_batch", async (req, { store }) => {
    const body = validateBody<CallUpsertBatchReq>(await req.json(), CALL_UPSERT_BATCH_REQ);
    refuseV1(body.batch.map((item) => (item.mode === "end" ? item.req.end : item.req.start).project_id));
    // Everything is checked before anything is written, and the batch is written in one transaction.
    const writes = body.batch.map((item) =>
      item.mode === "end" ? endWrite(item.req.end) : startWrite(item.req.start),
    );
    store.writeCalls(writes);
    return {
      json: { res: writes.map((w) => (w.kind === "start" ? { id: w.start.id, trace_id: w.start.trace_id } : {})) },
    };
  });

  router.on("POST", "/call/read", async (req, { store }) => {
    const body = validateBody<CallReadReq>(await req.json(), CALL_READ_REQ);
    const call = store.readCall(checkProject(body.project_id), body.id);
    return { json: { call: call ? toCallSchema(call) : null } };
  });

  router.on("POST", "/call/update", async (req, { store }) => {
    const body = validateBody<CallUpdateReq>(await req.json(), CALL_UPDATE_REQ);
    if (body.display_name !== undefined && body.display_name !== null) {
      if (body.display_name.length > 1024) throw new HttpError(400, "display_name is longer than 1024 characters.");
      store.renameCall(checkProject(body.project_id), body.call_id, body.display_name);
    }
    return { json: {} };
  });

  router.on("POST", "/calls/delete", async (req, { store }) => {
    const body = validateBody<CallsDeleteReq>(await req.json(), CALLS_DELETE_REQ);
    return { json: { num_deleted: store.deleteCalls(checkProject(body.project_id), body.call_ids) } };
  });

  router.on("POST", "/calls/stream_query", async (req, { store }) => {
    const body = validateBody<CallsQueryReq>(await req.json(), CALLS_QUERY_REQ);
    checkProject(body.project_id);
    return { ndjson: queryCalls(store, body) };
  });

  router.on("POST", "/calls/query_stats", async (req, { store }) => {
    const body = validateBody<CallsQueryStatsReq>(await req.json(), CALLS_QUERY_STATS_REQ);
    checkProject(body.project_id);
    return { json: countCalls(store, body) };
  });

  router.on("POST", "/calls/score", async (req, { store }) => {
    const body = validateBody<CallsScoreReq>(await req.json(), CALLS_SCORE_REQ);
    // Scoring runs on the hosted service's workers; here the request is accepted and recorded only.
    store.recordScoreRequest(checkProject(body.project_id), body.call_ids, body.scorer_refs);
    return { json: {} };
  });
}
