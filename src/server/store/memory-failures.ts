/** `descendant_failed` in the memory store: computed when read, from the children of each call. */
import type { StoredCall } from "./types.js";

/** The key of a call (or of a parent's children) in the memory store's maps. */
export const key = (project: string, id: string) => `${project}\u0000${id}`;

/**
 * Whether a started call below `id` failed, depth first without recursion (traces may be deep); `memo` keeps
 * what one read already knows.
 */
export function failedBelow(
  children: Map<string, Set<string>>,
  calls: Map<string, StoredCall>,
  project: string,
  id: string,
  memo: Map<string, boolean>,
): boolean {
  const known = memo.get(id);
  if (known !== undefined) return known;
  type Frame = { id: string; kids: string[]; next: number; failed: boolean };
  const onPath = new Set<string>();
  const stack: Frame[] = [];
  const enter = (at: string) => {
    onPath.add(at);
    stack.push({ id: at, kids: [...(children.get(key(project, at)) ?? [])], next: 0, failed: false });
  };
  enter(id);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.failed || top.next >= top.kids.length) {
      memo.set(top.id, top.failed);
      onPath.delete(top.id);
      stack.pop();
      if (top.failed && stack.length > 0) stack[stack.length - 1]!.failed = true;
      continue;
    }
    const child = top.kids[top.next++]!;
    const call = calls.get(key(project, child));
    if (!call) continue;
    if (call.exception !== null || memo.get(child) === true) top.failed = true;
    else if (!memo.has(child) && !onPath.has(child)) enter(child);
  }
  return memo.get(id)!;
}
