/**
 * Loopback Gemini API for bench/google-overhead.mjs, run as a *child process* (`fork`) so that its CPU is not
 * charged to the process being measured. Answers `POST …/models/{model}:generateContent` and
 * `…:streamGenerateContent?alt=sse` deterministically:
 *
 * - `generateContent`: one response (one candidate whose text is the 50 pieces of {@link PIECES} joined; usage with
 *   cached and thoughts tokens, `modelVersion`, `responseId`);
 * - `streamGenerateContent`: exactly {@link CONTENT_EVENTS} SSE `data:` chunks, one piece each, every chunk with the
 *   request's running usage total, the last with finish reason `STOP`, written at once.
 *
 * IPC: as bench/openai-server.mjs (`serveForBench` of lib.mjs); stats `{ requests, streams }`.
 */
import { createServer } from "node:http";
import { serveForBench } from "./lib.mjs";

const CONTENT_EVENTS = 50;
const WORDS =
  "The loopback server answers every request with the same fifty pieces of text so that each variant reads identical bytes".split(
    " ",
  );
const PIECES = Array.from({ length: CONTENT_EVENTS }, (_, i) => `${i === 0 ? "" : " "}${WORDS[i % WORDS.length]}`);
const usage = (candidates) => ({
  promptTokenCount: 112,
  cachedContentTokenCount: 0,
  thoughtsTokenCount: 0,
  candidatesTokenCount: candidates,
  totalTokenCount: 112 + candidates,
});

const stats = { requests: 0, streams: 0 };

function response(model, n, text, finishReason, candidates) {
  const candidate = { content: { role: "model", parts: [{ text }] }, index: 0 };
  if (finishReason) candidate.finishReason = finishReason;
  return {
    candidates: [candidate],
    usageMetadata: usage(candidates),
    modelVersion: model,
    responseId: `resp_bench_${n}`,
  };
}

function stream(model, n) {
  let out = "";
  PIECES.forEach((piece, i) => {
    const last = i === PIECES.length - 1;
    out += `data: ${JSON.stringify(response(model, n, piece, last ? "STOP" : undefined, i + 1))}\r\n\r\n`;
  });
  return out;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const match = req.method === "POST" && /\/models\/([^/:]+):(generateContent|streamGenerateContent)/.exec(req.url);
    if (!match) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}');
      return;
    }
    JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const n = ++stats.requests;
    const model = `${match[1]}-001`;
    if (match[2] === "streamGenerateContent") {
      stats.streams++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(stream(model, n));
    } else {
      const text = JSON.stringify(response(model, n, PIECES.join(""), "STOP", CONTENT_EVENTS));
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    }
  });
});
serveForBench(server, () => stats);
