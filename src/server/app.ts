/**
 * The local service's request pipeline: loopback `Host` check (no DNS rebinding into your traces), loopback
 * `Origin` check (no web page of another site writing into or deleting your traces: browsers send a text/plain POST
 * to 127.0.0.1 without asking first, but always with its `Origin`), optional API key, routing, and errors in the service's shapes — `{"reason": …}`, FastAPI's `{"detail": […]}` for 422, 405 with
 * `Allow` for a known path under another method, and 404 naming any endpoint the local service does not implement
 * (a 4xx: clients drop the request instead of retrying it, as they would a 5xx).
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseExactJson } from "./exact-json.js";
import { checkJsonContentType, HttpError, parseJson, type Request, readBody, sendJson, sendReply } from "./http.js";
import { InvalidQueryError } from "./query-dsl.js";
import { Router, type Service } from "./router.js";
import { callStatsRoutes } from "./routes/call-stats.js";
import { callRoutes } from "./routes/calls.js";
import { evalResultsRoutes } from "./routes/eval-results.js";
import { evaluationRoutes } from "./routes/evaluations.js";
import { feedbackRoutes } from "./routes/feedback.js";
import { objectRoutes } from "./routes/objects.js";
import { otelRoutes } from "./routes/otel.js";
import { serviceRoutes } from "./routes/service.js";
import { threadRoutes } from "./routes/threads.js";
import { usageRoutes } from "./routes/usage.js";
import { RequestValidationError } from "./validate.js";

const LOOPBACK_HOSTS = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/i;
/** Reachable without the key: the page holds no data, and asks for the key itself. */
const PUBLIC = new Set(["GET /", "HEAD /", "GET /favicon.ico"]);

export function buildRouter(): Router {
  const router = new Router();
  serviceRoutes(router);
  otelRoutes(router);
  callRoutes(router);
  callStatsRoutes(router);
  usageRoutes(router);
  feedbackRoutes(router);
  threadRoutes(router);
  evaluationRoutes(router);
  evalResultsRoutes(router);
  objectRoutes(router);
  return router;
}

/** Whether a browser's `Origin` header names a page served from this machine (the viewer, or another loopback page). */
function loopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTS.test(url.host);
  } catch {
    return false; // "null" (a sandboxed or file:// page) and anything unparsable
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Accepts `Bearer KEY` (tracewire) and `Basic base64("api:KEY")` (the service's other SDKs). */
function authorized(header: string | undefined, apiKey: string): boolean {
  if (!header) return false;
  const [scheme, value = ""] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() === "bearer") return sameSecret(value, apiKey);
  if (scheme?.toLowerCase() === "basic") {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    return sameSecret(decoded.slice(decoded.indexOf(":") + 1), apiKey);
  }
  return false;
}

function toRequest(req: IncomingMessage, url: URL, params: Record<string, string>): Request {
  let body: Promise<Buffer> | undefined;
  const read = () => {
    body ??= readBody(req);
    return body;
  };
  return {
    method: req.method ?? "GET",
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    params,
    body: read,
    json: async () => {
      checkJsonContentType(req.headers, url.pathname);
      return parseJson(await read(), parseExactJson);
    },
  };
}

/** Answers an error thrown by a handler in the service's shape. */
function sendError(res: ServerResponse, err: unknown, service: Service): void {
  if (res.headersSent) {
    res.destroy(err as Error);
    return;
  }
  let status = 500;
  let body: unknown = { reason: "Internal server error" };
  let headers: Record<string, string> = {};
  if (err instanceof RequestValidationError) [status, body] = [422, { detail: err.issues }];
  else if (err instanceof HttpError) [status, body, headers] = [err.status, err.body, err.headers];
  else if (err instanceof InvalidQueryError) [status, body] = [400, { reason: `Invalid query: ${err.message}` }];
  else if (err instanceof URIError) [status, body] = [400, { reason: "Malformed percent-encoding in the path." }];
  else service.log(`internal error: ${(err as Error)?.stack ?? String(err)}`);
  sendJson(res, status, body, headers);
}

/** The `request` listener of the local service. */
export function createHandler(service: Service, options: { apiKey?: string | undefined }) {
  const router = buildRouter();
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const host = req.headers.host ?? "";
      if (!LOOPBACK_HOSTS.test(host)) {
        throw new HttpError(
          403,
          `Host ${JSON.stringify(host)} refused: the local service answers loopback names only.`,
        );
      }
      const origin = req.headers.origin;
      if (origin !== undefined && !loopbackOrigin(origin)) {
        throw new HttpError(
          403,
          `Origin ${JSON.stringify(origin)} refused: the local service answers pages served from this machine only.`,
        );
      }
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const method = req.method ?? "GET";
      if (
        options.apiKey !== undefined &&
        !PUBLIC.has(`${method} ${url.pathname}`) &&
        !authorized(req.headers.authorization, options.apiKey)
      ) {
        const reason = req.headers.authorization
          ? "Invalid API key."
          : "Missing API key: send Authorization: Bearer <key>.";
        throw new HttpError(401, reason, { reason }, { "www-authenticate": "Bearer" });
      }
      if (method === "GET" && url.pathname === "/favicon.ico") {
        res.writeHead(204).end();
        return;
      }
      const match = router.match(method, url.pathname);
      if (match.kind === "wrong-method") {
        const allowed = match.allowed.join(", ");
        const reason = `${method} ${url.pathname}: method not allowed (this path takes ${allowed}).`;
        throw new HttpError(405, reason, { reason }, { allow: allowed });
      }
      if (match.kind === "unknown") {
        throw new HttpError(404, `tracewire dev does not implement ${method} ${url.pathname}.`);
      }
      const reply = await match.handler(toRequest(req, url, match.params), service);
      await sendReply(res, reply);
    } catch (err) {
      sendError(res, err, service);
    }
  };
}
