/**
 * `toTextStream(stream)`: a streamed chat completion as the body of a web Response, that stops the LLM stream when
 * the client goes away. Web streams only (no Node imports): it is bundled into edge builds with the rest of
 * `tracewire/next`.
 */
import { cancelStreamCall } from "../genai/chat-call.js";

/** The parts of a chat-completion chunk `toTextStream` reads: the first choice's text delta. */
export interface TextChunkLike {
  /** The chunk's choices; the text read is `choices[0].delta.content`. */
  choices?: ArrayLike<{ delta?: { content?: string | null } | null } | null | undefined> | null;
}

/** What `toTextStream` reads from: chunks or plain strings, and optionally an `AbortController` to stop it. */
export type TextChunkSource = AsyncIterable<TextChunkLike | string> & {
  controller?: { abort(reason?: unknown): void };
};

function textOf(chunk: TextChunkLike | string): string {
  if (typeof chunk === "string") return chunk;
  const content = chunk?.choices?.[0]?.delta?.content;
  return typeof content === "string" ? content : "";
}

/**
 * Turns a streamed chat completion — the `Stream` that `openai.chat.completions.create({ stream: true })` returns, or
 * any async iterable of chat-completion chunks or strings — into a `ReadableStream` of its UTF-8 text, for
 * `new Response(toTextStream(stream))`. It reads the LLM stream only as fast as the response is read.
 *
 * When the response is cancelled (Next.js cancels the body when the client disconnects), the LLM stream is stopped
 * at once: its `controller.abort()` when it has one (openai's `Stream` does), and its iterator's `return()`. A traced
 * stream then ends its call as cancelled, in time for the request's flush. An error of the LLM stream errors the body.
 */
export function toTextStream(stream: TextChunkSource): ReadableStream<Uint8Array> {
  if (stream === null || typeof stream !== "object" || typeof stream[Symbol.asyncIterator] !== "function") {
    throw new TypeError("toTextStream(stream): stream must be an async iterable of chat-completion chunks.");
  }
  const encoder = new TextEncoder();
  let iterator: AsyncIterator<TextChunkLike | string> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      iterator ??= stream[Symbol.asyncIterator]();
      for (;;) {
        const step = await iterator.next();
        if (step.done) {
          controller.close();
          return;
        }
        const text = textOf(step.value);
        if (text) {
          controller.enqueue(encoder.encode(text));
          return;
        }
      }
    },
    cancel(reason) {
      // The traced call ends as cancelled now, not once the abort below has reached the pending read: the request's
      // spans may be ended by then (@vercel/otel ends whatever is still open when the request's root span ends).
      cancelStreamCall(stream);
      // abort() first: return() on an async generator waits behind a pending next(), abort() ends that next() now.
      try {
        stream.controller?.abort(reason);
      } catch {
        // A controller that cannot abort still gets return() below.
      }
      // Not awaited: return() on an async generator (or a web stream's iterator) runs only once its pending next() has
      // settled, and a source without an abort controller may not answer for long (a stalled model). Waiting here
      // would hold the cancel, and with it Next's pipe of the response, until it did.
      try {
        const returned = iterator?.return?.();
        if (returned && typeof returned.then === "function") returned.then(undefined, () => {});
      } catch {
        // The stream already failed or was aborted: nothing left to stop.
      }
    },
  });
}
