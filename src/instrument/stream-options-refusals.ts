/**
 * Which servers refused the `stream_options` that `wrapOpenAI` adds to streamed chat requests (older Azure OpenAI API
 * versions answer 400 "Unrecognized request argument supplied: stream_options"): later streamed requests to them are
 * sent as written. A server is its base URL and the API version the client sends (`AzureOpenAI`'s `apiVersion`, or an
 * `api-version` default query), since one Azure resource answers each API version by its own rules and a newer one
 * takes `stream_options`. Bounded: a process talking to more servers than this forgets the oldest, and at worst
 * retries once more.
 */

const refusing = new Set<string>();
const MAX_REFUSING = 256;

/** The key a client's refusals are remembered under, as the client is configured now. Never throws. */
export function refusalKeyOf(client: object): string {
  let base: unknown;
  let version: unknown;
  try {
    const own = client as {
      baseURL?: unknown;
      apiVersion?: unknown;
      _options?: { defaultQuery?: Record<string, unknown> };
    };
    base = own.baseURL;
    version = own.apiVersion ?? own._options?.defaultQuery?.["api-version"];
  } catch {
    // A client that hides its options: remembered by what could be read.
  }
  return `${typeof base === "string" ? base : ""} ${typeof version === "string" ? version : ""}`;
}

/** Whether the server under `key` refused `stream_options` before. */
export function refusedStreamOptions(key: string): boolean {
  return refusing.has(key);
}

/** Remembers that the server under `key` refuses `stream_options`. */
export function rememberRefusal(key: string): void {
  if (refusing.size >= MAX_REFUSING) {
    const oldest = refusing.values().next().value;
    if (oldest !== undefined) refusing.delete(oldest);
  }
  refusing.add(key);
}
