/**
 * The copy-free path of the serializer, for a payload that is encoded before any user code runs again (a GenAI
 * call's request and answer, encoded at the span's start and end). Most of them are already JSON: an object literal
 * of strings and numbers, or what the SDK's `JSON.parse` made. For those, copying the tree (serialize.ts) only to
 * `JSON.stringify` the copy costs a keyed store and an allocation per property, for the same bytes.
 *
 * {@link plainEnough} walks the value the way the serializer's `Walker` would, with the same limits and the same byte
 * accounting, reading each property once and writing nothing. It says yes only when the serializer would return an
 * exact copy: plain objects and arrays, finite numbers, strings that no limit cuts and no scrub changes (secrets.ts
 * `scrubString`: a URL's password, a private key block), no credential-like key, no cycle, no `toJSON`, nothing JSON
 * would drop or rewrite in an array. Anything else takes the copying path, so what is recorded is byte for byte what
 * the copy would give.
 */
import { scrubString } from "../secrets.js";
import type { JsonValue, SerializeOptions } from "./serialize.js";
import { resolveSerializeOptions, serialize } from "./serialize.js";

/**
 * {@link serialize}, but `value` itself when the serializer would return an exact copy of it. The result may share
 * objects with the caller's value: use it only to encode (JSON) before control returns to user code, and never hand
 * it to code that mutates it (a `redact` hook). Never throws.
 */
export function serializeShared(value: unknown, options?: SerializeOptions): JsonValue {
  try {
    if (plainEnough(value, options)) return value as JsonValue;
  } catch {
    // A getter or a Proxy trap threw: the serializer marks exactly that.
  }
  return serialize(value, options);
}

/** Whether `serialize(value, options)` would be an exact copy of `value` (see the module comment). */
export function plainEnough(value: unknown, options?: SerializeOptions): boolean {
  const o = resolveSerializeOptions(options);
  const ancestors: object[] = [];
  let bytes = 0;

  const check = (v: unknown, depth: number, inObject: boolean): boolean => {
    if (bytes >= o.maxBytes) return false;
    switch (typeof v) {
      case "string": {
        const room = Math.min(o.maxStringLength, o.maxBytes - bytes - 2);
        if (v.length > room || scrubString(v, o.redactor) !== v) return false;
        bytes += v.length + 2;
        return true;
      }
      case "number":
        bytes += 8;
        return Number.isFinite(v);
      case "boolean":
        bytes += 5;
        return true;
      case "undefined":
        // Dropped from an object (no bytes), null in an array: JSON does the same.
        if (!inObject) bytes += 4;
        return true;
      case "object":
        if (v === null) {
          bytes += 4;
          return true;
        }
        return container(v, depth);
      default:
        // A function or symbol is dropped from an object by both; bigint, and a function in an array, are rewritten.
        return inObject && (typeof v === "function" || typeof v === "symbol");
    }
  };

  const container = (v: object, depth: number): boolean => {
    for (let i = 0; i < ancestors.length; i++) if (ancestors[i] === v) return false;
    if (depth >= o.maxDepth) return false;
    ancestors.push(v);
    const ok = Array.isArray(v) ? array(v, depth + 1) : record(v, depth + 1);
    ancestors.pop();
    return ok;
  };

  const array = (v: readonly unknown[], depth: number): boolean => {
    // JSON calls an array's own toJSON; the copy does not.
    if (v.length > o.maxItems || typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
    bytes += 2;
    for (let i = 0; i < v.length; i++) {
      if (bytes >= o.maxBytes) return false;
      bytes += 1;
      const item = v[i];
      // A header's name in a list of even length (a pair, or undici's flat list): the serializer masks the item after
      // it (the name is read once).
      if ((i & 1) === 0 && (v.length & 1) === 0 && typeof item === "string" && o.redactor.matches(item)) return false;
      if (!check(item, depth, false)) return false;
    }
    return true;
  };

  const record = (v: object, depth: number): boolean => {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    if (typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
    const keys = Object.keys(v);
    if (keys.length > o.maxItems) return false;
    bytes += 2;
    for (let i = 0; i < keys.length; i++) {
      if (bytes >= o.maxBytes) return false;
      const k = keys[i]!;
      if (k.length > o.maxStringLength || o.redactor.matches(k)) return false;
      const item = (v as Record<string, unknown>)[k];
      if (!check(item, depth, true)) return false;
      // What the copy's put() counts for a key it keeps.
      if (item !== undefined && typeof item !== "function" && typeof item !== "symbol") bytes += k.length + 4;
    }
    return true;
  };

  return check(value, 0, false);
}
