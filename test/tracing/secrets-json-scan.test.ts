/**
 * Credentials in JSON text the key scan of secrets-json-scan.ts finds without a parse, or that a parse alone missed:
 * header lists with numbers, objects or escaped line breaks between their items, lists of odd length (kept, bytes
 * and all), JSON encoded twice or nested seven strings down, and texts built to make a scan quadratic.
 */
import { describe, expect, it } from "vitest";
import { REDACTED } from "../../src/index.js";
import { KeyRedactor, scrubString } from "../../src/secrets.js";
import { serialize } from "../../src/tracing/serialize.js";

const redactor = new KeyRedactor();
const scrub = (text: string) => scrubString(text, redactor);

describe("header lists in JSON text, as the serializer reads them", () => {
  it("JSON text: a number among a flat list's items is an item too, and a list that closes odd keeps every byte", () => {
    // As the serializer masks it: a number before the name no longer hides the names after it, whole or cut short.
    const flat = ["content-length", 42, "authorization", "Bearer tok-num-0123"];
    const text = JSON.stringify({ headers: flat });
    expect(JSON.parse(scrub(text))).toEqual({ headers: ["content-length", 42, "authorization", REDACTED] });
    expect(serialize({ headers: flat })).toEqual({ headers: ["content-length", 42, "authorization", REDACTED] });
    for (let cut = 1; cut <= text.length; cut++) expect(scrub(text.slice(0, cut))).not.toMatch(/tok-num/);
    // A list of odd length is no header list, parsed or not: the text around a masked key keeps its bytes.
    for (const list of ['["a","b","token","x","y"]', '["token", "x", "y"]', '["token","x",1]']) {
      const odd = `{"seed":12345678901234567891,"t":1.0,"tags":${list},"password":"pw-odd-0123"}`;
      expect(scrub(odd)).toBe(odd.replace("pw-odd-0123", REDACTED));
    }
  });

  it("JSON text cut short: a short object or list among a flat list's items is an item too", () => {
    const flat = ["cookie", { session: "s-obj-0123" }, "authorization", "Bearer tok-obj-0123", "x", ["a"]];
    const text = JSON.stringify({ headers: flat, more: JSON.stringify({ headers: flat }) });
    expect(scrub(text)).not.toMatch(/s-obj|tok-obj/);
    for (let cut = 1; cut <= text.length; cut++) expect(scrub(text.slice(0, cut))).not.toMatch(/s-obj|tok-obj/);
  });

  it("pretty-printed lists nested in a string (`\\n` and `\\t` between items): masked whole and cut short", () => {
    // JSON.stringify(body, null, 2) inside a string: the items are parted by escaped line breaks, not whitespace.
    const flat = ["accept", "*/*", "authorization", "Bearer tok-pretty-0123"];
    const pairs = [["Authorization", "Bearer tok-pair-pretty-0123"]];
    const leak = /tok-pretty|tok-pair-pretty/;
    for (const indent of [2, "\t"]) {
      const one = JSON.stringify({ body: JSON.stringify({ headers: flat, more: pairs }, null, indent) });
      const two = JSON.stringify({ call: JSON.stringify({ body: JSON.stringify({ headers: flat }, null, indent) }) });
      for (const text of [one, two]) {
        expect(scrub(text)).not.toMatch(leak);
        for (let cut = 1; cut <= text.length; cut++) expect(scrub(text.slice(0, cut))).not.toMatch(leak);
      }
      expect(JSON.parse(JSON.parse(scrub(one)).body)).toEqual({
        headers: ["accept", "*/*", "authorization", REDACTED],
        more: [["Authorization", REDACTED]],
      });
    }
  });
});

