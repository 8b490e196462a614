/**
 * What the vendor's SDKs save besides calls: files (`/file/*`), object versions (`/obj/*`, `/objs/query`), tables
 * (`/table/*`) and `/refs/read_batch`. Everything is content-addressed with the service's digests (../digest.ts),
 * so saving the same value twice yields the same digest and one stored version.
 */
import { parseRef } from "../../api/refs.js";
import type { ObjCreateReq, ObjQueryReq, ObjReadReq, ObjSchema } from "../../api/types/objects.js";
import type {
  TableCreateReq,
  TableQueryReq,
  TableQueryStatsBatchReq,
  TableQueryStatsReq,
  TableUpdateReq,
} from "../../api/types/tables.js";
import { bytesDigest, tableDigest, valueDigest } from "../digest.js";
import { parsePythonJsonExact } from "../exact-json.js";
import { checkJsonContentType, HttpError, parseJson, type Request } from "../http.js";
import { parsePythonJson, pythonDumps } from "../python-json.js";
import { compareBy } from "../query-dsl.js";
import type { Router } from "../router.js";
import {
  FILE_CONTENT_REQ,
  OBJ_CREATE_REQ,
  OBJ_QUERY_REQ,
  OBJ_READ_REQ,
  REFS_READ_BATCH_REQ,
  TABLE_CREATE_REQ,
  TABLE_QUERY_REQ,
  TABLE_QUERY_STATS_BATCH_REQ,
  TABLE_QUERY_STATS_REQ,
  TABLE_UPDATE_REQ,
} from "../schemas.js";
import type { Store, StoredObject, StoredRow } from "../store/types.js";
import { validateBody } from "../validate.js";
import { checkProject } from "./calls.js";
import { LOCAL_USER } from "./feedback.js";

const OBJECT_ID = /^[\w.-]{1,128}$/;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The service's classes of a value: `_class_name` is the leaf; the base is the class just above `Object`. */
function classesOf(val: unknown): { base: string | null; leaf: string | null } {
  if (!isRecord(val) || typeof val._class_name !== "string") return { base: null, leaf: null };
  const bases = Array.isArray(val._bases) ? val._bases.filter((b): b is string => typeof b === "string") : [];
  const objectAt = bases.indexOf("Object");
  const base = objectAt > 0 ? bases[objectAt - 1]! : val._class_name;
  return { base, leaf: val._class_name };
}

const isOpValue = (val: unknown): boolean =>
  isRecord(val) && val._type === "CustomWeaveType" && isRecord(val.weave_type) && val.weave_type.type === "Op";

function toObjSchema(obj: StoredObject, latest: boolean, metadataOnly = false): ObjSchema {
  return {
    project_id: obj.project_id,
    object_id: obj.object_id,
    created_at: obj.created_at,
    deleted_at: null,
    digest: obj.digest,
    version_index: obj.version_index,
    is_latest: latest ? 1 : 0,
    kind: obj.kind,
    base_object_class: obj.base_object_class,
    leaf_object_class: obj.leaf_object_class,
    val: metadataOnly ? {} : obj.val,
    wb_user_id: LOCAL_USER,
    size_bytes: pythonDumps(obj.val).length,
  };
}

/** An object's version by digest, `latest` or `v<index>`; a 404 naming it when there is none. */
function findVersion(store: Store, project: string, objectId: string, digest: string): [StoredObject, boolean] {
  const versions = store.selectObjects(project, [objectId]);
  const last = versions[versions.length - 1];
  const index = /^v(\d+)$/.exec(digest);
  const found =
    digest === "latest"
      ? last
      : versions.find((v) => v.digest === digest || (index && v.version_index === Number(index[1])));
  if (!found) throw new HttpError(404, `Obj ${objectId}:${digest} not found`);
  return [found, found === last];
}

function expectDigest(expected: string | null | undefined, actual: string): void {
  if (expected && expected !== actual) {
    throw new HttpError(400, `Digest mismatch: expected ${expected}, computed ${actual}.`);
  }
}

function tableRows(store: Store, project: string, digest: string): StoredRow[] {
  const rows = store.readTable(project, digest);
  if (!rows) throw new HttpError(404, `Table ${digest} not found`);
  return rows;
}

