/**
 * The local service is as strict as the hosted one: unknown top-level fields, missing or mistyped fields and bad
 * JSON are 422 in FastAPI's `{"detail": [{loc, msg, type}]}` shape, a rejected batch stores nothing, an API key is
 * enforced when set, only loopback Host names are answered, and endpoints it lacks are a 404 that names them (a GET on a POST path is 405).
 */
import { request } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { init, op } from "../../src/index.js";
import { collect, ndjson, PROJECT, send, startService, type TestService } from "./helpers.js";

const start = (id: string, extra: Record<string, unknown> = {}) => ({
  project_id: PROJECT,
  id,
  trace_id: "0123456789abcdef0123456789abcdef",
  op_name: "op",
  started_at: "2026-01-05T10:00:00.000Z",
  attributes: {},
  inputs: {},
  ...extra,
});

describe("strict validation", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService({ storage: "memory" });
  });
  afterAll(() => service.close());

  it("refuses an unknown top-level field with 422 and FastAPI's detail", async () => {
    for (const [path, body] of [
      ["/call/upsert_batch", { batch: [], bogus: 1 }],
      ["/calls/stream_query", { project_id: PROJECT, bogus: 1 }],
      [
        "/feedback/create",
        { project_id: PROJECT, weave_ref: "weave:///acme/demo/call/a", feedback_type: "x", payload: {}, bogus: 1 },
      ],
      ["/call/start", { start: start("a"), bogus: 1 }],
    ] as const) {
      const res = await send(service.url, path, body);
      expect(res.status, path).toBe(422);
      expect(res.json, path).toEqual({
        detail: [{ type: "extra_forbidden", loc: ["body", "bogus"], msg: "Extra inputs are not permitted", input: 1 }],
      });
    }
  });

  it("reports missing and mistyped fields, bad JSON, bad enums and bad union tags", async () => {
    const { op_name: _, ...noOp } = start("a");
    const missing = await send(service.url, "/call/start", { start: noOp });
    expect(missing.status).toBe(422);
    expect(missing.json).toMatchObject({
      detail: [{ type: "missing", loc: ["body", "start", "op_name"], msg: "Field required" }],
    });

    const typed = await send(service.url, "/calls/stream_query", { project_id: PROJECT, limit: "ten" });
    expect(typed.json).toMatchObject({ detail: [{ type: "int_parsing", loc: ["body", "limit"] }] });
    const list = await send(service.url, "/calls/stream_query", { project_id: PROJECT, limit: [10] });
    expect(list.json).toMatchObject({ detail: [{ type: "int_type", loc: ["body", "limit"] }] });

    const sort = await send(service.url, "/calls/stream_query", {
      project_id: PROJECT,
      sort_by: [{ field: "started_at", direction: "up" }],
    });
    expect(sort.json).toMatchObject({
      detail: [
        { type: "literal_error", loc: ["body", "sort_by", 0, "direction"], msg: "Input should be 'asc' or 'desc'" },
      ],
    });

    const filter = await send(service.url, "/calls/stream_query", { project_id: PROJECT, filter: { op_name: ["x"] } });
    expect(filter.json).toMatchObject({ detail: [{ type: "extra_forbidden", loc: ["body", "filter", "op_name"] }] });

    const json = await send(service.url, "/call/start", "{not json");
    expect(json.status).toBe(422);
    expect(json.json).toMatchObject({ detail: [{ type: "json_invalid", loc: ["body", 1], msg: "JSON decode error" }] });

    const tag = await send(service.url, "/call/upsert_batch", { batch: [{ mode: "middle", req: {} }] });
    expect(tag.json).toMatchObject({ detail: [{ type: "union_tag_invalid", loc: ["body", "batch", 0] }] });

    const date = await send(service.url, "/call/start", { start: start("a", { started_at: "yesterday" }) });
    expect(date.json).toMatchObject({ detail: [{ loc: ["body", "start", "started_at"] }] });
  });

  it("ignores extra keys inside call records, as the service does", async () => {
    const res = await send(service.url, "/call/start", { start: start("1111111111111111", { extra_key: true }) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: "1111111111111111", trace_id: "0123456789abcdef0123456789abcdef" });
  });

  it("stores nothing of a batch with one invalid item", async () => {
    const bad = { mode: "end", req: { end: { project_id: PROJECT, id: "x", ended_at: "2026-01-05T10:00:01Z" } } };
    const res = await send(service.url, "/call/upsert_batch", {
      batch: [{ mode: "start", req: { start: start("2222222222222222") } }, bad],
    });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({
      detail: [{ type: "missing", loc: ["body", "batch", 1, "end", "req", "end", "summary"] }],
    });
    const read = await send(service.url, "/call/read", { project_id: PROJECT, id: "2222222222222222" });
    expect(read.json).toEqual({ call: null });
  });

  it("reads a timestamp without a zone as UTC, as the service does, whatever the machine's time zone", async () => {
    const tz = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      const id = "5555555555555555";
      await send(service.url, "/call/start", { start: start(id, { started_at: "2026-01-05T10:00:00" }) });
      await send(service.url, "/call/end", {
        end: { project_id: PROJECT, id, ended_at: "2026-01-05 10:00:01.5", summary: {} },
      });
      const read = await send(service.url, "/call/read", { project_id: PROJECT, id });
      expect(read.json).toMatchObject({
        call: {
          started_at: "2026-01-05T10:00:00.000Z",
          ended_at: "2026-01-05T10:00:01.500Z",
          summary: { weave: { latency_ms: 1500 } },
        },
      });
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it("refuses a malformed project id with 400 and a reason", async () => {
    const res = await send(service.url, "/calls/stream_query", { project_id: "no-slash" });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ reason: expect.stringContaining('expected "entity/project"') });
  });

  it("answers a 404 naming any endpoint it does not implement (a 4xx: clients do not retry it)", async () => {
    const cost = await send(service.url, "/cost/create", { project_id: PROJECT, costs: {} });
    expect(cost.status).toBe(404);
    expect(cost.json).toEqual({ reason: "tracewire dev does not implement POST /cost/create." });
    const del = await send(service.url, "/v2/acme/demo/scores?score_ids=a", undefined, { method: "DELETE" });
    expect(del.status).toBe(405);
    expect((del.json as { reason: string }).reason).toContain("DELETE /v2/acme/demo/scores");
  });

  it("answers 405 with Allow for a GET on a POST-only path", async () => {
    const get = await send(service.url, "/call/start");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect((get.json as { reason: string }).reason).toBe("GET /call/start: method not allowed (this path takes POST).");
  });

  it("takes gzip request bodies", async () => {
    const body = gzipSync(JSON.stringify({ batch: [{ mode: "start", req: { start: start("3333333333333333") } }] }));
    const res = await fetch(`${service.url}/call/upsert_batch`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body,
    });
    expect(res.status).toBe(200);
    const rows = ndjson(
      await (
        await fetch(`${service.url}/calls/stream_query`, {
          method: "POST",
          body: JSON.stringify({ project_id: PROJECT, filter: { call_ids: ["3333333333333333"] } }),
        })
      ).text(),
    );
    expect(rows).toHaveLength(1);
  });

  it("refuses a body over the service's 32 MiB limit with 413", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${service.url}/call/upsert_batch`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(33 * 1024 * 1024) },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", reject);
      req.write("{");
    });
    expect(status).toBe(413);
  });

  it("takes a client that goes away mid-upload quietly: no internal error in its log", async () => {
    const req = request(`${service.url}/call/upsert_batch`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": "100000" },
    });
    req.on("error", () => {});
    req.write('{"batch": [');
    await new Promise((resolve) => setTimeout(resolve, 100));
    req.destroy(); // an app killed while it exported
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(service.logs.filter((line) => line.includes("internal error"))).toEqual([]);
    expect((await send(service.url, "/health")).status).toBe(200);
  });

  it("answers only loopback Host names", async () => {
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${service.url}/health`, { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
    expect(await status("evil.example:80")).toBe(403);
    expect(await status(`localhost:${service.server.port}`)).toBe(200);
    expect(await status(`127.0.0.1:${service.server.port}`)).toBe(200);
  });

  it("refuses a request a web page of another origin sends (no cross-site writes into your traces)", async () => {
    await send(service.url, "/call/start", { start: start("4444444444444444") });
    // What a page on any website can send to 127.0.0.1 without a CORS preflight: a text/plain POST.
    const forged = (origin: string) =>
      fetch(`${service.url}/calls/delete`, {
        method: "POST",
        headers: { "content-type": "text/plain;charset=UTF-8", origin },
        body: JSON.stringify({ project_id: PROJECT, call_ids: ["4444444444444444"] }),
      });
    for (const origin of ["https://evil.example", "null", "http://127.0.0.1.evil.example"]) {
      const res = await forged(origin);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ reason: expect.stringContaining(`Origin ${JSON.stringify(origin)} refused`) });
    }
    const read = await send(service.url, "/call/read", { project_id: PROJECT, id: "4444444444444444" });
    expect(read.json).toMatchObject({ call: { id: "4444444444444444" } });
    // The viewer's own requests (same origin) and pages of other loopback servers pass.
    for (const origin of [service.url, `http://localhost:${service.server.port}`, "http://[::1]:3000"]) {
      const res = await send(service.url, "/calls/query_stats", { project_id: PROJECT }, { headers: { origin } });
      expect(res.status).toBe(200);
    }
  });
});

