/**
 * Loopback OpenAI-compatible server for bench/openai-overhead.mjs, bench/responses-overhead.mjs and
 * bench/ai-overhead.mjs, run as a *child process* (`fork`) so that its CPU is not charged to the process being
 * measured. Answers `POST /v1/chat/completions` deterministically:
 *
 * - `stream` not set: one `chat.completion` (the 50 pieces of {@link PIECES} joined, usage included);
 * - `stream: true`: an SSE stream shaped like OpenAI's — exactly {@link CONTENT_CHUNKS} content chunks (the first
 *   also carries `role: "assistant"`), one finish chunk (empty delta, `finish_reason: "stop"`), then, only when
 *   `stream_options.include_usage` is requested, `"usage": null` on every chunk and one last usage-only chunk
 *   (`choices: []`), then `data: [DONE]`. The whole stream is written at once, so the client reads the same bytes
 *   in the same pieces whichever variant asked.
 *
 * and `POST /v1/responses` (the Responses API) with the same text:
 *
 * - `stream` not set: one `response` (a message output item, usage with cached and reasoning tokens);
 * - `stream: true`: Responses SSE (`event:`/`data:` pairs with `sequence_number`s) — `response.created`,
 *   `response.in_progress`, the message's `output_item.added` and `content_part.added`, exactly
 *   {@link CONTENT_CHUNKS} `response.output_text.delta` events, the `.done` events, then `response.completed`
 *   carrying the whole response with usage (57 events), written at once.
 *
 * The answering model is the requested one plus a snapshot suffix, like OpenAI's. IPC: sends `{ port }` once
 * listening; `{ cmd: "stats" }` → `{ stats: { requests, streams, usageChunks } }`; `{ cmd: "exit" }` stops it.
 */
import { createServer } from "node:http";
import { serveForBench } from "./lib.mjs";

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

const RESPONSE_USAGE = {
  input_tokens: 112,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: CONTENT_CHUNKS,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 112 + CONTENT_CHUNKS,
};

/** A Responses API `response` object: the in-progress shell (`text` undefined) or the completed answer. */
function response(body, model, n, text) {
  const done = text !== undefined;
  const message = {
    id: `msg_bench_${n}`,
    type: "message",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
  };
  return {
    id: `resp_bench_${n}`,
    object: "response",
    created_at: CREATED,
    status: done ? "completed" : "in_progress",
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model,
    output: done ? [message] : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    service_tier: "default",
    temperature: body.temperature ?? 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: done ? RESPONSE_USAGE : null,
    metadata: {},
  };
}

function responseStream(body, model, n) {
  let sequence = 0;
  let out = "";
  const event = (type, fields) => {
    out += `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  };
  const text = PIECES.join("");
  const part = { item_id: `msg_bench_${n}`, output_index: 0, content_index: 0 };
  const item = { id: `msg_bench_${n}`, type: "message", status: "in_progress", role: "assistant", content: [] };
  event("response.created", { response: response(body, model, n) });
  event("response.in_progress", { response: response(body, model, n) });
  event("response.output_item.added", { output_index: 0, item });
  event("response.content_part.added", { ...part, part: { type: "output_text", text: "", annotations: [] } });
  for (const delta of PIECES) event("response.output_text.delta", { ...part, delta, logprobs: [] });
  event("response.output_text.done", { ...part, text, logprobs: [] });
  event("response.content_part.done", { ...part, part: { type: "output_text", text, annotations: [] } });
  const done = response(body, model, n, text);
  event("response.output_item.done", { output_index: 0, item: done.output[0] });
  event("response.completed", { response: done });
  return out;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const responses = req.url?.endsWith("/responses");
    if (req.method !== "POST" || !(responses || req.url?.endsWith("/chat/completions"))) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":{"message":"not found","type":"invalid_request_error","param":null,"code":null}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const n = ++stats.requests;
    const model = `${body.model}-2024-07-18`;
    const headers = { "x-request-id": `req_bench_${n}` };
    if (responses) {
      const streamed = body.stream === true;
      if (streamed) stats.streams++;
      const text = streamed
        ? responseStream(body, model, n)
        : JSON.stringify(response(body, model, n, PIECES.join("")));
      res.writeHead(200, { ...headers, "content-type": streamed ? "text/event-stream" : "application/json" });
      res.end(text);
    } else if (body.stream === true) {
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
serveForBench(server, () => stats);
