/**
 * What an evaluation records of the user's data, and how — the same payload path as every call's
 * (tracing/payload.ts): the configured `redactKeys` and limits, then the `redact` hook, failing closed.
 *
 * - Rows, outputs and inputs are content: `preparePayload`, so nothing of them is recorded when `captureContent` is
 *   false. A published dataset row is then a placeholder with its position alone.
 * - Scores and the summary are verdicts: `redactPayload`, recorded whatever `captureContent` says; with it off they
 *   keep only their numbers, booleans and nulls (a judge's `reason` text is content), and the summary loses its
 *   `output` entry (the outputs' own summary).
 */
import type { JsonObject, JsonValue } from "../api/types/common.js";
import { REDACTED } from "../secrets.js";
import { payloadSettings, preparePayload, REDACTION_FAILED, redactPayload } from "../tracing/payload.js";
import { EVALUATE_OP } from "./objects.js";
import type { Row } from "./types.js";

/** The content of a dataset row published while `captureContent` is false. */
export const NOT_CAPTURED = "[not captured: captureContent is false]";

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);

/** `value` when it is a JSON object, else `{}` (a payload withheld or not captured has no fields to spread). */
export function asObject(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

/**
 * Row `index` as published in the dataset's table: the row as the model's inputs (`opName`: the model's, so the
 * hook treats the table's copy as it treats the model call's). A placeholder `{index, content}` when content capture
 * is off, or when the hook withheld the row (`content` is then the marker): each row keeps a digest of its own.
 */
export function rowValue(row: Row, index: number, opName: string): JsonObject {
  const json = preparePayload(row, "inputs", opName);
  if (json === undefined) return { index, content: NOT_CAPTURED };
  return isObject(json) ? json : { index, content: json };
}

/** What scorer `scorer` returned, as its call's output, its feedback and its entry in the row's scores. */
export function scoreValue(value: unknown, scorer: string): JsonValue {
  const json = redactPayload(value, "output", scorer);
  return payloadSettings().captureContent ? json : (verdicts(json) ?? null);
}

/** The evaluation's summary as its root (and `summarize`) call's output. */
export function summaryValue(summary: JsonObject): JsonValue {
  const { output: _outputs, ...scores } = summary;
  return redactPayload(payloadSettings().captureContent ? summary : scores, "output", EVALUATE_OP);
}

/** The numbers, booleans and nulls of a score (and tracewire's own markers); anything else is left out. */
function verdicts(json: JsonValue): JsonValue | undefined {
  if (json === null || typeof json === "number" || typeof json === "boolean") return json;
  if (typeof json === "string") return json === REDACTED || json === REDACTION_FAILED ? json : undefined;
  if (Array.isArray(json)) return json.map(verdicts).filter((v) => v !== undefined);
  const out: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(json)) {
    const kept = verdicts(value);
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}