describe("API key", () => {
  const KEY = "s3cret-key";
  let service: TestService;
  beforeAll(async () => {
    service = await startService({ storage: "memory", apiKey: KEY });
  });
  afterAll(() => service.close());

  it("answers 401 without the key or with a wrong one, and serves requests with it", async () => {
    const body = { project_id: PROJECT };
    const none = await send(service.url, "/calls/query_stats", body);
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ reason: expect.stringContaining("Missing API key") });
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    const wrong = await send(service.url, "/calls/query_stats", body, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.json)).not.toContain(KEY);
    expect((await send(service.url, "/health", undefined, { headers: { authorization: "Bearer nope" } })).status).toBe(
      401,
    );
    const bearer = await send(service.url, "/calls/query_stats", body, { headers: { authorization: `Bearer ${KEY}` } });
    expect(bearer).toMatchObject({ status: 200, json: { count: 0 } });
    const basic = Buffer.from(`api:${KEY}`).toString("base64");
    expect(
      (await send(service.url, "/calls/query_stats", body, { headers: { authorization: `Basic ${basic}` } })).status,
    ).toBe(200);
    // The viewer page carries no data and asks for the key itself.
    const page = await fetch(`${service.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("needs its API key");
  });

  it("accepts the library with the right key and refuses it with a wrong one", async () => {
    const traced = op(async function keyed() {
      return 1;
    });
    for (const [apiKey, accepted] of [
      [KEY, true],
      ["wrong", false],
    ] as const) {
      const tracing = init({
        baseUrl: service.url,
        apiKey,
        project: PROJECT,
        env: {},
        scheduledDelayMillis: 10,
        logger: { warn() {}, error() {} },
      });
      await traced();
      await tracing.flush();
      expect(tracing.stats().calls.rejected > 0, `key ${apiKey}`).toBe(!accepted);
      await tracing.shutdown();
    }
    const client = new TracingClient({ baseUrl: service.url, apiKey: KEY, project: PROJECT, env: {} });
    expect(await collect(client.calls.streamQuery({ filter: { op_names: ["keyed"] } }))).toHaveLength(1);
    await client.close();
  });
});

describe("validation parity with the service's request models", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService({ storage: "memory" });
  });
  afterAll(() => service.close());

  const end = (id: string, usage: Record<string, unknown>) => ({
    end: {
      project_id: PROJECT,
      id,
      ended_at: "2026-01-05T10:00:01.000Z",
      summary: { usage: { "gpt-4o": usage } },
    },
  });

  it("refuses a token count that is not an integer with 422, and takes a numeric string as the number", async () => {
    await send(service.url, "/call/start", { start: start("p1") });
    const bad = await send(service.url, "/call/end", end("p1", { prompt_tokens: "twelve" }));
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({
      detail: [
        {
          type: "int_parsing",
          loc: ["body", "end", "summary", "usage", "gpt-4o", "prompt_tokens"],
          msg: "Input should be a valid integer, unable to parse string as an integer",
        },
      ],
    });
    const fractional = await send(service.url, "/call/end", end("p1", { completion_tokens: 1.5 }));
    expect(fractional.status).toBe(422);
    const lax = await send(service.url, "/call/end", end("p1", { prompt_tokens: "12", completion_tokens: 3 }));
    expect(lax.status).toBe(200);
    const read = await send(service.url, "/call/read", { project_id: PROJECT, id: "p1" });
    const usage = (read.json as { call: { summary: { usage: Record<string, Record<string, unknown>> } } }).call.summary
      .usage["gpt-4o"];
    expect(usage).toEqual({ prompt_tokens: 12, completion_tokens: 3 });
  });

  it("refuses a negative limit or offset with 422 and takes numeric strings", async () => {
    for (const field of ["limit", "offset"]) {
      const res = await send(service.url, "/calls/stream_query", { project_id: PROJECT, [field]: -1 });
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({
        detail: [
          { type: "greater_than_equal", loc: ["body", field], msg: "Input should be greater than or equal to 0" },
        ],
      });
    }
    await send(service.url, "/call/start", { start: start("p2") });
    await send(service.url, "/call/start", { start: start("p3") });
    const lax = await send(service.url, "/calls/stream_query", { project_id: PROJECT, limit: "2", offset: "1" });
    expect(lax.status).toBe(200);
    expect(ndjson(lax.text).map((c) => c.id)).toEqual(["p2", "p3"]);
    const flag = await send(service.url, "/calls/stream_query", { project_id: PROJECT, include_feedback: "true" });
    expect(flag.status).toBe(200);
  });
});

describe("limits beyond 2^53", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(); // SQLite: its LIMIT takes 64-bit integers only
  });
  afterAll(() => service.close());

  it("reads a limit or offset too large for SQLite as no limit, or past the end", async () => {
    await send(service.url, "/call/start", { start: start("big1") });
    for (const path of ["/calls/stream_query", "/feedback/query", "/trace/usage"]) {
      const all = await send(service.url, path, { project_id: PROJECT, limit: 1e20 });
      expect(all.status, path).toBe(200);
      const none = await send(
        service.url,
        path.replace("/trace/usage", "/calls/stream_query"),
        `{"project_id": "${PROJECT}", "limit": 2, "offset": 99999999999999999999}`,
      );
      expect(none.status, path).toBe(200);
    }
    const rows = await send(service.url, "/calls/stream_query", { project_id: PROJECT, limit: 1e20 });
    expect(ndjson(rows.text).map((c) => c.id)).toEqual(["big1"]);
    const stats = await send(service.url, "/calls/query_stats", { project_id: PROJECT, limit: 1e20 });
    expect(stats.json).toEqual({ count: 1 });
    const usage = await send(service.url, "/calls/usage", { project_id: PROJECT, call_ids: ["big1"], limit: 1e20 });
    expect(usage.status).toBe(200);
  });
});
