/**
 * A loopback Anthropic Messages API for the instrumentation tests, built on {@link TestServer}: `POST /v1/messages`
 * answered deterministically, so a wrapped and an unwrapped client asking the same thing get the same bytes.
 *
 * - A text answer, or with `tools` in the request (and no tool result last) a text block plus two `tool_use`
 *   blocks; `stream: true` speaks Anthropic's SSE event types (`message_start`, `content_block_start` / `_delta` /
 *   `_stop`, `message_delta` with the cumulative usage, `message_stop`, and `ping`s between them). The deltas of
 *   the two tool uses interleave and their `input_json_delta` pieces split the JSON mid-token, so only per-index
 *   reassembly gets them right. A streamed answer adds up to exactly the non-streamed one.
 * - Usage with cache creation and read tokens; the answering model is the requested one plus {@link MODEL_SUFFIX}.
 * - Models that misbehave: `m-error-stream` (an `error` event inside the 200 stream after the first text delta),
 *   `m-slow` (a text delta every 50 ms until the client goes away), `m-status-<code>` (Anthropic's error body with
 *   that status).
 */
import type { ServerResponse } from "node:http";
import type { Pacer } from "./pacer.js";
import { type RecordedRequest, TestServer } from "./server.js";

export const MODEL_SUFFIX = "-20260101";
export const TEXT_PIECES = ["Hello", " from", " the", " stand-in", "."];
export const TEXT = TEXT_PIECES.join("");
export const TOOL_TEXT = "Let me look that up.";
export const TOOL_USES = [
  { id: "toolu_weather", name: "get_weather", input: { city: "Paris" } },
  { id: "toolu_time", name: "get_time", input: { tz: "Europe/Paris" } },
];
export const USAGE = {
  input_tokens: 12,
  cache_creation_input_tokens: 5,
  cache_read_input_tokens: 7,
  output_tokens: 9,
  service_tier: "standard",
};

type Body = Record<string, unknown>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function wantsTools(body: Body): boolean {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return false;
  const last = Array.isArray(body.messages) ? (body.messages.at(-1) as Body | undefined) : undefined;
  const content = last?.content;
  return !(Array.isArray(content) && content.some((b) => (b as Body).type === "tool_result"));
}

/** The Message a non-streamed request gets (and a streamed one adds up to). */
export function messageFor(body: Body, id: string): Body {
  const model = `${typeof body.model === "string" ? body.model : "unknown"}${MODEL_SUFFIX}`;
  const tools = wantsTools(body);
  const content: Body[] = tools
    ? [
        { type: "text", text: TOOL_TEXT },
        ...TOOL_USES.map((t) => ({ type: "tool_use", id: t.id, name: t.name, input: t.input })),
      ]
    : [{ type: "text", text: TEXT }];
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: tools ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: USAGE,
  };
}

export class AnthropicServer {
  /** Streams the client closed before the server finished them (aborts, breaks). */
  closedEarly = 0;
  /** When set, the streams answered from now on write each event the SDK yields only on a turn of this pacer. */
  pacer: Pacer | undefined;
  private counter = 0;

  private constructor(readonly server: TestServer) {}

  static async start(): Promise<AnthropicServer> {
    const stand = new AnthropicServer(await TestServer.start());
    stand.server.on("POST", /^(\/[\w.-]+)*\/v1\/messages\/?$/, (req: RecordedRequest, res: ServerResponse) =>
      stand.answer(req, res),
    );
    return stand;
  }

  /** The base URL an Anthropic client takes (the SDK adds `/v1/messages`). */
  get baseURL(): string {
    return this.server.url;
  }

  /** The requests received on `/v1/messages`, in order. */
  messageRequests(): RecordedRequest[] {
    return this.server.requests.filter((r) => r.path.endsWith("/v1/messages"));
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private async answer(req: RecordedRequest, res: ServerResponse): Promise<void> {
    const body = (req.json ?? {}) as Body;
    const model = typeof body.model === "string" ? body.model : "unknown";
    const n = ++this.counter;
    const headers = { "request-id": `req_standin_${n}` };
    const status = /^m-status-(\d{3})$/.exec(model);
    if (status) {
      res.writeHead(Number(status[1]), { "content-type": "application/json", ...headers });
      res.end(
        JSON.stringify({
          type: "error",
          error: { type: "invalid_request_error", message: `Stand-in error ${status[1]}` },
          request_id: "req_standin_error",
        }),
      );
      return;
    }
    // The same id for both shapes of one request number, so streamed and not are comparable.
    const message = messageFor(body, "msg_standin");
    if (body.stream !== true) {
      res.writeHead(200, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(message));
      return;
    }
    let finished = false;
    res.once("close", () => {
      if (!finished) this.closedEarly++;
    });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
    // Events are written in order; with a pacer, each one the SDK yields (all but `ping`) waits for its turn.
    const pacer = this.pacer;
    let written = Promise.resolve();
    const send = (event: string, data: Body) => {
      const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      written = written.then(async () => {
        if (pacer && event !== "ping") await pacer.turn(res);
        if (!res.destroyed && !res.writableEnded) res.write(text);
      });
    };
    const end = async () => {
      await written;
      // The end of the body is one more turn.
      if (pacer) await pacer.turn(res);
      finished = true;
      if (!res.destroyed) res.end();
    };
    send("message_start", {
      type: "message_start",
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...USAGE, output_tokens: 1 },
      },
    });
    send("ping", { type: "ping" });
    const textDelta = (index: number, text: string) =>
      send("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text } });
    send("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    if (model === "m-error-stream") {
      textDelta(0, TEXT_PIECES[0] as string);
      send("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
      await end();
      return;
    }
    if (model === "m-slow") {
      for (let i = 0; !res.destroyed && !res.writableEnded && i < 400; i++) {
        textDelta(0, `${i} `);
        await sleep(50);
      }
      await written;
      res.end();
      return;
    }
    const tools = wantsTools(body);
    const pieces = tools ? [TOOL_TEXT.slice(0, 8), TOOL_TEXT.slice(8)] : TEXT_PIECES;
    for (const piece of pieces) textDelta(0, piece);
    send("content_block_stop", { type: "content_block_stop", index: 0 });
    if (tools) {
      TOOL_USES.forEach((tool, i) => {
        send("content_block_start", {
          type: "content_block_start",
          index: i + 1,
          content_block: { type: "tool_use", id: tool.id, name: tool.name, input: {} },
        });
      });
      // The two inputs' pieces interleave, and each JSON is cut mid-token.
      const jsons = TOOL_USES.map((t) => JSON.stringify(t.input));
      for (let at = 0; at < 4; at++) {
        jsons.forEach((json, i) => {
          const size = Math.ceil(json.length / 4);
          const partial = json.slice(at * size, (at + 1) * size);
          send("content_block_delta", {
            type: "content_block_delta",
            index: i + 1,
            delta: { type: "input_json_delta", partial_json: partial },
          });
        });
        send("ping", { type: "ping" });
      }
      TOOL_USES.forEach((_tool, i) => {
        send("content_block_stop", { type: "content_block_stop", index: i + 1 });
      });
    }
    send("message_delta", {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: USAGE.output_tokens },
    });
    send("message_stop", { type: "message_stop" });
    await end();
  }
}
