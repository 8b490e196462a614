import { describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { ValidationError } from "../../src/errors.js";
import type { RecordedRequest } from "../support/server.js";
import { API_KEY, type MethodCase, runCases, setupTracingServer } from "./tracing-support.js";

const ctx = setupTracingServer();

interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** An independent multipart/form-data reader (RFC 7578), written for the test. */
function parseMultipart(req: RecordedRequest): Part[] {
  const match = /^multipart\/form-data; boundary=(.+)$/.exec(req.headers["content-type"] ?? "");
  expect(match, "multipart content type with a boundary").not.toBeNull();
  const delimiter = Buffer.from(`--${match![1]}`);
  const body = req.body;
  const parts: Part[] = [];
  let pos = body.indexOf(delimiter);
  expect(pos).toBe(0);
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString() === "--") {
      expect(body.subarray(pos).toString()).toBe("--\r\n");
      return parts;
    }
    expect(body.subarray(pos, pos + 2).toString()).toBe("\r\n");
    const headEnd = body.indexOf("\r\n\r\n", pos);
    const next = body.indexOf(delimiter, headEnd);
    const head = body.subarray(pos + 2, headEnd).toString("utf8");
    const data = body.subarray(headEnd + 4, next - 2);
    expect(body.subarray(next - 2, next).toString()).toBe("\r\n");
    const disposition = /^Content-Disposition: form-data; name="([^"]*)"(?:; filename="([^"]*)")?$/m.exec(head);
    expect(disposition, head).not.toBeNull();
    const type = /^Content-Type: (.+)$/m.exec(head);
    parts.push({
      name: disposition![1]!,
      ...(disposition![2] !== undefined ? { filename: disposition![2] } : {}),
      ...(type ? { contentType: type[1] } : {}),
      data: Buffer.from(data),
    });
    pos = next;
  }
}

describe("TracingClient.files", () => {
  it("create sends multipart/form-data with project_id, the file bytes and expected_digest", async () => {
    const bytes = Uint8Array.from({ length: 3000 }, (_, i) => (i * 37) % 256);
    ctx.server.on("POST", "/file/create", { json: { digest: "Xk3digest" } });
    const res = await ctx.client.files.create({
      file: bytes,
      filename: "image.png",
      content_type: "image/png",
      expected_digest: "Xk3digest",
    });
    expect(res).toEqual({ digest: "Xk3digest" });
    const req = ctx.server.only();
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/file/create");
    expect([...req.query.keys()]).toEqual([]);
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers["content-encoding"]).toBeUndefined();
    expect(parseMultipart(req)).toEqual([
      { name: "project_id", data: Buffer.from("acme/demo") },
      { name: "file", filename: "image.png", contentType: "image/png", data: Buffer.from(bytes) },
      { name: "expected_digest", data: Buffer.from("Xk3digest") },
    ]);
  });

  it("create takes a string or a Buffer, escapes the filename, and a retry resends the identical bytes", async () => {
    ctx.server.reset();
    ctx.server.on("POST", "/file/create", { status: 503, json: { reason: "busy" } }, { json: { digest: "d1" } });
    const res = await ctx.client.files.create({
      project_id: "other/proj",
      file: "héllo\r\n--x",
      filename: 'a"b\n.txt',
    });
    expect(res).toEqual({ digest: "d1" });
    expect(ctx.server.requests).toHaveLength(2);
    const [first, second] = ctx.server.requests as [RecordedRequest, RecordedRequest];
    expect(second.rawBody.equals(first.rawBody)).toBe(true);
    expect(second.headers["content-type"]).toBe(first.headers["content-type"]);
    expect(parseMultipart(second)).toEqual([
      { name: "project_id", data: Buffer.from("other/proj") },
      {
        name: "file",
        filename: "a%22b%0A.txt",
        contentType: "application/octet-stream",
        data: Buffer.from("héllo\r\n--x", "utf8"),
      },
    ]);

    ctx.server.reset();
    ctx.server.on("POST", "/file/create", { json: { digest: "d2" } });
    await ctx.client.files.create({ file: Buffer.from([0, 1, 2, 255]), filename: "raw.bin" });
    expect(parseMultipart(ctx.server.only())[1]!.data).toEqual(Buffer.from([0, 1, 2, 255]));
  });

  it("create never gzips the multipart body, even on a client that gzips JSON", async () => {
    const gzipping = new TracingClient({
      baseUrl: ctx.server.url,
      apiKey: API_KEY,
      project: "acme/demo",
      env: {},
      gzip: true,
    });
    ctx.server.reset();
    ctx.server.on("POST", "/file/create", { json: { digest: "d" } });
    await gzipping.files.create({ file: new Uint8Array(4096).fill(7), filename: "zeros.bin" });
    const req = ctx.server.only();
    expect(req.headers["content-encoding"]).toBeUndefined();
    expect(parseMultipart(req)[1]!.data).toEqual(Buffer.alloc(4096, 7));
    await gzipping.close();
  });

  it("each upload gets its own random boundary", async () => {
    ctx.server.reset();
    ctx.server.on("POST", "/file/create", { json: { digest: "d" } });
    await ctx.client.files.create({ file: "a", filename: "a.txt" });
    await ctx.client.files.create({ file: "a", filename: "a.txt" });
    const [a, b] = ctx.server.requests.map((r) => r.headers["content-type"]);
    expect(a).toMatch(/^multipart\/form-data; boundary=\S{20,}$/);
    expect(a).not.toBe(b);
  });

  it("create refuses a missing filename or a non-binary file before sending", async () => {
    ctx.server.reset();
    expect(() => ctx.client.files.create({ file: "x", filename: "" })).toThrow(ValidationError);
    expect(() => ctx.client.files.create({ file: 42 as unknown as string, filename: "x" })).toThrow(/Uint8Array/);
    expect(ctx.server.requests).toHaveLength(0);
  });

  it("content returns the raw bytes; queryStats the total size", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x0a]);
    ctx.server.reset();
    ctx.server.on("POST", "/file/content", (_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(bytes);
    });
    const content = await ctx.client.files.content({ digest: "d1" });
    expect(Buffer.isBuffer(content)).toBe(true);
    expect(content.equals(bytes)).toBe(true);
    const req = ctx.server.only();
    expect(req.path).toBe("/file/content");
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.json).toEqual({ project_id: "acme/demo", digest: "d1" });

    const cases: MethodCase[] = [
      {
        name: "files.queryStats",
        method: "POST",
        path: "/files/query_stats",
        run: () => ctx.client.files.queryStats(),
        json: { project_id: "acme/demo" },
        reply: { total_size_bytes: 123456 },
        retriesOn500: true,
      },
    ];
    await runCases(ctx.server, cases);
  });

  it("content is a read: a 500 is retried", async () => {
    ctx.server.reset();
    ctx.server.on("POST", "/file/content", { status: 500, json: { reason: "x" } }, { text: "bytes" });
    const content = await ctx.client.files.content({ digest: "d1" });
    expect(content.toString()).toBe("bytes");
    expect(ctx.server.requests).toHaveLength(2);
  });
});
