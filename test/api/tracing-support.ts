/**
 * Shared checks for the TracingClient family tests: one loopback server, one client, and a table runner that
 * sends each method against the real server and checks the request exactly as it arrived on the socket.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { InternalServerError } from "../../src/errors.js";
import { userAgent } from "../../src/http/transport.js";
import { type RecordedRequest, TestServer } from "../support/server.js";

export const API_KEY = "tw-secret-key-0001";
export const PROJECT = "acme/demo";

/** A client on the test server with the default project and near-instant retries. */
export function tracingClient(server: TestServer): TracingClient {
  return new TracingClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    project: PROJECT,
    env: {},
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
  });
}

/** The file's loopback server and its client; read them inside tests and hooks (they exist from `beforeAll` on). */
export interface TracingServer {
  readonly server: TestServer;
  readonly client: TracingClient;
}

/**
 * Starts one {@link TestServer} and a client on it before the file's tests (`beforeAll`) and closes the client, then
 * the server, after them (`afterAll`). The client is {@link tracingClient} unless `makeClient` says otherwise.
 */
export function setupTracingServer(makeClient: (server: TestServer) => TracingClient = tracingClient): TracingServer {
  let server: TestServer | undefined;
  let client: TracingClient | undefined;
  beforeAll(async () => {
    server = await TestServer.start();
    client = makeClient(server);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error("setupTracingServer: the server starts in beforeAll");
      return server;
    },
    get client() {
      if (!client) throw new Error("setupTracingServer: the client is made in beforeAll");
      return client;
    },
  };
}

/** The query string as `{key: [values…]}` (repeated keys keep their order). */
export function queryOf(req: RecordedRequest): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of new Set(req.query.keys())) out[key] = req.query.getAll(key);
  return out;
}

/** What one request must look like. `json` absent means no body at all. */
export interface ExpectedRequest {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, string[]>;
  json?: unknown;
}

/** Checks method, path, query, the bearer key, the content type and the decoded body. */
export function expectRequest(req: RecordedRequest, expected: ExpectedRequest, label: string): void {
  expect(req.method, label).toBe(expected.method);
  expect(req.path, label).toBe(expected.path);
  expect(queryOf(req), label).toEqual(expected.query ?? {});
  expect(req.headers.authorization, label).toBe(`Bearer ${API_KEY}`);
  expect(req.headers["user-agent"], label).toBe(userAgent());
  if (expected.json === undefined) {
    expect(req.headers["content-type"], label).toBeUndefined();
    expect(req.body.length, label).toBe(0);
  } else {
    expect(req.headers["content-type"], label).toBe("application/json");
    expect(req.json, label).toEqual(expected.json);
  }
}

/** One method under test: how to call it, the request it must send, and whether a 500 may be retried. */
export interface MethodCase extends ExpectedRequest {
  name: string;
  run: () => Promise<unknown>;
  /** The JSON answer to script (default `{ok: name}`); the method must return it unchanged. */
  reply?: unknown;
  /** Reads (and GET/PUT/DELETE) are retried on 500; writes are not. */
  retriesOn500: boolean;
}

/**
 * Runs each case twice against the real server: once answered normally (request and result checked), once
 * answered 500 then 200 (a read retries and succeeds with two identical requests; a write fails after one).
 */
export async function runCases(server: TestServer, cases: MethodCase[]): Promise<void> {
  for (const c of cases) {
    const reply = c.reply ?? { ok: c.name };
    server.reset();
    server.on(c.method, c.path, { json: reply });
    await expect(c.run(), c.name).resolves.toEqual(reply);
    expectRequest(server.only(), c, c.name);

    server.reset();
    server.on(c.method, c.path, { status: 500, json: { reason: "Internal server error" } }, { json: reply });
    if (c.retriesOn500) {
      await expect(c.run(), `${c.name} after a 500`).resolves.toEqual(reply);
      expect(server.requests, `${c.name} retried once`).toHaveLength(2);
      expectRequest(server.requests[1]!, c, `${c.name} (retry)`);
    } else {
      await expect(c.run(), `${c.name} after a 500`).rejects.toBeInstanceOf(InternalServerError);
      expect(server.requests, `${c.name} not retried`).toHaveLength(1);
    }
  }
}
