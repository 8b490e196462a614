/**
 * A loopback OpenAI-compatible chat server for the instrumentation tests, built on {@link TestServer}. It answers
 * `POST /v1/chat/completions` (also under any other path prefix, e.g. a per-test `/<tag>/v1` base URL) the way OpenAI and
 * vLLM do, deterministically, so a wrapped and an unwrapped client asking the same thing get the same bytes:
 *
 * - text answers, streamed (SSE) or not; `n: 2` interleaves two choices;
 * - `stream_options.include_usage`: `"usage": null` on every chunk plus one last usage-only chunk (`choices: []`),
 *   exactly as OpenAI does — and only when asked for;
 * - `tools` in the request: two parallel tool calls whose deltas interleave (a text answer once the last message
 *   is a tool result);
 * - `response_format: json_schema`: a JSON answer (for `parse()`);
 * - `return_token_ids` (vLLM): `prompt_token_ids` and per-choice `token_ids`;
 * - models that misbehave: `m-error-stream` (an error event inside the 200 stream after two chunks), `m-slow`
 *   (two chunks, then one every 50 ms until the client goes away), `m-status-<code>` (an OpenAI error body with
 *   that status), `m-reset` (connection reset), `m-hang` (never answers), `m-cut` (a stream whose connection is cut
 *   after two chunks);
 * - other server shapes of streamed usage: `m-usage-last` (the usage on the last content chunk, no `usage: null`
 *   elsewhere), `m-usage-nochoices` (a usage chunk without a `choices` field), `m-usage-late` (OpenAI's shape, with
 *   the usage chunk 100 ms after the last `finish_reason`), `m-azure-filters` (Azure OpenAI's first chunk: prompt
 *   filter results, no choices, empty id and model, created 0), `m-strict-options` (a 400 naming
 *   `stream_options.include_obfuscation` when the request has it, as a server that does not know the field answers),
 *   `m-azure-old` (a 400 "Unrecognized request argument
 *   supplied: stream_options" when the request has `stream_options`, as older Azure OpenAI API versions answer).
 *
 * It also answers `POST …/responses` (the Responses API, streamed as typed SSE events) and `POST …/embeddings`:
 * see openai-responses-server.ts.
 *
 * For evaluations: `m-echo` answers with the last user message's text (so answers differ row by row), and
 * {@link OpenAIServer.failNext} makes the next chat requests fail with a status (429 with `Retry-After`, 5xx) before
 * answering normally again.
 *
 * The answering model is the requested one plus {@link MODEL_SUFFIX}, like OpenAI's dated snapshots, so tests can
 * tell the request model from the response model.
 */
import type { ServerResponse } from "node:http";
import { answerEmbeddings, answerResponses } from "./openai-responses-server.js";
import type { Pacer } from "./pacer.js";
import { type RecordedRequest, TestServer } from "./server.js";

