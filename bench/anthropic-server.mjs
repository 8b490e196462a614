/**
 * Loopback Anthropic Messages API for bench/anthropic-overhead.mjs, run as a *child process* (`fork`) so that its
 * CPU is not charged to the process being measured. Answers `POST /v1/messages` deterministically:
 *
 * - `stream` not set: one `message` (one text block: the 50 pieces of {@link PIECES} joined; usage with prompt-cache
 *   tokens);
 * - `stream: true`: Anthropic's SSE event types — `message_start`, `content_block_start`, exactly
 *   {@link CONTENT_EVENTS} `content_block_delta` (`text_delta`) events, `content_block_stop`, `message_delta` (stop
 *   reason, output tokens), `message_stop` (55 events), written at once.
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
const USAGE = {
  input_tokens: 112,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: CONTENT_EVENTS,
  service_tier: "standard",
};

const stats = { requests: 0, streams: 0 };

function message(model, n, content, stop, usage) {
  return {
    id: `msg_bench_${n}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  };
}

function stream(model, n) {
  let out = "";
  const send = (type, data) => {
    out += `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  };
  send("message_start", { message: message(model, n, [], null, { ...USAGE, output_tokens: 1 }) });
  send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
  for (const text of PIECES) send("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
  send("content_block_stop", { index: 0 });
  send("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 50 } });
  send("message_stop", {});
  return out;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    if (req.method !== "POST" || !req.url?.endsWith("/v1/messages")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"type":"error","error":{"type":"not_found_error","message":"not found"}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const n = ++stats.requests;
    const model = `${body.model}-20251001`;
    const headers = { "request-id": `req_bench_${n}` };
    if (body.stream === true) {
      stats.streams++;
      res.writeHead(200, { ...headers, "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(stream(model, n));
    } else {
      const text = JSON.stringify(message(model, n, [{ type: "text", text: PIECES.join("") }], "end_turn", USAGE));
      res.writeHead(200, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    }
  });
});
serveForBench(server, () => stats);
