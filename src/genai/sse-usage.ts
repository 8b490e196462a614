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

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** `"usage"` and `"choices"` as bytes (with their quotes), and `data:`. */
const ascii = new TextEncoder();
const USAGE_KEY = ascii.encode('"usage"');
const CHOICES_KEY = ascii.encode('"choices"');
const DATA = ascii.encode("data:");

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === LF || c === CR;

/** Whether `buf` holds `bytes` at [at, at + bytes.length), within `end`. */
function bytesAt(buf: Uint8Array, at: number, end: number, bytes: Uint8Array): boolean {
  if (at + bytes.length > end) return false;
  for (let k = 0; k < bytes.length; k++) if (buf[at + k] !== bytes[k]) return false;
  return true;
}

/** Past the string that opens at `i` (a `"`), or -1 when the text ends first. */
function skipString(buf: Uint8Array, i: number, end: number): number {
  for (i++; i < end; i++) {
    const c = buf[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return -1;
}

/** Past the value that starts at `i` (any depth), or -1 when the text ends first. */
function skipValue(buf: Uint8Array, i: number, end: number): number {
  let depth = 0;
  while (i < end) {
    const c = buf[i];
    if (c === QUOTE) {
      i = skipString(buf, i, end);
      if (i < 0) return -1;
      if (depth === 0) return i;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) return i; // the end of the enclosing object
      depth--;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (c === 0x2c || isSpace(c))) return i;
    i++;
  }
  return depth === 0 ? i : -1;
}

/** Past the white space at `i`. */
function skipSpace(buf: Uint8Array, i: number, end: number): number {
  while (i < end && isSpace(buf[i])) i++;
  return i;
}

/** The length of one line ending (CR LF, CR or LF) at `i`, or 0. */
function lineEnd(buf: Uint8Array, i: number, end: number): number {
  const c = buf[i];
  if (c === CR) return i + 1 < end && buf[i + 1] === LF ? 2 : 1;
  return c === LF ? 1 : 0;
}

/** Whether [i, end) is exactly two line endings (a CR LF may be one of them or two, as a regular expression reads). */
function twoLineEnds(buf: Uint8Array, i: number, end: number): boolean {
  const first = lineEnd(buf, i, end);
  if (first === 0) return false;
  if (i + first < end && lineEnd(buf, i + first, end) === end - i - first) return true;
  // CR LF alone is two endings too: CR, then LF.
  return first === 2 && lineEnd(buf, i + 1, end) === end - i - 1;
}

/** What {@link decide} made of one event. */
const KEEP = 0;
const DROP = 1;
const CUT = 2;
/** The bytes {@link decide} cuts out of an event, when it answers {@link CUT}. */
let cutStart = 0;
let cutEnd = 0;

const decoder = new TextDecoder();

/**
 * What to do with the event at [start, end) of `buf`, which holds `"usage"` somewhere: it is changed only when it is a
 * single `data: {…}` line followed by a blank line, whose JSON object has a top-level `usage` member — then that
 * member is cut out of the bytes (`,"usage":…`, or `"usage":…,` when it is the first member: {@link cutStart} and
 * {@link cutEnd}), or the whole event dropped when it is a usage-only chunk; see the module comment. Reports the usage
 * it found. Reads the bytes in place: no copy, no decoding but of the usage object itself.
 */
function decide(buf: Uint8Array, start: number, end: number, onUsage: (usage: Obj) => void): number {
  if (!bytesAt(buf, start, end, DATA)) return KEEP;
  const jsonStart = buf[start + DATA.length] === 0x20 ? start + DATA.length + 1 : start + DATA.length;
  let jsonEnd = jsonStart;
  while (jsonEnd < end && buf[jsonEnd] !== LF && buf[jsonEnd] !== CR) jsonEnd++;
  if (!twoLineEnds(buf, jsonEnd, end)) return KEEP;
  // The top-level members of the JSON object: where the first `usage` member is, its neighbours, and `choices`.
  let i = skipSpace(buf, jsonStart, jsonEnd);
  if (buf[i] !== 0x7b) return KEEP;
  i = skipSpace(buf, i + 1, jsonEnd);
  if (buf[i] === 0x7d) return KEEP;
  let members = 0;
  let usageAt = -1;
  let usageKeyStart = -1;
  let usageValueStart = -1;
  let usageValueEnd = -1;
  let previousValueEnd = -1;
  let nextKeyStart = -1;
  let choicesStart = -1;
  let choicesEnd = -1;
  let lastValueEnd = -1;
  let closed = false;
  while (i < jsonEnd) {
    const keyStart = i;
    if (buf[i] !== QUOTE) return KEEP;
    i = skipString(buf, i, jsonEnd);
    if (i < 0) return KEEP;
    const keyEnd = i;
    i = skipSpace(buf, i, jsonEnd);
    if (buf[i] !== 0x3a) return KEEP;
    i = skipSpace(buf, i + 1, jsonEnd);
    const valueStart = i;
    i = skipValue(buf, i, jsonEnd);
    if (i < 0 || i === valueStart) return KEEP;
    if (usageAt >= 0 && members === usageAt + 1) nextKeyStart = keyStart;
    if (usageAt < 0 && keyEnd - keyStart === USAGE_KEY.length && bytesAt(buf, keyStart, keyEnd, USAGE_KEY)) {
      usageAt = members;
      usageKeyStart = keyStart;
      usageValueStart = valueStart;
      usageValueEnd = i;
      previousValueEnd = lastValueEnd;
    } else if (
      choicesStart < 0 &&
      keyEnd - keyStart === CHOICES_KEY.length &&
      bytesAt(buf, keyStart, keyEnd, CHOICES_KEY)
    ) {
      choicesStart = valueStart;
      choicesEnd = i;
    }
    members++;
    lastValueEnd = i;
    i = skipSpace(buf, i, jsonEnd);
    if (buf[i] === 0x2c) {
      i = skipSpace(buf, i + 1, jsonEnd);
      continue;
    }
    if (buf[i] === 0x7d) closed = true;
    break;
  }
  if (!closed || usageAt < 0) return KEEP;
  const isNull =
    usageValueEnd - usageValueStart === 4 &&
    buf[usageValueStart] === 0x6e &&
    buf[usageValueStart + 1] === 0x75 &&
    buf[usageValueStart + 2] === 0x6c &&
    buf[usageValueStart + 3] === 0x6c;
  if (!isNull) {
    let usage: unknown;
    try {
      usage = JSON.parse(decoder.decode(buf.subarray(usageValueStart, usageValueEnd)));
    } catch {
      return KEEP;
    }
    if (!isObj(usage) || Array.isArray(usage)) return KEEP;
    onUsage(usage);
    if (choicesStart < 0 || isEmptyArray(buf, choicesStart, choicesEnd)) return DROP;
  }
  if (previousValueEnd >= 0) [cutStart, cutEnd] = [previousValueEnd, usageValueEnd];
  else if (nextKeyStart >= 0) [cutStart, cutEnd] = [usageKeyStart, nextKeyStart];
  else [cutStart, cutEnd] = [usageKeyStart, usageValueEnd];
  return CUT;
}

/** Whether [start, end) is `[`, optional white space (as `\s` reads it), `]`. */
function isEmptyArray(buf: Uint8Array, start: number, end: number): boolean {
  if (end - start === 2) return buf[start] === 0x5b && buf[start + 1] === 0x5d;
  return /^\[\s*\]$/.test(decoder.decode(buf.subarray(start, end)));
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

/**
 * The body `source` with the injected usage hidden (see the module comment); `onUsage` gets each usage object
 * removed. Cancelling the result cancels `source` with the same reason; its errors pass through as they are.
 *
 * It reads `source` only when its own reader asks (a high-water mark of 0), never ahead: bytes that arrived before
 * an abort stay in `source`, which the abort errors and empties, just as the unfiltered body would be — a filter that
 * read ahead would have moved them out of reach of the abort and handed them to an aborted stream (issue #22).
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
  /** Byte ranges [from, to) to leave out of the current read, flat. */
  const cuts: number[] = [];
  return new ReadableStream<Uint8Array>(
    {
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
          // Whole events only; each one that holds `"usage"` (a native search on Node) is looked at.
          let start = 0;
          let nextUsage = indexOfBytes(buf, USAGE_KEY);
          cuts.length = 0;
          for (let end = eventEnd(buf, 0); end >= 0; end = eventEnd(buf, start)) {
            if (nextUsage >= 0 && nextUsage < start) nextUsage = indexOfBytes(buf, USAGE_KEY, start);
            if (nextUsage >= 0 && nextUsage < end) {
              const verdict = decide(buf, start, end, report);
              if (verdict === DROP) cuts.push(start, end);
              else if (verdict === CUT) cuts.push(cutStart, cutEnd);
            }
            start = end;
          }
          pending = buf.slice(start);
          const out = cuts.length === 0 ? buf.subarray(0, start) : without(buf, start, cuts);
          if (out.length > 0) {
            controller.enqueue(out);
            return;
          }
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The first `length` bytes of `bytes` without the ranges in `cuts` (flat [from, to) pairs, in order), copied once. */
function without(bytes: Uint8Array, length: number, cuts: number[]): Uint8Array {
  let removed = 0;
  for (let k = 0; k < cuts.length; k += 2) removed += (cuts[k + 1] as number) - (cuts[k] as number);
  const out = new Uint8Array(length - removed);
  let at = 0;
  let from = 0;
  for (let k = 0; k <= cuts.length; k += 2) {
    const to = k < cuts.length ? (cuts[k] as number) : length;
    if (to > from) {
      out.set(bytes.subarray(from, to), at);
      at += to - from;
    }
    from = k < cuts.length ? (cuts[k + 1] as number) : length;
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

/** What {@link chunkWithoutUsage} answers for the injected usage-only chunk, which the consumer must not see. */
export const USAGE_ONLY: unique symbol = Symbol("tracewire.usageOnly");

/**
 * The shapes above, on parsed chunks (a stream whose body is not filtered: the caller only reads the parsed stream):
 * the chunk as the consumer gets it — `value` itself when it has no injected `usage`, else a copy without that member
 * (or its `"usage": null`), or {@link USAGE_ONLY} for the injected usage-only chunk. A copy, not a `delete`: deleting
 * a member of a parsed chunk turns it into a dictionary-mode object, ~0.6 µs per chunk on Node 24 and slower reads
 * for the consumer after it (bench/NOTES.md); copying its few members costs less than half of that. A chunk that is
 * not a plain object (another prototype, a `__proto__` member) keeps its identity and loses the member in place.
 */
export function chunkWithoutUsage(value: unknown): unknown {
  if (!isObj(value)) return value;
  const usage = value.usage;
  if (isObj(usage)) {
    const choices = value.choices;
    if (!Array.isArray(choices) || choices.length === 0) return USAGE_ONLY;
  } else if (usage !== null) return value;
  if (Object.getPrototypeOf(value) === Object.prototype && !Object.hasOwn(value, "__proto__")) {
    return copyWithoutUsage(value, Object.keys(value));
  }
  delete value.usage;
  return value;
}

/** A chunk's members as OpenAI sends them when asked for usage, and with the `obfuscation` padding it adds after. */
const OPENAI_CHUNK = ["id", "object", "created", "model", "service_tier", "system_fingerprint", "choices", "usage"];
const OPENAI_CHUNK_PADDED = [...OPENAI_CHUNK, "obfuscation"];

const sameKeys = (keys: readonly string[], known: readonly string[]) => {
  if (keys.length !== known.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== known[i]) return false;
  return true;
};

/**
 * `value` (whose own keys are `keys`) without its `usage` member, every other member in its place. OpenAI's two
 * chunk shapes are written as literals: copying member by member under keys read at run time costs ~0.3–0.5 µs a
 * chunk (a store per member that V8 cannot specialise), a literal ~50 ns.
 */
function copyWithoutUsage(value: Obj, keys: readonly string[]): Obj {
  if (sameKeys(keys, OPENAI_CHUNK)) {
    const { id, object, created, model, service_tier, system_fingerprint, choices } = value;
    return { id, object, created, model, service_tier, system_fingerprint, choices };
  }
  if (sameKeys(keys, OPENAI_CHUNK_PADDED)) {
    const { id, object, created, model, service_tier, system_fingerprint, choices, obfuscation } = value;
    return { id, object, created, model, service_tier, system_fingerprint, choices, obfuscation };
  }
  const copy: Obj = {};
  for (const key of keys) if (key !== "usage") copy[key] = value[key];
  return copy;
}
