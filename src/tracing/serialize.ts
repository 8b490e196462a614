/**
 * The one serializer for traced inputs and outputs (DESIGN §3). Arbitrary user values become fresh JSON-safe trees,
 * once, with bounded work, and nothing here ever throws into user code.
 *
 * The only user code this runs is what `JSON.stringify` runs: property reads (getters, Proxy traps) and `toJSON()`.
 * Built-ins are recognised by brand checks (`util.types`) and read through intrinsics captured at load, so subclasses
 * and per-instance overrides are not called. Every failure becomes a visible marker string instead of an exception.
 */
import type { JsonValue } from "../api/types/common.js";
import { summaryOf } from "../own-objects.js";
import { brandChecks, nodeBuffer, toBase64 } from "../runtime.js";
import { REDACTED, redactUrl, scrubString, scrubText } from "../secrets.js";
import { resolveSerializeOptions, type SerializeOptions } from "./serialize-options.js";
import { className, describe, take, truncate, unbox, unserializable } from "./serialize-values.js";
import { wellKnownSummary } from "./well-known.js";

/** `util.types` on Node; the same brand checks written portably where there is no `node:util` (edge). */
const types = brandChecks();

export { DEFAULT_SERIALIZE_OPTIONS, resolveSerializeOptions } from "./serialize-options.js";
export type { JsonValue, SerializeOptions };

const LIMIT = "[Truncated: payload limit]";
/** Key of the marker entry that summarises an object's (or Map's) dropped keys. */
const MORE = "…";
/** Returned for values that are dropped from objects (functions, symbols, undefined), as JSON.stringify does. */
const OMIT = Symbol("omit");
type Out = JsonValue | typeof OMIT;
type JsonObject = { [key: string]: JsonValue };

const dateGetTime = Date.prototype.getTime;
const dateToISOString = Date.prototype.toISOString;
const regExpToString = RegExp.prototype.toString;
const mapEntries = Map.prototype.entries;
const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, "size")!.get!;
const setValues = Set.prototype.values;
const setSize = Object.getOwnPropertyDescriptor(Set.prototype, "size")!.get!;
const typedArrayTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)!
  .get!;

/**
 * Turns any value into a fresh JSON-safe tree (the caller, e.g. a redact hook, may mutate it freely). Never throws.
 *
 * - Cycles become `"[Circular]"`; an object shared by siblings (not an ancestor) is rendered each time.
 * - BigInt → decimal string; NaN / ±Infinity → `"NaN"` / `"Infinity"` / `"-Infinity"`; -0 → 0.
 * - Date → ISO string (`"Invalid Date"` when invalid); RegExp → `"/src/flags"`; URL → href; boxed primitives unwrap.
 * - Buffer, typed arrays, ArrayBuffer, DataView → `{_type, length, base64}`; `length` counts elements (bytes for
 *   ArrayBuffer / DataView) and `base64` covers the first `maxBinaryBytes` bytes, ending in `…` when cut.
 * - Map → an object when every key is a string (the common, readable case), else an array of `[key, value]` pairs so
 *   that keys like `1` and `"1"` or object keys never collide (a credential-like string key's value is redacted in
 *   both forms). Set → array.
 * - Error → `{name, message, stack, cause?, errors?, ...own enumerable props}`.
 * - Class instances → own enumerable properties plus `_type: "<ClassName>"` (an own `_type` property wins).
 * - Secrets: values under credential-like keys (`options.redactor`) become `"REDACTED"` unread; a URL's password
 *   and credential query parameters are masked, and a PEM private key block in any string, whatever its key; so
 *   are `Bearer …` and `key=…` in an Error's text fields (message, stack, a string cause, any other string property).
 * - tracewire's own objects (a `Call`, the processor, clients) → their short summary; well-known clients and
 *   transports (`openai` / Anthropic clients, undici dispatchers, `Headers`, `Request`, `Response`, `AbortSignal`,
 *   streams and sockets) → a summary too (tracing/well-known.ts). Nothing inside them is read.
 * - Functions, symbols and undefined are dropped from objects, as JSON.stringify does; at the top level and in arrays,
 *   where JSON.stringify would write null, functions and symbols become `"[Function name]"` / `"[Symbol(desc)]"`
 *   and undefined becomes null.
 * - `toJSON()` is called (with the property key, like JSON.stringify) for objects that are not one of the built-ins
 *   above; it is user code, so a throw becomes `"[Unserializable: message]"`. Its result is not asked for toJSON again.
 * - A throwing getter or Proxy `get` trap marks that property only (`"[Unserializable: message]"`), unless it also
 *   throws for the `toJSON` lookup; a Proxy whose `ownKeys` / `getPrototypeOf` traps throw, or a revoked one, is
 *   marked as a whole.
 */
