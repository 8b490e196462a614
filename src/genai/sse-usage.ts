/**
 * Hiding what `stream_options.include_usage` adds to a streamed chat completion, at the byte level: the SSE body the
 * caller reads (parsed by the SDK, or raw through `asResponse()` / `withResponse()`) is the body the server would
 * have sent without the option, and the usage goes to tracewire instead.
 *
 * Servers attach the usage in different shapes, all handled here event by event:
 * - OpenAI: a last chunk `{…, "choices": [], "usage": {…}}` and `"usage": null` on every other chunk;
 * - servers that drop `choices` from that chunk: `{…, "usage": {…}}`;
 * - servers that put the usage on the last content chunk: `{…, "choices": [{… "finish_reason": "stop"}], "usage": {…}}`.
 * A usage-only event is dropped; a `usage` member (object or null) of any other event is cut out of its JSON text,
 * so every other byte of that event stays as the server sent it. Events are passed on whole, as soon as their blank
 * line arrives; anything that is not a single `data: {…}` line passes untouched.
 */
import { indexOfBytes } from "../runtime.js";
import { isObj, type Obj } from "./guards.js";

const USAGE_KEY = new TextEncoder().encode('"usage"');
const LF = 0x0a;
const CR = 0x0d;

/** A top-level member of a JSON object text: `"key"` at [keyStart, …), its value at [valueStart, valueEnd). */
interface Member {
  key: string;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
}

/** The top-level members of a JSON object text, or undefined when it is not one (then nothing is changed). */
export function jsonMembers(text: string): Member[] | undefined {
  let i = 0;
  const n = text.length;
  const space = () => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const string = (): boolean => {
    if (text[i] !== '"') return false;
    for (i++; i < n; i++) {
      if (text[i] === "\\") i++;
      else if (text[i] === '"') {
        i++;
        return true;
      }
    }
    return false;
  };
  /** Skips one value (any depth); false when the text ends first. */
  const value = (): boolean => {
    let depth = 0;
    while (i < n) {
      const c = text[i];
      if (c === '"') {
        if (!string()) return false;
        if (depth === 0) return true;
        continue;
      }
      if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") {
        if (depth === 0) return true; // the end of the enclosing object
        depth--;
        if (depth === 0) {
          i++;
          return true;
        }
      } else if (depth === 0 && (c === "," || c === " " || c === "\t" || c === "\n" || c === "\r")) return true;
      i++;
    }
    return depth === 0;
  };
  const members: Member[] = [];
  space();
  if (text[i] !== "{") return undefined;
  i++;
  space();
  if (text[i] === "}") return members;
  while (i < n) {
    const keyStart = i;
    if (!string()) return undefined;
    const key = text.slice(keyStart + 1, i - 1);
    space();
    if (text[i] !== ":") return undefined;
    i++;
    space();
    const valueStart = i;
    if (!value() || i === valueStart) return undefined;
    members.push({ key, keyStart, valueStart, valueEnd: i });
    space();
    if (text[i] === ",") {
      i++;
      space();
      continue;
    }
    if (text[i] === "}") return members;
    return undefined;
  }
  return undefined;
}

/** What one event becomes: unchanged, dropped, or the JSON text with its `usage` member cut out. */
type Rewrite = { kind: "keep" } | { kind: "drop"; usage: Obj } | { kind: "replace"; json: string; usage?: Obj };

/** Rewrites the JSON of one `data:` event: see the module comment. */
export function rewriteChunkJson(json: string): Rewrite {
  const members = jsonMembers(json);
  if (!members) return { kind: "keep" };
  const at = members.findIndex((m) => m.key === "usage");
  if (at < 0) return { kind: "keep" };
  const usageMember = members[at] as Member;
  const usageText = json.slice(usageMember.valueStart, usageMember.valueEnd);
  let usage: Obj | undefined;
  if (usageText !== "null") {
    try {
      const parsed: unknown = JSON.parse(usageText);
      if (!isObj(parsed) || Array.isArray(parsed)) return { kind: "keep" };
      usage = parsed;
    } catch {
      return { kind: "keep" };
    }
    const choices = members.find((m) => m.key === "choices");
    const empty = choices === undefined || /^\[\s*\]$/.test(json.slice(choices.valueStart, choices.valueEnd));
    if (empty) return { kind: "drop", usage };
  }
  // Cut `,"usage":…` (or `"usage":…,` when it is the first member) out of the text.
  const next = members[at + 1];
  const previous = members[at - 1];
  let cut: string;
  if (previous) cut = json.slice(0, previous.valueEnd) + json.slice(usageMember.valueEnd);
  else if (next) cut = json.slice(0, usageMember.keyStart) + json.slice(next.keyStart);
  else cut = json.slice(0, usageMember.keyStart) + json.slice(usageMember.valueEnd);
  return usage ? { kind: "replace", json: cut, usage } : { kind: "replace", json: cut };
}

