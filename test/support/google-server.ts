/**
 * A loopback Gemini API for the `@google/genai` tests, built on {@link TestServer}: `POST …/models/{model}:
 * generateContent` and `…:streamGenerateContent?alt=sse` (the paths of the Gemini Developer API and of Vertex AI
 * both end so), answered deterministically, so a wrapped and an unwrapped client asking the same thing get the same
 * bytes. Point the SDK at it with `httpOptions.baseUrl`.
 *
 * - A text answer: a thought part and the text {@link TEXT}, one candidate per `generationConfig.candidateCount`;
 *   with function declarations in `tools` (and no function response last in `contents`) two function calls instead;
 *   after function responses, {@link TOOL_ANSWER}. Finish reason `STOP`, `responseId` and `modelVersion` (the
 *   requested model plus {@link MODEL_SUFFIX}), usage with cached and thoughts tokens ({@link USAGE}).
 * - Streamed (SSE `data:` events): the thought, then each piece of {@link TEXT_PIECES} in its own chunk, with the
 *   running usage total in every chunk and the finish reason in the last; function calls arrive whole in one chunk.
 *   A streamed answer adds up to exactly the non-streamed one.
 * - Models that misbehave: `m-status-<code>` (Gemini's JSON error body with that HTTP status), `m-error-stream`
 *   (an `{"error": …}` event inside the 200 stream after the first text piece), `m-drop` (the connection is cut
 *   after the first text piece), `m-slow` (a text piece every 50 ms until the client goes away), `m-continue` (the
 *   answer in two requests: the first ends with a `continuationToken` and no finish reason, the SDK's automatic
 *   continuation asks again with it), `m-blocked-<REASON>` (the prompt is blocked: `promptFeedback` with that
 *   `blockReason` and the prompt's safety ratings, prompt-only usage and no `candidates`; streamed, one chunk of it).
 */
import type { ServerResponse } from "node:http";
import { type RecordedRequest, TestServer } from "./server.js";

