/**
 * What the vendor's SDKs save besides calls: files, object versions, tables and refs, with the service's digests,
 * stored in SQLite and still there after a restart. Plus the call fields the service derives on read: the trace
 * name from an op ref and `descendant_error`.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableDrivers, ndjson, PROJECT, send, startService, type TestService, tempDir } from "./helpers.js";

/** The service's digest, computed here independently of src/server/digest.ts. */
const digestOf = (text: string | Uint8Array) =>
  createHash("sha256").update(text).digest("base64").replace(/\+/g, "X").replace(/\//g, "Y").replace(/=+$/, "");

const drivers = await availableDrivers();

describe.skipIf(drivers.length === 0)("objects, tables, files and refs", () => {
  const dataDir = tempDir();
  let service: TestService;
  beforeAll(async () => {
    service = await startService({ dataDir, sqliteDriver: drivers[0]! });
  });
  afterAll(() => service.close());

  const post = (path: string, body: unknown) => send(service.url, path, body);

  it("stores object versions under the service's digest (sorted keys, Python separators)", async () => {
    const val = { b: 1, a: "é", _type: "Prompt", _class_name: "Prompt", _bases: ["Object", "BaseModel"] };
    const first = await post("/obj/create", { obj: { project_id: PROJECT, object_id: "prompt", val } });
    expect(first.status).toBe(200);
    const expected = digestOf(
      '{"_bases": ["Object", "BaseModel"], "_class_name": "Prompt", "_type": "Prompt", "a": "\\u00e9", "b": 1}',
    );
    expect(first.json).toEqual({ digest: expected, object_id: "prompt" });
    // The same value again is the same version; another value is version 1.
    expect((await post("/obj/create", { obj: { project_id: PROJECT, object_id: "prompt", val } })).json).toEqual(
      first.json,
    );
    const second = await post("/obj/create", { obj: { project_id: PROJECT, object_id: "prompt", val: { b: 2 } } });
    const read = await post("/obj/read", { project_id: PROJECT, object_id: "prompt", digest: expected });
    expect(read.json).toMatchObject({
      obj: { digest: expected, version_index: 0, is_latest: 0, kind: "object", base_object_class: "Prompt", val },
    });
    const latest = await post("/obj/read", { project_id: PROJECT, object_id: "prompt", digest: "latest" });
    expect(latest.json).toMatchObject({
      obj: { digest: (second.json as { digest: string }).digest, version_index: 1 },
    });
    const missing = await post("/obj/read", { project_id: PROJECT, object_id: "prompt", digest: "nope" });
    expect(missing.status).toBe(404);
    const mismatch = await post("/obj/create", {
      obj: { project_id: PROJECT, object_id: "prompt", val: { c: 1 }, expected_digest: "wrong" },
    });
    expect(mismatch.status).toBe(400);
    const query = await post("/objs/query", {
      project_id: PROJECT,
      filter: { object_ids: ["prompt"], latest_only: true },
    });
    expect((query.json as { objs: { version_index: number }[] }).objs.map((o) => o.version_index)).toEqual([1]);
  });

  it("takes multipart file uploads and answers their bytes", async () => {
    const form = new FormData();
    form.append("project_id", PROJECT);
    form.append("file", new Blob([new Uint8Array([0, 1, 2, 255])]), "obj.bin");
    const created = await fetch(`${service.url}/file/create`, { method: "POST", body: form });
    expect(created.status).toBe(200);
    const { digest } = (await created.json()) as { digest: string };
    expect(digest).toBe(digestOf(new Uint8Array([0, 1, 2, 255])));
    const content = await fetch(`${service.url}/file/content`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ project_id: PROJECT, digest }),
    });
    expect(content.headers.get("content-type")).toBe("application/octet-stream");
    expect([...new Uint8Array(await content.arrayBuffer())]).toEqual([0, 1, 2, 255]);
    const json = await post("/file/create", { project_id: PROJECT });
    expect(json.status).toBe(400);
  });

  it("creates, updates and queries tables; refs read through a dataset to its rows", async () => {
    const rows = [
      { q: "2+2", a: 4 },
      { q: "3+3", a: 6 },
    ];
    const created = await post("/table/create", { table: { project_id: PROJECT, rows } });
    const rowDigests = rows.map((r) => digestOf(`{"a": ${r.a}, "q": "${r.q}"}`));
    // A table's digest is the hex sha256 of its row digests (vendor's digest.py), not the base64 form of values.
    const digest = createHash("sha256").update(rowDigests.join("")).digest("hex");
    expect(created.json).toEqual({ digest, row_digests: rowDigests });

    const query = await post("/table/query", { project_id: PROJECT, digest });
    expect(query.json).toEqual({
      rows: rows.map((val, i) => ({ digest: rowDigests[i], val, original_index: i })),
    });
    const stream = await post("/table/query_stream", { project_id: PROJECT, digest, offset: 1 });
    expect(ndjson(stream.text).map((r) => r.val)).toEqual([rows[1]]);
    expect((await post("/table/query_stats", { project_id: PROJECT, digest })).json).toEqual({ count: 2 });

    const updated = await post("/table/update", {
      project_id: PROJECT,
      base_digest: digest,
      updates: [{ append: { row: { q: "4+4", a: 8 } } }, { pop: { index: 0 } }],
    });
    const newDigest = (updated.json as { digest: string }).digest;
    const after = await post("/table/query", { project_id: PROJECT, digest: newDigest });
    expect((after.json as { rows: { val: unknown }[] }).rows.map((r) => r.val)).toEqual([rows[1], { q: "4+4", a: 8 }]);
    const stats = await post("/table/query_stats_batch", { project_id: PROJECT, digests: [digest, newDigest, "x"] });
    expect(stats.json).toEqual({
      tables: [
        { digest, count: 2 },
        { digest: newDigest, count: 2 },
      ],
    });

    const dataset = await post("/obj/create", {
      obj: {
        project_id: PROJECT,
        object_id: "qa",
        val: { _type: "Dataset", name: "qa", rows: `weave:///${PROJECT}/table/${digest}` },
      },
    });
    const dsDigest = (dataset.json as { digest: string }).digest;
    const refs = await post("/refs/read_batch", {
      refs: [
        `weave:///${PROJECT}/object/qa:${dsDigest}`,
        `weave:///${PROJECT}/object/qa:latest/attr/rows/id/${rowDigests[1]}`,
        `weave:///${PROJECT}/table/${digest}`,
        `weave:///${PROJECT}/object/qa:${dsDigest}/attr/rows/index/0/key/q`,
      ],
    });
    expect(refs.json).toEqual({
      vals: [{ _type: "Dataset", name: "qa", rows: `weave:///${PROJECT}/table/${digest}` }, rows[1], rows, "2+2"],
    });
    const bad = await post("/refs/read_batch", { refs: [`weave:///${PROJECT}/object/qa:latest/attr/nope`] });
    expect(bad.status).toBe(404);
  });

  it("keeps objects, tables and files across a restart", async () => {
    await service.close(true);
    service = await startService({ dataDir, sqliteDriver: drivers[0]! });
    const objs = await post("/objs/query", { project_id: PROJECT });
    expect((objs.json as { objs: { object_id: string }[] }).objs.map((o) => o.object_id)).toEqual([
      "prompt",
      "prompt",
      "qa",
    ]);
    const digest = digestOf(new Uint8Array([0, 1, 2, 255]));
    const content = await send(service.url, "/file/content", { project_id: PROJECT, digest });
    expect(content.status).toBe(200);
  });
});

