/**
 * A loopback API that refuses every key by quoting it ("Incorrect API key provided: sk-…"), as some OpenAI-compatible
 * servers and proxies do: the worst case for a tracer that records error messages. Any POST, whichever SDK sent it.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { InitOptions } from "../../src/index.js";
import { type RecordedRequest, TestServer } from "./server.js";
import { type Session, startSession } from "./tracing-session.js";

/** The key a request carried, in whichever header its SDK sends it (OpenAI, Azure OpenAI, Anthropic, Google). */
function keyOf(req: RecordedRequest): string {
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
  return bearer?.[1] ?? req.headers["x-api-key"] ?? req.headers["x-goog-api-key"] ?? req.headers["api-key"] ?? "";
}

/** The message the server answers with for `key`: what a recorded exception must show with the key masked. */
export const refusal = (key: string) =>
  `Incorrect API key provided: ${key}. You can find your API key at https://example.test.`;

/** Starts the server: every POST gets a 401 whose error body (in the shape each SDK reads) quotes the key. */
export async function startKeyEchoServer(): Promise<TestServer> {
  const server = await TestServer.start();
  server.on("POST", /.*/, (req, res) => {
    const error = { message: refusal(keyOf(req)), type: "invalid_request_error", code: "invalid_api_key", status: 401 };
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ error }));
  });
  return server;
}

/** A fresh key per test: known secrets are process-wide, so a key an earlier test registered must not make one pass. */
export const freshKey = () => `sk-echo-${randomUUID()}`;

/**
 * A test file's key-echo server (started before its tests, closed after them) and the tracing session a test starts
 * with `start()` (stopped after that test; `session` reads the current one).
 */
export function setupKeyEcho(): {
  readonly url: string;
  readonly session: Session;
  start(options?: InitOptions): Promise<Session>;
} {
  let server: TestServer | undefined;
  let current: Session | undefined;
  beforeAll(async () => {
    server = await startKeyEchoServer();
  });
  afterAll(() => server?.close());
  afterEach(async () => {
    await current?.stop();
    current = undefined;
  });
  return {
    get url() {
      if (!server) throw new Error("setupKeyEcho: the server starts in beforeAll");
      return server.url;
    },
    get session() {
      if (!current) throw new Error("setupKeyEcho: no session started in this test");
      return current;
    },
    async start(options = {}) {
      current = await startSession(options);
      return current;
    },
  };
}