export function serialize(value: unknown, options?: SerializeOptions): JsonValue {
  return serializeWithSize(value, options).value;
}

/** {@link serialize}, plus the approximate JSON size in bytes of the result (for batching without re-measuring). */
export function serializeWithSize(value: unknown, options?: SerializeOptions): { value: JsonValue; bytes: number } {
  const walker = new Walker(resolveSerializeOptions(options));
  try {
    return { value: walker.value(value, "", 0, false) as JsonValue, bytes: walker.bytes };
  } catch (err) {
    // Last resort (e.g. the caller was already near the stack limit): still never throw.
    const marker = unserializable(err);
    return { value: marker, bytes: marker.length + 2 };
  }
}

/** {@link serialize} straight to a JSON string. Never throws. */
export function serializeToJson(value: unknown, options?: SerializeOptions): string {
  try {
    return JSON.stringify(serialize(value, options));
  } catch (err) {
    return JSON.stringify(unserializable(err));
  }
}

class Walker {
  /** Approximate size of the JSON emitted so far; compared against maxBytes before reading each value. */
  bytes = 0;
  /** The objects currently being walked: only these make a cycle, so shared siblings still render. */
  private readonly ancestors: object[] = [];

  constructor(private readonly o: Required<SerializeOptions>) {}

  /** `inObject`: the value is an object property, where functions, symbols and undefined are dropped (OMIT). */
  value(v: unknown, key: string | number, depth: number, inObject: boolean): Out {
    if (this.bytes >= this.o.maxBytes) return this.mark(LIMIT);
    switch (typeof v) {
      case "string":
        return this.string(v);
      case "number":
        this.bytes += 8;
        return Number.isFinite(v) ? (v === 0 ? 0 : v) : String(v);
      case "boolean":
        this.bytes += 5;
        return v;
      case "bigint":
        return this.string(v.toString());
      case "undefined":
        if (inObject) return OMIT;
        this.bytes += 4;
        return null;
      case "function":
      case "symbol":
        return inObject ? OMIT : this.string(describe(v));
      default:
        if (v === null) {
          this.bytes += 4;
          return null;
        }
        return this.object(v as object, key, depth, inObject, true);
    }
  }

  private object(v: object, key: string | number, depth: number, inObject: boolean, toJSON: boolean): Out {
    const ancestors = this.ancestors;
    for (let i = 0; i < ancestors.length; i++) if (ancestors[i] === v) return this.mark("[Circular]");
    if (depth >= this.o.maxDepth) return this.mark("[MaxDepth]");
    ancestors.push(v);
    try {
      return this.container(v, key, depth + 1, inObject, toJSON);
    } catch (err) {
      // One guard per container, not per step: any throwing trap or accessor here marks this value only.
      return this.mark(unserializable(err));
    } finally {
      ancestors.pop();
    }
  }

