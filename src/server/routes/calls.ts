/** Call endpoints: the write path (`/call/start`, `/call/end`, `/call/upsert_batch`), reads, renames, deletes. */
import { randomUUID } from "node:crypto";
import type {
  CallEnd,
  CallEndReq,
  CallReadReq,
  CallStart,
  CallStartReq,
  CallsDeleteReq,
  CallsQueryReq,
  CallsQueryStatsReq,
  CallsScoreReq,
  CallUpdateReq,
  CallUpsertBatchReq,
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

export function callRoutes(router: Router): void {
  router.on("POST", "/call/start", async (req, { store }) => {
    const body = validateBody<CallStartReq>(await req.json(), CALL_START_REQ);
    const write = startWrite(body.start);
    store.writeCalls([write]);
    return { json: write.kind === "start" ? { id: write.start.id, trace_id: write.start.trace_id } : {} };
  });

  router.on("POST", "/call/end", async (req, { store }) => {
    const body = validateBody<CallEndReq>(await req.json(), CALL_END_REQ);
    store.writeCalls([endWrite(body.end)]);
    return { json: {} };
  });

  router.on("POST", "/call/upsert_batch", async (req, { store }) => {
    const body = validateBody<CallUpsertBatchReq>(await req.json(), CALL_UPSERT_BATCH_REQ);
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
