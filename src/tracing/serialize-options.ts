/**
 * The serializer's limits (serialize.ts): what a caller may set, the defaults, and how a settings object resolves to
 * the limits one walk uses.
 */
import { DEFAULT_REDACTOR, type KeyRedactor } from "../secrets.js";

/** Limits that bound the work and the output size. Negative or non-numeric values fall back to the default. */
export interface SerializeOptions {
  /** Longest string kept, in UTF-16 code units; longer ones are cut and end with `…[truncated N chars]`. */
  maxStringLength?: number;
  /** Containers nested deeper than this become `"[MaxDepth]"`. Capped at 500 to stay clear of the stack limit. */
  maxDepth?: number;
  /** Items kept per array / Set / Map and keys per object; then `"[+N more items]"` / `"…": "[+N more keys]"`. */
  maxItems?: number;
  /**
   * Approximate output budget in bytes (string lengths plus JSON punctuation; non-ASCII counts one per code unit),
   * tracked while walking: a string is cut to what is left, and once it is spent each open container ends with one
   * `"[Truncated: payload limit]"` entry (under the `"…"` key in objects) and no further input is read.
   */
  maxBytes?: number;
  /** Bytes of a Buffer / typed array / ArrayBuffer / DataView previewed as base64. */
  maxBinaryBytes?: number;
  /**
   * Which keys hold credentials: their values become `"REDACTED"` without being read. Default: the
   * `DEFAULT_REDACT_KEYS` list (secrets.ts); a `KeyRedactor` of `[]` records every value.
   */
  redactor?: KeyRedactor;
}

/** Defaults: 100_000 chars per string, depth 64, 1000 items per container, 1 MiB per payload, 64 binary bytes. */
export const DEFAULT_SERIALIZE_OPTIONS: Readonly<Required<SerializeOptions>> = Object.freeze({
  maxStringLength: 100_000,
  maxDepth: 64,
  maxItems: 1000,
  maxBytes: 1024 * 1024,
  maxBinaryBytes: 64,
  redactor: DEFAULT_REDACTOR,
});

// Recursion is depth-capped rather than iterative (much cheaper on the hot path); this ceiling keeps it clear of the
// stack limit whatever maxDepth says. Each level is five frames: 1000 levels overflowed a cold process's default
// stack (measured: 997 levels, then a marker); 500 levels still fit under ~3,000 frames of the caller's own stack.
const HARD_MAX_DEPTH = 500;

/** The options object last resolved, and what it resolved to: callers pass the same settings object call after call. */
let lastOptions: SerializeOptions | undefined;
let lastResolved: Required<SerializeOptions> = DEFAULT_SERIALIZE_OPTIONS;

/** The limits `options` stand for, defaults filled in (the same object for the same frozen options). */
export function resolveSerializeOptions(options: SerializeOptions | undefined): Required<SerializeOptions> {
  if (options === undefined) return DEFAULT_SERIALIZE_OPTIONS;
  // Only a frozen object can be reused as is: another may have changed since.
  if (options === lastOptions) return lastResolved;
  const resolved = resolveAfresh(options);
  if (Object.isFrozen(options)) {
    lastOptions = options;
    lastResolved = resolved;
  }
  return resolved;
}

function resolveAfresh(options: SerializeOptions): Required<SerializeOptions> {
  const d = DEFAULT_SERIALIZE_OPTIONS;
  return {
    maxStringLength: limit(options.maxStringLength, d.maxStringLength),
    maxDepth: Math.min(limit(options.maxDepth, d.maxDepth), HARD_MAX_DEPTH),
    maxItems: limit(options.maxItems, d.maxItems),
    maxBytes: limit(options.maxBytes, d.maxBytes),
    maxBinaryBytes: limit(options.maxBinaryBytes, d.maxBinaryBytes),
    redactor: options.redactor ?? d.redactor,
  };
}

function limit(value: unknown, fallback: number): number {
  return typeof value === "number" && value >= 0 ? Math.floor(value) : fallback;
}
