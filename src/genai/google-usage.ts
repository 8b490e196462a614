/**
 * Gemini token usage (`usageMetadata`) across the model requests of one call. A `generateContent` call with
 * automatic function calling makes one request per round and returns the last round's response, whose usage covers
 * that round only; what the call used in all is kept beside the answer here, for the call format to record.
 */
import { isNum, isObj, type Obj } from "./guards.js";

/** The token counts of `usageMetadata` that add up over requests. */
const USAGE_COUNTS = [
  "promptTokenCount",
  "candidatesTokenCount",
  "cachedContentTokenCount",
  "thoughtsTokenCount",
  "toolUsePromptTokenCount",
  "totalTokenCount",
] as const;

/** `total` plus the counts of `usage` (into a fresh object when `total` is undefined); `total` when `usage` is none. */
export function addUsage(total: Obj | undefined, usage: unknown): Obj | undefined {
  if (!isObj(usage)) return total;
  const sum: Obj = total ?? {};
  for (const key of USAGE_COUNTS) {
    const value = usage[key];
    if (isNum(value)) sum[key] = (isNum(sum[key]) ? sum[key] : 0) + value;
  }
  return sum;
}

/** What the call that produced an answer used in all, when that differs from the answer's own `usageMetadata`. */
const totalUsage = new WeakMap<object, Obj>();

/** Records that the call which produced `answer` used `usage` in all. */
export function setTotalUsage(answer: unknown, usage: Obj): void {
  if (isObj(answer)) totalUsage.set(answer, usage);
}

/** The usage to record for `answer`: the call's total when one was set, else the answer's own `usageMetadata`. */
export function usageOf(answer: Obj): unknown {
  return totalUsage.get(answer) ?? answer.usageMetadata;
}