/**
 * A body that carries values to digest, read as the service's Python reads it: `body` as plain values (validated,
 * stored), `exact` with each number's text kept (python-json.ts), from which the digests are computed.
 */
async function readDigestBody(req: Request): Promise<{ body: unknown; exact: unknown }> {
  checkJsonContentType(req.headers, req.path);
  const raw = await req.body();
  return { body: parseJson(raw, parsePythonJsonExact), exact: parseJson(raw, (text) => parsePythonJson(text, true)) };
}

/** `exact[key]`: the same part of the exact reading of a body as the handler reads from the plain one. */
const part = (exact: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((v, key) => (v as Record<string | number, unknown> | undefined)?.[key], exact);

/** Stores rows (each with its digest) as a table under the digest of their digests. */
function saveTable(store: Store, project: string, rows: StoredRow[]): { digest: string; rows: StoredRow[] } {
  const digest = tableDigest(rows.map((r) => r.digest));
  store.putTable(project, digest, rows);
  return { digest, rows };
}

/** The rows of `/table/query` (and its stream): filtered by digest, sorted, paged, with their original index. */
function queryTable(store: Store, body: TableQueryReq) {
  const wanted = body.filter?.row_digests && new Set(body.filter.row_digests);
  let rows = tableRows(store, checkProject(body.project_id), body.digest)
    .map((row, i) => ({ digest: row.digest, val: row.val, original_index: i }))
    .filter((row) => !wanted || wanted.has(row.digest));
  if (body.sort_by?.length) {
    const order = compareBy(
      body.sort_by.map((s) => ({ ...s, field: s.field === "original_index" ? s.field : `val.${s.field}` })),
    );
    rows = rows.sort((a, b) => order(a, b) || a.original_index - b.original_index);
  }
  const offset = body.offset ?? 0;
  return rows.slice(offset, body.limit === undefined || body.limit === null ? undefined : offset + body.limit);
}

/**
 * Follows a ref's `edge/value` path (`attr`, `key`, `index`, `id`) through values, tables and nested refs. Also
 * resolves row refs for `eval_results/query`.
 */
export function resolveRef(store: Store, uri: string, depth = 0, keepTable = depth > 0): unknown {
  if (depth > 16) throw new HttpError(400, `Ref ${uri} nests too deep.`);
  let ref: ReturnType<typeof parseRef>;
  try {
    ref = parseRef(uri);
  } catch (err) {
    throw new HttpError(400, (err as Error).message);
  }
  let current: unknown;
  if (ref.kind === "call") throw new HttpError(400, `Ref ${uri}: /refs/read_batch reads objects, ops and tables.`);
  if (ref.kind === "table") current = { table: tableRows(store, ref.projectId, ref.digest!) };
  else current = findVersion(store, ref.projectId, ref.name!, ref.digest!)[0].val;
  for (let i = 0; i < ref.extra.length; i += 2) {
    const [edge, value] = [ref.extra[i]!, ref.extra[i + 1]!];
    // A saved value holds nested saved values (a dataset's rows table) as refs: read through them.
    if (typeof current === "string" && current.startsWith("weave:///")) current = resolveRef(store, current, depth + 1);
    const table = isRecord(current) && Array.isArray(current.table) ? (current.table as StoredRow[]) : undefined;
    if (edge === "id" && table) current = table.find((r) => r.digest === value)?.val;
    else if (edge === "index")
      current = table ? table[Number(value)]?.val : (current as unknown[] | undefined)?.[Number(value)];
    else if ((edge === "attr" || edge === "key") && isRecord(current)) current = current[value];
    else current = undefined;
    if (current === undefined) throw new HttpError(404, `Ref ${uri}: nothing at ${edge}/${value}.`);
  }
  return !keepTable && isRecord(current) && Array.isArray(current.table)
    ? (current.table as StoredRow[]).map((r) => r.val)
    : current;
}

/** `/file/create` is multipart/form-data: `project_id`, `file`, optional `expected_digest`. */
async function readUpload(req: Request): Promise<{ project: string; bytes: Uint8Array; expected?: string }> {
  const type = String(req.headers["content-type"] ?? "");
  if (!type.toLowerCase().startsWith("multipart/form-data")) {
    throw new HttpError(400, "/file/create takes multipart/form-data with the fields project_id and file.");
  }
  let form: FormData;
  try {
    form = await new Response(await req.body(), { headers: { "content-type": type } }).formData();
  } catch (err) {
    throw new HttpError(400, `The multipart body could not be read: ${(err as Error).message}`);
  }
  const project = form.get("project_id");
  const file = form.get("file");
  const missing = [typeof project !== "string" && "project_id", file === null && "file"].filter(Boolean);
  if (missing.length) {
    throw new HttpError(422, "Field required", {
      detail: missing.map((name) => ({ type: "missing", loc: ["body", name], msg: "Field required", input: null })),
    });
  }
  const bytes = typeof file === "string" ? new TextEncoder().encode(file) : new Uint8Array(await file!.arrayBuffer());
  const expected = form.get("expected_digest");
  return { project: checkProject(project as string), bytes, ...(typeof expected === "string" && { expected }) };
}

export function objectRoutes(router: Router): void {
  router.on("POST", "/file/create", async (req, { store }) => {
    const { project, bytes, expected } = await readUpload(req);
    const digest = bytesDigest(bytes);
    expectDigest(expected, digest);
    store.putFile(project, digest, bytes);
    return { json: { digest } };
  });

  router.on("POST", "/file/content", async (req, { store }) => {
    const body = validateBody<{ project_id: string; digest: string }>(await req.json(), FILE_CONTENT_REQ);
    const bytes = store.readFile(checkProject(body.project_id), body.digest);
    if (!bytes) throw new HttpError(404, `File ${body.digest} not found`);
    return { bytes, contentType: "application/octet-stream" };
  });

  router.on("POST", "/obj/create", async (req, { store }) => {
    const { body, exact } = await readDigestBody(req);
    const { obj } = validateBody<ObjCreateReq>(body, OBJ_CREATE_REQ);
    const project = checkProject(obj.project_id);
    if (!OBJECT_ID.test(obj.object_id)) {
      throw new HttpError(
        400,
        `Invalid object_id ${JSON.stringify(obj.object_id)}: use [A-Za-z0-9_.-], 1–128 characters.`,
      );
    }
    const digest = valueDigest(part(exact, "obj", "val"));
    expectDigest(obj.expected_digest, digest);
    const classes = classesOf(obj.val);
    store.putObject({
      project_id: project,
      object_id: obj.object_id,
      digest,
      kind: isOpValue(obj.val) ? "op" : "object",
      base_object_class: obj.builtin_object_class ?? classes.base,
      leaf_object_class: obj.builtin_object_class ?? classes.leaf,
      val: obj.val,
      created_at: new Date().toISOString(),
    });
    return { json: { digest, object_id: obj.object_id } };
  });

  router.on("POST", "/obj/read", async (req, { store }) => {
    const body = validateBody<ObjReadReq>(await req.json(), OBJ_READ_REQ);
    const [obj, latest] = findVersion(store, checkProject(body.project_id), body.object_id, body.digest);
    return { json: { obj: toObjSchema(obj, latest, body.metadata_only ?? false) } };
  });

  router.on("POST", "/objs/query", async (req, { store }) => {
    const body = validateBody<ObjQueryReq>(await req.json(), OBJ_QUERY_REQ);
    const f = body.filter ?? {};
    const all = store.selectObjects(checkProject(body.project_id), f.object_ids);
    const latestIndex = new Map(all.map((o) => [o.object_id, o.version_index]));
    let objs = all
      .map((o) => toObjSchema(o, latestIndex.get(o.object_id) === o.version_index, body.metadata_only ?? false))
      .filter(
        (o) =>
          (!f.latest_only || o.is_latest === 1) &&
          (f.is_op === undefined || f.is_op === null || (o.kind === "op") === f.is_op) &&
          (!f.base_object_classes || f.base_object_classes.includes(o.base_object_class ?? "")) &&
          !f.exclude_base_object_classes?.includes(o.base_object_class ?? "") &&
          (!f.leaf_object_classes || f.leaf_object_classes.includes(o.leaf_object_class ?? "")),
      );
    if (body.sort_by?.length) objs = objs.sort(compareBy(body.sort_by));
    const offset = body.offset ?? 0;
    objs = objs.slice(offset, body.limit === undefined || body.limit === null ? undefined : offset + body.limit);
    return { json: { objs } };
  });

  router.on("POST", "/table/create", async (req, { store }) => {
    const { body, exact } = await readDigestBody(req);
    const { table } = validateBody<TableCreateReq>(body, TABLE_CREATE_REQ);
    const project = checkProject(table.project_id);
    const rows = table.rows.map((val, i) => ({ digest: valueDigest(part(exact, "table", "rows", i)), val }));
    expectDigest(table.expected_digest, tableDigest(rows.map((r) => r.digest)));
    const saved = saveTable(store, project, rows);
    return { json: { digest: saved.digest, row_digests: saved.rows.map((r) => r.digest) } };
  });

  router.on("POST", "/table/update", async (req, { store }) => {
    const read = await readDigestBody(req);
    const body = validateBody<TableUpdateReq>(read.body, TABLE_UPDATE_REQ);
    const project = checkProject(body.project_id);
    // Rows kept from the base table keep the digests they were stored with.
    const rows = [...tableRows(store, project, body.base_digest)];
    const updated: string[] = [];
    for (const [i, update] of body.updates.entries()) {
      const where = `updates.${i}`;
      if ("append" in update) {
        const row = { digest: valueDigest(part(read.exact, "updates", i, "append", "row")), val: update.append.row };
        rows.push(row);
        updated.push(row.digest);
      } else if ("insert" in update) {
        const { index } = update.insert;
        if (index < 0 || index > rows.length) throw new HttpError(400, `${where}: index ${index} is out of range.`);
        const row = { digest: valueDigest(part(read.exact, "updates", i, "insert", "row")), val: update.insert.row };
        rows.splice(index, 0, row);
        updated.push(row.digest);
      } else if ("pop" in update) {
        const { index } = update.pop;
        if (index < 0 || index >= rows.length) throw new HttpError(400, `${where}: index ${index} is out of range.`);
        rows.splice(index, 1);
      } else {
        throw new HttpError(400, `${where}: expected one of append, insert, pop.`);
      }
    }
    const saved = saveTable(store, project, rows);
    return { json: { digest: saved.digest, updated_row_digests: updated } };
  });

  router.on("POST", "/table/query", async (req, { store }) => {
    const body = validateBody<TableQueryReq>(await req.json(), TABLE_QUERY_REQ);
    return { json: { rows: queryTable(store, body) } };
  });

  router.on("POST", "/table/query_stream", async (req, { store }) => {
    const body = validateBody<TableQueryReq>(await req.json(), TABLE_QUERY_REQ);
    return { ndjson: queryTable(store, body) };
  });

  router.on("POST", "/table/query_stats", async (req, { store }) => {
    const body = validateBody<TableQueryStatsReq>(await req.json(), TABLE_QUERY_STATS_REQ);
    return { json: { count: tableRows(store, checkProject(body.project_id), body.digest).length } };
  });

  router.on("POST", "/table/query_stats_batch", async (req, { store }) => {
    const body = validateBody<TableQueryStatsBatchReq>(await req.json(), TABLE_QUERY_STATS_BATCH_REQ);
    const project = checkProject(body.project_id);
    const tables = (body.digests ?? []).flatMap((digest) => {
      const rows = store.readTable(project, digest);
      if (!rows) return [];
      const size = rows.reduce((n, r) => n + pythonDumps(r.val).length, 0);
      return [{ digest, count: rows.length, ...(body.include_storage_size && { storage_size_bytes: size }) }];
    });
    return { json: { tables } };
  });

  router.on("POST", "/refs/read_batch", async (req, { store }) => {
    const body = validateBody<{ refs: string[] }>(await req.json(), REFS_READ_BATCH_REQ);
    return { json: { vals: body.refs.map((ref) => resolveRef(store, ref)) } };
  });
}
