/** The built-in scorers on the cases they are for, and on the ones that should not pass. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contains, exactMatch, jsonParses, matchesSchema, numericTolerance } from "../../src/eval/index.js";

const input = (output: unknown, row: Record<string, unknown> = {}) => ({
  output,
  row,
  trial: 0,
  index: 0,
  signal: new AbortController().signal,
});

describe("built-in scorers", () => {
  it("exactMatch compares as text, trimmed; ignoreCase, field and select change what is compared", async () => {
    expect(await exactMatch().score(input(" Paris ", { expected: "Paris" }))).toBe(true);
    expect(await exactMatch().score(input("paris", { expected: "Paris" }))).toBe(false);
    expect(await exactMatch({ ignoreCase: true }).score(input("paris", { expected: "Paris" }))).toBe(true);
    expect(await exactMatch().score(input(4, { expected: "4" }))).toBe(true);
    const picky = exactMatch({ name: "city", field: "answer", select: (o) => (o as { city: string }).city });
    expect(picky.name).toBe("city");
    expect(await picky.score(input({ city: "Rome" }, { answer: "Rome" }))).toBe(true);
  });

  it("contains finds the expected text (each of a list), case-insensitive unless asked", async () => {
    expect(await contains().score(input("The capital is Paris.", { expected: "paris" }))).toBe(true);
    expect(await contains({ caseSensitive: true }).score(input("The capital is Paris.", { expected: "paris" }))).toBe(
      false,
    );
    expect(await contains().score(input("red and blue", { expected: ["red", "blue"] }))).toBe(true);
    expect(await contains().score(input("red only", { expected: ["red", "blue"] }))).toBe(false);
  });

  it("jsonParses accepts JSON text (fenced too) and parsed values; matchesSchema takes a Standard Schema or a predicate", async () => {
    expect(await jsonParses().score(input('{"a":1}'))).toBe(true);
    expect(await jsonParses().score(input('```json\n{"a":1}\n```'))).toBe(true);
    expect(await jsonParses().score(input("{a:1}"))).toBe(false);
    expect(await jsonParses().score(input({ a: 1 }))).toBe(true);
    const schema = z.object({ city: z.string(), celsius: z.number() });
    expect(await matchesSchema(schema).score(input('{"city":"Paris","celsius":21}'))).toBe(true);
    expect(await matchesSchema(schema).score(input('{"city":"Paris","celsius":"hot"}'))).toBe(false);
    expect(await matchesSchema(schema).score(input("not json"))).toBe(false);
    expect(await matchesSchema((v) => Array.isArray(v)).score(input("[1,2]"))).toBe(true);
    expect(() => matchesSchema(42 as never)).toThrow(/Standard Schema/);
  });

  it("numericTolerance reads the first number and compares within an absolute or relative tolerance", async () => {
    expect(await numericTolerance().score(input("The answer is 42.", { expected: 42 }))).toBe(true);
    expect(await numericTolerance({ tolerance: 0.5 }).score(input("3.4", { expected: "3" }))).toBe(true);
    expect(await numericTolerance({ tolerance: 0.1 }).score(input("3.4", { expected: "3" }))).toBe(false);
    expect(await numericTolerance({ tolerance: 0.01, relative: true }).score(input("1,005", { expected: 1000 }))).toBe(
      true,
    );
    expect(await numericTolerance().score(input("no number", { expected: 1 }))).toBe(false);
    expect(() => numericTolerance({ tolerance: -1 })).toThrow(/tolerance/);
  });
});
