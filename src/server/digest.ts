/**
 * Content digests as the tracing service computes them (the vendor's `weave/shared/digest.py`; DESIGN Appendix A,
 * reference/weave-anchor.md §1.1), so that refs `tracewire dev` hands out equal the ones the vendor's SDKs and the
 * hosted service compute:
 *
 * - bytes (a file): sha256, base64url, then `-` → `X`, `_` → `Y`, padding dropped;
 * - a JSON value (an object version, an op, a table row): the bytes digest of `json.dumps(value, sort_keys=True)`
 *   of the value as Python read it from the request (python-json.ts: `1.0` stays `1.0`, big integers keep their
 *   digits, non-ASCII is escaped);
 * - a table: the **hex** sha256 of its row digests concatenated in order.
 */
import { createHash } from "node:crypto";
import { pythonDumps } from "./python-json.js";

/** The service's digest of raw bytes (files; and the UTF-8 text of a value, below). */
export function bytesDigest(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("base64url").replace(/-/g, "X").replace(/_/g, "Y").replace(/=/g, "");
}

/**
 * The digest of an object version's value or of one table row. Pass the value as parsed with `keepNumbers`
 * (python-json.ts) so that its numbers are digested as the request wrote them.
 */
export const valueDigest = (value: unknown): string => bytesDigest(pythonDumps(value));

/** A table's digest: the hex sha256 of its row digests, concatenated in order (empty table: the hash of nothing). */
export function tableDigest(rowDigests: readonly string[]): string {
  const hash = createHash("sha256");
  for (const digest of rowDigests) hash.update(digest);
  return hash.digest("hex");
}
