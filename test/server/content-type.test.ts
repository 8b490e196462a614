/**
 * The local service's JSON endpoints refuse a body sent as something else (plain text, a form, multipart) with 415
 * and a reason naming `application/json`, storing nothing; every way a body reaches them from tracewire, the vendor's
 * SDKs and scripts still works: `application/json` with or without parameters, gzip, no content type at all
 * (read as JSON, as the hosted service's FastAPI does), OTLP in protobuf and JSON, multipart `/file/create`, and a
 * bodiless POST.
 */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { atSecond, callId, PROJECT, startService, type TestService } from "./helpers.js";

const startBody = (n: number) =>
  JSON.stringify({
    start: {
      project_id: PROJECT,
      id: callId(n),
      trace_id: "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
      op_name: "op",
      started_at: atSecond(n),
      attributes: {},
      inputs: {},
    },
  });

describe("content types of request bodies", () => {
  let service: TestService;
  let client: TracingClient;
  beforeAll(async () => {
    service = await startService({ storage: "memory" });
    client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
  });
  afterAll(async () => {
    await client.close();
    await service.close();
  });

  /** POSTs `body` with exactly these headers (a Uint8Array body makes fetch add no content type of its own). */
  const post = async (path: string, body: string | Uint8Array, headers: Record<string, string>) => {
    const res = await fetch(`${service.url}${path}`, {
      method: "POST",
      headers,
      body: typeof body === "string" ? new TextEncoder().encode(body) : body,
    });
    return { status: res.status, text: await res.text() };
  };
  const stored = async (n: number) => (await client.calls.read({ id: callId(n) })).call !== null;

  it("refuses a JSON endpoint's body sent as text, a form or multipart with 415 naming application/json", async () => {
    const cases: [string, string][] = [
      ["/call/start", "text/plain;charset=UTF-8"],
      ["/call/start", "application/x-www-form-urlencoded"],
      ["/call/start", "multipart/form-data; boundary=x"],
      ["/call/upsert_batch", "text/plain"],
      ["/obj/create", "text/plain"],
    ];
    for (const [path, type] of cases) {
      const body =
        path === "/call/upsert_batch"
          ? JSON.stringify({ batch: [{ mode: "start", req: JSON.parse(startBody(1)) }] })
          : path === "/obj/create"
            ? JSON.stringify({ obj: { project_id: PROJECT, object_id: "o", val: 1 } })
            : startBody(1);
      const res = await post(path, body, { "content-type": type });
      expect(res.status, `${path} ${type}`).toBe(415);
      const reason = (JSON.parse(res.text) as { reason: string }).reason;
      expect(reason).toContain(JSON.stringify(type));
      expect(reason).toContain("application/json");
    }
    expect(await stored(1)).toBe(false);
  });

  it("takes JSON with parameters, gzip, +json types and no content type at all", async () => {
    const ok = async (n: number, headers: Record<string, string>, body: string | Uint8Array = startBody(n)) => {
      const res = await post("/call/start", body, headers);
      expect(res.status, JSON.stringify(headers) + res.text).toBe(200);
      expect(await stored(n)).toBe(true);
    };
    await ok(2, { "content-type": "application/json" });
    await ok(3, { "content-type": "Application/JSON; charset=utf-8" });
    await ok(4, { "content-type": "application/vnd.api+json" });
    await ok(5, { "content-type": "application/json", "content-encoding": "gzip" }, gzipSync(startBody(5)));
    // Scripts (`requests.post(data=…)`, a bare http.request) send none: the hosted service reads those as JSON too.
    await ok(6, {});
  });

  it("leaves the endpoints that are not JSON to their own types: OTLP, multipart uploads, bodiless POSTs", async () => {
    const otlp = await post("/otel/v1/traces", JSON.stringify({ resourceSpans: [] }), {
      "content-type": "application/json",
      project_id: PROJECT,
    });
    expect(otlp.status).toBe(200);
    const protobuf = await post("/otel/v1/traces", new Uint8Array(0), {
      "content-type": "application/x-protobuf",
      project_id: PROJECT,
    });
    expect(protobuf.status).toBe(200);

    const uploaded = await client.files.create({ file: "hello", filename: "hello.txt", content_type: "text/plain" });
    expect(uploaded.digest).toEqual(expect.any(String));

    const run = await post(
      `/v2/${PROJECT}/evaluation_runs`,
      JSON.stringify({ evaluation: "weave:///acme/demo/object/e:d", model: "weave:///acme/demo/object/m:d" }),
      { "content-type": "application/json" },
    );
    expect(run.status).toBe(200);
    const id = (JSON.parse(run.text) as { evaluation_run_id: string }).evaluation_run_id;
    // A finish without a body carries no content type worth checking.
    const finished = await post(`/v2/${PROJECT}/evaluation_runs/${id}/finish`, new Uint8Array(0), {});
    expect(finished.status).toBe(200);
  });
});
