/**
 * JsonWriter.plain (the calls route's records write payload trees with it, call-encode.ts) must write exactly the
 * bytes `json(JSON.stringify(value))` writes — the path it replaced — or write nothing and say so. Payloads are the
 * serializer's trees of hostile values (what preparePayload hands the records), with redact-hook-like edits.
 */
import { describe, expect, it } from "vitest";
import { serialize } from "../../src/tracing/serialize.js";
import { JsonWriter } from "../../src/wire/json-writer.js";

/** The old path's bytes: `JSON.stringify` made well-formed, as UTF-8. */
function viaStringify(value: unknown): string {
  const w = new JsonWriter(8);
  w.json(JSON.stringify(value));
  return Buffer.from(w.finish()).toString("hex");
}

/** The new path's bytes, or undefined when plain() declined (and then it must have written nothing). */
function viaPlain(value: unknown): string | undefined {
  const w = new JsonWriter(8); // small: every write also grows the buffer
  w.ascii("x");
  if (!w.plain(value)) {
    expect(w.pos).toBe(1);
    return undefined;
  }
  return Buffer.from(w.finish().subarray(1)).toString("hex");
}

class Point {
  constructor(
    public x: number,
    public y: unknown,
  ) {}
}

/** Hostile inputs of every kind the serializer meets (fresh each call). */
function hostile(): Record<string, unknown> {
  const cycle: Record<string, unknown> = { name: "cycle" };
  cycle.self = cycle;
  const shared = { s: 1 };
  const err = new Error("failed: Bearer abc", { cause: new TypeError("inner") });
  err.stack = "Error: failed\n    at here (x.ts:1:1)";
  return {
    cycle,
    shared: [shared, shared],
    long: "x".repeat(150_000),
    unicode: 'a\ud83d\ude00b \ud800 lone \udc00 \u0000\u001f\u007f\u2028 "q" \\',
    credentials: { apiKey: "sk-1", Authorization: "Bearer t", headers: { "x-api-key": "k" }, token: "t", logprob: -1 },
    url: "https://user:secret@example.com/p?api_key=x",
    map: new Map<unknown, unknown>([
      ["a", 1],
      [2, "two"],
    ]),
    stringMap: new Map([["k", { v: [1, 2] }]]),
    set: new Set([1, "a"]),
    date: new Date(0),
    badDate: new Date(Number.NaN),
    point: new Point(1, { deep: new Point(2, 3) }),
    bigints: [1n, 2n ** 70n],
    numbers: [0, -0, 1.5, 1e21, 5e-324, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER, -42],
    omitted: { u: undefined, f() {}, s: Symbol("s"), kept: true },
    inArrays: [undefined, () => 1, Symbol("x"), null],
    integerKeys: { b: 1, 10: "ten", 2: "two" },
    protoKey: JSON.parse('{"__proto__": {"x": 1}, "a": 2}'),
    nullProto: Object.assign(Object.create(null), { a: 1 }),
    error: err,
    toJSON: { toJSON: () => ({ via: "toJSON" }) },
    buffer: Buffer.from("hello"),
    empty: [{}, [], ""],
    nested: JSON.parse(`${"[".repeat(60)}1${"]".repeat(60)}`),
  };
}

/** Edits a redact hook may make to the tree it receives (then serialized again, as preparePayload does). */
const hooks: ((tree: Record<string, unknown>) => unknown)[] = [
  (tree) => {
    tree.credentials = "[hidden]";
  },
  (tree) => ({ replaced: tree.unicode, n: -0, list: [tree.numbers, undefined] }),
  () => null,
  () => "a string",
  (tree) => {
    delete tree.long;
    if (typeof tree.point === "object" && tree.point !== null)
      (tree.point as Record<string, unknown>).added = new Date(1);
    else tree.point = new Date(1);
  },
];

describe("JsonWriter.plain writes what json(JSON.stringify(…)) writes", () => {
  it("for the serializer's trees of hostile values, under several limits and after redact-hook edits", () => {
    let compared = 0;
    for (const limits of [undefined, { maxStringLength: 10 }, { maxItems: 2, maxDepth: 3 }, { maxBytes: 500 }]) {
      const tree = serialize(hostile(), limits);
      // The serializer's output is always plain: the records never fall back to JSON.stringify for it.
      expect(viaPlain(tree)).toBeDefined();
      expect(viaPlain(tree)).toBe(viaStringify(tree));
      compared++;
      for (const [key, value] of Object.entries(tree as Record<string, unknown>)) {
        expect(viaPlain(value), key).toBe(viaStringify(value));
        compared++;
      }
      for (const hook of hooks) {
        const copy = serialize(hostile(), limits) as Record<string, unknown>;
        const returned = hook(copy);
        const after = serialize(returned === undefined ? copy : returned, limits);
        expect(viaPlain(after)).toBe(viaStringify(after));
        compared++;
      }
    }
    expect(compared).toBe(79);
  });

  it("for plain values the serializer never makes: omitted members, holes, numbers JSON spells null", () => {
    const values: unknown[] = [
      { a: undefined, b: () => 1, c: Symbol("c"), d: 1 },
      [undefined, () => 1, Symbol("c")],
      new Array(3), // holes
      { n: NaN, i: -Infinity, z: -0 },
      Object.assign(Object.create(null), { 1: "one", a: [null] }),
      { "": "", "\ud800": "\udfff" },
      "top",
      12.5,
      true,
      null,
    ];
    for (const value of values) expect(viaPlain(value)).toBe(viaStringify(value));
  });

  it("declines, writing nothing, what only JSON.stringify may decide", () => {
    const declined: unknown[] = [
      undefined,
      () => 1,
      Symbol("s"),
      1n,
      new Date(0),
      new Point(1, 2),
      { nested: { toJSON: () => "x" } },
      [new Map()],
      Object.assign([1, 2], { toJSON: () => "array's own" }),
      JSON.parse(`${"[".repeat(1200)}${"]".repeat(1200)}`),
    ];
    for (const value of declined) expect(viaPlain(value)).toBeUndefined();
  });
});