export const MODEL_SUFFIX = "-001";
export const THOUGHT = "Thinking it over.";
export const TEXT_PIECES = ["Hello", " from", " the", " Gemini", " stand-in."];
export const TEXT = TEXT_PIECES.join("");
export const TOOL_ANSWER = "Sunny and 21 °C in Paris; it is 14:05 there.";
export const FUNCTION_CALLS = [
  { id: "call_weather", name: "get_weather", args: { city: "Paris" } },
  { id: "call_time", name: "get_time", args: { tz: "Europe/Paris" } },
];
export const USAGE = {
  promptTokenCount: 40,
  candidatesTokenCount: TEXT_PIECES.length,
  cachedContentTokenCount: 16,
  thoughtsTokenCount: 6,
  totalTokenCount: 40 + TEXT_PIECES.length + 6,
};
/** The two requests of `m-continue`: their texts and usage (the SDK adds the usage up). */
export const CONTINUE = [
  { text: "Hello from", usage: { promptTokenCount: 40, candidatesTokenCount: 2, totalTokenCount: 42 } },
  { text: " the continued stand-in.", usage: { promptTokenCount: 45, candidatesTokenCount: 3, totalTokenCount: 48 } },
];
export const CONTINUATION_TOKEN = "continue-1";
export const RESPONSE_ID = "resp-standin";
/** The usage of a blocked prompt: its own tokens only, nothing generated. */
export const BLOCKED_USAGE = { promptTokenCount: 9, totalTokenCount: 9 };
/** The prompt's safety ratings that come with a `SAFETY` block. */
export const BLOCKED_RATINGS = [
  { category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true },
  { category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" },
];

/** What Gemini answers a blocked prompt (`model` `m-blocked-<reason>`): prompt feedback, no candidates. */
export function blockedResponse(model: string, reason: string): Body {
  const promptFeedback: Body = { blockReason: reason };
  if (reason === "SAFETY") promptFeedback.safetyRatings = BLOCKED_RATINGS;
  return {
    promptFeedback,
    usageMetadata: BLOCKED_USAGE,
    modelVersion: `${model}${MODEL_SUFFIX}`,
    responseId: RESPONSE_ID,
  };
}

type Body = Record<string, unknown>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the last turn of `contents` is: function responses, or anything else. */
function lastTurnAnswersTools(body: Body): boolean {
  const last = Array.isArray(body.contents) ? (body.contents.at(-1) as Body | undefined) : undefined;
  return Array.isArray(last?.parts) && last.parts.some((p) => (p as Body).functionResponse !== undefined);
}

function wantsTools(body: Body): boolean {
  const tools = Array.isArray(body.tools) ? (body.tools as Body[]) : [];
  return tools.some((t) => Array.isArray(t.functionDeclarations)) && !lastTurnAnswersTools(body);
}

function candidateCount(body: Body): number {
  const config = (body.generationConfig ?? {}) as Body;
  return typeof config.candidateCount === "number" ? config.candidateCount : 1;
}

/** The parts of one candidate's answer. */
function partsFor(body: Body): Body[] {
  if (wantsTools(body)) return FUNCTION_CALLS.map((functionCall) => ({ functionCall }));
  if (lastTurnAnswersTools(body)) return [{ text: TOOL_ANSWER }];
  return [{ text: THOUGHT, thought: true }, { text: TEXT }];
}

/** The response a non-streamed request gets (and a streamed one adds up to). */
export function responseFor(body: Body, model: string): Body {
  const parts = partsFor(body);
  const candidates = Array.from({ length: candidateCount(body) }, (_, index) => ({
    content: { role: "model", parts },
    finishReason: "STOP",
    index,
  }));
  return { candidates, usageMetadata: USAGE, modelVersion: `${model}${MODEL_SUFFIX}`, responseId: RESPONSE_ID };
}

export class GeminiServer {
  /** Streams the client closed before the server finished them (aborts, breaks). */
  closedEarly = 0;

  private constructor(readonly server: TestServer) {}

  static async start(): Promise<GeminiServer> {
    const stand = new GeminiServer(await TestServer.start());
    stand.server.on("POST", /\/models\/[^/:]+:(generateContent|streamGenerateContent)$/, (req, res) =>
      stand.answer(req, res),
    );
    return stand;
  }

  /** The base URL the SDK takes as `httpOptions.baseUrl`. */
  get baseUrl(): string {
    return this.server.url;
  }

  /** The generateContent requests received (streamed or not), in order. */
  generateRequests(): RecordedRequest[] {
    return this.server.requests.filter((r) => /:(generateContent|streamGenerateContent)$/.test(r.path));
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private async answer(req: RecordedRequest, res: ServerResponse): Promise<void> {
    const body = (req.json ?? {}) as Body;
    const [, model = "unknown", method] = /\/models\/([^/:]+):(\w+)$/.exec(req.path) ?? [];
    const streaming = method === "streamGenerateContent";
    const status = /^m-status-(\d{3})$/.exec(model);
    if (status) {
      const code = Number(status[1]);
      res.writeHead(code, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code, message: `Stand-in error ${code}`, status: "INVALID_ARGUMENT" } }));
      return;
    }
    const blocked = /^m-blocked-([A-Z_]+)$/.exec(model);
    if (blocked) {
      const response = blockedResponse(model, blocked[1]!);
      res.writeHead(200, { "content-type": streaming ? "text/event-stream" : "application/json" });
      res.end(streaming ? `data: ${JSON.stringify(response)}\r\n\r\n` : JSON.stringify(response));
      return;
    }
    const meta = { modelVersion: `${model}${MODEL_SUFFIX}`, responseId: RESPONSE_ID };
    if (model === "m-continue") {
      const second = body.continuationToken === CONTINUATION_TOKEN;
      const hop = CONTINUE[second ? 1 : 0]!;
      const candidate: Body = { content: { role: "model", parts: [{ text: hop.text }] }, index: 0 };
      if (second) candidate.finishReason = "STOP";
      else candidate.continuationToken = CONTINUATION_TOKEN;
      const response = { candidates: [candidate], usageMetadata: hop.usage, ...meta };
      if (!streaming) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(response));
      } else {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(`data: ${JSON.stringify(response)}\r\n\r\n`);
      }
      return;
    }
    if (!streaming) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(responseFor(body, model)));
      return;
    }
    let finished = false;
    res.once("close", () => {
      if (!finished) this.closedEarly++;
    });
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (data: Body) => res.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
    const n = candidateCount(body);
    const chunk = (parts: Body[], usage: Body, finishReason?: string) =>
      send({
        candidates: Array.from({ length: n }, (_, index) => ({
          content: { role: "model", parts },
          ...(finishReason ? { finishReason } : {}),
          index,
        })),
        usageMetadata: usage,
        ...meta,
      });
    if (wantsTools(body) || lastTurnAnswersTools(body)) {
      chunk(partsFor(body), USAGE, "STOP");
      finished = true;
      res.end();
      return;
    }
    const thoughtUsage = {
      promptTokenCount: 40,
      cachedContentTokenCount: 16,
      thoughtsTokenCount: 6,
      totalTokenCount: 46,
    };
    chunk([{ text: THOUGHT, thought: true }], thoughtUsage);
    const running = (k: number) => ({ ...thoughtUsage, candidatesTokenCount: k, totalTokenCount: 46 + k });
    if (model === "m-error-stream" || model === "m-drop") {
      chunk([{ text: TEXT_PIECES[0] }], running(1));
      if (model === "m-drop") {
        // Let the chunk reach the client before the connection is cut.
        await sleep(20);
        res.socket?.destroy();
        return;
      }
      send({ error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } });
      finished = true;
      res.end();
      return;
    }
    if (model === "m-slow") {
      for (let i = 1; !res.destroyed && !res.writableEnded && i < 400; i++) {
        chunk([{ text: `${i} ` }], running(i));
        await sleep(50);
      }
      res.end();
      return;
    }
    TEXT_PIECES.forEach((piece, i) => {
      const last = i === TEXT_PIECES.length - 1;
      chunk([{ text: piece }], last ? USAGE : running(i + 1), last ? "STOP" : undefined);
    });
    finished = true;
    res.end();
  }
}
