/**
 * Loopback OpenAI-compatible chat server for bench/openai-overhead.mjs, run as a *child process* (`fork`) so that
 * its CPU is not charged to the process being measured. Answers `POST /v1/chat/completions` deterministically:
 *
 * - `stream` not set: one `chat.completion` (the 50 pieces of {@link PIECES} joined, usage included);
 * - `stream: true`: an SSE stream shaped like OpenAI's — exactly {@link CONTENT_CHUNKS} content chunks (the first
 *   also carries `role: "assistant"`), one finish chunk (empty delta, `finish_reason: "stop"`), then, only when
 *   `stream_options.include_usage` is requested, `"usage": null` on every chunk and one last usage-only chunk
 *   (`choices: []`), then `data: [DONE]`. The whole stream is written at once, so the client reads the same bytes
 *   in the same pieces whichever variant asked.
 *
 * The answering model is the requested one plus a snapshot suffix, like OpenAI's. IPC: sends `{ port }` once
 * listening; `{ cmd: "stats" }` → `{ stats: { requests, streams, usageChunks } }`; `{ cmd: "exit" }` stops it.
 */
import { createServer } from "node:http";

const CONTENT_CHUNKS = 50;
const WORDS =
  "The loopback server answers every request with the same fifty pieces of text so that each variant reads identical bytes".split(
    " ",
  );
/** 50 token-sized pieces of text (~250 characters). */
const PIECES = Array.from({ length: CONTENT_CHUNKS }, (_, i) => `${i === 0 ? "" : " "}${WORDS[i % WORDS.length]}`);
const CREATED = 1767607200;
const USAGE = {
  prompt_tokens: 112,
  completion_tokens: CONTENT_CHUNKS,
  total_tokens: 112 + CONTENT_CHUNKS,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

const stats = { requests: 0, streams: 0, usageChunks: 0 };

function completion(model, n) {
  return JSON.stringify({
    id: `chatcmpl-bench-${n}`,
    object: "chat.completion",
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: PIECES.join(""), refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: USAGE,
    service_tier: "default",
    system_fingerprint: "fp_bench",
  });
}

function stream(model, n, withUsage) {
  const event = (choices, extra) => {
    const chunk = {
      id: `chatcmpl-bench-${n}`,
      object: "chat.completion.chunk",
      created: CREATED,
      model,
      service_tier: "default",
      system_fingerprint: "fp_bench",
      choices,
    };
    if (withUsage) chunk.usage = null;
    return `data: ${JSON.stringify(Object.assign(chunk, extra))}\n\n`;
  };
  const choice = (delta, finish = null) => [{ index: 0, delta, logprobs: null, finish_reason: finish }];
  let out = "";
  for (let i = 0; i < CONTENT_CHUNKS; i++) {
    out += event(choice(i === 0 ? { role: "assistant", content: PIECES[i], refusal: null } : { content: PIECES[i] }));
  }
  out += event(choice({}, "stop"));
  if (withUsage) {
    out += event([], { usage: USAGE });
    stats.usageChunks++;
  }
  return `${out}data: [DONE]\n\n`;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":{"message":"not found","type":"invalid_request_error","param":null,"code":null}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const n = ++stats.requests;
    const model = `${body.model}-2024-07-18`;
    const headers = { "x-request-id": `req_bench_${n}` };
    if (body.stream === true) {
      stats.streams++;
      const text = stream(model, n, body.stream_options?.include_usage === true);
      res.writeHead(200, { ...headers, "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(text);
    } else {
      const text = completion(model, n);
      res.writeHead(200, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    }
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, "127.0.0.1", () => {
  process.send?.({ port: server.address().port });
});

process.on("message", (msg) => {
  if (msg?.cmd === "stats") process.send?.({ stats });
  else if (msg?.cmd === "exit") server.close(() => process.exit(0));
});
process.on("disconnect", () => process.exit(0));
