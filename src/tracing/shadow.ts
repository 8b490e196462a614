/**
 * Shadowing one object's members in place, so a caller keeps the very same object while tracewire watches it: op()
 * (observe.ts) and the GenAI stream watching (genai/stream-tap.ts) both do it this way.
 */

/** A method read off an object, called with `Reflect.apply`. */
export type Method = (...args: unknown[]) => unknown;

/** Defines an own, non-enumerable, writable property (shadowing a prototype method on one instance). */
export function defineOwn(target: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, { value, configurable: true, writable: true, enumerable: false });
}

/**
 * Replaces `target[key]` on that one object with `value`. An own writable data property (the openai Stream's
 * `iterator`, an APIPromise's `parseResponse`, the `next`, `throw` and `return` that tslib's `__asyncGenerator` puts on
 * its iterators) is redefined in place, so it keeps its attributes and the object its keys; anything else is shadowed
 * by {@link defineOwn}.
 *
 * Never by assignment: V8 (Node 20 to 24) kept every closure assigned into such a field alive, with all it reaches,
 * across young-generation GCs, while the same value redefined is not. For `parseResponse` that promoted ~8 KB per call
 * and cost a third of `wrapOpenAI`'s CPU (bench/NOTES.md, "#28 — the closure stored by assignment").
 */
export function replaceOwn(target: object, key: PropertyKey, value: unknown): void {
  const own = Object.getOwnPropertyDescriptor(target, key);
  if (own !== undefined && own.writable === true) Object.defineProperty(target, key, { value });
  else defineOwn(target, key, value);
}

/**
 * Shadows `target[key]`, an iterator factory (`factory` is its current value), so that the first object it hands out
 * is passed to `onFirst` before the caller gets it; later iterators pass through untouched. What `onFirst` returns,
 * if an object, is handed out in its place (an observing iterator: nobody held the new one yet).
 */
export function tapFirstIterator(
  target: Record<PropertyKey, unknown>,
  key: PropertyKey,
  factory: Method,
  onFirst: (iterator: Record<PropertyKey, unknown>) => object | undefined | void,
): void {
  let claimed = false;
  const observed = function (this: unknown, ...args: unknown[]): unknown {
    const iterator = Reflect.apply(factory, this, args);
    if (!claimed && iterator !== null && typeof iterator === "object") {
      claimed = true;
      try {
        const instead = onFirst(iterator as Record<PropertyKey, unknown>);
        if (instead !== null && typeof instead === "object") return instead;
      } catch {
        // An iterator we cannot observe (frozen, say) is still the consumer's to use: never throw into it.
      }
    }
    return iterator;
  };
  replaceOwn(target, key, observed);
}
