/**
 * The stream a chat completion with `stream: true` returns: chunks as they arrive, one reader, and a way to stop.
 */
import { ProtocolError, TracewireError } from "../errors.js";
import { makeApiError, statusFromErrorObject } from "../http/error-body.js";
import { readAll } from "../http/request-parts.js";
import { readChatStream } from "../http/sse.js";
import type { HttpTransport, OpenResponse, RequestOptions } from "../http/transport.js";
import { describeAs } from "../own-objects.js";
import { bytesToText } from "../runtime.js";

/** Status and headers of the response a {@link ChatStream} reads. */
export interface StreamResponseInfo {
  /** The HTTP status (200 for a stream that started). */
  status: number;
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string>>;
}

/**
 * An async iterable of the chunks of one streamed answer, read as they arrive (never buffered whole).
 *
 * - It can be iterated **once**: the chunks come off the socket, so a second `for await` throws.
 * - Breaking out of the loop (or an exception in its body) closes the connection.
 * - `controller.abort()` ends the stream at once and frees the socket; the loop then ends *without* an error, as
 *   with the `openai` package (aborting is how the caller says "stop"). The call's `signal` option does the same.
 * - An error the server sends inside the stream (`data: {"error": …}` after HTTP 200) is thrown from the loop as
 *   the typed `ApiError` for its code; a broken connection as `ConnectionError`.
 * - A stream that is never read holds its connection until aborted or until the body timeout: read it or abort it.
 */
export class ChatStream<T> implements AsyncIterable<T> {
  /** Aborting this ends the stream and closes its connection. */
  readonly controller: AbortController;
  /** Status and headers of the streamed response. */
  readonly response: StreamResponseInfo;
  #source: AsyncGenerator<T>;
  #iterated = false;
  #onEnd: () => void;

  /** @internal Built by {@link openChatStream}; not meant to be constructed by users. */
  constructor(source: AsyncGenerator<T>, response: StreamResponseInfo, controller: AbortController, onEnd = () => {}) {
    this.#source = source;
    this.response = response;
    this.controller = controller;
    this.#onEnd = onEnd;
  }

  /** The chunks, as they arrive; callable once (a second iteration throws a `TracewireError`). */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterated) {
      throw new TracewireError(
        "This ChatStream was already iterated: its chunks are read off the connection once. " +
          "Collect them in the first loop (e.g. into an array) if you need them again.",
      );
    }
    this.#iterated = true;
    return this.#iterate();
  }

  async *#iterate(): AsyncGenerator<T> {
    try {
      for await (const chunk of this.#source) {
        // Chunks already parsed from the last network read must not leak out after the abort.
        if (this.controller.signal.aborted) return;
        yield chunk;
      }
    } catch (err) {
      // Our own abort surfaces from the transport as an AbortError; the caller asked for it, so end quietly.
      if (this.controller.signal.aborted) return;
      throw err;
    } finally {
      // Runs on normal end, error, `break` and abort alike. `return()` closes the body if it is still open (a
      // no-op when the loop above already finished it).
      await this.#source.return(undefined).catch(() => {});
      this.#onEnd();
    }
  }
}

/** The error for a JSON answer to a streamed request: the error it carries, else a {@link ProtocolError}. */
async function jsonInsteadOfStream(transport: HttpTransport, response: OpenResponse): Promise<TracewireError> {
  const { request } = response;
  const text = transport.redact(bytesToText(await readAll(response.body)));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const record = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  if (record.error !== undefined && record.error !== null) {
    return makeApiError(statusFromErrorObject(record.error), body, request);
  }
  if (record.object === "error") return makeApiError(statusFromErrorObject(record), body, request);
  return new ProtocolError(
    `${request.method} ${request.path} was sent with stream: true but answered application/json instead of an event stream` +
      (typeof record.object === "string" ? ` (a ${JSON.stringify(record.object).slice(0, 60)} object)` : "") +
      ": the server or a proxy in between does not stream.",
  );
}

/**
 * Sends a streaming chat request and resolves once the response headers say success (errors before that reject:
 * typed status errors, `ConnectionError`, `AbortError`). `request.signal`, if any, is linked to the stream's
 * controller so that either one stops the stream.
 */
export async function openChatStream<T>(transport: HttpTransport, request: RequestOptions): Promise<ChatStream<T>> {
  const controller = new AbortController();
  const external = request.signal;
  const forward = () => controller.abort(external?.reason);
  if (external?.aborted) forward();
  else external?.addEventListener("abort", forward, { once: true });
  const detach = () => external?.removeEventListener("abort", forward);

  let response: Awaited<ReturnType<HttpTransport["stream"]>>;
  try {
    response = await transport.stream({
      ...request,
      signal: controller.signal,
      headers: { accept: "text/event-stream", ...request.headers },
    });
    // A server (or proxy) that ignored `stream: true` answers JSON: read as SSE it would end with no chunk, and an
    // error inside it would be lost.
    if (/^application\/(?:[\w.+-]*\+)?json\b/i.test(response.headers["content-type"] ?? "")) {
      throw await jsonInsteadOfStream(transport, response);
    }
  } catch (err) {
    detach();
    throw err;
  }
  const chunks = readChatStream<T>(response.body, response.request, (text) => transport.redact(text));
  return new ChatStream<T>(chunks, { status: response.status, headers: response.headers }, controller, detach);
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(ChatStream, "ChatStream");
