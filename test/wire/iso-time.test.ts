import { expect, it } from "vitest";
import { isoTime } from "../../src/wire/span-to-call.js";

it("isoTime matches Date#toISOString for every millisecond shape, across second and year boundaries", () => {
  const cases: [number, number][] = [
    [0, 0],
    [1_767_225_599, 999_999_999], // 2025-12-31T23:59:59.999Z
    [1_767_225_600, 0], // the next second, the next year
    [1_767_225_600, 5_000_000], // 5 ms: two leading zeros
    [1_767_225_600, 45_999_999], // 45 ms: one leading zero
    [1_767_225_599, 123_000_001], // back to an earlier second: the cache must not leak
    [4_102_444_800, 1], // 2100
  ];
  for (const [s, ns] of cases) {
    expect(isoTime([s, ns]), `${s}s ${ns}ns`).toBe(new Date(s * 1000 + Math.floor(ns / 1e6)).toISOString());
  }
  // Fractional seconds are legal in an HrTime built by hand; they bypass the cache.
  expect(isoTime([1.5, 0])).toBe(new Date(1500).toISOString());
});
