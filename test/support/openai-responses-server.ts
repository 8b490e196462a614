/**
 * The Responses API and embeddings of the loopback {@link OpenAIServer} (openai-server.ts registers them):
 * `POST …/responses` and `POST …/embeddings`, answered deterministically the way OpenAI does.
 *
 * Responses: a reasoning item (two summary pieces) then a message whose text is {@link RESPONSE_TEXT_PIECES}; with
 * `tools`, a reasoning item then two function calls ({@link RESPONSE_CALLS}) whose argument deltas interleave (a text
 * answer once the input ends with a `function_call_output`); `text.format` json_schema answers JSON. Streamed
 * (`stream: true`), as SSE `event:`/`data:` pairs with `sequence_number`s: `response.created`,
 * `response.in_progress`, the item, part and delta events, then `response.completed` carrying the whole response
 * with usage. Models that misbehave: `m-status-<code>` (an error body), `m-slow` (two text deltas, then a "." delta every
 * 50 ms until the client goes away), `m-error-event` (an `error` event after a few events, then the end of the body), `m-failed`
 * (`response.failed`, or a non-streamed `status: "failed"`), `m-incomplete` (`status: "incomplete"`,
 * `max_output_tokens`).
 *
 * Embeddings: one vector per input, of `dimensions` (default {@link EMBEDDING_DIMENSIONS}) floats, as floats or
 * base64 float32 as `encoding_format` asks; usage `prompt_tokens` = 4 per input.
 */
import type { ServerResponse } from "node:http";
import { MODEL_SUFFIX } from "./openai-server.js";
import type { Pacer } from "./pacer.js";

type Body = Record<string, unknown>;

export const RESPONSE_ID = "resp_standin_1";
export const RESPONSE_CREATED = 1767607300;
export const RESPONSE_TEXT_PIECES = ["Hello", " from", " the", " responses", " stand-in."];
export const RESPONSE_TEXT = RESPONSE_TEXT_PIECES.join("");
export const REASONING_PIECES = ["Thinking", " briefly."];
export const RESPONSE_JSON = { city: "Lyon", celsius: 19 };
/** The op name of a traced `responses.create` call. */
export const RESPONSES_CREATE = "openai.responses.create";
/** The model the Responses tests ask for; the stand-in answers as `RESPONSES_MODEL + MODEL_SUFFIX`. */
export const RESPONSES_MODEL = "gpt-5-mini";
/** The model the stand-in answers a Responses request for {@link RESPONSES_MODEL} as. */
export const RESPONSES_ANSWER_MODEL = `${RESPONSES_MODEL}${MODEL_SUFFIX}`;
export const RESPONSE_USAGE = {
  input_tokens: 23,
  input_tokens_details: { cached_tokens: 7 },
  output_tokens: 12,
  output_tokens_details: { reasoning_tokens: 4 },
  total_tokens: 35,
};
/** `summary.usage` of a call answered with {@link RESPONSE_USAGE} by `responseModel` (the model the answer names). */
export const responseUsageSummary = (responseModel: string) => ({
  [responseModel]: {
    prompt_tokens: RESPONSE_USAGE.input_tokens,
    completion_tokens: RESPONSE_USAGE.output_tokens,
    total_tokens: RESPONSE_USAGE.total_tokens,
    requests: 1,
    cache_read_input_tokens: RESPONSE_USAGE.input_tokens_details.cached_tokens,
    reasoning_tokens: RESPONSE_USAGE.output_tokens_details.reasoning_tokens,
  },
});
export const RESPONSE_CALLS = [
  { id: "fc_weather", call_id: "call_weather", name: "get_weather", arguments: '{"city":"Lyon"}' },
  { id: "fc_time", call_id: "call_time", name: "get_time", arguments: '{"tz":"Europe/Paris"}' },
];
export const EMBEDDING_DIMENSIONS = 8;
export const EMBEDDING_TOKENS_PER_INPUT = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The input ends with a tool result: the model answers with text. */
function wantsTools(body: Body): boolean {
  const input = Array.isArray(body.input) ? (body.input as Body[]) : [];
  return Array.isArray(body.tools) && input.at(-1)?.type !== "function_call_output";
}

