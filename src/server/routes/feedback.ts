/** Feedback endpoints: create (one or a batch), query, replace (purge, then create), purge. */
import { randomUUID } from "node:crypto";
import { checkFeedback } from "../../api/feedback-rules.js";
import { parseRef, REACTION_FEEDBACK_TYPE } from "../../api/refs.js";
import type {
  FeedbackCreateBatchReq,
  FeedbackCreateReq,
  FeedbackPurgeReq,
  FeedbackQueryReq,
  FeedbackReplaceReq,
} from "../../api/types/feedback.js";
import { reactionPayload } from "../emoji-names.js";
import { HttpError } from "../http.js";
import { checkQuery, compareBy, getPath, matches } from "../query-dsl.js";
import type { Router } from "../router.js";
import {
  FEEDBACK_BATCH_REQ,
  FEEDBACK_CREATE_REQ,
  FEEDBACK_PURGE_REQ,
  FEEDBACK_QUERY_REQ,
  FEEDBACK_REPLACE_REQ,
} from "../schemas.js";
import { FEEDBACK_COLUMNS, type Store, type StoredFeedback } from "../store/types.js";
import { validateBody } from "../validate.js";
import { checkProject } from "./calls.js";

/** The user every record is attributed to: the local service has no accounts. */
export const LOCAL_USER = "local-user";

/** Checks what the service checks about a feedback record (api/feedback-rules.ts), and builds the row to store. */
export function feedbackRow(req: FeedbackCreateReq, id: string = req.id ?? randomUUID()): StoredFeedback {
  checkProject(req.project_id);
  let refProject: string;
  try {
    refProject = parseRef(req.weave_ref).projectId;
  } catch (err) {
    throw new HttpError(400, (err as Error).message);
  }
  if (refProject !== req.project_id) {
    throw new HttpError(400, `weave_ref ${req.weave_ref} is not in project ${req.project_id}.`);
  }
  try {
    checkFeedback(req);
  } catch (err) {
    throw new HttpError(400, (err as Error).message);
  }
  const row: StoredFeedback = {
    ...Object.fromEntries(Object.entries(req).filter(([, v]) => v !== undefined && v !== null)),
    id,
    project_id: req.project_id,
    weave_ref: req.weave_ref,
    feedback_type: req.feedback_type,
    // The service stores a reaction with its alias and detoned forms (and answers them in the create response).
    payload:
      req.feedback_type === REACTION_FEEDBACK_TYPE
        ? { ...req.payload, ...reactionPayload(String(req.payload.emoji)) }
        : req.payload,
    created_at: new Date().toISOString(),
    wb_user_id: LOCAL_USER,
  };
  return row;
}

const created = (row: StoredFeedback) => ({
  id: row.id,
  created_at: row.created_at,
  wb_user_id: row.wb_user_id,
  payload: row.payload,
});

/** Stores new feedback, all or nothing; a client-chosen id that is taken is a 400. */
function insert(store: Store, rows: StoredFeedback[]): void {
  try {
    store.insertFeedback(rows);
  } catch (err) {
    if (/UNIQUE/i.test((err as Error).message))
      throw new HttpError(400, "A feedback id in the request already exists.");
    throw err;
  }
}

/**
 * A page of `/feedback/query` and how many match in all: the store sorts, pages and counts when it can decide the
 * query (store/query-sql.ts); otherwise the query runs here on the project's feedback.
 */
function queryFeedback(
  store: Store,
  project: string,
  body: FeedbackQueryReq,
): { rows: StoredFeedback[]; total: number } {
  const sortBy = body.sort_by?.length ? body.sort_by : [{ field: "created_at", direction: "asc" as const }];
  const offset = Math.max(0, body.offset ?? 0);
  const limit = body.limit === undefined || body.limit === null ? undefined : body.limit;
  const columnSort = sortBy.every((s) => FEEDBACK_COLUMNS.has(s.field));
  const found = store.findFeedback({
    project,
    ...(body.query ? { query: body.query } : {}),
    ...(columnSort ? { sortBy, offset, ...(limit !== undefined && { limit }) } : {}),
  });
  if (found.exact && columnSort) {
    return { rows: [...found.rows], total: store.countFeedback(project, body.query) ?? 0 };
  }
  const all = found.exact ? [...found.rows] : [...found.rows].filter((row) => matches(body.query, row));
  if (!columnSort) all.sort(compareBy(sortBy));
  return { rows: all.slice(offset, limit === undefined ? undefined : offset + limit), total: all.length };
}

export function feedbackRoutes(router: Router): void {
  router.on("POST", "/feedback/create", async (req, { store }) => {
    const body = validateBody<FeedbackCreateReq>(await req.json(), FEEDBACK_CREATE_REQ);
    const row = feedbackRow(body);
    insert(store, [row]);
    return { json: created(row) };
  });

  router.on("POST", "/feedback/batch/create", async (req, { store }) => {
    const body = validateBody<FeedbackCreateBatchReq>(await req.json(), FEEDBACK_BATCH_REQ);
    const rows = body.batch.map((item) => feedbackRow(item));
    insert(store, rows);
    return { json: { res: rows.map(created) } };
  });

  router.on("POST", "/feedback/query", async (req, { store }) => {
    const body = validateBody<FeedbackQueryReq>(await req.json(), FEEDBACK_QUERY_REQ);
    const project = checkProject(body.project_id);
    checkQuery(body.query);
    const page = queryFeedback(store, project, body);
    const result = body.fields?.length
      ? page.rows.map((row) => Object.fromEntries(body.fields!.map((field) => [field, getPath(row, field) ?? null])))
      : page.rows;
    return { json: { result, total_count: page.total } };
  });

  router.on("POST", "/feedback/replace", async (req, { store }) => {
    const body = validateBody<FeedbackReplaceReq>(await req.json(), FEEDBACK_REPLACE_REQ);
    const { feedback_id, ...create } = body;
    // As the service does: purge `feedback_id` (there or not), then create the new record under its own id.
    const row = feedbackRow(create);
    store.transaction(() => {
      store.deleteFeedback(row.project_id, [feedback_id]);
      insert(store, [row]);
    });
    return { json: created(row) };
  });

  router.on("POST", "/feedback/purge", async (req, { store }) => {
    const body = validateBody<FeedbackPurgeReq>(await req.json(), FEEDBACK_PURGE_REQ);
    const project = checkProject(body.project_id);
    checkQuery(body.query);
    const found = store.findFeedback({ project, query: body.query });
    const doomed = found.exact ? [...found.rows] : [...found.rows].filter((row) => matches(body.query, row));
    store.deleteFeedback(
      project,
      doomed.map((row) => row.id),
    );
    return { json: {} };
  });
}
