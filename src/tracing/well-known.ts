/**
 * Well-known client and transport objects, recorded as a short summary instead of their fields when they turn up in
 * a traced function's inputs or output. Their fields hold API keys, auth headers, connection pools, sockets and
 * buffers: nothing a trace needs, and some of it secret. Recognised by brand checks where Node has them, else by
 * the shape the libraries are known to have (the `openai`, Anthropic and Google Gen AI SDKs, undici), so none of them
 * is imported. Never by the object's own class name alone: a subclass (`class MyClient extends OpenAI`) has another
 * name, and a minified bundle renames every class, yet walking either leaks what no key name says is secret
 * (`_options.defaultHeaders` with a `Helicone-Auth` header, Anthropic's `webhookKey`). So a class name counts
 * anywhere in the prototype chain, and where names are gone the shape decides (see {@link isLlmClient}).
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

// Class names of LLM SDK clients, matched anywhere in the prototype chain: their instances carry `apiKey`, `baseURL`
// and a fetch/transport (`GoogleGenAI`: its API key, Google auth with its credentials, and an API client).
const LLM_CLIENTS = new Set([
  "OpenAI",
  "AzureOpenAI",
  "Anthropic",
  "AnthropicBedrock",
  "AnthropicVertex",
  "GoogleGenAI",
]);
// undici's dispatchers (and Node's http.Agent) hold pools of sockets and, for proxies, proxy credentials. Their
// base classes are listed too, so any subclass matches through its chain.
const DISPATCHERS = new Set([
  "DispatcherBase",
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

// Node's own handles that are emitters but not streams (an http.Agent holds sockets and their TLS sessions),
// matched anywhere in the chain (`HttpsProxyAgent` extends http.Agent, with the proxy's credentials).
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
  const EventEmitter = nodeClass("EventEmitter");
  if (EventEmitter && v instanceof EventEmitter) {
    if (isDispatcher(v)) return { _type: name ?? "Dispatcher" };
    if (chainHas(v, NODE_HANDLES)) return { _type: name ?? "EventEmitter" };
    return undefined;
  }
  if (isLlmClient(v)) return llmClient(v, name ?? "LLMClient", redactor);
  // An undici dispatcher where `node:events` is not the emitter undici extends (a runtime's own): by its names.
  if (chainHas(v, DISPATCHERS) && isDispatcher(v)) return { _type: name ?? "Dispatcher" };
  return undefined;
}

/**
 * Whether `v` has undici's Dispatcher interface: `dispatch()`, `close()` and `destroy()`, which every dispatcher of
 * every undici version has, whatever its class is called (on an emitter, that is undici's own base class). All three,
 * not `dispatch()` alone: a store or event bus may well have a `dispatch()` and its state is data.
 */
function isDispatcher(v: object): boolean {
  try {
    const d = v as { dispatch?: unknown; close?: unknown; destroy?: unknown };
    return typeof d.dispatch === "function" && typeof d.close === "function" && typeof d.destroy === "function";
  } catch {
    return false; // a getter that throws: not undici's, and the walk reports the getter where it reads it
  }
}

// Deep enough for an SDK class under a few levels of app subclasses (`Anthropic` → `BaseAnthropic` → …).
const MAX_CHAIN = 8;

/**
 * Whether a class of `v`'s prototype chain has one of `names`. A few property reads per level; a prototype whose
 * `constructor` getter throws ends the search (no SDK class has one), so the object is walked as any other.
 */
function chainHas(v: object, names: ReadonlySet<string>): boolean {
  try {
    let proto: unknown = Object.getPrototypeOf(v);
    for (let i = 0; i < MAX_CHAIN && proto !== null && proto !== Object.prototype; i++) {
      const name: unknown = (proto as { constructor?: { name?: unknown } }).constructor?.name;
      if (typeof name === "string" && names.has(name)) return true;
      proto = Object.getPrototypeOf(proto);
    }
  } catch {}
  return false;
}

/**
 * Whether `v` is an LLM SDK client: by name, a class of its prototype chain is one of {@link LLM_CLIENTS} and it
 * has an `apiKey`; by shape, for a minified bundle, it is
 * - a client generated by Stainless (`openai` and `@anthropic-ai/sdk` with their Azure, Bedrock and Vertex variants,
 *   and any other Stainless SDK): `_options` (the constructor's options, default headers and all), `baseURL`, and
 *   `buildRequest()` from its base class. Three reads, and all three are what these clients are built around (their
 *   request pipeline), not details that move between versions; a data object has no `buildRequest()`;
 * - a `@google/genai` client: `apiClient` (which holds the key and Google auth), `models`, and a boolean `vertexai`.
 */
function isLlmClient(v: object): boolean {
  if (chainHas(v, LLM_CLIENTS)) return "apiKey" in v;
  const o = v as { buildRequest?: unknown; vertexai?: unknown };
  if ("_options" in v && "baseURL" in v && typeof o.buildRequest === "function") return true;
  return "apiClient" in v && "models" in v && typeof o.vertexai === "boolean";
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
