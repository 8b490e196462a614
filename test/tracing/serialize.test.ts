import { Buffer } from "node:buffer";
import { types } from "node:util";
import { describe, expect, it } from "vitest";
import { DEFAULT_REDACTOR } from "../../src/secrets.js";
import {
  DEFAULT_SERIALIZE_OPTIONS,
  type JsonValue,
  serialize,
  serializeToJson,
  serializeWithSize,
} from "../../src/tracing/serialize.js";

const LIMIT = "[Truncated: payload limit]";

/** A chain `{ c: { c: ... } }` (or `[[...]]`) `levels` deep, built without recursion. */
function nested(levels: number, kind: "object" | "array", leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = kind === "object" ? { c: v } : [v];
  return v;
}

/** How many containers deep a serialized `{c: ...}` / `[...]` chain goes, and what sits at the bottom. */
function measure(v: unknown): { levels: number; leaf: unknown } {
  let levels = 0;
  while (typeof v === "object" && v !== null) {
    v = Array.isArray(v) ? v[0] : (v as { c: unknown }).c;
    levels++;
  }
  return { levels, leaf: v };
}

/** The message a revoked Proxy gives when asked whether it is an array (engine wording, so read it, not guess it). */
function revokedMessage(): string {
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  try {
    Array.isArray(proxy);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("a revoked Proxy should throw");
}

/**
 * A fingerprint of everything observable about `root` without running its code: own property descriptors (getters
 * are not called), prototypes' identity, extensibility, Map/Set/Date/binary contents. Iterative, for deep inputs.
 */
function snapshot(root: unknown): string {
  const seen = new Map<object, number>();
  const parts: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if ((typeof v !== "object" && typeof v !== "function") || v === null) {
      parts.push(typeof v === "string" ? `s${v.length}:${v.slice(0, 32)}` : `${typeof v}:${String(v)}`);
      continue;
    }
    if (seen.has(v)) {
      parts.push(`@${seen.get(v)}`);
      continue;
    }
    seen.set(v, seen.size);
    if (types.isProxy(v)) {
      parts.push("proxy");
      continue;
    }
    parts.push(`{${Object.isExtensible(v)}:${Object.isFrozen(v)}`);
    stack.push(Object.getPrototypeOf(v));
    if (types.isDate(v)) parts.push(String(v.getTime()));
    if (types.isMap(v)) for (const [k, x] of Map.prototype.entries.call(v)) stack.push(k, x);
    if (types.isSet(v)) for (const x of Set.prototype.values.call(v)) stack.push(x);
    if (ArrayBuffer.isView(v)) parts.push(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64"));
    for (const k of Reflect.ownKeys(v)) {
      const d = Reflect.getOwnPropertyDescriptor(v, k)!;
      parts.push(String(k), `${d.enumerable}${d.writable}${d.configurable}`);
      if ("value" in d) stack.push(d.value);
      else parts.push(String(d.get), String(d.set));
    }
  }
  return parts.join("|");
}

function throwingGetter<T extends object>(target: T, key: string, thrown: unknown): T {
  return Object.defineProperty(target, key, {
    enumerable: true,
    get() {
      throw thrown;
    },
  });
}

describe("serialize: plain JSON values", () => {
  it("returns plain data unchanged, as a fresh structure", () => {
    const input = {
      s: "x",
      n: 1.5,
      t: true,
      f: false,
      z: null,
      list: [1, "two", { three: 3 }],
      nested: { a: { b: [] } },
    };
    const out = serialize(input) as { list: JsonValue[]; nested: { a: unknown } };
    expect(out).toStrictEqual(input);
    expect(out).not.toBe(input);
    expect(out.list).not.toBe(input.list);
    expect(out.nested.a).not.toBe(input.nested.a);
  });

  it("lets the caller mutate the output without touching the input", () => {
    const input = { a: { b: [1, 2] }, when: new Date(0) };
    const out = serialize(input) as { a: { b: number[] }; when: string; extra?: number };
    out.a.b.push(3);
    out.extra = 1;
    out.when = "changed";
    expect(input).toStrictEqual({ a: { b: [1, 2] }, when: new Date(0) });
    expect(serialize(input)).toStrictEqual({ a: { b: [1, 2] }, when: "1970-01-01T00:00:00.000Z" });
  });

  it("renders non-finite numbers as strings and -0 as 0", () => {
    expect(serialize([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2.5])).toStrictEqual([
      "NaN",
      "Infinity",
      "-Infinity",
      2.5,
    ]);
    expect(Object.is(serialize(-0), 0)).toBe(true);
    expect(Object.is((serialize({ z: -0 }) as { z: number }).z, 0)).toBe(true);
  });

  it("renders BigInt as a decimal string", () => {
    expect(serialize({ big: 12345678901234567890n, neg: -5n })).toStrictEqual({
      big: "12345678901234567890",
      neg: "-5",
    });
  });

  it("drops undefined from objects, writes null in arrays and at the top level", () => {
    expect(serialize({ a: undefined, b: 1 })).toStrictEqual({ b: 1 });
    expect(serialize([undefined, 1])).toStrictEqual([null, 1]);
    expect(serialize(undefined)).toBeNull();
  });

  it("drops functions and symbols from objects, names them in arrays and at the top level", () => {
    function namedFn() {}
    const sym = Symbol("tag");
    expect(serialize({ f: namedFn, s: sym, keep: 1, [sym]: "symbol keys are ignored" })).toStrictEqual({ keep: 1 });
    expect(serialize([namedFn, () => 1, sym, Symbol()])).toStrictEqual([
      "[Function namedFn]",
      "[Function]",
      "[Symbol(tag)]",
      "[Symbol()]",
    ]);
    expect(serialize(namedFn)).toBe("[Function namedFn]");
    expect(serialize(sym)).toBe("[Symbol(tag)]");
    const hostileFn = new Proxy(() => {}, {
      get() {
        throw new Error("no");
      },
    });
    expect(serialize([hostileFn])).toStrictEqual(["[Function]"]);
  });

  it("keeps an own __proto__ key as data without touching the output's prototype", () => {
    const input = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as object;
    const out = serialize(input) as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":1},"y":2}');
  });
});

describe("serialize: cycles and shared references", () => {
  it("marks true cycles", () => {
    const self: Record<string, unknown> = { a: 1 };
    self.me = self;
    expect(serialize(self)).toStrictEqual({ a: 1, me: "[Circular]" });

    const a: Record<string, unknown> = { name: "a" };
    a.child = { name: "b", parent: a };
    expect(serialize(a)).toStrictEqual({ name: "a", child: { name: "b", parent: "[Circular]" } });

    const list: unknown[] = [1];
    list.push(list);
    expect(serialize(list)).toStrictEqual([1, "[Circular]"]);
  });

  it("renders a shared reference that is not an ancestor every time", () => {
    const shared = { s: 1 };
    expect(serialize({ x: shared, y: shared, z: [shared, { deeper: shared }] })).toStrictEqual({
      x: { s: 1 },
      y: { s: 1 },
      z: [{ s: 1 }, { deeper: { s: 1 } }],
    });
  });
});

describe("serialize: special types", () => {
  it("renders Buffers and typed arrays as a compact marker with a base64 preview", () => {
    expect(serialize(Buffer.from("hello"))).toStrictEqual({ _type: "Buffer", length: 5, base64: "aGVsbG8=" });
    expect(serialize(new Uint8Array([1, 2, 3]))).toStrictEqual({ _type: "Uint8Array", length: 3, base64: "AQID" });
    // length counts elements; the preview covers bytes.
    expect(serialize(new Float64Array(2))).toStrictEqual({
      _type: "Float64Array",
      length: 2,
      base64: `${"A".repeat(22)}==`,
    });
    // A view previews its own window, not the start of the underlying memory.
    expect(serialize(Buffer.from([0, 1, 2, 3, 4]).subarray(2))).toStrictEqual({
      _type: "Buffer",
      length: 3,
      base64: Buffer.from([2, 3, 4]).toString("base64"),
    });
  });

  it("renders ArrayBuffer, SharedArrayBuffer and DataView by byte length", () => {
    const ab = new Uint8Array([9, 8, 7, 6, 5, 4]).buffer;
    expect(serialize(ab)).toStrictEqual({ _type: "ArrayBuffer", length: 6, base64: "CQgHBgUE" });
    expect(serialize(new SharedArrayBuffer(3))).toStrictEqual({
      _type: "SharedArrayBuffer",
      length: 3,
      base64: "AAAA",
    });
    expect(serialize(new DataView(ab, 2, 3))).toStrictEqual({
      _type: "DataView",
      length: 3,
      base64: Buffer.from([7, 6, 5]).toString("base64"),
    });
  });

  it("previews only the first maxBinaryBytes bytes (default 64), marking the cut", () => {
    const big = Buffer.alloc(100_000, 7);
    expect(serialize(big)).toStrictEqual({
      _type: "Buffer",
      length: 100_000,
      base64: `${Buffer.alloc(64, 7).toString("base64")}…`,
    });
    expect(serialize(big, { maxBinaryBytes: 3 })).toStrictEqual({ _type: "Buffer", length: 100_000, base64: "BwcH…" });
    expect(serialize(Buffer.from("abc"), { maxBinaryBytes: 3 })).toStrictEqual({
      _type: "Buffer",
      length: 3,
      base64: "YWJj",
    });
  });

  it("renders Dates as ISO strings, invalid ones as 'Invalid Date', without calling overrides", () => {
    class Sneaky extends Date {
      override toISOString(): string {
        throw new Error("user override must not run");
      }
    }
    expect(serialize({ d: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)), bad: new Date(Number.NaN) })).toStrictEqual({
      d: "2024-01-02T03:04:05.006Z",
      bad: "Invalid Date",
    });
    expect(serialize(new Sneaky(0))).toBe("1970-01-01T00:00:00.000Z");
  });

  it("renders a Map with string keys as an object (function values dropped as in objects)", () => {
    const m = new Map<string, unknown>([
      ["a", 1],
      ["b", { c: [2] }],
      ["f", () => 1],
      ["u", undefined],
    ]);
    expect(serialize(m)).toStrictEqual({ a: 1, b: { c: [2] } });
    expect(serialize(new Map())).toStrictEqual({});
  });

  it("renders a Map with any non-string key as [key, value] pairs", () => {
    const m = new Map<unknown, unknown>([
      [1, "one"],
      ["1", "string one"],
      [{ id: 7 }, new Set([1])],
    ]);
    expect(serialize(m)).toStrictEqual([
      [1, "one"],
      ["1", "string one"],
      [{ id: 7 }, [1]],
    ]);
  });

  it("reads Maps and Sets through the built-ins, not through subclass overrides", () => {
    class WeirdMap extends Map<string, number> {
      override entries(): MapIterator<[string, number]> {
        throw new Error("override must not run");
      }
    }
    class WeirdSet extends Set<number> {
      override values(): SetIterator<number> {
        throw new Error("override must not run");
      }
    }
    expect(serialize(new WeirdMap([["k", 1]]))).toStrictEqual({ k: 1 });
    expect(serialize(new WeirdSet([3, 4]))).toStrictEqual([3, 4]);
  });

  it("renders a Set as an array (functions named, as in arrays)", () => {
    function inSet() {}
    expect(serialize(new Set([1, "a", { x: 1 }, inSet]))).toStrictEqual([1, "a", { x: 1 }, "[Function inSet]"]);
  });

  it("renders Errors with name, message, stack, cause and own enumerable properties", () => {
    const inner = new Error("inner");
    const outer = Object.assign(new TypeError("outer", { cause: inner }), { code: "E_OUTER", detail: { n: 1 } });
    expect(serialize(outer)).toStrictEqual({
      name: "TypeError",
      message: "outer",
      stack: outer.stack,
      cause: { name: "Error", message: "inner", stack: inner.stack },
      code: "E_OUTER",
      detail: { n: 1 },
    });
  });

  it("renders Error subclasses, AggregateError's errors and cyclic causes", () => {
    class HttpError extends Error {
      override name = "HttpError";
      status = 503;
    }
    const http = new HttpError("down");
    expect(serialize(http)).toStrictEqual({ name: "HttpError", message: "down", stack: http.stack, status: 503 });

    const part = new Error("part");
    const agg = new AggregateError([part, "plain"], "many");
    expect(serialize(agg)).toStrictEqual({
      name: "AggregateError",
      message: "many",
      stack: agg.stack,
      errors: [{ name: "Error", message: "part", stack: part.stack }, "plain"],
    });

    const loop = new Error("loop");
    loop.cause = loop;
    expect(serialize(loop)).toStrictEqual({ name: "Error", message: "loop", stack: loop.stack, cause: "[Circular]" });
  });

  it("keeps the rest of an Error when one of its fields throws", () => {
    const e = new Error("x");
    const stack = e.stack; // V8 formats the stack lazily from the message, so read it before breaking the message
    throwingGetter(e, "message", new Error("message getter"));
    expect(serialize(e)).toStrictEqual({ name: "Error", message: "[Unserializable: message getter]", stack });
  });

  it("renders RegExp and URL as strings, boxed primitives unwrapped", () => {
    expect(serialize({ re: /a+b/gi, url: new URL("https://example.com/a?b=1#h") })).toStrictEqual({
      re: "/a+b/gi",
      url: "https://example.com/a?b=1#h",
    });
    expect(serialize([new String("s"), new Number(3), new Boolean(false), Object(10n)])).toStrictEqual([
      "s",
      3,
      false,
      "10",
    ]);
  });

  it("renders class instances as own enumerable data plus _type", () => {
    class Point {
      constructor(
        public x: number,
        public y: number,
      ) {}
      get length(): number {
        return Math.hypot(this.x, this.y);
      }
      method(): void {}
    }
    expect(serialize(new Point(3, 4))).toStrictEqual({ _type: "Point", x: 3, y: 4 });
    class Tagged {
      _type = "mine";
      v = 1;
    }
    expect(serialize(new Tagged())).toStrictEqual({ _type: "mine", v: 1 });
    expect(serialize(new (class {})())).toStrictEqual({});
    expect(serialize(Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true } }))).toStrictEqual({
      own: 2,
    });
    const hostileProto = Object.create({
      get constructor() {
        throw new Error("no constructor");
      },
    });
    hostileProto.a = 1;
    expect(serialize(hostileProto)).toStrictEqual({ a: 1 });
  });

  it("renders null-prototype and frozen objects", () => {
    const bare = Object.assign(Object.create(null), { a: 1, b: [2] });
    const out = serialize(bare) as object;
    expect(out).toStrictEqual({ a: 1, b: [2] });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    const frozen = Object.freeze({ a: Object.freeze([1, Object.freeze({ b: 2 })]) });
    const frozenOut = serialize(frozen) as object;
    expect(frozenOut).toStrictEqual({ a: [1, { b: 2 }] });
    expect(Object.isFrozen(frozenOut)).toBe(false);
  });
});

