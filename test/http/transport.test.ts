import { gunzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resolveTransport } from "../../src/config.js";
import {
  AbortError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  ProtocolError,
  RateLimitError,
  TimeoutError,
  UnprocessableEntityError,
} from "../../src/errors.js";
import type { NonIdempotentRetry } from "../../src/http/retry.js";
import { HttpTransport, userAgent } from "../../src/http/transport.js";
import { VERSION } from "../../src/version.js";
import { hang, resetConnection, resetMidResponse, TestServer } from "../support/server.js";

let server: TestServer;
const transports: HttpTransport[] = [];

beforeAll(async () => {
  server = await TestServer.start();
});
afterEach(async () => {
  server.reset();
  await Promise.all(transports.splice(0).map((t) => t.close()));
});
afterAll(() => server.close());

function transport(
  options: { timeoutMs?: number; maxAttempts?: number; nonIdempotent?: NonIdempotentRetry; gzip?: boolean } = {},
) {
  const t = new HttpTransport(
    resolveTransport(
      { client: "Test", baseUrlEnv: "TEST_BASE_URL", nonIdempotent: options.nonIdempotent ?? "replay" },
      {
        baseUrl: `${server.url}/prefix/`,
        apiKey: "sk-test-key-123456",
        env: {},
        timeoutMs: options.timeoutMs ?? 5_000,
        gzip: options.gzip ?? false,
        // Short waits keep the suite fast; the 1 s Retry-After test proves real waiting separately.
        retry: { maxAttempts: options.maxAttempts ?? 4, baseDelayMs: 20, maxDelayMs: 100 },
      },
    ),
  );
  transports.push(t);
  return t;
}

describe("HttpTransport requests", () => {
  it("sends method, prefixed path, query, JSON body and the standard headers", async () => {
    server.on("POST", "/prefix/things", { json: { ok: true } });
    const result = await transport().json({
      method: "POST",
      path: "/things",
      query: { a: 1, list: ["x", "y"], skip: undefined },
      json: { hello: "wörld" },
      headers: { "X-Extra": "1" },
    });
    expect(result).toEqual({ ok: true });
    const req = server.only();
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/prefix/things");
    expect(req.query.get("a")).toBe("1");
    expect(req.query.getAll("list")).toEqual(["x", "y"]);
    expect(req.query.has("skip")).toBe(false);
    expect(req.json).toEqual({ hello: "wörld" });
    expect(req.headers.authorization).toBe("Bearer sk-test-key-123456");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["user-agent"]).toBe(userAgent());
    expect(userAgent().startsWith(`tracewire/${VERSION} node/`)).toBe(true);
    expect(req.headers["x-extra"]).toBe("1");
  });

  it("gzips large bodies when asked and leaves small ones alone", async () => {
    server.on("POST", "/prefix/big", { json: {} });
    const big = { text: "a".repeat(5000) };
    await transport({ gzip: true }).json({ method: "POST", path: "/big", json: big });
    await transport({ gzip: true }).json({ method: "POST", path: "/big", json: { small: 1 } });
    const [first, second] = server.requests;
    expect(first!.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(first!.rawBody).toString())).toEqual(big);
    expect(first!.rawBody.length).toBeLessThan(1000);
    expect(second!.headers["content-encoding"]).toBeUndefined();
    expect(second!.json).toEqual({ small: 1 });
  });

  it("returns undefined for an empty 200 body", async () => {
    server.on("GET", "/prefix/empty", { status: 200, text: "" });
    await expect(transport().json({ method: "GET", path: "/empty" })).resolves.toBeUndefined();
  });
});