describe("what the service derives on read", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService({ storage: "memory" });
  });
  afterAll(() => service.close());

  const start = (id: string, parent: string | null, opName: string) => ({
    mode: "start",
    req: {
      start: {
        project_id: PROJECT,
        id,
        trace_id: "t1",
        parent_id: parent,
        op_name: opName,
        started_at: "2026-01-05T10:00:00.000Z",
        attributes: {},
        inputs: {},
      },
    },
  });
  const end = (id: string, exception?: string) => ({
    mode: "end",
    req: {
      end: {
        project_id: PROJECT,
        id,
        ended_at: "2026-01-05T10:00:01.000Z",
        summary: {},
        ...(exception && { exception }),
      },
    },
  });

  it("names the trace after the op (not its ref) and marks a root whose descendant failed", async () => {
    const res = await send(service.url, "/call/upsert_batch", {
      batch: [
        start("root", null, `weave:///${PROJECT}/op/pipeline:abc123`),
        start("mid", "root", `weave:///${PROJECT}/op/step:def`),
        start("leaf", "mid", "leaf"),
        end("leaf", "ValueError: boom"),
        end("mid"),
        end("root"),
      ],
    });
    expect(res.status).toBe(200);
    const calls = ndjson((await send(service.url, "/calls/stream_query", { project_id: PROJECT })).text);
    const weave = Object.fromEntries(
      calls.map((c) => [c.id, (c.summary as { weave: { status: string; trace_name: string } }).weave]),
    );
    expect(weave.root).toMatchObject({ status: "descendant_error", trace_name: "pipeline" });
    expect(weave.mid).toMatchObject({ status: "descendant_error", trace_name: "step" });
    expect(weave.leaf).toMatchObject({ status: "error", trace_name: "leaf" });
    const read = await send(service.url, "/call/read", { project_id: PROJECT, id: "root" });
    expect(read.json).toMatchObject({ call: { summary: { weave: { status: "descendant_error" } } } });
    const query = await send(service.url, "/calls/query_stats", {
      project_id: PROJECT,
      query: { $expr: { $eq: [{ $getField: "summary.weave.status" }, { $literal: "descendant_error" }] } },
    });
    expect(query.json).toEqual({ count: 2 });
  });
});
