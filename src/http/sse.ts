import { ProtocolError, type RequestInfo } from "../errors.js";
import { makeApiError, statusFromErrorObject } from "./error-body.js";

/** One Server-Sent Event. `data` joins multi-line `data:` fields with `\n`. */
export interface SseEvent {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/** An event (its data lines plus the line still arriving) longer than this many characters is refused. */
export const MAX_SSE_EVENT_CHARS = 64 * 1024 * 1024;

/**
 * Parses a `text/event-stream` body (WHATWG event-stream rules): `field: value` lines, `:` comments, multi-line
 * `data`, events dispatched on a blank line, CR/LF/CRLF line ends. Events without data are skipped. An event that
 * grows past `maxEventChars` (a server that never ends a line or an event) is a {@link ProtocolError}, not memory
 * without end; each chunk is scanned once.
 */
export async function* readSse(
  body: AsyncIterable<Uint8Array>,
  maxEventChars = MAX_SSE_EVENT_CHARS,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  let data: string[] = [];
  let dataChars = 0;
  let event: string | undefined;
  let id: string | undefined;

  function* line(text: string): Generator<SseEvent> {
    if (text === "") {
      if (data.length > 0) yield { event, data: data.join("\n"), id };
      data = [];
      dataChars = 0;
      event = undefined;
      return;
    }
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      data.push(value);
      dataChars += value.length + 1;
    } else if (field === "event") event = value;
    else if (field === "id") id = value;
  }

  // What is left in `buffer` after a drain holds no line end (but perhaps a trailing \r): scan only what is new.
  let scanned = 0;
  const drain = function* (final: boolean): Generator<SseEvent> {
    const pattern = /\r\n|\r|\n/g;
    pattern.lastIndex = Math.max(0, scanned - 1);
    let start = 0;
    for (let match = pattern.exec(buffer); match; match = pattern.exec(buffer)) {
      // A lone trailing \r may be the first half of \r\n: wait for the next chunk.
      if (!final && match[0] === "\r" && match.index === buffer.length - 1) break;
      yield* line(buffer.slice(start, match.index));
      start = match.index + match[0].length;
    }
    buffer = buffer.slice(start);
    scanned = buffer.length;
  };

  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    yield* drain(false);
    if (buffer.length + dataChars > maxEventChars) {
      throw new ProtocolError(`A server-sent event exceeds ${maxEventChars} characters (no line or event end).`);
    }
  }
  buffer += decoder.decode();
  yield* drain(true);
  if (buffer !== "") yield* line(buffer);
  yield* line("");
}

/**
 * Reads an OpenAI-style chat stream: each `data:` is a JSON chunk, `[DONE]` ends it. An error sent inside the
 * 200 stream (`data: {"error": …}` or `event: error`) is thrown as the typed {@link ApiError} for its code.
 * `redact` masks credentials in what goes into an error (the transport's `redact`).
 */
export async function* readChatStream<T>(
  body: AsyncIterable<Uint8Array>,
  request: RequestInfo,
  redact: (text: string) => string = (text) => text,
): AsyncGenerator<T> {
  for await (const message of readSse(body)) {
    if (message.data === "[DONE]") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message.data);
    } catch {
      const clean = redact(message.data);
      const preview = clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
      throw new ProtocolError(
        `Malformed stream event from ${request.method} ${request.path}: ${JSON.stringify(preview)}`,
      );
    }
    const record = (parsed ?? {}) as { error?: unknown; object?: unknown };
    const error = record.error;
    if (message.event === "error" || (error !== undefined && error !== null) || record.object === "error") {
      const status = statusFromErrorObject(error ?? parsed);
      // Masked before it becomes the error's message and body: an engine may quote the key it refused.
      let body = parsed;
      try {
        body = JSON.parse(redact(message.data));
      } catch {
        // A mask inside a JSON escape broke the text: keep the parsed event (its message is masked below anyway).
      }
      const failure = makeApiError(status, body, request);
      if (body === parsed) failure.message = redact(failure.message);
      throw failure;
    }
    yield parsed as T;
  }
}