describe("HttpTransport errors", () => {
  it.each([
    [400, BadRequestError, { reason: "bad op name" }, "bad op name"],
    [401, AuthenticationError, { error: { message: "Authentication failed", type: "auth" } }, "Authentication failed"],
    [404, NotFoundError, { object: "error", message: "The model `x` does not exist.", code: 404 }, "does not exist"],
    [
      422,
      UnprocessableEntityError,
      { detail: [{ loc: ["body", "start", "op_name"], msg: "field required", type: "missing" }] },
      "body.start.op_name: field required",
    ],
  ])("maps %i to its class with a readable message and does not retry", async (status, ErrorClass, body, text) => {
    server.on("POST", "/prefix/x", { status, json: body, headers: { "x-request-id": "req-42" } });
    const err = await transport()
      .json({ method: "POST", path: "/x", json: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ErrorClass);
    const apiError = err as InstanceType<typeof ErrorClass>;
    expect(apiError.status).toBe(status);
    expect(apiError.message).toContain(text);
    expect(apiError.message).toContain("POST /prefix/x");
    expect(apiError.requestId).toBe("req-42");
    expect(apiError.body).toEqual(body);
    expect(server.requests).toHaveLength(1);
  });

  it("exposes the 422 detail list", async () => {
    const detail = [{ loc: ["body", "bogus"], msg: "extra fields not permitted", type: "extra_forbidden" }];
    server.on("POST", "/prefix/x", { status: 422, json: { detail } });
    const err = (await transport()
      .json({ method: "POST", path: "/x", json: {} })
      .catch((e: unknown) => e)) as UnprocessableEntityError;
    expect(err.detail).toEqual(detail);
  });
});

describe("HttpTransport retries", () => {
  it("waits for Retry-After: 1 on a 503, then succeeds", async () => {
    server.on(
      "POST",
      "/prefix/x",
      { status: 503, json: { reason: "busy" }, headers: { "retry-after": "1" } },
      {
        json: { ok: 1 },
      },
    );
    const started = Date.now();
    await expect(transport().json({ method: "POST", path: "/x", json: {} })).resolves.toEqual({ ok: 1 });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.receivedAt - server.requests[0]!.receivedAt).toBeGreaterThanOrEqual(990);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
  });

  it("backs off on 429 without Retry-After and gives up after maxAttempts with RateLimitError", async () => {
    server.on("POST", "/prefix/x", { status: 429, json: { error: { message: "Concurrency limit reached" } } });
    const err = await transport({ maxAttempts: 3 })
      .json({ method: "POST", path: "/x", json: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(3);
  });

  it("retries 500 only for idempotent requests", async () => {
    server.on("POST", "/prefix/read", { status: 500, json: { reason: "Internal server error" } });
    await expect(
      transport({ maxAttempts: 2 }).json({ method: "POST", path: "/read", json: {}, idempotent: true }),
    ).rejects.toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.on("POST", "/prefix/write", { status: 500, json: { reason: "Internal server error" } });
    await expect(
      transport({ maxAttempts: 2 }).json({ method: "POST", path: "/write", json: {} }),
    ).rejects.toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(1);
  });

  it("retries a reset before any response, then succeeds", async () => {
    server.on("GET", "/prefix/x", resetConnection, { json: { ok: true } });
    await expect(transport().json({ method: "GET", path: "/x" })).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  it("never retries a POST reset mid-response when non-idempotent requests must not be replayed", async () => {
    server.on("POST", "/prefix/jobs", resetMidResponse, { json: { id: "should-not-be-reached" } });
    const err = await transport({ nonIdempotent: "refused-with-retry-after" })
      .json({ method: "POST", path: "/jobs", json: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(server.requests).toHaveLength(1);
  });

  it("retries a refused connection even for a POST that must not be replayed", async () => {
    const dead = await TestServer.start();
    const url = dead.url;
    await dead.close();
    const t = new HttpTransport(
      resolveTransport(
        { client: "Test", baseUrlEnv: "X", nonIdempotent: "refused-with-retry-after" },
        { baseUrl: url, env: {}, retry: { maxAttempts: 3, baseDelayMs: 10 } },
      ),
    );
    transports.push(t);
    const err = (await t.json({ method: "POST", path: "/jobs", json: {} }).catch((e: unknown) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toContain("ECONNREFUSED");
  });
});

describe("HttpTransport deadlines and aborts", () => {
  it("cuts a hung server at the deadline with TimeoutError", async () => {
    server.on("POST", "/prefix/slow", hang);
    const started = Date.now();
    const err = await transport({ timeoutMs: 300 })
      .json({ method: "POST", path: "/slow", json: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).message).toContain("timed out after 300 ms");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("honours the caller's AbortSignal while waiting for a response", async () => {
    server.on("GET", "/prefix/slow", hang);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user gave up")), 50);
    const err = await transport()
      .json({ method: "GET", path: "/slow", signal: controller.signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect((err as AbortError).cause).toEqual(new Error("user gave up"));
  });

  it("honours the caller's AbortSignal during a backoff sleep", async () => {
    server.on("GET", "/prefix/x", { status: 503, json: {}, headers: { "retry-after": "3" } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expect(transport().json({ method: "GET", path: "/x", signal: controller.signal })).rejects.toBeInstanceOf(
      AbortError,
    );
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("rejects at once when the signal is already aborted, without sending", async () => {
    await expect(transport().json({ method: "GET", path: "/x", signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      AbortError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe("HttpTransport answers that are not plain success", () => {
  it("treats a redirect as an error naming the target, without following or retrying it", async () => {
    server.on("POST", "/prefix/call/end", {
      status: 308,
      headers: { location: "https://elsewhere.example.com/call/end?x=1" },
    });
    const err = (await transport()
      .json({ method: "POST", path: "/call/end", json: {} })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(308);
    expect(err.message).toContain("redirect to https://elsewhere.example.com/call/end");
    expect(server.requests).toHaveLength(1);
  });

  it("a 200 whose body is not JSON is a ProtocolError and is not retried (the write may have happened)", async () => {
    server.on("POST", "/prefix/x", {
      status: 200,
      text: "<html>proxy</html>",
      headers: { "content-type": "text/html" },
    });
    const err = await transport()
      .json({ method: "POST", path: "/x", json: {}, idempotent: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).message).toContain("<html>proxy</html>");
    expect(server.requests).toHaveLength(1);
  });

  it("gives up at once, with the server's answer, when Retry-After would outlast the deadline", async () => {
    server.on("POST", "/prefix/x", {
      status: 503,
      json: { reason: "busy" },
      headers: { "retry-after": "5", "x-request-id": "r1" },
    });
    const started = Date.now();
    const err = (await transport({ timeoutMs: 800 })
      .json({ method: "POST", path: "/x", json: {} })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err.status).toBe(503);
    expect(err.requestId).toBe("r1");
    expect(Date.now() - started).toBeLessThan(700);
  });

  it("retries a refused connection until the server is up", async () => {
    const probe = await TestServer.start();
    const port = probe.port;
    await probe.close();
    const t = new HttpTransport(
      resolveTransport(
        { client: "Test", baseUrlEnv: "X", nonIdempotent: "refused-with-retry-after" },
        { baseUrl: `http://127.0.0.1:${port}`, env: {}, retry: { maxAttempts: 20, baseDelayMs: 100, maxDelayMs: 100 } },
      ),
    );
    transports.push(t);
    const pending = t.json({ method: "POST", path: "/jobs", json: { a: 1 } });
    // Bring a server up on the same port while the client is backing off.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const { createServer } = await import("node:http");
    const late = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"id":"job-1"}');
    });
    await new Promise<void>((resolve) => late.listen(port, "127.0.0.1", resolve));
    await expect(pending).resolves.toEqual({ id: "job-1" });
    await new Promise<void>((resolve) => late.close(() => resolve()));
  });
});

describe("the API key never leaks into errors", () => {
  const KEY = "sk-test-key-123456";
  const inspectAll = async (run: () => Promise<unknown>) => {
    const err = await run().catch((e: unknown) => e);
    const { inspect } = await import("node:util");
    return `${inspect(err, { depth: Number.POSITIVE_INFINITY, showHidden: true })} ${JSON.stringify(err)} ${(err as Error).stack}`;
  };

  it.each([
    ["a 401", () => server.on("POST", "/prefix/x", { status: 401, json: { reason: "bad key" } })],
    ["a reset mid-response", () => server.on("POST", "/prefix/x", resetMidResponse)],
    ["a hang until the deadline", () => server.on("POST", "/prefix/x", hang)],
  ])("%s", async (_name, setup) => {
    setup();
    const text = await inspectAll(() =>
      transport({ timeoutMs: 300, maxAttempts: 1 }).json({ method: "POST", path: "/x", json: {} }),
    );
    expect(text.length).toBeGreaterThan(100);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("123456");
  });
});
