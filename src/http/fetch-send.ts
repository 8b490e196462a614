/**
 * Sending through the runtime's own `fetch` (Workers, Vercel's edge, Deno, Bun): the platform pools connections;
 * this adds what undici's pool gives on Node — the longest silence while a body streams, no redirects followed (a
 * redirect would silently drop a write), and the error codes the retry rules read (connection refused, timeouts),
 * from each runtime's own way of saying them.
 */
import { unref } from "../runtime.js";
import { errorCode } from "./request-parts.js";
import type { Sender, SenderOptions, SendResponse } from "./sender.js";

/** The code a body that went silent for too long fails with (one of request-parts.ts's TIMEOUT_CODES). */
export const BODY_TIMEOUT_CODE = "UND_ERR_BODY_TIMEOUT";

/** Runtimes' own names for "the connection was refused" (Bun's codes, Deno's and workerd's messages). */
const REFUSED = /connection refused|ECONNREFUSED|ConnectionRefused|os error 111/i;

/** A fetch failure with the code the retry rules read (request-parts.ts's NOT_SENT_CODES), where one can be told. */
function withCode(err: unknown): unknown {
  const code = errorCode(err);
  if (code !== undefined && code !== "ConnectionRefused" && code !== "FailedToOpenSocket") return err;
  // The reason may sit on the error's cause (Deno: "fetch failed", caused by "… Connection refused (os error 111)").
  let text = code ?? "";
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    text += ` ${e instanceof Error ? e.message : String(e)}`;
    e = (e as { cause?: unknown }).cause;
  }
  if (REFUSED.test(text) || code === "FailedToOpenSocket") {
    const coded = new Error(err instanceof Error ? err.message : String(err), { cause: err });
    return Object.assign(coded, { code: "ECONNREFUSED" });
  }
  return err;
}

/** A sender over the global `fetch` (looked up per request, so a platform's late-installed `fetch` is used). */
export function createFetchSender(options: SenderOptions): Sender {
  let closed = false;
  return {
    async send(req): Promise<SendResponse> {
      if (closed) throw Object.assign(new Error("The transport is closed."), { code: "UND_ERR_CLOSED" });
      // One controller per attempt: the caller's signal, and the body timeout below, end it.
      const controller = new AbortController();
      const forward = () => controller.abort(req.signal.reason);
      if (req.signal.aborted) forward();
      else req.signal.addEventListener("abort", forward, { once: true });
      const release = () => req.signal.removeEventListener("abort", forward);
      let res: Response;
      try {
        res = await fetch(`${options.origin}${req.path}`, {
          method: req.method,
          headers: req.headers,
          ...(req.body === undefined ? {} : { body: req.body as NonNullable<RequestInit["body"]> }),
          signal: controller.signal,
          redirect: "manual",
        });
      } catch (err) {
        release();
        throw withCode(err);
      }
      const headers: Record<string, string> = {};
      res.headers.forEach((value, key) => {
        headers[key.toLowerCase()] = value;
      });
      return { status: res.status, headers, body: bodyOf(res.body, controller, req.bodyTimeoutMs, release) };
    },
    async close() {
      closed = true;
    },
  };
}

/** The response body as chunks, failing with {@link BODY_TIMEOUT_CODE} after `timeoutMs` of silence. */
function bodyOf(
  stream: ReadableStream<Uint8Array> | null,
  controller: AbortController,
  timeoutMs: number,
  release: () => void,
): AsyncIterable<Uint8Array> & { destroy(): void } {
  const reader = stream?.getReader();
  let finished = false;
  const destroy = () => {
    if (finished) return;
    finished = true;
    release();
    reader?.cancel().catch(() => {});
  };
  async function* chunks(): AsyncGenerator<Uint8Array> {
    if (!reader) {
      finished = true;
      release();
      return;
    }
    let timedOut = false;
    try {
      for (;;) {
        // Only the wait for the next chunk counts as silence, not the time the caller spends on the last one.
        const timer = unref(
          setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, timeoutMs),
        );
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } finally {
          clearTimeout(timer);
        }
        if (next.done) {
          finished = true;
          release();
          return;
        }
        yield next.value;
      }
    } catch (err) {
      if (timedOut) {
        throw Object.assign(new Error(`no data for ${timeoutMs} ms`, { cause: err }), { code: BODY_TIMEOUT_CODE });
      }
      throw withCode(err);
    } finally {
      destroy();
    }
  }
  return { [Symbol.asyncIterator]: chunks, destroy };
}