function isJson(body: Body): boolean {
  const text = body.text as Body | undefined;
  return (text?.format as Body | undefined)?.type === "json_schema";
}

function textPieces(body: Body): string[] {
  if (!isJson(body)) return RESPONSE_TEXT_PIECES;
  const text = JSON.stringify(RESPONSE_JSON);
  return [text.slice(0, 8), text.slice(8, 16), text.slice(16)];
}

function reasoningItem(done: boolean): Body {
  return {
    id: "rs_standin",
    type: "reasoning",
    summary: done ? [{ type: "summary_text", text: REASONING_PIECES.join("") }] : [],
  };
}

function messageItem(text: string | undefined): Body {
  return {
    id: "msg_standin",
    type: "message",
    status: text === undefined ? "in_progress" : "completed",
    role: "assistant",
    content: text === undefined ? [] : [{ type: "output_text", text, annotations: [], logprobs: [] }],
  };
}

function callItem(call: (typeof RESPONSE_CALLS)[number], done: boolean): Body {
  return {
    id: call.id,
    type: "function_call",
    status: done ? "completed" : "in_progress",
    call_id: call.call_id,
    name: call.name,
    arguments: done ? call.arguments : "",
  };
}

/** The response object (the whole answer, or the in-progress shell of `response.created`). */
function response(body: Body, model: string, status: string, output: Body[], usage: Body | null): Body {
  return {
    id: RESPONSE_ID,
    object: "response",
    created_at: RESPONSE_CREATED,
    status,
    background: false,
    error: status === "failed" ? { code: "server_error", message: "The model failed to answer" } : null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: `${model}${MODEL_SUFFIX}`,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    service_tier: "default",
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    usage,
    metadata: {},
  };
}

function finalOutput(body: Body): Body[] {
  if (wantsTools(body)) return [reasoningItem(true), ...RESPONSE_CALLS.map((c) => callItem(c, true))];
  return [reasoningItem(true), messageItem(textPieces(body).join(""))];
}

function terminalStatus(model: string): string {
  return model === "m-failed" ? "failed" : model === "m-incomplete" ? "incomplete" : "completed";
}

