/** Values the service derives from a call's own fields, computed once when the call is written. */
import { parseRef, REF_PREFIX } from "../../api/refs.js";
import type { JsonObject } from "../../api/types/common.js";

/** `summary.weave.trace_name`: the display name, else the op's name (the name in a `weave:///…/op/name:digest`). */
export function traceName(call: { display_name: string | null; op_name: string | null }): string | null {
  if (call.display_name) return call.display_name;
  const op = call.op_name;
  if (op?.startsWith(REF_PREFIX)) {
    try {
      return parseRef(op).name ?? op;
    } catch {
      return op;
    }
  }
  return op;
}

/** Whether the summary a client sent counts failed calls below this one (`status_counts.error` > 0). */
export function summaryFailed(summary: JsonObject | null | undefined): boolean {
  const counts = summary?.status_counts as { error?: unknown } | undefined;
  return Number(counts?.error ?? 0) > 0;
}
