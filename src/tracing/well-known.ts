/**
 * Well-known client and transport objects, recorded as a short summary instead of their fields when they turn up in
 * a traced function's inputs or output. Their fields hold API keys, auth headers, connection pools, sockets and
 * buffers: nothing a trace needs, and some of it secret. Recognised by brand checks where Node has them, else by
 * the shape the libraries are known to have (the `openai`, Anthropic and Google Gen AI SDKs, undici), so none of them
 * is imported.
 */
import { nodeBuiltin } from "../runtime.js";
import { type KeyRedactor, REDACTED, redactUrl } from "../secrets.js";

// Node's stream and emitter classes, where the runtime has them (read on first use: edge bundles have neither).
type AnyClass = abstract new (...args: never[]) => unknown;
let nodeClasses: { Stream: AnyClass | undefined; EventEmitter: AnyClass | undefined } | undefined;
function nodeClass(name: "Stream" | "EventEmitter"): AnyClass | undefined {
  nodeClasses ??= {
    Stream: nodeBuiltin<{ Stream: AnyClass }>("node:stream")?.Stream,
    EventEmitter: nodeBuiltin<{ EventEmitter: AnyClass }>("node:events")?.EventEmitter,
  };
  return nodeClasses[name];
}

type Summary = { [key: string]: string | number | boolean | Summary };

// Node's fetch classes are read lazily, and only for objects whose class has their name: touching the global
// `Headers` loads Node's bundled undici, which installs fetch's global dispatcher (importing tracewire must not).
type FetchIntrinsics = {
  headersEntries: () => IterableIterator<[string, string]>;
  requestMethod: () => string;
  requestUrl: () => string;
  responseStatus: () => number;
  responseUrl: () => string;
};
let fetchIntrinsics: FetchIntrinsics | undefined;
function fetchClasses(): FetchIntrinsics {
  const getter = (proto: object, key: string) => Object.getOwnPropertyDescriptor(proto, key)!.get! as () => never;
  fetchIntrinsics ??= {
    headersEntries: Headers.prototype.entries,
    requestMethod: getter(Request.prototype, "method"),
    requestUrl: getter(Request.prototype, "url"),
    responseStatus: getter(Response.prototype, "status"),
    responseUrl: getter(Response.prototype, "url"),
  };
  return fetchIntrinsics;
}
const signalAborted = Object.getOwnPropertyDescriptor(AbortSignal.prototype, "aborted")!.get!;

// Class names of LLM SDK clients: their instances carry `apiKey`, `baseURL` and a fetch/transport (`GoogleGenAI`:
// its API key, Google auth with its credentials, and an API client).
const LLM_CLIENTS = new Set([
  "OpenAI",
  "AzureOpenAI",
  "Anthropic",
  "AnthropicBedrock",
  "AnthropicVertex",
  "GoogleGenAI",
]);
// undici's dispatchers (and Node's http.Agent) hold pools of sockets and, for proxies, proxy credentials.
const DISPATCHERS = new Set([
  "Dispatcher",
  "Agent",
  "Pool",
  "Client",
  "BalancedPool",
  "ProxyAgent",
  "EnvHttpProxyAgent",
  "RetryAgent",
  "MockAgent",
  "H2CClient",
]);

// Node's own handles that are emitters but not streams (an http.Agent holds sockets and their TLS sessions).
const NODE_HANDLES = new Set(["Agent", "Server", "Worker", "ChildProcess", "Http2Session"]);

/**
 * The summary of `v` when it is a well-known client or transport object, else undefined. `name` is the class name
 * of `v`'s prototype, already read by the caller. Never throws (the caller's guard catches a hostile getter).
 */
export function wellKnownSummary(v: object, name: string | undefined, redactor: KeyRedactor): Summary | undefined {
  if (name === "Headers" || name === "Request" || name === "Response") {
    const f = fetchClasses();
    if (v instanceof Headers) return headers(v, f, redactor);
    if (v instanceof Request) {
      return { _type: "Request", method: f.requestMethod.call(v), url: urlText(f.requestUrl.call(v), redactor) };
    }
    if (v instanceof Response) {
      return { _type: "Response", status: f.responseStatus.call(v), url: urlText(f.responseUrl.call(v), redactor) };
    }
  }
  if (v instanceof AbortSignal) return { _type: "AbortSignal", aborted: signalAborted.call(v) };
  if (v instanceof ReadableStream || v instanceof WritableStream || v instanceof TransformStream) {
    return { _type: name ?? "Stream" };
  }
  // Sockets, Node streams, IncomingMessage / ServerResponse: their state is not data.
  const Stream = nodeClass("Stream");
  if (Stream && v instanceof Stream) return { _type: name ?? "Stream" };
  if (name === undefined) return undefined;
  const EventEmitter = NODE_HANDLES.has(name) ? nodeClass("EventEmitter") : undefined;
  if (EventEmitter && v instanceof EventEmitter) return { _type: name as string };
  if (LLM_CLIENTS.has(name) && "apiKey" in v) return llmClient(v, name, redactor);
  if (DISPATCHERS.has(name) && typeof (v as { dispatch?: unknown }).dispatch === "function") return { _type: name };
  return undefined;
}

function headers(v: Headers, f: FetchIntrinsics, redactor: KeyRedactor): Summary {
  const out: Summary = { _type: "Headers" };
  for (const [key, value] of f.headersEntries.call(v)) out[key] = redactor.matches(key) ? REDACTED : value;
  return out;
}

function llmClient(v: object, name: string, redactor: KeyRedactor): Summary {
  const baseURL: unknown = (v as { baseURL?: unknown }).baseURL;
  return typeof baseURL === "string" ? { _type: name, baseURL: urlText(baseURL, redactor) } : { _type: name };
}

function urlText(text: string, redactor: KeyRedactor): string {
  if (!URL.canParse(text)) return text;
  return redactUrl(new URL(text), redactor);
}
