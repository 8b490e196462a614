import { describe, expect, it } from "vitest";
import { JsonWriter } from "../../src/wire/json-writer.js";

/**
 * What `JSON.stringify` writes for the value made well-formed (lone surrogates as U+FFFD, never `\udxxx` escapes),
 * as UTF-8 bytes: the reference the writer must match byte for byte.
 */
const reference = (value: unknown): string =>
  Buffer.from(
    JSON.stringify(typeof value === "string" ? (value as string & { toWellFormed(): string }).toWellFormed() : value),
    "utf8",
  ).toString("hex");

function written(write: (w: JsonWriter) => void): string {
  const w = new JsonWriter(16); // small, so that every write also has to grow the buffer
  write(w);
  return Buffer.from(w.finish()).toString("hex");
}

/** A deterministic pseudo-random generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("JsonWriter", () => {
  const tricky = [
    "",
    "plain ascii",
    'quote " and backslash \\',
    "controls \u0000\u0001\b\t\n\u000b\f\r\u001f end",
    "DEL \u007f and NBSP \u00a0",
    "héllo ✓ 日本",
    "emoji 🎉 pair",
    "lone high \ud800",
    "\udc00 lone low first",
    "high then high \ud83d\ud83d",
    "reversed pair \udc00\ud800",
    "\ud83d", // a lone high surrogate at the very end
    "x".repeat(64),
    `${"long ".repeat(40)}"\\\n\u0001 🎉 \ud800 é`, // over the hand loop's length: JSON.stringify path
  ];

  it.each(tricky.map((s) => [JSON.stringify(s).slice(0, 40), s]))(
    "writes %s as JSON.stringify does (well-formed)",
    (_, s) => {
      expect(written((w) => w.string(s))).toBe(reference(s));
    },
  );

  it("matches JSON.stringify for 3,000 random strings of arbitrary UTF-16 code units", () => {
    const next = random(7);
    for (let i = 0; i < 3000; i++) {
      const length = Math.floor(next() * 90); // both sides of the hand loop's 64-unit limit
      let s = "";
      for (let k = 0; k < length; k++) {
        const r = next();
        // Mostly ASCII, with controls, 2- and 3-byte characters and (lone or paired) surrogates mixed in.
        s += String.fromCharCode(
          r < 0.5
            ? 0x20 + Math.floor(next() * 0x60)
            : r < 0.6
              ? Math.floor(next() * 0x20)
              : r < 0.75
                ? 0x80 + Math.floor(next() * 0x780)
                : r < 0.85
                  ? 0xd800 + Math.floor(next() * 0x800)
                  : 0x800 + Math.floor(next() * 0xf7ff),
        );
      }
      const got = written((w) => w.string(s));
      if (got !== reference(s)) expect({ i, s, got }).toEqual({ i, s, got: reference(s) });
    }
  });

  it("json(): JSON.stringify text gets U+FFFD for lone-surrogate escapes, never for an escaped backslash before 'ud800'", () => {
    const value = { a: "x\ud800y", b: "\\ud800", c: "\\\udc00", d: "pair 🎉 \udfff\udfff", e: "\\\\ud9ff" };
    const wellFormed = (s: string) => (s as string & { toWellFormed(): string }).toWellFormed();
    const expected = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wellFormed(v)]));
    const text = Buffer.from(
      written((w) => w.json(JSON.stringify(value))),
      "hex",
    ).toString("utf8");
    expect(text).not.toMatch(/(?<!\\)(?:\\\\)*\\ud[89a-f]/);
    expect(JSON.parse(text)).toEqual(expected);
  });

  it("writes numbers as JSON.stringify does", () => {
    for (const n of [0, -1, 1.5, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, -123456789.125, 2 ** 53 + 2]) {
      expect(written((w) => w.number(n))).toBe(reference(n));
    }
  });

  it("writes ids as quoted lower-case hex, and anything else as 0", () => {
    expect(written((w) => w.hex("0AF7651916cd43DD"))).toBe(reference("0af7651916cd43dd"));
    expect(written((w) => w.hex('ab"\\zz'))).toBe(reference("ab0000"));
  });
});
