/**
 * Loopback sink for the benchmarks, run as a *child process* (`fork`) so that its CPU is not charged to the
 * process being measured. Reads and discards every request body and answers `200 {}`.
 *
 * Counters are kept per first path segment (each benchmark variant sends to its own prefix, e.g.
 * `/tw-otlp-proto/otel/v1/traces`): requests, bytes on the wire (as received, i.e. compressed when the client
 * gzips) and bytes after gunzip. Uncompressed sizes are measured here, in the sink, for the same reason.
 *
 * IPC: sends `{ port }` once listening; answers `{ cmd: "stats" }` with `{ stats }`.
 */
import { createServer } from "node:http";
import { gunzipSync } from "node:zlib";
import { serveForBench } from "./lib.mjs";

const counters = new Map();

function counterFor(url) {
  const tag = url.split("/")[1] || "root";
  let c = counters.get(tag);
  if (!c) {
    c = { requests: 0, wireBytes: 0, bodyBytes: 0 };
    counters.set(tag, c);
  }
  return c;
}

const server = createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  req.on("end", () => {
    const c = counterFor(req.url ?? "/");
    c.requests++;
    c.wireBytes += size;
    if (req.headers["content-encoding"] === "gzip") {
      try {
        c.bodyBytes += gunzipSync(Buffer.concat(chunks, size)).length;
      } catch {
        c.bodyBytes += size;
      }
    } else c.bodyBytes += size;
    const body = "{}";
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  });
});
serveForBench(server, () => Object.fromEntries(counters));