describe("JSON nested or encoded deep, and texts built to be slow", () => {
  it("text cut short inside a run of unclosed objects or lists under credential keys is masked in linear time", () => {
    // Each value was measured to the end of the text: 100 KB took about a second, 400 KB ~20 s, 1 MB minutes. Linear,
    // 400 KB takes ~0.1–0.2 s here: the bound is 25 times that, so a loaded machine does not fail it, and a quadratic
    // scan cannot pass it.
    for (const unit of ['{"token":[', '["token",[', '["a","b","token",[', '{"password":{']) {
      const text = unit.repeat(Math.ceil(400_000 / unit.length));
      const started = performance.now();
      const out = scrub(text);
      expect(performance.now() - started).toBeLessThan(5000);
      expect(out.endsWith(`"${REDACTED}"`)).toBe(true);
      expect(out.length).toBeLessThan(unit.length + 20);
    }
  });

  it("JSON text encoded twice inside JSON (a string holding a JSON string of JSON): masked whole as cut short", () => {
    const inner = { api_key: "sk-twice-0123456789", headers: ["authorization", "Bearer tok-twice-0123"], model: "m" };
    const text = `{"arguments":${JSON.stringify(JSON.stringify(JSON.stringify(inner)))},"n":12345678901234567891}`;
    const out = scrub(text);
    expect(out).not.toMatch(/sk-twice|tok-twice/);
    expect(JSON.parse(JSON.parse(JSON.parse(out).arguments))).toEqual({
      api_key: REDACTED,
      headers: ["authorization", REDACTED],
      model: "m",
    });
    expect(out).toContain("12345678901234567891");
    for (let cut = 1; cut <= text.length; cut++) expect(scrub(text.slice(0, cut))).not.toMatch(/sk-twice|tok-twice/);
    const thrice = JSON.stringify({ arguments: JSON.stringify(JSON.stringify(JSON.stringify(inner, null, 2))) });
    expect(scrub(thrice)).not.toMatch(/sk-twice|tok-twice/);
    // A string that only opens with a quote is left as it was.
    const quoted = JSON.stringify({ note: '"a quote" and {"a":1}', password: "pw-q-0123" });
    expect(JSON.parse(scrub(quoted))).toEqual({ note: '"a quote" and {"a":1}', password: REDACTED });
  });

  it("a payload string that is itself JSON text encoded twice or more (a double-encoded body): masked whole and cut short", () => {
    const inner = { api_key: "sk-top-0123456789", headers: ["authorization", "Bearer tok-top-0123"], model: "m" };
    for (let times = 2; times <= 4; times++) {
      let text = JSON.stringify(inner);
      for (let i = 1; i < times; i++) text = JSON.stringify(text);
      const out = scrub(text);
      expect(out).not.toMatch(/sk-top|tok-top/);
      let decoded: unknown = out;
      for (let i = 1; i < times; i++) decoded = JSON.parse(decoded as string);
      expect(JSON.parse(decoded as string)).toEqual({
        api_key: REDACTED,
        headers: ["authorization", REDACTED],
        model: "m",
      });
      for (let cut = 1; cut <= text.length; cut++) expect(scrub(text.slice(0, cut))).not.toMatch(/sk-top|tok-top/);
    }
    // Quoted text that is not encoded JSON, and encoded JSON with nothing to mask, are left byte for byte.
    for (const kept of ['"Hello," she said. {"a":1}', JSON.stringify(JSON.stringify({ model: "m", n: 1.0 })), '"{"']) {
      expect(scrub(kept)).toBe(kept);
    }
  });

  it("JSON nested seven to ten strings down is masked too, whole and cut short", () => {
    for (let depth = 7; depth <= 10; depth++) {
      let text = JSON.stringify({
        api_key: "sk-seven-0123456789",
        headers: ["authorization", "Bearer tok-seven-0123"],
      });
      for (let i = 0; i < depth; i++) text = JSON.stringify({ x: text });
      expect(scrub(text)).not.toMatch(/sk-seven|tok-seven/);
      expect(scrub(text.slice(0, text.indexOf("tok-seven") + 5))).not.toMatch(/sk-seven|tok-seven/);
    }
  });

  it("keys behind very long quotes (JSON fifteen strings down) are read in linear time", () => {
    const run = "\\".repeat(2 ** 15 - 1);
    const text = `{${`${run}"token${run}":`.repeat(15)}`;
    const started = performance.now();
    scrub(text);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
