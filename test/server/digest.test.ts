/**
 * `tracewire dev` digests what it stores exactly as the tracing service does (the vendor's `weave/shared/digest.py`):
 * a value's digest is the base64url-style sha256 of `json.dumps(json.loads(body_part), sort_keys=True)` — Python's
 * reading of the request text, so `1.0` stays `1.0`, `1e21` is written `1e+21`, big integers keep every digit,
 * `-0.0` keeps its sign, `NaN`/`Infinity` are accepted, non-ASCII is escaped (`ensure_ascii`) and keys are sorted by
 * code point — and a table's digest is the **hex** sha256 of its row digests concatenated in order.
 *
 * The expected strings are constants, computed once with CPython 3.11 from those rules (nothing here recomputes
 * them): for a value, `base64.urlsafe_b64encode(hashlib.sha256(json.dumps(json.loads(TEXT), sort_keys=True)
 * .encode()).digest()).decode().replace("-", "X").replace("_", "Y").rstrip("=")`; for a table,
 * `hashlib.sha256("".join(row_digests).encode()).hexdigest()`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PyNumber, parsePythonJson, pythonDumps } from "../../src/server/python-json.js";
import { PROJECT, send, startService, type TestService } from "./helpers.js";

/**
 * Request texts (as a client writes them), what Python's `json.dumps(..., sort_keys=True)` makes of them, their digest,
 * and for a text that is not an object (table rows must be), the digest of the row `{"v": TEXT}`.
 */
const VALUES: { name: string; text: string; dumps: string; digest: string; wrapped?: string }[] = [
  {
    name: "a float written 1.0 stays a float; keys sorted",
    text: '{"temperature": 1.0, "model": "gpt-4o-mini", "n": 1}',
    dumps: '{"model": "gpt-4o-mini", "n": 1, "temperature": 1.0}',
    digest: "GPb2rIge4ec1bjiKYu8gxeJX1KM37IJcGCmVR3JV2V4",
  },
  {
    name: "float exponents as Python's repr writes them",
    text: "[1e21, 1e+21, 1E21, 100000000000000000000, 1e16, 1e15, 1e-5, 0.0001, 0.1, 2.5e-7, 1.7976931348623157e308]",
    dumps:
      "[1e+21, 1e+21, 1e+21, 100000000000000000000, 1e+16, 1000000000000000.0, 1e-05, 0.0001, 0.1, 2.5e-07, 1.7976931348623157e+308]",
    digest: "253sRRuEmtIgChVp9XAhcutPdP8rGQHT4nMolSmEC5g",
    wrapped: "XBIMl8X5oiqWMobOzEyDSPJUofIZrvu4pvYw8WFXmN4",
  },
  {
    name: "negative zero: -0.0 a float, -0 the integer 0",
    text: "[-0.0, -0, 0, 0.0, -1.5, 1.10, 3.0e2]",
    dumps: "[-0.0, 0, 0, 0.0, -1.5, 1.1, 300.0]",
    digest: "bwz8CbyxZRoneCf6mIe4CqW0jBGpfSL4tefe98C9Mtw",
    wrapped: "WDNfo0utImSxeqY1QUvveB4OCYbfOy59nn01GlC94Uc",
  },
  {
    name: "integers past 2^53 keep every digit",
    text: "[123456789012345678901234567890, -9007199254740993, 9007199254740993.0]",
    dumps: "[123456789012345678901234567890, -9007199254740993, 9007199254740992.0]",
    digest: "nqv1QsyZqLo7cXIFLLythmXeaS6vRpGtuMhFCV3kuqw",
    wrapped: "lhXnjXKz6mRNXXJZLZF1ZcZhfrHl8Kfgu96lbIjtsL8",
  },
  {
    name: "NaN and the infinities, as json.loads accepts them",
    text: "[NaN, Infinity, -Infinity, 1e400, -1e400]",
    dumps: "[NaN, Infinity, -Infinity, Infinity, -Infinity]",
    digest: "zJnSRiOP3VBWq2X9DGpLUqecVFZZaQXiCXnj3px0Pog",
    wrapped: "c2K5qVbKA6243Ebf6mNzEwHT0P61QxXjmBD9M7wau6M",
  },
  {
    name: "ensure_ascii escapes, a lone surrogate, empty containers",
    text: String.raw`{"s": "h\u00e9llo \u2028 \ud83d\ude00 \u007f \u0001 \n\t\"\\/", "lone": "\ud800x", "\u00e9": true, "e": null, "z": [], "a": {}}`,
    dumps: String.raw`{"a": {}, "e": null, "lone": "\ud800x", "s": "h\u00e9llo \u2028 \ud83d\ude00 \u007f \u0001 \n\t\"\\/", "z": [], "\u00e9": true}`,
    digest: "NvF3r5Jpwd32Kunx1ZAPaLOXfsZoOxA6B6GcN0LH6W4",
  },
  {
    name: "keys in code point order (a character past U+FFFF sorts after U+E000)",
    text: String.raw`{"\ue000": 1, "\ud83d\ude00": 2, "\ud800": 3, "b": 4}`,
    dumps: String.raw`{"b": 4, "\ud800": 3, "\ue000": 1, "\ud83d\ude00": 2}`,
    digest: "Pv2cTXCnt7HEACZakSvrvVYGxvZzZZmN9MQ88cR1rKQ",
  },
];