/** Answers `POST …/responses`. */
export async function answerResponses(
  body: Body,
  model: string,
  requestId: string,
  res: ServerResponse,
  onClosedEarly: () => void,
  pacer?: Pacer,
): Promise<void> {
  if (body.stream !== true) {
    const status = terminalStatus(model);
    res.writeHead(200, { "content-type": "application/json", "x-request-id": requestId });
    res.end(JSON.stringify(response(body, model, status, finalOutput(body), RESPONSE_USAGE)));
    return;
  }
  let finished = false;
  res.once("close", () => {
    if (!finished) onClosedEarly();
  });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-request-id": requestId });
  let sequence = 0;
  const events: Body[] = [];
  const event = (type: string, fields: Body) => events.push({ type, sequence_number: sequence++, ...fields });
  const send = (e: Body) => res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);

  event("response.created", { response: response(body, model, "in_progress", [], null) });
  event("response.in_progress", { response: response(body, model, "in_progress", [], null) });
  event("response.output_item.added", { output_index: 0, item: reasoningItem(false) });
  const summary = { item_id: "rs_standin", output_index: 0, summary_index: 0 };
  event("response.reasoning_summary_part.added", { ...summary, part: { type: "summary_text", text: "" } });
  for (const delta of REASONING_PIECES) event("response.reasoning_summary_text.delta", { ...summary, delta });
  const reasoning = REASONING_PIECES.join("");
  event("response.reasoning_summary_text.done", { ...summary, text: reasoning });
  event("response.reasoning_summary_part.done", { ...summary, part: { type: "summary_text", text: reasoning } });
  event("response.output_item.done", { output_index: 0, item: reasoningItem(true) });
  if (wantsTools(body)) {
    RESPONSE_CALLS.forEach((call, i) => {
      event("response.output_item.added", { output_index: i + 1, item: callItem(call, false) });
    });
    const pieces = RESPONSE_CALLS.map((c) => [
      c.arguments.slice(0, 5),
      c.arguments.slice(5, 11),
      c.arguments.slice(11),
    ]);
    for (let p = 0; p < 3; p++) {
      RESPONSE_CALLS.forEach((call, i) => {
        event("response.function_call_arguments.delta", {
          item_id: call.id,
          output_index: i + 1,
          delta: pieces[i]![p],
        });
      });
    }
    RESPONSE_CALLS.forEach((call, i) => {
      event("response.function_call_arguments.done", {
        item_id: call.id,
        output_index: i + 1,
        arguments: call.arguments,
      });
      event("response.output_item.done", { output_index: i + 1, item: callItem(call, true) });
    });
  } else {
    const part = { item_id: "msg_standin", output_index: 1, content_index: 0 };
    event("response.output_item.added", { output_index: 1, item: messageItem(undefined) });
    event("response.content_part.added", { ...part, part: { type: "output_text", text: "", annotations: [] } });
    const pieces = textPieces(body);
    for (const delta of pieces) event("response.output_text.delta", { ...part, delta, logprobs: [] });
    const text = pieces.join("");
    event("response.output_text.done", { ...part, text, logprobs: [] });
    event("response.content_part.done", { ...part, part: { type: "output_text", text, annotations: [] } });
    event("response.output_item.done", { output_index: 1, item: messageItem(text) });
  }
  const status = terminalStatus(model);
  event(`response.${status}`, { response: response(body, model, status, finalOutput(body), RESPONSE_USAGE) });

  if (model === "m-slow") {
    // Up to the message's second text delta, then a "." delta every 50 ms.
    for (const e of events.slice(0, 13)) send(e);
    for (let i = 0; i < 400 && !res.destroyed && !res.writableEnded; i++) {
      await sleep(50);
      if (res.destroyed) break;
      send({
        type: "response.output_text.delta",
        sequence_number: sequence++,
        item_id: "msg_standin",
        output_index: 1,
        content_index: 0,
        delta: ".",
        logprobs: [],
      });
    }
    finished = true;
    res.end();
    return;
  }
  if (model === "m-error-event") {
    for (const e of events.slice(0, 4)) send(e);
    send({
      type: "error",
      sequence_number: sequence++,
      code: "engine_error",
      message: "The engine stopped unexpectedly",
      param: null,
    });
    finished = true;
    res.end();
    return;
  }
  for (const e of events) {
    if (pacer) {
      await pacer.turn(res);
      if (res.destroyed) return;
    }
    send(e);
  }
  // The end of the body is one more turn.
  if (pacer) {
    await pacer.turn(res);
    if (res.destroyed) return;
  }
  finished = true;
  res.end();
}

/** Answers `POST …/embeddings`. */
export function answerEmbeddings(body: Body, model: string, requestId: string, res: ServerResponse): void {
  const input = body.input;
  const inputs = typeof input === "string" ? [input] : Array.isArray(input) ? input : [];
  const dimensions = typeof body.dimensions === "number" ? body.dimensions : EMBEDDING_DIMENSIONS;
  const data = inputs.map((_, index) => {
    const vector = Array.from({ length: dimensions }, (_v, d) => (index + 1) / 10 + d / 100);
    const embedding =
      body.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
    return { object: "embedding", index, embedding };
  });
  const tokens = inputs.length * EMBEDDING_TOKENS_PER_INPUT;
  res.writeHead(200, { "content-type": "application/json", "x-request-id": requestId });
  res.end(
    JSON.stringify({
      object: "list",
      data,
      model: `${model}${MODEL_SUFFIX}`,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    }),
  );
}
