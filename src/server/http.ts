/**
 * HTTP plumbing of the local service: reading request bodies (gzip, size limit, content type, JSON), the error the
 * handlers throw to answer a status, and writing JSON, NDJSON and raw answers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { gunzipSync, inflateSync } from "node:zlib";
import { stringifyExactJson } from "./exact-json.js";
import { RequestValidationError } from "./validate.js";

/** The service's request limit (32 MiB). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Answers `status` with a JSON body (`{"reason": …}` unless given). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    reason: string,
    readonly body: unknown = { reason },
    readonly headers: Record<string, string> = {},
  ) {
    super(reason);
  }
}

/** What a handler returns. */
export type Reply =
  | { json: unknown; status?: number }
  | { ndjson: Iterable<unknown> }
  | { bytes: Uint8Array; contentType: string; status?: number }
  | { html: string };

/** The request as handlers see it. */
export interface Request {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  /** Path parameters of the matched route. */
  params: Record<string, string>;
  /** The body after gunzip; read once, on first use. */
  body(): Promise<Buffer>;
  /** The body as JSON: a 415 when declared as another type, a 422 in FastAPI's shape when it is not JSON. */
  json(): Promise<unknown>;
}

/** Reads the whole body, refusing more than {@link MAX_BODY_BYTES} and undoing `content-encoding`. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_BODY_BYTES) throw new HttpError(413, "Request too large");
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw new HttpError(413, "Request too large");
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // The client went away mid-upload (an app stopped while it exported): nothing was stored, nothing is wrong here.
    throw new HttpError(400, `The request body was cut off: ${(err as Error)?.message ?? String(err)}`);
  }
  const raw = Buffer.concat(chunks);
  const encoding = String(req.headers["content-encoding"] ?? "identity").toLowerCase();
  try {
    if (encoding === "gzip") return gunzipSync(raw, { maxOutputLength: MAX_BODY_BYTES });
    if (encoding === "deflate") return inflateSync(raw, { maxOutputLength: MAX_BODY_BYTES });
  } catch (err) {
    const tooLarge = (err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
    throw tooLarge
      ? new HttpError(413, "Request too large")
      : new HttpError(400, `The body is not valid ${encoding}: ${(err as Error).message}`);
  }
  if (encoding !== "identity") throw new HttpError(415, `Unsupported content-encoding ${encoding}`);
  return raw;
}

/** `application/json`, `text/json` and the `+json` types (`application/vnd.api+json`), with any parameters. */
const JSON_CONTENT_TYPE = /^[\w.-]+\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Refuses with 415 a JSON endpoint's body declared as something else (plain text, a form, multipart): it was not
 * meant for this endpoint, and reading it anyway would answer a confusing 422 about its fields. A body without a
 * `content-type` is read as JSON, as the hosted service's FastAPI reads it: scripts (`requests.post(data=…)`, a bare
 * `http.request`, fetch with bytes) often send none, JSON is all these endpoints take, and refusing them would break
 * clients the hosted service accepts. (Browsers always send one, so this is no way around the `Origin` check.)
 */
export function checkJsonContentType(headers: IncomingMessage["headers"], path: string): void {
  const type = headers["content-type"];
  if (type === undefined || type.trim() === "" || JSON_CONTENT_TYPE.test(type.trim())) return;
  throw new HttpError(
    415,
    `Unsupported content type ${JSON.stringify(type)}: ${path} takes a JSON body; send Content-Type: application/json.`,
  );
}

/**
 * Parses a JSON body (with `parse`: JSON.parse, or the Python-faithful parser of python-json.ts); a missing or
 * malformed one is a 422 as FastAPI reports it.
 */
export function parseJson(body: Buffer, parse: (text: string) => unknown = JSON.parse): unknown {
  if (body.length === 0) {
    throw new RequestValidationError([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]);
  }
  const text = body.toString("utf8");
  try {
    return parse(text);
  } catch (err) {
    const position = Number(/position (\d+)/.exec((err as Error).message)?.[1] ?? 0);
    throw new RequestValidationError([
      { type: "json_invalid", loc: ["body", position], msg: "JSON decode error", input: {} },
    ]);
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = stringifyExactJson(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Writes one JSON object per line, honouring back-pressure; stops early when the client goes away. */
export async function sendNdjson(res: ServerResponse, rows: Iterable<unknown>): Promise<void> {
  res.writeHead(200, { "content-type": "application/jsonl" });
  for (const row of rows) {
    if (res.destroyed) return;
    if (!res.write(`${stringifyExactJson(row)}\n`)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }
  res.end();
}

export async function sendReply(res: ServerResponse, reply: Reply): Promise<void> {
  if ("ndjson" in reply) return sendNdjson(res, reply.ndjson);
  if ("html" in reply) {
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy":
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
    });
    res.end(reply.html);
    return;
  }
  if ("bytes" in reply) {
    res.writeHead(reply.status ?? 200, { "content-type": reply.contentType, "content-length": reply.bytes.length });
    res.end(reply.bytes);
    return;
  }
  sendJson(res, reply.status ?? 200, reply.json);
}
