/**
 * Reading a call tree back from the tracing double (tracing-double.ts), as the framework and AI SDK tests do: every
 * call started and ended exactly once, calls by op name or parent in start order, a call's summary.
 */
import { expect } from "vitest";
import type { StoredCall, TracingDouble } from "./tracing-double.js";

/** A stored call with both halves present (what {@link endedOnce} checks). */
export type Recorded = StoredCall & { start: Record<string, unknown>; end: Record<string, unknown> };

/** Every call of the double, each started and ended exactly once (fails otherwise). */
export function endedOnce(double: Pick<TracingDouble, "calls">): Recorded[] {
  const calls = [...double.calls.values()];
  for (const call of calls) {
    expect(call.starts, `starts of ${String(call.start?.op_name)}`).toBe(1);
    expect(call.ends, `ends of ${String(call.start?.op_name)}`).toBe(1);
  }
  return calls as Recorded[];
}

/** Flushes the session's tracing, then {@link endedOnce}. */
export async function recorded(session: {
  tracing: { flush(): Promise<void> };
  double: Pick<TracingDouble, "calls">;
}): Promise<Recorded[]> {
  await session.tracing.flush();
  return endedOnce(session.double);
}

const byStart = (a: Recorded, b: Recorded) =>
  String(a.start.started_at).localeCompare(String(b.start.started_at)) || (a.startSeq ?? 0) - (b.startSeq ?? 0);

/** The calls named `opName` (under `parent` when given), in start order. */
export function named(calls: Recorded[], opName: string, parent?: Recorded): Recorded[] {
  return calls
    .filter((c) => c.start.op_name === opName && (!parent || c.start.parent_id === parent.start.id))
    .sort(byStart);
}

/** The one call named `opName` (under `parent` when given); fails when there is not exactly one. */
export function one(calls: Recorded[], opName: string, parent?: Recorded): Recorded {
  const found = named(calls, opName, parent);
  expect(found, `calls named ${opName}`).toHaveLength(1);
  return found[0] as Recorded;
}

/** The children of `parent`, in start order. */
export function childrenOf(calls: Recorded[], parent: Recorded): Recorded[] {
  return calls.filter((c) => c.start.parent_id === parent.start.id).sort(byStart);
}

/** The call's end summary (empty when it has none). */
export function summaryOf(call: Recorded): Record<string, unknown> {
  return (call.end.summary ?? {}) as Record<string, unknown>;
}