/** The end of the first event in `buf` (just past its blank line), or -1 when no whole event is there yet. */
function eventEnd(buf: Uint8Array, from: number): number {
  let lineStart = true;
  for (let i = from; i < buf.length; i++) {
    const c = buf[i];
    if (c === LF || c === CR) {
      const width = c === CR && buf[i + 1] === LF ? 2 : 1;
      if (c === CR && i + 1 === buf.length) return -1; // a CR LF may be split across reads
      if (lineStart) return i + width;
      lineStart = true;
      i += width - 1;
    } else lineStart = false;
  }
  return -1;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** One whole event's bytes → the bytes to pass on (possibly none), reporting any usage it carried. */
function filterEvent(event: Uint8Array, onUsage: (usage: Obj) => void): Uint8Array {
  if (indexOfBytes(event, USAGE_KEY) < 0) return event;
  const text = decoder.decode(event);
  const match = /^data: ?(.*?)(\r\n|\r|\n)(\r\n|\r|\n)$/s.exec(text);
  if (!match || /[\r\n]/.test(match[1] as string)) return event;
  const rewrite = rewriteChunkJson(match[1] as string);
  if (rewrite.kind === "keep") return event;
  if (rewrite.usage) onUsage(rewrite.usage);
  if (rewrite.kind === "drop") return new Uint8Array(0);
  const prefix = text.startsWith("data: ") ? "data: " : "data:";
  return encoder.encode(`${prefix}${rewrite.json}${match[2]}${match[3]}`);
}

/**
 * The body `source` with the injected usage hidden (see the module comment); `onUsage` gets each usage object
 * removed. Cancelling the result cancels `source` with the same reason; its errors pass through as they are.
 */
export function hideInjectedUsage(
  source: ReadableStream<Uint8Array>,
  onUsage: (usage: Obj) => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let pending: Uint8Array = new Uint8Array(0);
  const report = (usage: Obj) => {
    try {
      onUsage(usage);
    } catch {
      // Recording the usage is tracewire's business; the caller's bytes flow on regardless.
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          if (pending.length > 0) controller.enqueue(pending);
          controller.close();
          return;
        }
        let buf: Uint8Array = value;
        if (pending.length > 0) {
          buf = new Uint8Array(pending.length + value.length);
          buf.set(pending);
          buf.set(value, pending.length);
        }
        const parts: Uint8Array[] = [];
        let start = 0;
        let unchanged = true;
        for (let end = eventEnd(buf, 0); end >= 0; end = eventEnd(buf, start)) {
          const event = buf.subarray(start, end);
          const out = filterEvent(event, report);
          if (out !== event) unchanged = false;
          if (out.length > 0) parts.push(out);
          start = end;
        }
        pending = buf.slice(start);
        const out = unchanged && start > 0 ? buf.subarray(0, start) : concat(parts);
        if (out.length > 0) {
          controller.enqueue(out);
          return;
        }
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * A Response like `response` (status, status text, headers, and `url`, `redirected`, `type` as own properties)
 * whose body hides the injected usage; `response` itself when it is not a successful SSE response of the global
 * `Response` class (a custom `fetch`), which the caller then gets unchanged.
 */
export function responseHidingUsage(response: unknown, onUsage: (usage: Obj) => void): unknown {
  if (!(response instanceof Response) || !response.ok || !response.body || response.bodyUsed) return response;
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) return response;
  const filtered = new Response(hideInjectedUsage(response.body, onUsage), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  for (const key of ["url", "redirected", "type"] as const) {
    const value = response[key];
    Object.defineProperty(filtered, key, { value, configurable: true, enumerable: false, writable: false });
  }
  return filtered;
}

/**
 * The shapes above, for a stream whose body tracewire could not filter (a custom `fetch`): a parsed chunk loses the
 * injected `usage` (or its `"usage": null`); returns true when the whole chunk is the injected usage-only one and must
 * be hidden from the consumer.
 */
export function hideUsageInChunk(value: unknown): boolean {
  if (!isObj(value)) return false;
  if (isObj(value.usage)) {
    const choices = value.choices;
    if (!Array.isArray(choices) || choices.length === 0) return true;
    delete value.usage;
  } else if (value.usage === null) delete value.usage;
  return false;
}