describe("serialize: toJSON (the one kind of user code we call)", () => {
  it("calls toJSON with the property key and serializes its result", () => {
    const item = { toJSON: (key: string) => `key=${key}` };
    expect(serialize({ item, list: [item] })).toStrictEqual({ item: "key=item", list: ["key=0"] });
    expect(serialize(item)).toBe("key=");
    expect(serialize({ money: { toJSON: () => ({ amount: 10n, currency: "EUR" }) } })).toStrictEqual({
      money: { amount: "10", currency: "EUR" },
    });
  });

  it("does not call toJSON on the result of toJSON, and handles toJSON returning this or undefined", () => {
    const once = { toJSON: () => ({ v: 1, toJSON: () => "inner must not run" }) };
    expect(serialize(once)).toStrictEqual({ v: 1 });
    const self = {
      a: 1,
      toJSON() {
        return this;
      },
    };
    expect(serialize(self)).toStrictEqual({ a: 1 });
    expect(serialize({ gone: { toJSON: () => undefined }, kept: 1 })).toStrictEqual({ kept: 1 });
  });

  it("turns a throwing toJSON into a marker and keeps the siblings", () => {
    const bad = {
      toJSON() {
        throw new Error("toJSON failed");
      },
    };
    expect(serialize({ bad, ok: "yes", list: [bad, 2] })).toStrictEqual({
      bad: "[Unserializable: toJSON failed]",
      ok: "yes",
      list: ["[Unserializable: toJSON failed]", 2],
    });
    expect(serialize(bad)).toBe("[Unserializable: toJSON failed]");
  });

  it("prefers the built-in rendering for Date, Buffer and URL over their own toJSON", () => {
    expect(serialize([new Date(0), Buffer.from([1]), new URL("https://a.example/")])).toStrictEqual([
      "1970-01-01T00:00:00.000Z",
      { _type: "Buffer", length: 1, base64: "AQ==" },
      "https://a.example/",
    ]);
  });
});

