/**
 * A per-key cache for attribute encoding, shared by the protobuf and JSON encoders. For each attribute key it keeps
 * the key's encoded form, the value the key had last time (a primitive of bounded size), and — once that value
 * repeats — the whole encoded key/value pair. Instrumentations use a small fixed set of keys, and many values repeat
 * span after span (operation, provider, model, server address), so most attributes become one copy of cached bytes;
 * values that change every time (ids, token counts) only pay a comparison. Bounded: at most `MAX_KEYS` keys (later
 * keys are not cached) and no key or string value longer than the limits below is held (nor the string a kept value
 * was sliced from).
 *
 * It is also where a span's attributes get their exit check for credentials (otel/span-redact.ts says what is
 * masked): a key's verdict (credential key or not) is kept with its entry, and a string value is checked (secrets.ts
 * `scrubString`: a URL's password, a private key block) only when it differs from the key's last value — a cached
 * pair is the encoding of the value as it may leave the process.
 */

import { describeAs } from "../own-objects.js";
import { type KeyRedactor, knownSecrets, REDACTED, scrubString } from "../secrets.js";

/** What is cached for one attribute key. */
export interface KeyEntry {
  /** The key itself. */
  readonly name: string;
  /** The key, encoded (protobuf: the `KeyValue.key` field; JSON: `{"key":"…","value":`). */
  readonly key: Uint8Array;
  /** The value last seen for this key, or `NO_VALUE`. */
  value: unknown;
  /** The whole encoded pair for `value` as it is written (masked when it must be), once it has repeated. */
  pair: Uint8Array | undefined;
  /** The redactor `value`, `pair` and `secret` were decided with (undefined: values are written unchecked). */
  redactor: KeyRedactor | undefined;
  /** Whether `redactor` says this key holds a credential (every value written as `REDACTED`). */
  secret: boolean;
  /** The known secrets `pair` was checked against: a value cached before its secret became known is checked again. */
  known: readonly string[] | undefined;
}

const MAX_KEYS = 1024;
const MAX_KEY_LENGTH = 128;
const MAX_VALUE_LENGTH = 256;
/** A last value that matches nothing: objects (arrays) and long strings are never held. */
const NO_VALUE = Symbol("no value");

export class AttributeCache {
  private readonly entries = new Map<string, KeyEntry>();

  constructor(
    private readonly encodeKey: (key: string) => Uint8Array,
    private readonly encodePair: (entry: KeyEntry, value: unknown) => Uint8Array,
  ) {}

  /** The entry of `key`; undefined when the key is not cached (too long, or the cache is full). */
  entry(key: string): KeyEntry | undefined {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (this.entries.size >= MAX_KEYS || key.length > MAX_KEY_LENGTH) return undefined;
      entry = {
        name: key,
        key: this.encodeKey(key),
        value: NO_VALUE,
        pair: undefined,
        redactor: undefined,
        secret: false,
        known: undefined,
      };
      this.entries.set(key, entry);
    }
    return entry;
  }

  /**
   * The encoded pair when `value` is the entry's last value (encoded on its first repeat); otherwise remembers
   * `value` as the last one and returns undefined (the caller writes {@link maskedValue} itself). With a
   * `redactor`, the pair holds the masked value.
   */
  pair(entry: KeyEntry, value: unknown, redactor?: KeyRedactor): Uint8Array | undefined {
    if (entry.redactor !== redactor) {
      // Decided with another redactor (or none): decide again, and forget what was written under the old verdict.
      entry.redactor = redactor;
      entry.secret = redactor?.matches(entry.name) === true;
      entry.value = NO_VALUE;
      entry.pair = undefined;
    }
    // Every value of a credential key is written the same way: compare the masked value, not the secret.
    const seen = entry.secret ? REDACTED : value;
    if (entry.value === seen) {
      const known = knownSecrets();
      if (entry.known !== known) {
        entry.known = known;
        entry.pair = undefined;
      }
      entry.pair ??= this.encodePair(entry, maskedValue(entry, value));
      return entry.pair;
    }
    entry.value = remembered(seen);
    entry.pair = undefined;
    return undefined;
  }
}

/** `value` as it is written under `entry`'s verdict (after {@link AttributeCache.pair} decided it). */
export function maskedValue(entry: KeyEntry, value: unknown): unknown {
  if (entry.secret) return REDACTED;
  return entry.redactor !== undefined ? scrubAttributeValue(value, entry.redactor) : value;
}

/** `value` under `key` as it is written, for a key the cache does not hold. */
export function maskedUncached(key: string, value: unknown, redactor: KeyRedactor | undefined): unknown {
  if (redactor === undefined) return value;
  if (redactor.matches(key)) return REDACTED;
  return scrubAttributeValue(value, redactor);
}

/**
 * An attribute value with its strings checked (secrets.ts `scrubString`): a string, or each string of an array
 * (`string[]`: the AI SDK's `ai.prompt.tools` is JSON text per tool), and in a list of even length the item after
 * a header's name masked (a pair `["Authorization", "Bearer …"]`, or undici's flat list); `value` itself when nothing
 * was masked.
 */
export function scrubAttributeValue(value: unknown, redactor: KeyRedactor): unknown {
  if (typeof value === "string") return scrubString(value, redactor);
  if (!Array.isArray(value)) return value;
  const pairs = (value.length & 1) === 0;
  let copy: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== "string") continue;
    const scrubbed = scrubString(item, redactor);
    if (scrubbed !== item) {
      copy ??= value.slice();
      copy[i] = scrubbed;
    }
    if (pairs && (i & 1) === 0 && redactor.matches(item)) {
      // A header's name, as in a payload (tracing/serialize.ts): the item after it is masked.
      const next: unknown = value[++i];
      if (next === REDACTED || next === null || next === undefined) continue;
      copy ??= value.slice();
      copy[i] = REDACTED;
    }
  }
  return copy ?? value;
}

/**
 * What an entry may keep of a value. A string longer than 12 characters is copied: it may be a slice of a far
 * larger string (an SDK-truncated prompt, a `substring`), which V8 keeps whole for as long as the slice lives.
 * (" " + s).slice(1) makes V8 flatten a copy of just these characters.
 */
function remembered(value: unknown): unknown {
  if (typeof value === "object") return NO_VALUE;
  if (typeof value !== "string" || value.length <= 12) return value;
  return value.length > MAX_VALUE_LENGTH ? NO_VALUE : ` ${value}`.slice(1);
}

// Recorded, logged or inspected as a short summary: nothing inside it (keys, queues, buffers) is ever read.
describeAs(AttributeCache, "AttributeCache");
