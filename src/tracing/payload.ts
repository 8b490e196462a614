/**
 * Inputs and outputs on their way into a call: serialised once (tracing/serialize.ts), then passed through the
 * user's `redact` hook, which fails closed — if it throws, the payload is replaced by a marker and never sent raw.
 */
import { describeError } from "../otel/diagnostics.js";
import { globalState } from "../otel/state.js";
import { type JsonValue, serialize } from "./serialize.js";

/** What replaces a payload whose `redact` hook threw. */
export const REDACTION_FAILED = "[redacted: the redact hook failed, payload withheld]";

/**
 * Your redaction hook: receives a fresh JSON-safe copy — edit it in place (and return nothing) or return a new value —
 * and says where it comes
 * from. Return the payload to record. If it throws, the payload is withheld.
 */
export type RedactHook = (payload: JsonValue, context: { kind: "inputs" | "output"; opName: string }) => unknown;

/** Serialises and redacts one payload. Returns `undefined` when content capture is off. Never throws. */
export function preparePayload(value: unknown, kind: "inputs" | "output", opName: string): JsonValue | undefined {
  const state = globalState();
  const settings = state.payload;
  if (!settings.captureContent) return undefined;
  const payload = serialize(value, settings.limits);
  if (!settings.redact) return payload;
  try {
    const redacted = settings.redact(payload, { kind, opName });
    // Returning nothing means "I edited it in place"; return null to record an explicit null.
    return serialize(redacted === undefined ? payload : redacted, settings.limits);
  } catch (err) {
    state.active?.diagnostics.warn("redact-failed", `The redact hook threw (${describeError(err)}); payload withheld.`);
    return REDACTION_FAILED;
  }
}