describe("serialize: limits", () => {
  it("uses the documented defaults", () => {
    expect(DEFAULT_SERIALIZE_OPTIONS).toStrictEqual({
      maxStringLength: 100_000,
      maxDepth: 64,
      maxItems: 1000,
      maxBytes: 1024 * 1024,
      maxBinaryBytes: 64,
      redactor: DEFAULT_REDACTOR,
    });
    expect(Object.isFrozen(DEFAULT_SERIALIZE_OPTIONS)).toBe(true);
  });

  it("truncates long strings with a visible marker", () => {
    expect(serialize("abcdefghij", { maxStringLength: 4 })).toBe("abcd…[truncated 6 chars]");
    expect(serialize("abcd", { maxStringLength: 4 })).toBe("abcd");
    expect(serialize({ ["k".repeat(10)]: 1 }, { maxStringLength: 5 })).toStrictEqual({
      "kkkkk…[truncated 5 chars]": 1,
    });
  });

  it("never splits a surrogate pair when truncating", () => {
    expect(serialize("ab😀c", { maxStringLength: 3 })).toBe("ab…[truncated 3 chars]");
    expect(serialize("ab😀c", { maxStringLength: 4 })).toBe("ab😀…[truncated 1 chars]");
  });

  it("replaces containers deeper than maxDepth with [MaxDepth]", () => {
    expect(serialize({ a: { b: { c: 1 } }, top: 1 }, { maxDepth: 2 })).toStrictEqual({
      a: { b: "[MaxDepth]" },
      top: 1,
    });
    expect(serialize([[["x"]]], { maxDepth: 2 })).toStrictEqual([["[MaxDepth]"]]);
    expect(serialize({ a: 1 }, { maxDepth: 0 })).toBe("[MaxDepth]");
    expect(serialize("primitives are not containers", { maxDepth: 0 })).toBe("primitives are not containers");
  });

  it("caps array items, Set items, object keys and Map entries with a summary entry", () => {
    expect(serialize([1, 2, 3, 4], { maxItems: 2 })).toStrictEqual([1, 2, "[+2 more items]"]);
    expect(serialize(new Set([1, 2, 3]), { maxItems: 2 })).toStrictEqual([1, 2, "[+1 more items]"]);
    expect(serialize({ a: 1, b: 2, c: 3 }, { maxItems: 2 })).toStrictEqual({ a: 1, b: 2, "…": "[+1 more keys]" });
    const strings = new Map([
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ]);
    expect(serialize(strings, { maxItems: 2 })).toStrictEqual({ a: 1, b: 2, "…": "[+1 more keys]" });
    const numbers = new Map([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(serialize(numbers, { maxItems: 2 })).toStrictEqual([[1, 1], [2, 2], "[+1 more items]"]);
  });

  it("caps huge arrays and objects at the default 1000 entries", () => {
    const huge = Array.from({ length: 100_000 }, (_, i) => i);
    expect(serialize(huge)).toStrictEqual([...huge.slice(0, 1000), "[+99000 more items]"]);
    const wide: Record<string, number> = {};
    for (let i = 0; i < 2000; i++) wide[`k${i}`] = i;
    const expected: Record<string, JsonValue> = {};
    for (let i = 0; i < 1000; i++) expected[`k${i}`] = i;
    expected["…"] = "[+1000 more keys]";
    expect(serialize(wide)).toStrictEqual(expected);
  });

  it("stops at the payload budget while walking: strings cut to what is left, then one marker per container", () => {
    const strings = ["a".repeat(100), "b".repeat(100), "c".repeat(100)];
    expect(serialize(strings, { maxBytes: 150 })).toStrictEqual([
      "a".repeat(100),
      `${"b".repeat(42)}…[truncated 58 chars]`,
      LIMIT,
    ]);
    expect(serialize({ a: "x".repeat(100), b: 1, c: 2 }, { maxBytes: 50 })).toStrictEqual({
      a: `${"x".repeat(46)}…[truncated 54 chars]`,
      "…": LIMIT,
    });
    expect(serialize({ a: 1 }, { maxBytes: 0 })).toBe(LIMIT);
  });

  it("does not read values past the budget", () => {
    let reads = 0;
    const input = Array.from({ length: 50 }, () => ({
      get v() {
        reads++;
        return "y".repeat(100);
      },
    }));
    const out = serialize(input, { maxBytes: 500 }) as JsonValue[];
    expect(out.at(-1)).toBe(LIMIT);
    expect(out.length).toBeLessThan(10);
    expect(reads).toBe(out.length - 1);
  });

  it("bounds the output of a 100,000-item array of long strings to about maxBytes", () => {
    const input = Array.from({ length: 100_000 }, (_, i) => `${i}`.padEnd(1000, "z"));
    const out = serialize(input, { maxItems: Number.POSITIVE_INFINITY }) as string[];
    expect(out.at(-1)).toBe(LIMIT);
    // Each item costs 1003 bytes (1000 chars, quotes, comma): 1045 fit whole, the 1046th is cut to what is left.
    expect(out.length).toBe(1047);
    expect(out[1044]).toBe(input[1044]);
    expect(out[1045]).toMatch(/^1045z+…\[truncated \d+ chars\]$/);
    expect(JSON.stringify(out).length).toBeLessThanOrEqual(1024 * 1024 + 64);
  });

  it("bounds the work on exponentially shared structures", () => {
    let dag: unknown = "leaf";
    for (let i = 0; i < 40; i++) dag = [dag, dag]; // 2^40 leaves if fully expanded
    const json = serializeToJson(dag);
    expect(json.length).toBeLessThan(1.1 * 1024 * 1024);
    expect(json).toContain(LIMIT);
  });

  it("falls back to the default for invalid limits and clamps maxDepth at 500", () => {
    const long = "q".repeat(100_005);
    const expected = `${"q".repeat(100_000)}…[truncated 5 chars]`;
    expect(serialize(long, { maxStringLength: -1 })).toBe(expected);
    expect(serialize(long, { maxStringLength: Number.NaN })).toBe(expected);
    expect(measure(serialize(nested(5000, "object"), { maxDepth: 5000 }))).toStrictEqual({
      levels: 500,
      leaf: "[MaxDepth]",
    });
  });
});

describe("serializeWithSize / serializeToJson", () => {
  it("returns the value with its approximate JSON size", () => {
    const input = { alpha: "a".repeat(300), beta: ["x", "yy", "zzz"], gamma: { delta: "d" } };
    const { value, bytes } = serializeWithSize(input);
    expect(value).toStrictEqual(serialize(input));
    const exact = Buffer.byteLength(JSON.stringify(value));
    expect(bytes).toBeGreaterThanOrEqual(exact);
    expect(bytes).toBeLessThanOrEqual(exact + 10);
  });

  it("serializeToJson is JSON.stringify of serialize", () => {
    const input = { n: Number.NaN, big: 1n, when: new Date(0), list: [undefined] };
    expect(serializeToJson(input)).toBe('{"n":"NaN","big":"1","when":"1970-01-01T00:00:00.000Z","list":[null]}');
    expect(serializeToJson(undefined)).toBe("null");
  });
});

describe("serialize: hostile input", () => {
  it("caps 10,000-deep nesting at maxDepth without overflowing the stack", () => {
    let expected: JsonValue = "[MaxDepth]";
    for (let i = 0; i < 64; i++) expected = { c: expected };
    expect(serialize(nested(10_000, "object"))).toStrictEqual(expected);
    expect(measure(serialize(nested(10_000, "array")))).toStrictEqual({ levels: 64, leaf: "[MaxDepth]" });
  });

  it("returns a 50 MB string truncated to maxStringLength", () => {
    const huge = "a".repeat(50 * 1024 * 1024);
    const out = serialize({ huge }) as { huge: string };
    const marker = `…[truncated ${huge.length - 100_000} chars]`;
    expect(out.huge.length).toBe(100_000 + marker.length);
    expect(out.huge).toBe(`${"a".repeat(100_000)}${marker}`);
  });

  it("marks Proxies whose ownKeys or getPrototypeOf traps throw, and revoked Proxies", () => {
    const noKeys = new Proxy(
      { a: 1 },
      {
        ownKeys() {
          throw new Error("no keys");
        },
      },
    );
    const noProto = new Proxy(
      { a: 1 },
      {
        getPrototypeOf() {
          throw new Error("no proto");
        },
      },
    );
    const { proxy: revoked, revoke } = Proxy.revocable({ a: 1 }, {});
    revoke();
    expect(serialize({ noKeys, noProto, revoked, ok: 1 })).toStrictEqual({
      noKeys: "[Unserializable: no keys]",
      noProto: "[Unserializable: no proto]",
      revoked: `[Unserializable: ${revokedMessage()}]`,
      ok: 1,
    });
    expect(serialize(noKeys)).toBe("[Unserializable: no keys]");
  });

  it("marks a Proxy whose get trap throws: per key when it throws for some keys, whole when it throws for all", () => {
    const someKeys = new Proxy(
      { a: 1, b: 2 },
      {
        get(target, key, receiver) {
          if (key === "a") throw new Error("no a");
          return Reflect.get(target, key, receiver);
        },
      },
    );
    const allKeys = new Proxy(
      { a: 1 },
      {
        get() {
          throw new Error("no get");
        },
      },
    );
    expect(serialize([someKeys, allKeys])).toStrictEqual([
      { a: "[Unserializable: no a]", b: 2 },
      "[Unserializable: no get]",
    ]);
    const arrayProxy = new Proxy([1, 2], {});
    expect(serialize(arrayProxy)).toStrictEqual([1, 2]);
  });

  it("keeps the siblings of a getter that throws, whatever it throws", () => {
    const obj = throwingGetter({ a: 1, c: 3 } as Record<string, unknown>, "b", new Error("bad getter"));
    expect(serialize(obj)).toStrictEqual({ a: 1, c: 3, b: "[Unserializable: bad getter]" });
    const thrownValues = {
      str: "just a string",
      num: 42,
      plain: { message: { not: "a string" } },
      nil: null,
      long: new Error("m".repeat(300)),
      hostile: new Proxy(
        {},
        {
          get() {
            throw new Error("the error itself throws");
          },
        },
      ),
    };
    const out: Record<string, unknown> = {};
    for (const [key, thrown] of Object.entries(thrownValues)) throwingGetter(out, key, thrown);
    expect(serialize(out)).toStrictEqual({
      str: "[Unserializable: just a string]",
      num: "[Unserializable: 42]",
      plain: "[Unserializable: unknown error]",
      nil: "[Unserializable: unknown error]",
      long: `[Unserializable: ${"m".repeat(200)}…]`,
      hostile: "[Unserializable: unknown error]",
    });
    const arr = [1, 2, 3];
    throwingGetter(arr, "1", new Error("index getter"));
    expect(serialize(arr)).toStrictEqual([1, "[Unserializable: index getter]", 3]);
  });

  it("renders sparse arrays with null holes and caps huge sparse lengths", () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(serialize([1, , 3])).toStrictEqual([1, null, 3]);
    const vast: unknown[] = [];
    vast.length = 2 ** 32 - 1;
    expect(serialize(vast)).toStrictEqual([...new Array(1000).fill(null), `[+${2 ** 32 - 1 - 1000} more items]`]);
  });
});

describe("serialize: never throws, always JSON-safe, never mutates", () => {
  const cases: Record<string, () => unknown> = {
    "plain values": () => ({ a: 1, b: "two", c: [true, null] }),
    cycle: () => {
      const o: Record<string, unknown> = { a: [] };
      (o.a as unknown[]).push(o);
      return o;
    },
    "shared refs": () => {
      const s = { s: 1 };
      return [s, s, { s }];
    },
    "special numbers": () => [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1n],
    "functions, symbols, undefined": () => ({
      f() {},
      s: Symbol("s"),
      u: undefined,
      list: [() => 1, Symbol(), undefined],
    }),
    "binary data": () => [Buffer.alloc(200), new Int16Array(4), new ArrayBuffer(3), new DataView(new ArrayBuffer(2))],
    "dates, regexps, urls": () => [new Date(0), new Date(Number.NaN), /x/y, new URL("https://a.example")],
    "maps and sets": () => new Map<unknown, unknown>([[{ k: 1 }, new Set([new Map([["a", 1]])])]]),
    errors: () => {
      const e = new Error("outer", { cause: new RangeError("inner") });
      return Object.assign(e, { extra: { loop: e } });
    },
    "class instances": () =>
      new (class Thing {
        x = 1;
        y = [new Date(0)];
      })(),
    "toJSON throwing": () => ({
      toJSON() {
        throw new Error("nope");
      },
    }),
    "10,000-deep objects": () => nested(10_000, "object"),
    "10,000-deep arrays": () => nested(10_000, "array"),
    "50 MB string": () => "s".repeat(50 * 1024 * 1024),
    "throwing proxies": () => [
      new Proxy(
        {},
        {
          ownKeys() {
            throw new Error("k");
          },
        },
      ),
      new Proxy(
        {},
        {
          getPrototypeOf() {
            throw new Error("p");
          },
        },
      ),
      new Proxy(
        {},
        {
          get() {
            throw new Error("g");
          },
        },
      ),
    ],
    "throwing getter": () => throwingGetter({ ok: 1 }, "bad", new Error("x")),
    "null prototype": () => Object.assign(Object.create(null), { a: 1 }),
    frozen: () => Object.freeze({ a: Object.freeze([1]) }),
    // biome-ignore lint/suspicious/noSparseArray: the holes are the point
    sparse: () => [, 1, , 2],
    "100k-item array": () => Array.from({ length: 100_000 }, (_, i) => ({ i })),
    "exponential sharing": () => {
      let d: unknown = [1];
      for (let i = 0; i < 30; i++) d = [d, d];
      return d;
    },
  };

  for (const [name, make] of Object.entries(cases)) {
    it(name, () => {
      const input = make();
      const before = snapshot(input);
      let out: JsonValue = null;
      expect(() => {
        out = serialize(input);
      }).not.toThrow();
      const json = JSON.stringify(out);
      expect(typeof json).toBe("string");
      // Round-tripping through JSON changes nothing: no undefined, -0, NaN, Dates or class instances survive inside.
      expect(JSON.parse(json)).toStrictEqual(out);
      expect(serializeToJson(input)).toBe(json);
      expect(snapshot(input)).toBe(before);
    });
  }
});
