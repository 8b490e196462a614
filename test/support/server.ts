/**
 * A real HTTP server on 127.0.0.1 that records every request and answers from scripted routes, with helpers to
 * inject faults (status codes, `Retry-After`, resets, hangs, slow and broken streams). Tests talk to it through
 * the real undici stack, so what they check is what goes over the socket.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll } from "vitest";

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The body after gunzip when it was sent gzip-encoded. */
  body: Buffer;
  /** The body as raw bytes on the wire. */
  rawBody: Buffer;
  /** `JSON.parse(body)` when the body is JSON, else undefined. */
  json: unknown;
  receivedAt: number;
}

/** A scripted answer: a function for full control, or a plain description. */
export type Reply =
  | ((req: RecordedRequest, res: ServerResponse) => void | Promise<void>)
  | { status?: number; json?: unknown; text?: string; headers?: Record<string, string> };

interface Route {
  method: string;
  path: string | RegExp;
  replies: Reply[];
}

export class TestServer {
  readonly requests: RecordedRequest[] = [];
  private readonly routes: Route[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  /** Starts a server on an ephemeral 127.0.0.1 port. */
  static async start(): Promise<TestServer> {
    const server = createServer();
    const test = new TestServer(server);
    server.on("connection", (socket) => {
      test.sockets.add(socket);
      socket.on("close", () => test.sockets.delete(socket));
    });
    server.on("request", (req, res) => void test.dispatch(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return test;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `http://127.0.0.1:<port>` */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Scripts answers for `method path`. Replies are used in order; the last one repeats. A later `on()` for the
   * same route replaces the earlier one.
   */
  on(method: string, path: string | RegExp, ...replies: Reply[]): this {
    const existing = this.routes.findIndex((r) => r.method === method && String(r.path) === String(path));
    if (existing !== -1) this.routes.splice(existing, 1);
    this.routes.push({ method, path, replies: replies.length ? replies : [{ status: 200, json: {} }] });
    return this;
  }

  /** Requests that matched `method path`. */
  received(method: string, path: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && matches(path, r.path));
  }

  /** The only request recorded; fails loudly when there are none or several. */
  only(): RecordedRequest {
    if (this.requests.length !== 1) throw new Error(`expected exactly 1 request, got ${this.requests.length}`);
    return this.requests[0]!;
  }

  reset(): void {
    this.requests.length = 0;
    this.routes.length = 0;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks);
    const body = req.headers["content-encoding"] === "gzip" ? gunzipSync(rawBody) : rawBody;
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(", ") : value;
    }
    let json: unknown;
    if ((headers["content-type"] ?? "").includes("json") && body.length > 0) {
      try {
        json = JSON.parse(body.toString("utf8"));
      } catch {
        json = undefined;
      }
    }
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers,
      body,
      rawBody,
      json,
      receivedAt: Date.now(),
    };
    this.requests.push(recorded);

    const route = this.routes.find((r) => r.method === recorded.method && matches(r.path, recorded.path));
    if (!route) return send(res, { status: 599, json: { reason: `no route for ${recorded.method} ${recorded.path}` } });
    const reply = route.replies.length > 1 ? route.replies.shift()! : route.replies[0]!;
    if (typeof reply === "function") {
      try {
        await reply(recorded, res);
      } catch (err) {
        if (!res.headersSent) send(res, { status: 598, json: { reason: String(err) } });
      }
      return;
    }
    send(res, reply);
  }
}

function matches(pattern: string | RegExp, path: string): boolean {
  return typeof pattern === "string" ? pattern === path : pattern.test(path);
}

function send(res: ServerResponse, reply: Exclude<Reply, (...args: never[]) => unknown>): void {
  const headers: Record<string, string> = { ...reply.headers };
  let payload = "";
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers["content-type"] ??= "application/json";
  } else if (reply.text !== undefined) {
    payload = reply.text;
  }
  res.writeHead(reply.status ?? 200, headers);
  res.end(payload);
}

// ---- fault and stream helpers --------------------------------------------------------------------------------

/** Destroys the connection without an answer (a reset before any response byte). */
export const resetConnection: Reply = (_req, res) => {
  res.socket?.destroy();
};

/** Sends headers and part of a body, then resets the connection (a reset mid-response). */
export const resetMidResponse: Reply = (_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
  res.write('{"id": "partial');
  setTimeout(() => res.socket?.destroy(), 20);
};

/** Never answers; the socket is closed when the server closes. */
export const hang: Reply = () => new Promise<void>(() => {});

/** Streams NDJSON lines, optionally in uneven chunks that split lines. */
export function ndjsonReply(lines: unknown[], options: { chunkBytes?: number; trailingNewline?: boolean } = {}): Reply {
  return async (_req, res) => {
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    const text = lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n");
    const body = options.trailingNewline === false ? text : `${text}\n`;
    const size = options.chunkBytes ?? 7;
    for (let i = 0; i < body.length; i += size) {
      if (!res.write(body.slice(i, i + size))) await new Promise((r) => res.once("drain", r));
    }
    res.end();
  };
}

/** Sends an SSE stream of `data:` events (objects are JSON-encoded), then `[DONE]` unless told not to. */
export function sseReply(
  events: (unknown | { raw: string })[],
  options: { done?: boolean; delayMs?: number } = {},
): Reply {
  return async (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const event of events) {
      const frame =
        typeof event === "object" && event !== null && "raw" in event
          ? (event as { raw: string }).raw
          : `data: ${JSON.stringify(event)}\n\n`;
      res.write(frame);
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    }
    if (options.done !== false) res.write("data: [DONE]\n\n");
    res.end();
  };
}

/**
 * A {@link TestServer} for the whole file: started before its tests (then `started` runs, e.g. to build the client
 * under test, and may return what to close first), its recorded requests and replies reset after each test, closed
 * after the last.
 */
export function setupTestServer(started: (server: TestServer) => (() => Promise<void>) | undefined | void): void {
  let server: TestServer | undefined;
  let cleanup: (() => Promise<void>) | undefined | void;
  beforeAll(async () => {
    server = await TestServer.start();
    cleanup = started(server);
  });
  afterEach(() => server?.reset());
  afterAll(async () => {
    await cleanup?.();
    await server?.close();
  });
}
