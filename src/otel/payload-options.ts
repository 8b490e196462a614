/**
 * How traced inputs and outputs become payloads: whether they are recorded, the user's `redact` hook, the credential
 * keys redacted before it, and the size limits. Processor options (so a `TracewireSpanProcessor` in the app's own
 * provider honours them exactly as `init()` does), resolved once, with the environment, in the constructor.
 */
import type { JsonValue } from "../api/types/common.js";
import { type Env, kindOf, readBoolean, readNumber } from "../config.js";
import { ConfigError } from "../errors.js";
import { DEFAULT_REDACT_KEYS, DEFAULT_REDACTOR, KeyRedactor } from "../secrets.js";

/**
 * Your redaction hook: receives a fresh JSON-safe copy — edit it in place (and return nothing) or return a new value —
 * and says where it comes from. Return the payload to record. If it throws, the payload is withheld. Credential keys
 * (`redactKeys`) are already `"REDACTED"` when it runs.
 */
export type RedactHook = (payload: JsonValue, context: { kind: "inputs" | "output"; opName: string }) => unknown;

/** Payload options, shared by `init()` and {@link TracewireSpanProcessor}. */
export interface PayloadOptions {
  /** Record inputs and outputs (and GenAI message content). Env `TRACEWIRE_CAPTURE_CONTENT`. Default true. */
  captureContent?: boolean;
  /** Redacts every payload before it is queued; if it throws, the payload is withheld (fails closed). */
  redact?: RedactHook;
  /**
   * Keys whose values are replaced by `"REDACTED"` in inputs, outputs, call attributes and span attributes, before
   * `redact` runs. A key matches an entry when, ignoring case, `-` and `_`, it equals the entry or ends with it.
   * Replaces the default list (`DEFAULT_REDACT_KEYS`): spread it to extend it, pass `[]` to record every value.
   * Env `TRACEWIRE_REDACT_KEYS` (comma-separated; adds to the defaults).
   */
  redactKeys?: readonly string[];
  /** Longest string kept in a payload before truncation with a visible marker. Default 100000. */
  maxStringLength?: number;
  /** Approximate size limit of one payload in bytes. Default 1 MiB. */
  maxPayloadBytes?: number;
}

/** Resolved payload settings: what `op()` and the GenAI instrumentation read from the active processor. */
export interface PayloadSettings {
  /** Record inputs and outputs at all. */
  captureContent: boolean;
  /** The user's hook; fails closed (see tracing/payload.ts). */
  redact: RedactHook | undefined;
  /** Which keys hold credentials. */
  redactor: KeyRedactor;
  /** Serializer limits (`SerializeOptions` of tracing/serialize.ts). */
  limits: { maxStringLength?: number; maxBytes?: number; redactor: KeyRedactor };
}

/** The settings in force when no processor is: content on, default redaction, default limits. */
export const DEFAULT_PAYLOAD_SETTINGS: PayloadSettings = Object.freeze({
  captureContent: true,
  redact: undefined,
  redactor: DEFAULT_REDACTOR,
  limits: Object.freeze({ redactor: DEFAULT_REDACTOR }),
});

/** Resolves the payload options; throws {@link ConfigError} naming the first bad one. */
export function resolvePayloadOptions(options: PayloadOptions, env: Env): PayloadSettings {
  const captureContent =
    readBoolean("captureContent", "TRACEWIRE_CAPTURE_CONTENT", options.captureContent, env) ?? true;
  if (options.redact !== undefined && typeof options.redact !== "function") {
    throw new ConfigError("redact", kindOf(options.redact), "a function (payload, context) => payload");
  }
  const redactor = readRedactKeys(options.redactKeys, env.TRACEWIRE_REDACT_KEYS);
  const maxStringLength = readNumber("maxStringLength", undefined, options.maxStringLength, env, {
    min: 16,
    integer: true,
  });
  const maxBytes = readNumber("maxPayloadBytes", undefined, options.maxPayloadBytes, env, { min: 256, integer: true });
  return {
    captureContent,
    redact: options.redact,
    redactor,
    // Frozen: the serializer then resolves it once, not per payload.
    limits: Object.freeze({
      redactor,
      ...(maxStringLength !== undefined && { maxStringLength }),
      ...(maxBytes !== undefined && { maxBytes }),
    }),
  };
}

function readRedactKeys(value: unknown, fromEnv: string | undefined): KeyRedactor {
  const extra = (fromEnv ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key !== "");
  if (value === undefined)
    return extra.length === 0 ? DEFAULT_REDACTOR : new KeyRedactor([...DEFAULT_REDACT_KEYS, ...extra]);
  if (!Array.isArray(value) || !value.every((key) => typeof key === "string")) {
    throw new ConfigError(
      "redactKeys",
      kindOf(value),
      'an array of key names, e.g. [...DEFAULT_REDACT_KEYS, "ssn"] (or [] to turn key redaction off)',
    );
  }
  return new KeyRedactor([...value, ...extra]);
}
