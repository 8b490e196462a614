/**
 * tracewire's own objects (processors, clients, queues, handles) describe themselves in a short, secret-free summary
 * wherever they could be read whole, so none of them is ever serialised into a trace or a log line.
 */

/** Marks tracewire's own objects: the serializer records `obj[SUMMARY]()` and reads nothing else of them. */
export const SUMMARY: unique symbol = Symbol.for("tracewire.summary.v1") as never;

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** The short, secret-free description of one of tracewire's own objects. */
export type Summary = { _type: string } & Record<string, string | number | boolean | undefined>;

/**
 * Makes instances of `cls` describe themselves as `{_type: name, ...fields(instance)}` wherever they could be read
 * whole: the serializer (traced inputs and outputs), `JSON.stringify` and `util.inspect` / `console.log`. Nothing
 * reachable from them — options, API keys, queues, encoding buffers — is ever walked. `fields` must not throw and must
 * return nothing secret; a base URL is fine, an API key is not.
 */
export function describeAs<T extends object>(
  cls: { prototype: T },
  name: string,
  fields: (self: T) => Record<string, string | number | boolean | undefined> = () => ({}),
): void {
  describeObjectAs(cls.prototype as object, name, fields as (self: object) => Record<string, never>);
}

/** {@link describeAs} for one object (a handle built as a literal) or a prototype. */
export function describeObjectAs<T extends object>(
  target: T,
  name: string,
  fields: (self: T) => Record<string, string | number | boolean | undefined> = () => ({}),
): void {
  function summary(this: T): Summary {
    try {
      return { _type: name, ...fields(this) };
    } catch {
      return { _type: name };
    }
  }
  const hidden = { configurable: true, writable: true, enumerable: false } as const;
  Object.defineProperties(target, {
    [SUMMARY]: { ...hidden, value: summary },
    toJSON: { ...hidden, value: summary },
    [INSPECT]: { ...hidden, value: summary },
  });
}

/** The summary of one of tracewire's own objects, or undefined for anything else. Never throws. */
export function summaryOf(value: object): Summary | undefined {
  try {
    const describe = (value as { [SUMMARY]?: unknown })[SUMMARY];
    return typeof describe === "function" ? (describe.call(value) as Summary) : undefined;
  } catch {
    return undefined;
  }
}
