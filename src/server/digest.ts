/**
 * Content digests as the tracing service computes them (DESIGN Appendix A, reference/weave-anchor.md §1.1):
 * sha256, base64url, then `-` → `X`, `_` → `Y`, padding dropped. A JSON value is hashed as Python's `json.dumps`
 * would write it with sorted keys (`", "` and `": "` separators, non-ASCII escaped), so the vendor's SDKs, which
 * compute the same string, can check the digest the service answers.
 */
import { createHash } from "node:crypto";

/** The service's digest of raw bytes. */
export function bytesDigest(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("base64url").replace(/-/g, "X").replace(/_/g, "Y").replace(/=/g, "");
}

/** A JSON string literal as Python writes it (`ensure_ascii`: every non-ASCII code unit as `\uXXXX`). */
function pythonString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `json.dumps(value, sort_keys=True)` of a JSON value. */
export function pythonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pythonString(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : value > 0 ? "Infinity" : "NaN";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${pythonString(k)}: ${pythonDumps(v)}`).join(", ")}}`;
}

/** The digest of an object version's value or of one table row. */
export const valueDigest = (value: unknown): string => bytesDigest(pythonDumps(value));

/** A table's digest: the digest of its row digests, concatenated in order. */
export const tableDigest = (rowDigests: string[]): string => bytesDigest(rowDigests.join(""));