/** Rows as request text, their digests and the table's (hex) digest. */
const TABLES: { name: string; rows: string[]; rowDigests: string[]; digest: string }[] = [
  {
    name: "the vendor SDK's dataset rows",
    rows: ['{"question": "2+2", "answer": 4}', '{"question": "3+3", "answer": 6}'],
    rowDigests: ["VXqPllEmktBemhFJIgzW8SF3wgAxW1Akftb46SJFX4k", "i9fbUUD7jcXE2WBKE7adkCyNoimIBVRsyg9C4xXNAjk"],
    digest: "a0d4b2edd487dafe20ad07f55ca8e4b7e4bbec0a56e55d42ea5241d421656e01",
  },
  {
    name: "rows with floats",
    rows: ['{"score": 1.0, "id": 1}', '{"score": 1e21}', '{"score": -0.0}'],
    rowDigests: [
      "TeNiELqH99UvwXpPmZiYZyfG6ncmTmyxforI8JCXA2I",
      "gwCnYs7qUkIncgY9Ue9fE5NH6YBya9xXNmTgcypfD3A",
      "baDZbx3nuTCpLPKObUsUqBlXa6KNCuSsZtHd5Xvssnc",
    ],
    digest: "a9d81990ed4c245bb6d8141edb21009228129f78cf9c35a8ec908208260cbff1",
  },
  {
    name: "an empty table",
    rows: [],
    rowDigests: [],
    digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  },
];

describe("Python's json.loads and json.dumps(sort_keys=True), as the digests need them", () => {
  it.each(VALUES)("$name", ({ text, dumps }) => {
    expect(pythonDumps(parsePythonJson(text, true))).toBe(dumps);
  });

  it("keeps each number's text only when asked; reads NaN and the infinities; refuses what json.loads refuses", () => {
    expect(parsePythonJson('{"a": [1.0, -0]}')).toEqual({ a: [1, -0] });
    expect(parsePythonJson('{"a": [1.0, -0]}', true)).toEqual({ a: [new PyNumber("1.0"), new PyNumber("-0")] });
    expect(parsePythonJson("[NaN, -Infinity]")).toEqual([Number.NaN, -Infinity]);
    expect(Object.keys(parsePythonJson('{"__proto__": 1}') as object)).toEqual(["__proto__"]);
    for (const bad of ["", "[1,]", "01", "1.", ".5", "+1", '"a\\x"', '"raw\nline"', "nan", "[1] x", "{'a': 1}"])
      expect(() => parsePythonJson(bad), bad).toThrow(/position \d+/);
  });
});

describe("tracewire dev computes the service's digests", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService({ storage: "memory" });
  });
  afterAll(() => service.close());

  const post = (path: string, text: string) => send(service.url, path, text);

  it.each(VALUES)("object value: $name", async ({ text, digest }) => {
    const res = await post("/obj/create", `{"obj": {"project_id": "${PROJECT}", "object_id": "v", "val": ${text}}}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ digest, object_id: "v" });
    // The digest the vendor's SDKs compute client-side is accepted as expected_digest; another one is refused.
    const checked = await post(
      "/obj/create",
      `{"obj": {"project_id": "${PROJECT}", "object_id": "v", "val": ${text}, "expected_digest": "${digest}"}}`,
    );
    expect(checked.status, checked.text).toBe(200);
  });

  it.each(VALUES)("table row: $name", async ({ text, digest, wrapped }) => {
    const row = wrapped ? `{"v": ${text}}` : text;
    const res = await post("/table/create", `{"table": {"project_id": "${PROJECT}", "rows": [${row}]}}`);
    expect(res.status, res.text).toBe(200);
    expect((res.json as { row_digests: string[] }).row_digests).toEqual([wrapped ?? digest]);
  });

  it.each(TABLES)("table: $name", async ({ rows, rowDigests, digest }) => {
    const res = await post("/table/create", `{"table": {"project_id": "${PROJECT}", "rows": [${rows.join(", ")}]}}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ digest, row_digests: rowDigests });
    const checked = await post(
      "/table/create",
      `{"table": {"project_id": "${PROJECT}", "rows": [${rows.join(", ")}], "expected_digest": "${digest}"}}`,
    );
    expect(checked.status, checked.text).toBe(200);
  });

  it("a table built by /table/update has the digest of the same rows created at once", async () => {
    const [, floats] = TABLES;
    const base = await post("/table/create", `{"table": {"project_id": "${PROJECT}", "rows": [${floats!.rows[0]}]}}`);
    const baseDigest = (base.json as { digest: string }).digest;
    const updated = await post(
      "/table/update",
      `{"project_id": "${PROJECT}", "base_digest": "${baseDigest}", "updates": [` +
        `{"append": {"row": ${floats!.rows[2]}}}, {"insert": {"index": 1, "row": ${floats!.rows[1]}}}]}`,
    );
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toEqual({
      digest: floats!.digest,
      updated_row_digests: [floats!.rowDigests[2], floats!.rowDigests[1]],
    });
    const read = await send(service.url, "/table/query", { project_id: PROJECT, digest: floats!.digest });
    expect((read.json as { rows: { digest: string }[] }).rows.map((r) => r.digest)).toEqual(floats!.rowDigests);
  });

  it("a file's digest is the base64url-style sha256 of its bytes", async () => {
    const form = new FormData();
    form.set("project_id", PROJECT);
    form.set("file", new Blob(["def add(a, b):\n    return a + b"]), "obj.py");
    const res = await fetch(`${service.url}/file/create`, { method: "POST", body: form });
    expect(await res.json()).toEqual({ digest: "j3WmhkbIef0MY1wCcIwBD7HAHWfvmTDU5BkQbXt4l6o" });
  });

  it("a malformed body is still a 422 in FastAPI's shape on the digesting routes", async () => {
    for (const text of ['{"obj": {"val": 1.}}', '{"obj": NaNa}', '{"table": {"rows": [1, ]}}']) {
      const res = await post(text.includes("table") ? "/table/create" : "/obj/create", text);
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({ detail: [{ type: "json_invalid", loc: ["body", expect.any(Number)] }] });
    }
  });
});