  /** `depth` is the depth of v's children. */
  private container(v: object, key: string | number, depth: number, inObject: boolean, toJSON: boolean): Out {
    if (Array.isArray(v)) return this.array(v, depth, v.length);
    const proto: unknown = Object.getPrototypeOf(v);
    let type: string | undefined;
    // Plain objects (the hot path) skip the built-in brand checks.
    if (proto !== Object.prototype && proto !== null) {
      const own = summaryOf(v);
      if (own !== undefined) return this.summary(own);
      const special = this.builtin(v, depth);
      if (special !== undefined) return special;
      type = className(proto);
      const known = wellKnownSummary(v, type, this.o.redactor);
      if (known !== undefined) return this.summary(known);
    }
    if (toJSON) {
      const toJSONFn: unknown = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSONFn === "function") {
        // User code, like a getter: if it throws, the catch in object() marks this value.
        const result: unknown = toJSONFn.call(v, String(key));
        if (result === v) return this.container(v, key, depth, inObject, false);
        if (typeof result !== "object" || result === null) return this.value(result, key, depth - 1, inObject);
        return this.object(result, key, depth - 1, inObject, false);
      }
    }
    return this.record(v, depth, type);
  }

  private builtin(v: object, depth: number): JsonValue | undefined {
    if (ArrayBuffer.isView(v) || types.isAnyArrayBuffer(v)) return this.binary(v);
    if (types.isDate(v)) {
      return this.string(Number.isNaN(dateGetTime.call(v)) ? "Invalid Date" : dateToISOString.call(v));
    }
    if (types.isMap(v)) return this.map(v, depth);
    if (types.isSet(v)) return this.array(take(setValues.call(v), this.o.maxItems), depth, setSize.call(v));
    if (types.isRegExp(v)) return this.string(regExpToString.call(v));
    if (v instanceof URL) return this.string(redactUrl(v, this.o.redactor));
    if (types.isNativeError(v) || v instanceof Error) return this.error(v as Error, depth);
    if (types.isBoxedPrimitive(v)) return this.value(unbox(v), "", depth, false) as JsonValue;
    return undefined;
  }

  private array(v: ArrayLike<unknown>, depth: number, total: number): JsonValue[] {
    const n = Math.min(v.length, this.o.maxItems);
    const out: JsonValue[] = [];
    this.bytes += 2;
    // Header pairs, flat (undici's `["authorization", "Bearer …", …]`) or a pair alone: a list of even length.
    const pairs = total % 2 === 0;
    for (let i = 0; i < n; i++) {
      if (this.bytes >= this.o.maxBytes) {
        out.push(this.mark(LIMIT));
        return out;
      }
      let item: unknown;
      try {
        item = v[i];
      } catch (err) {
        out.push(this.mark(unserializable(err)));
        continue;
      }
      this.bytes += 1;
      out.push(this.value(item, i, depth, false) as JsonValue);
      if (pairs && (i & 1) === 0 && i + 1 < n && this.credentialName(item)) {
        // A header's name, in a pair `["Authorization", "Bearer …"]` or undici's flat list (fetch and undici take
        // headers so): the item after it is a credential, as under that key in an object, and is replaced unread. The
        // name is the one read above: read once, as JSON.stringify reads it, so a getter answering differently the
        // second time cannot slip a value by.
        this.bytes += 1;
        out.push(this.mark(REDACTED));
        i++;
      }
    }
    if (total > n) out.push(this.mark(`[+${total - n} more items]`));
    return out;
  }

  private record(v: object, depth: number, type: string | undefined): JsonObject {
    const keys = Object.keys(v);
    const out: JsonObject = {};
    this.bytes += 2;
    if (type !== undefined) this.put(out, "_type", this.mark(type));
    this.props(out, v, keys, depth);
    return out;
  }

  /** Copies `keys` of `v` into `out`; `total` counts keys beyond `keys` too (a Map's size), for the summary entry. */
  private props(out: JsonObject, v: object, keys: readonly string[], depth: number, total = keys.length): void {
    const n = Math.min(keys.length, this.o.maxItems);
    for (let i = 0; i < n; i++) {
      if (this.bytes >= this.o.maxBytes) {
        this.put(out, MORE, this.mark(LIMIT));
        return;
      }
      const k = keys[i]!;
      if (this.o.redactor.matches(k) && this.secretIn(v, k)) {
        this.put(out, k, this.mark(REDACTED));
        continue;
      }
      let item: unknown;
      try {
        item = (v as Record<string, unknown>)[k];
      } catch (err) {
        this.put(out, k, this.mark(unserializable(err)));
        continue;
      }
      const r = this.value(item, k, depth, true);
      if (r !== OMIT) this.put(out, k, r);
    }
    if (total > n) this.put(out, MORE, this.mark(`[+${total - n} more keys]`));
  }

  /**
   * Whether `name`, the first of a two-item list, is a credential key's name: a string, or a boxed one (recorded as
   * the string it holds, so `[new String("Authorization"), …]` reads as a header pair too).
   */
  private credentialName(name: unknown): boolean {
    if (typeof name === "object" && name !== null && types.isStringObject(name)) name = unbox(name);
    return typeof name === "string" && this.o.redactor.matches(name);
  }

  /** Whether `v[k]`, under a credential-like key, is a secret (a logprob's `token` is a word piece, not one). */
  private secretIn(v: object, k: string): boolean {
    return this.o.redactor.matchesIn(k, (sibling) => {
      try {
        return (v as Record<string, unknown>)[sibling];
      } catch {
        return undefined;
      }
    });
  }

  /** A summary (tracewire's own objects, well-known clients): already small, JSON-safe and secret-free. */
  private summary(s: object): JsonValue {
    const text = JSON.stringify(s);
    this.bytes += text.length;
    return JSON.parse(text) as JsonValue;
  }

  private put(out: JsonObject, key: string, value: JsonValue): void {
    const k = key.length > this.o.maxStringLength ? truncate(key, this.o.maxStringLength) : key;
    this.bytes += k.length + 4;
    // A plain assignment to "__proto__" would set the prototype instead of creating a key.
    if (k === "__proto__")
      Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  }

  private error(e: Error, depth: number): JsonObject {
    const out: JsonObject = {};
    this.bytes += 2;
    const fixed = ["name", "message", "stack"];
    if (Object.hasOwn(e, "cause")) fixed.push("cause");
    if (Object.hasOwn(e, "errors")) fixed.push("errors"); // AggregateError keeps these non-enumerable
    this.props(out, e, fixed, depth);
    this.props(out, e, Object.keys(e), depth);
    // Free text: no key says what a value is, so mask what looks like a credential (`Bearer …`, `key=…`, URLs). Not
    // only message and stack: a string `cause`, an SDK's `detail` or `body` quote a request as readily.
    for (const k of Object.keys(out)) {
      const text = out[k];
      if (typeof text !== "string") continue;
      const scrubbed = scrubText(text);
      if (scrubbed !== text) Object.defineProperty(out, k, { value: scrubbed }); // also for an own "__proto__" key
    }
    return out;
  }

  private map(v: Map<unknown, unknown>, depth: number): JsonValue {
    const entries = take(mapEntries.call(v), this.o.maxItems) as [unknown, unknown][];
    const size: number = mapSize.call(v);
    if (!entries.every((entry) => typeof entry[0] === "string")) {
      // As pairs, a credential key no longer sits where props() checks keys: its value is replaced here, unwalked.
      const redactor = this.o.redactor;
      const pairs = entries.map((entry) =>
        typeof entry[0] === "string" && redactor.matches(entry[0]) ? [entry[0], REDACTED] : entry,
      );
      return this.array(pairs, depth, size);
    }
    const record: Record<string, unknown> = Object.create(null);
    for (const [k, item] of entries) record[k as string] = item;
    const out: JsonObject = {};
    this.bytes += 2;
    this.props(out, record, Object.keys(record), depth, size);
    return out;
  }

  private binary(v: ArrayBufferView | ArrayBufferLike): JsonObject {
    let type: string;
    let length: number;
    let bytes: Uint8Array;
    if (ArrayBuffer.isView(v)) {
      const dataView = types.isDataView(v);
      type = nodeBuffer()?.isBuffer(v) ? "Buffer" : dataView ? "DataView" : typedArrayTag.call(v);
      length = dataView ? v.byteLength : (v as Uint8Array).length;
      bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength); // a view over the same memory, not a copy
    } else {
      type = types.isSharedArrayBuffer(v) ? "SharedArrayBuffer" : "ArrayBuffer";
      length = v.byteLength;
      bytes = new Uint8Array(v);
    }
    const max = this.o.maxBinaryBytes;
    const base64 = bytes.length > max ? `${toBase64(bytes.subarray(0, max))}…` : toBase64(bytes);
    this.bytes += type.length + base64.length + 40;
    return { _type: type, length, base64 };
  }

  private string(raw: string): string {
    const s = scrubString(raw, this.o.redactor);
    // Cut to whichever is smaller: the string limit or what is left of the payload budget.
    const room = Math.min(this.o.maxStringLength, this.o.maxBytes - this.bytes - 2);
    const r = s.length <= room ? s : truncate(s, Math.max(0, room));
    this.bytes += r.length + 2;
    return r;
  }

  private mark(marker: string): string {
    this.bytes += marker.length + 2;
    return marker;
  }
}
