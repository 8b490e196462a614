/**
 * Cursor paging of the training service's list endpoints (`?after=&limit=` → `{data, has_more, last_id}`), with
 * an optional follow mode that keeps polling after the last page.
 */
import { AbortError, ProtocolError, type RequestInfo } from "../../errors.js";
import type { ListPage } from "../types/training.js";

/** Resolves after `ms`, or rejects with an {@link AbortError} as soon as `signal` fires. */
function pause(ms: number, signal: AbortSignal | undefined, request: RequestInfo): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError(request, signal.reason));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError(request, signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** How {@link paginate} keeps polling once the last page is read. */
export interface FollowOptions<T> {
  intervalMs: number;
  signal: AbortSignal | undefined;
  /** Polling stops right after an item for which this is true has been yielded. */
  isTerminal: (item: T) => boolean;
}

/**
 * Yields every item of a cursor-paged list, fetching the next page with `after = last_id` while `has_more` is
 * true. With `follow`, an exhausted list is polled again (from the last cursor) every `intervalMs` until a
 * terminal item was yielded; `signal` ends it with an {@link AbortError}, also while waiting.
 */
export async function* paginate<T extends { id: string }>(
  fetchPage: (after: string | undefined) => Promise<ListPage<T>>,
  start: string | undefined,
  request: RequestInfo,
  follow?: FollowOptions<T>,
): AsyncGenerator<T> {
  let after = start;
  // Cursors already asked for while `has_more` said there was more: one coming back would loop forever.
  const asked = new Set<string>();
  for (;;) {
    const page = await fetchPage(after);
    if (!page || !Array.isArray(page.data)) {
      throw new ProtocolError(`${request.method} ${request.path} answered without a data array.`);
    }
    for (const item of page.data) {
      yield item;
      if (follow?.isTerminal(item)) return;
    }
    // `last_id` is "" on an empty page: keep the old cursor then, so polling resumes where it was.
    const next = page.last_id || page.data.at(-1)?.id || after;
    if (page.has_more === true) {
      // A server that claims more but does not move the cursor would make us loop forever.
      if (next === after || next === undefined) {
        throw new ProtocolError(`${request.method} ${request.path} said has_more but gave no cursor to continue.`);
      }
      if (asked.has(next)) {
        throw new ProtocolError(
          `${request.method} ${request.path} said has_more but sent cursor ${JSON.stringify(next)} again: ` +
            "its pages go round in a circle, so paging stopped.",
        );
      }
      if (after !== undefined) asked.add(after);
      asked.add(next);
      after = next;
      continue;
    }
    after = next;
    if (!follow) return;
    await pause(follow.intervalMs, follow.signal, request);
  }
}