export const MODEL_SUFFIX = "-2024-07-18";
export const CREATED = 1767607200;
export const TEXT_PIECES = ["Hello", " from", " the", " stand-in", "."];
export const TEXT = TEXT_PIECES.join("");
export const SECOND_TEXT_PIECES = ["Hi", " again", "!"];
export const JSON_ANSWER = { city: "Paris", celsius: 21 };
export const USAGE = {
  prompt_tokens: 19,
  completion_tokens: 10,
  total_tokens: 29,
  prompt_tokens_details: { cached_tokens: 6, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 3,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};
export const TOOL_CALLS = [
  { id: "call_weather", name: "get_weather", arguments: '{"city":"Paris"}' },
  { id: "call_time", name: "get_time", arguments: '{"tz":"Europe/Paris"}' },
];
export const PROMPT_TOKEN_IDS = [101, 102, 103, 104];

type Body = Record<string, unknown>;

const isRecord = (value: unknown): value is Body => typeof value === "object" && value !== null;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class OpenAIServer {
  /** Streams the client closed before the server finished them (aborts, breaks). */
  closedEarly = 0;
  /** Usage chunks of `m-usage-late` sent so far (each 100 ms after its stream's last `finish_reason`). */
  lateUsageSent = 0;
  /** When set, the streams answered from now on write each event the SDK yields only on a turn of this pacer. */
  pacer: Pacer | undefined;
  private counter = 0;
  private failures: { status: number; retryAfter?: string }[] = [];

  private constructor(readonly server: TestServer) {}

  static async start(): Promise<OpenAIServer> {
    const stand = new OpenAIServer(await TestServer.start());
    const handler = (req: RecordedRequest, res: ServerResponse) => stand.answer(req, res);
    stand.server.on("POST", /^(\/[\w.-]+)*\/chat\/completions\/?$/, handler);
    stand.server.on("POST", /^(\/[\w.-]+)*\/(responses|embeddings)\/?$/, handler);
    stand.server.on("GET", "/v1/models", {
      json: { object: "list", data: [{ id: "gpt-4o-mini", object: "model", created: CREATED, owned_by: "stand-in" }] },
    });
    return stand;
  }

  /** The base URL an OpenAI client takes (`…/v1`). */
  get baseURL(): string {
    return `${this.server.url}/v1`;
  }

  get url(): string {
    return this.server.url;
  }

  /** JSON bodies of the requests received at `…/<endpoint>` (`responses`, `embeddings`), in order. */
  bodiesOf(endpoint: string): Body[] {
    return this.server.requests.filter((r) => r.path.endsWith(`/${endpoint}`)).map((r) => r.json as Body);
  }

  /** JSON bodies of the chat requests received, in order. */
  chatBodies(): Body[] {
    return this.server.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => r.json as Body);
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** The next `count` chat requests answer `status` (an OpenAI error body; `Retry-After` when given), then all is well. */
  failNext(count: number, status: number, retryAfter?: string): void {
    for (let i = 0; i < count; i++) this.failures.push({ status, ...(retryAfter === undefined ? {} : { retryAfter }) });
  }

  private async answer(req: RecordedRequest, res: ServerResponse): Promise<void> {
    const body = (req.json ?? {}) as Body;
    const model = typeof body.model === "string" ? body.model : "unknown";
    const requestId = `req_standin_${++this.counter}`;
    const injected = /\/chat\/completions\/?$/.test(req.path) ? this.failures.shift() : undefined;
    const status = injected ? [model, String(injected.status)] : /^m-status-(\d{3})$/.exec(model);
    if (status) {
      const headers: Record<string, string> = { "content-type": "application/json", "x-request-id": requestId };
      if (injected?.retryAfter !== undefined) headers["retry-after"] = injected.retryAfter;
      res.writeHead(Number(status[1]), headers);
      res.end(
        JSON.stringify({
          error: {
            message: `Stand-in error ${status[1]}`,
            type: "invalid_request_error",
            param: null,
            code: "standin",
          },
        }),
      );
      return;
    }
    const strictRefusal =
      model === "m-strict-options" && isRecord(body.stream_options) && "include_obfuscation" in body.stream_options;
    if ((model === "m-azure-old" && body.stream_options !== undefined) || strictRefusal) {
      res.writeHead(400, { "content-type": "application/json", "x-request-id": requestId });
      res.end(
        JSON.stringify({
          error: {
            code: null,
            message: strictRefusal
              ? "stream_options.include_obfuscation: Extra inputs are not permitted"
              : "Unrecognized request argument supplied: stream_options",
            param: null,
            type: "invalid_request_error",
          },
        }),
      );
      return;
    }
    if (model === "m-reset") {
      res.socket?.destroy();
      return;
    }
    if (model === "m-hang") {
      await new Promise<void>((resolve) => res.once("close", resolve));
      return;
    }
    if (/\/responses\/?$/.test(req.path)) {
      await answerResponses(body, model, requestId, res, () => this.closedEarly++, this.pacer);
      return;
    }
    if (/\/embeddings\/?$/.test(req.path)) {
      answerEmbeddings(body, model, requestId, res);
      return;
    }
    if (body.stream === true) await this.stream(body, model, requestId, res);
    else this.complete(body, model, requestId, res);
  }

  private complete(body: Body, model: string, requestId: string, res: ServerResponse): void {
    const n = typeof body.n === "number" ? body.n : 1;
    const tokenIds = body.return_token_ids === true;
    const choices = [];
    for (let index = 0; index < n; index++) {
      const message: Body = { role: "assistant", content: this.text(body, index), refusal: null, annotations: [] };
      let finish = "stop";
      if (wantsTools(body) && index === 0) {
        message.content = null;
        message.tool_calls = TOOL_CALLS.map((t) => ({
          id: t.id,
          type: "function",
          function: { name: t.name, arguments: t.arguments },
        }));
        finish = "tool_calls";
      }
      const choice: Body = { index, message, logprobs: null, finish_reason: finish };
      if (tokenIds) choice.token_ids = [7, 8, 9];
      choices.push(choice);
    }
    const completion: Body = {
      id: "chatcmpl-standin-1",
      object: "chat.completion",
      created: CREATED,
      model: `${model}${MODEL_SUFFIX}`,
      choices,
      usage: USAGE,
      service_tier: "default",
      system_fingerprint: "fp_standin",
    };
    if (tokenIds) completion.prompt_token_ids = PROMPT_TOKEN_IDS;
    res.writeHead(200, { "content-type": "application/json", "x-request-id": requestId });
    res.end(JSON.stringify(completion));
  }

  private text(body: Body, index: number): string {
    if (isJsonSchema(body)) return JSON.stringify(JSON_ANSWER);
    if (body.model === "m-echo") {
      const last = (Array.isArray(body.messages) ? (body.messages as Body[]) : []).findLast((m) => m.role === "user");
      return typeof last?.content === "string" ? last.content : "";
    }
    return index === 0 ? TEXT : SECOND_TEXT_PIECES.join("");
  }

  private async stream(body: Body, model: string, requestId: string, res: ServerResponse): Promise<void> {
    const options = (body.stream_options ?? {}) as Body;
    const withUsage = options.include_usage === true;
    const tokenIds = body.return_token_ids === true;
    const n = typeof body.n === "number" ? body.n : 1;
    const openAiUsageShape = model !== "m-usage-last" && model !== "m-usage-nochoices";
    let finished = false;
    res.once("close", () => {
      if (!finished) this.closedEarly++;
    });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-request-id": requestId });
    let first = true;
    const chunk = (choices: Body[], extra: Body = {}): Body => {
      const c: Body = {
        id: "chatcmpl-standin-2",
        object: "chat.completion.chunk",
        created: CREATED,
        model: `${model}${MODEL_SUFFIX}`,
        service_tier: "default",
        system_fingerprint: "fp_standin",
        choices,
        ...extra,
      };
      if (withUsage && !("usage" in extra) && openAiUsageShape) c.usage = null;
      if (tokenIds && first) c.prompt_token_ids = PROMPT_TOKEN_IDS;
      first = false;
      return c;
    };
    const choice = (index: number, delta: Body, finish: string | null = null): Body => {
      const c: Body = { index, delta, logprobs: null, finish_reason: finish };
      if (tokenIds) c.token_ids = finish ? [] : [index + 7];
      return c;
    };
    const send = (event: Body) => res.write(`data: ${JSON.stringify(event)}\n\n`);

    const events: Body[] = [];
    if (wantsTools(body)) {
      events.push(
        chunk([
          choice(0, {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                index: 0,
                id: TOOL_CALLS[0]!.id,
                type: "function",
                function: { name: TOOL_CALLS[0]!.name, arguments: "" },
              },
            ],
          }),
        ]),
        chunk([
          choice(0, {
            tool_calls: [
              {
                index: 1,
                id: TOOL_CALLS[1]!.id,
                type: "function",
                function: { name: TOOL_CALLS[1]!.name, arguments: "" },
              },
            ],
          }),
        ]),
      );
      // Interleave the two argument strings in three pieces each.
      const pieces = TOOL_CALLS.map((t) => [t.arguments.slice(0, 5), t.arguments.slice(5, 11), t.arguments.slice(11)]);
      for (let p = 0; p < 3; p++) {
        for (let t = 0; t < 2; t++) {
          events.push(chunk([choice(0, { tool_calls: [{ index: t, function: { arguments: pieces[t]![p] } }] })]));
        }
      }
      events.push(chunk([choice(0, {}, "tool_calls")]));
    } else {
      const texts = [isJsonSchema(body) ? splitJson() : TEXT_PIECES, SECOND_TEXT_PIECES];
      for (let index = 0; index < n; index++)
        events.push(chunk([choice(index, { role: "assistant", content: "", refusal: null })]));
      const longest = Math.max(...texts.slice(0, n).map((t) => t.length));
      for (let i = 0; i < longest; i++) {
        for (let index = 0; index < n; index++) {
          const piece = texts[index]![i];
          if (piece !== undefined) events.push(chunk([choice(index, { content: piece })]));
        }
      }
      for (let index = 0; index < n; index++) events.push(chunk([choice(index, {}, "stop")]));
    }

    if (model === "m-azure-filters") {
      // Azure OpenAI's first chunk: the prompt's content filter results, with empty id, model and object, created 0.
      events.unshift({
        choices: [],
        created: 0,
        id: "",
        model: "",
        object: "",
        prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: { filtered: false } } }],
      });
      // Each content chunk's choice carries the filter's verdict on its text; the finishing chunk an empty one.
      for (const event of events) {
        for (const c of (event as { choices?: Record<string, unknown>[] }).choices ?? []) {
          const text = (c.delta as { content?: string } | undefined)?.content;
          if (text) c.content_filter_results = { hate: { filtered: false, severity: "safe" } };
          else if (c.finish_reason) c.content_filter_results = {};
        }
      }
    }
    if (model === "m-error-stream") {
      send(events[0]!);
      send(events[1]!);
      res.write(
        `data: ${JSON.stringify({ error: { message: "The engine stopped unexpectedly", type: "server_error", param: null, code: "engine_error" } })}\n\n`,
      );
      finished = true;
      res.end();
      return;
    }
    if (model === "m-slow") {
      send(events[0]!);
      send(events[1]!);
      for (let i = 0; i < 400 && !res.destroyed && !res.writableEnded; i++) {
        await sleep(50);
        if (res.destroyed) break;
        send(chunk([choice(0, { content: "." })]));
      }
      finished = true;
      res.end();
      return;
    }
    if (model === "m-cut") {
      send(events[0]!);
      send(events[1]!);
      await sleep(20);
      res.socket?.destroy();
      return;
    }
    if (withUsage && model === "m-usage-last") (events.at(-1) as Body).usage = USAGE;
    const pacer = this.pacer;
    for (const event of events) {
      if (pacer) {
        await pacer.turn(res);
        if (res.destroyed) return;
      }
      send(event);
    }
    // What follows the last chunk (the usage chunk, `[DONE]`, the end of the body) is one more turn.
    if (pacer) {
      await pacer.turn(res);
      if (res.destroyed) return;
    }
    if (withUsage && model === "m-usage-late") await sleep(100);
    if (withUsage && model === "m-usage-nochoices") {
      const { choices: _none, ...usageOnly } = chunk([], { usage: USAGE });
      send(usageOnly);
    } else if (withUsage && model !== "m-usage-last") send(chunk([], { usage: USAGE }));
    if (withUsage && model === "m-usage-late") this.lateUsageSent++;
    res.write("data: [DONE]\n\n");
    finished = true;
    res.end();
  }
}

/** Tools were offered and the model has not seen a tool result yet. */
function wantsTools(body: Body): boolean {
  const messages = Array.isArray(body.messages) ? (body.messages as Body[]) : [];
  return Array.isArray(body.tools) && messages.at(-1)?.role !== "tool";
}

function isJsonSchema(body: Body): boolean {
  const format = body.response_format as Body | undefined;
  return format?.type === "json_schema";
}

function splitJson(): string[] {
  const text = JSON.stringify(JSON_ANSWER);
  return [text.slice(0, 8), text.slice(8, 16), text.slice(16)];
}
