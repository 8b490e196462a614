/**
 * The serializer's copy-free path: a value that is already plain JSON within the limits is encoded as it is, and
 * everything else is copied, so that the JSON written is byte for byte what the copy gives — at every limit's edge.
 */
import { describe, expect, it } from "vitest";
import { type SerializeOptions, serialize } from "../../src/tracing/serialize.js";
import { plainEnough, serializeShared } from "../../src/tracing/serialize-shared.js";

/** Both paths give the same JSON text. */
function sameJson(value: unknown, options?: SerializeOptions): void {
  expect(JSON.stringify(serializeShared(value, options))).toBe(JSON.stringify(serialize(value, options)));
}

const REQUEST = {
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: 'Say hello. ünïcödé, emoji 🙂, a "quote" and a \\ backslash\n' },
  ],
  temperature: 0.2,
  max_tokens: 256,
  stream: false,
  user: undefined,
  tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }],
};
const COMPLETION = JSON.parse(
  '{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Hello!","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11},"__proto__":{"kept":true}}',
);

describe("serializeShared", () => {
  it("hands a plain request and a parsed completion through as they are, with the copy's JSON", () => {
    for (const value of [REQUEST, COMPLETION, "text", 12, -0, true, null, [1, "a", null, undefined]]) {
      expect(plainEnough(value)).toBe(true);
      if (typeof value === "object" && value !== null) expect(serializeShared(value)).toBe(value);
      sameJson(value);
    }
    // Functions, symbols and undefined in an object are dropped by both.
    const withDropped = { a: 1, f() {}, s: Symbol("x"), u: undefined };
    expect(plainEnough(withDropped)).toBe(true);
    sameJson(withDropped);
  });

  it("copies anything the serializer would write differently", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    const arrayWithToJSON = Object.assign([1, 2], { toJSON: () => "custom" });
    class Point {
      x = 1;
    }
    const cases: Record<string, unknown> = {
      nan: { n: Number.NaN },
      infinity: [Number.POSITIVE_INFINITY],
      bigint: { b: 10n },
      "function in an array": [() => 1],
      "symbol in an array": [Symbol("s")],
      "top-level function": () => 1,
      date: { d: new Date(0) },
      map: { m: new Map([["a", 1]]) },
      "class instance": { p: new Point() },
      "toJSON object": { t: { toJSON: () => "x" } },
      "array with toJSON": { a: arrayWithToJSON },
      cycle,
      "credential key": { apiKey: "sk-0123456789abcdef" },
      "authorization header": { headers: { Authorization: "Bearer abc" } },
      "URL with a password": { url: "https://user:pw@example.com/x" },
      "URL with a credential parameter": { url: "https://example.com/x?q=1&api_key=sk-1" },
      "URL with Google's key parameter": { url: "https://example.com/x?key=AIza-1" },
      "PEM private key": { key: "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2Vw\n-----END PRIVATE KEY-----\n" },
      buffer: { b: Buffer.from("hi") },
    };
    for (const [name, value] of Object.entries(cases)) {
      expect(plainEnough(value), name).toBe(false);
      sameJson(value);
    }
  });

  it("agrees with the copy at the edge of every limit", () => {
    for (let n = 0; n < 80; n++) {
      const text = "x".repeat(n);
      // maxBytes: strings cut to what is left of the budget, then containers closed with a marker.
      for (const value of [text, { a: text }, [text, text], { a: { b: [text, 1, true, null] } }])
        sameJson(value, { maxBytes: 60 });
      sameJson({ a: text, b: text }, { maxStringLength: 40 });
      sameJson({ [text]: 1 }, { maxStringLength: 40 });
    }
    for (let n = 0; n < 8; n++) {
      const items = Array.from({ length: n }, (_, i) => i);
      sameJson(items, { maxItems: 4 });
      sameJson(Object.fromEntries(items.map((i) => [`k${i}`, i])), { maxItems: 4 });
      let deep: unknown = "leaf";
      for (let d = 0; d < n; d++) deep = d % 2 ? { c: deep } : [deep];
      sameJson(deep, { maxDepth: 4 });
    }
  });

  it("never throws: a throwing getter or Proxy trap is marked by the copy", () => {
    const getter = {
      ok: 1,
      get bad(): never {
        throw new Error("no");
      },
    };
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("trap");
        },
      },
    );
    for (const value of [getter, { p: proxy }]) {
      expect(() => serializeShared(value)).not.toThrow();
      sameJson(value);
    }
  });
});
