/**
 * Keeping a serverless invocation alive until its spans are sent: `after()` from `next/server` when Next provides
 * it, else the platform's `waitUntil`, else a flush in the background.
 */
import { platformWaitUntil } from "../otel/request-flush.js";
import { globalState } from "../otel/state.js";
import { unref } from "../runtime.js";

/** `after()` from `next/server`: runs `task` once the response has been sent. */
export type AfterFn = (task: () => unknown) => void;

/** `next/server`, imported once (undefined outside Next). */
let nextServer: Promise<{ after?: AfterFn } | undefined> | undefined;

/** `after` from `next/server`, when this runs inside Next (resolved by the app's bundler, so it is the app's copy). */
export function loadAfter(): Promise<AfterFn | undefined> {
  // `as string` keeps TypeScript from loading Next's (and React's) types; bundlers still see the literal.
  nextServer ??= import("next/server.js" as string).then(
    (m) => m as { after?: AfterFn },
    () => undefined,
  );
  return nextServer.then((m) => (typeof m?.after === "function" ? m.after : undefined));
}

const sleep = (ms: number) => new Promise<void>((resolve) => unref(setTimeout(resolve, ms)));

/**
 * Keeps the invocation alive until `finished` settles and everything is sent: `after()` when Next provides it,
 * else the platform's `waitUntil`, else a flush in the background (a long-running server stays up anyway).
 * `backstop` ends a call whose response body was never read once the response is done.
 */
export function scheduleFlush(after: AfterFn | undefined, finished: Promise<void>, backstop: () => void): void {
  // after() runs once the response has been sent, so a body still unread 50 ms later was never going to be read.
  // waitUntil and the background flush start with the request: give a streaming body time to finish first.
  let graceMs = 60_000;
  const flush = async () => {
    try {
      await Promise.race([finished, sleep(graceMs)]);
      backstop();
      await finished;
      // Let Next end its own request span first, so this flush sends the whole tree.
      await sleep(10);
      await globalState().active?.forceFlush();
    } catch {
      // forceFlush reports its own failures; nothing reaches the request.
    }
  };
  if (after) {
    try {
      graceMs = 50;
      after(flush);
      return;
    } catch {
      // Outside a request scope (or an old Next): fall through.
      graceMs = 60_000;
    }
  }
  const waitUntil = platformWaitUntil();
  const pending = flush();
  if (waitUntil) {
    try {
      waitUntil(pending);
    } catch {
      // Ignored: the flush runs anyway.
    }
  }
}
