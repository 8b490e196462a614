/**
 * Inputs and outputs on their way into a call: serialised once (tracing/serialize.ts, which also masks credential
 * keys), then passed through the user's `redact` hook, which fails closed — if it throws, the payload is replaced by
 * a marker and never sent raw. The settings are the active processor's payload options (otel/payload-options.ts).
 */
import { DEFAULT_PAYLOAD_SETTINGS, type PayloadSettings } from "../otel/payload-options.js";
import { globalState } from "../otel/state.js";
import { DEFAULT_SERIALIZE_OPTIONS, type JsonValue, type SerializeOptions, serialize } from "./serialize.js";
import { serializeShared } from "./serialize-shared.js";

export type { RedactHook } from "../otel/payload-options.js";

/** What replaces a payload whose `redact` hook threw. */
export const REDACTION_FAILED = "[redacted: the redact hook failed, payload withheld]";

// Room for the markers the first pass wrote (`…[truncated 123456 chars]`), so the pass after the hook keeps them.
const MARKER_ROOM = 64;

/** The payload settings in force: the active processor's, else the defaults. */
export function payloadSettings(): PayloadSettings {
  return globalState().active?.payload ?? DEFAULT_PAYLOAD_SETTINGS;
}

/**
 * Serialises and redacts one payload. Returns `undefined` when content capture is off. Never throws.
 *
 * `encodedNow`: the caller encodes the result before control returns to user code (a GenAI call's span, whose start
 * and end records are written inside `startSpan` and `end`). Without a `redact` hook the result may then be `value`
 * itself when it is already plain JSON within the limits (serialize-shared.ts): the same bytes, without the copy.
 */
export function preparePayload(
  value: unknown,
  kind: "inputs" | "output",
  opName: string,
  encodedNow = false,
): JsonValue | undefined {
  const settings = payloadSettings();
  if (!settings.captureContent) return undefined;
  if (!settings.redact) return encodedNow ? serializeShared(value, settings.limits) : serialize(value, settings.limits);
  return redactWith(settings, settings.redact, value, kind, opName);
}

/**
 * {@link preparePayload} whatever `captureContent` says, for what is recorded even when content is not: the limits
 * and credential keys, then the `redact` hook (failing closed). An evaluation's scores and the fields of the objects
 * it publishes (its Model's attributes, its metadata) go this way. Never throws.
 */
export function redactPayload(value: unknown, kind: "inputs" | "output", opName: string): JsonValue {
  const settings = payloadSettings();
  return settings.redact
    ? redactWith(settings, settings.redact, value, kind, opName)
    : serialize(value, settings.limits);
}

function redactWith(
  settings: PayloadSettings,
  redact: NonNullable<PayloadSettings["redact"]>,
  value: unknown,
  kind: "inputs" | "output",
  opName: string,
): JsonValue {
  const payload = serialize(value, settings.limits);
  try {
    const redacted = redact(payload, { kind, opName });
    // Returning nothing means "I edited it in place"; return null to record an explicit null. Either way the result
    // is serialized again (the hook may have put anything in it), with room for what the first pass already cut.
    return serialize(redacted === undefined ? payload : redacted, afterHook(settings.limits));
  } catch (err) {
    // The hook's message may quote the very data it was redacting: only its class is logged.
    globalState().active?.diagnostics.warn(
      "redact-failed",
      `The redact hook threw ${errorClass(err)} (message withheld); payload withheld.`,
    );
    return REDACTION_FAILED;
  }
}

function afterHook(limits: SerializeOptions): SerializeOptions {
  const d = DEFAULT_SERIALIZE_OPTIONS;
  return {
    ...limits,
    maxStringLength: (limits.maxStringLength ?? d.maxStringLength) + MARKER_ROOM,
    maxBytes: (limits.maxBytes ?? d.maxBytes) + 16 * MARKER_ROOM,
  };
}

/** `a TypeError`, `a string`: what was thrown, without its text. Never throws. */
export function errorClass(err: unknown): string {
  try {
    if (err instanceof Error) return /^[AEIOU]/.test(err.name) ? `an ${err.name}` : `a ${err.name}`;
  } catch {}
  return err === null ? "null" : `a ${typeof err}`;
}
