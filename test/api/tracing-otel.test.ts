import { gunzipSync } from "node:zlib";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { ValidationError } from "../../src/errors.js";
import { API_KEY, setupTracingServer } from "./tracing-support.js";

const ctx = setupTracingServer();

/** `ExportTraceServiceResponse{partial_success{rejected_spans, error_message}}`, encoded by protobufjs. */
function protobufPartialSuccess(rejected: number, message: string): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32((1 << 3) | 2).fork();
  w.uint32((1 << 3) | 0).int64(rejected);
  w.uint32((2 << 3) | 2).string(message);
  w.ldelim();
  return w.finish();
}

const big = Uint8Array.from({ length: 5000 }, (_, i) => i % 7);

describe("TracingClient.otel", () => {
  it("export sends the bytes as protobuf, gzipped, with the project_id header", async () => {
    ctx.server.on("POST", "/otel/v1/traces", { json: {} });
    const res = await ctx.client.otel.export({ body: big });
    expect(res).toEqual({});
    const req = ctx.server.only();
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/otel/v1/traces");
    expect([...req.query.keys()]).toEqual([]);
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers["content-type"]).toBe("application/x-protobuf");
    expect(req.headers.project_id).toBe("acme/demo");
    expect(req.headers["content-encoding"]).toBe("gzip");
    expect(req.rawBody.length).toBeLessThan(big.length);
    expect(gunzipSync(req.rawBody).equals(Buffer.from(big))).toBe(true);
    expect(req.body.equals(Buffer.from(big))).toBe(true);
  });

  it("export sends JSON when asked, plain when gzip is off, to another project", async () => {
    const json = new TextEncoder().encode(JSON.stringify({ resourceSpans: [] }).padEnd(2000, " "));
    ctx.server.reset();
    ctx.server.on("POST", "/otel/v1/traces", { json: { partial_success: { rejected_spans: 0, error_message: "" } } });
    const res = await ctx.client.otel.export({
      body: json,
      contentType: "application/json",
      gzip: false,
      project_id: "e2/p2",
    });
    // An empty partial_success counts as full success (OTLP spec, trace_service.proto).
    expect(res).toEqual({});
    const req = ctx.server.only();
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers.project_id).toBe("e2/p2");
    expect(req.headers["content-encoding"]).toBeUndefined();
    expect(req.rawBody.equals(Buffer.from(json))).toBe(true);
  });

  it("a protobuf partial_success answer is decoded and returned, never retried", async () => {
    ctx.server.reset();
    ctx.server.on("POST", "/otel/v1/traces", (_req, res) => {
      res.writeHead(200, { "content-type": "application/x-protobuf" });
      res.end(protobufPartialSuccess(3, "Rejected span (name='x'): conflict"));
    });
    const res = await ctx.client.otel.export({ body: big });
    expect(res).toEqual({
      partial_success: { rejected_spans: 3, error_message: "Rejected span (name='x'): conflict" },
    });
    expect(ctx.server.requests).toHaveLength(1);
  });

  it("an empty or unreadable 200 answer means everything was accepted (as OTel's own exporter treats it)", async () => {
    ctx.server.reset();
    ctx.server.on("POST", "/otel/v1/traces", (_req, res) => {
      res.writeHead(200, { "content-type": "application/x-protobuf" });
      res.end(Buffer.from([0x0a, 0x05, 0x08]));
    });
    await expect(ctx.client.otel.export({ body: big })).resolves.toEqual({});
    ctx.server.on("POST", "/otel/v1/traces", { status: 200, headers: { "content-type": "application/x-protobuf" } });
    await expect(ctx.client.otel.export({ body: big })).resolves.toEqual({});
  });

  it("export retries 503 but not 500, and refuses bad input before sending", async () => {
    ctx.server.reset();
    ctx.server.on("POST", "/otel/v1/traces", { status: 503, json: { reason: "busy" } }, { json: {} });
    await expect(ctx.client.otel.export({ body: big })).resolves.toEqual({});
    expect(ctx.server.requests).toHaveLength(2);
    expect(ctx.server.requests[1]!.body.equals(Buffer.from(big))).toBe(true);

    ctx.server.reset();
    ctx.server.on("POST", "/otel/v1/traces", { status: 500, json: { reason: "x" } }, { json: {} });
    await expect(ctx.client.otel.export({ body: big })).rejects.toMatchObject({ status: 500 });
    expect(ctx.server.requests).toHaveLength(1);

    ctx.server.reset();
    await expect(ctx.client.otel.export({ body: "spans" as unknown as Uint8Array })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      ctx.client.otel.export({ body: big, contentType: "text/plain" as "application/json" }),
    ).rejects.toThrow(/contentType/);
    const bare = new TracingClient({ baseUrl: ctx.server.url, env: {} });
    await expect(bare.otel.export({ body: big })).rejects.toThrow(/needs a project/);
    await bare.close();
    expect(ctx.server.requests).toHaveLength(0);
  });
});
