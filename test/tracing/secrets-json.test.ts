/**
 * Credentials inside JSON text carried as a string (secrets-json.ts): another instrumentation's `input.value`, a tool
 * call's arguments, a request body recorded as text. The values under credential keys are masked as in an object, at
 * the service (over OTLP and on the calls route) and in the serializer's rules; JSON without them is sent untouched.
 */
import { trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { op, REDACTED } from "../../src/index.js";
import { KeyRedactor, scrubString } from "../../src/secrets.js";
import { serialize } from "../../src/tracing/serialize.js";
import { serializeShared } from "../../src/tracing/serialize-shared.js";
import { startOwnProvider } from "../support/own-provider.js";

const redactor = new KeyRedactor();
const scrub = (text: string) => scrubString(text, redactor);

describe("JSON text in a string", () => {
  it("the values under credential keys are masked at any depth, the rest kept", () => {
    const text = JSON.stringify({
      model: "gpt-4o-mini",
      api_key: "sk-top-0123456789",
      headers: { Authorization: "Bearer sk-deep-0123456789", "x-request-id": "r-1" },
      messages: [{ role: "user", content: "hi" }],
      credentials: { user: "u", pass: "p" },
      max_tokens: 5,
    });
    expect(JSON.parse(scrub(text))).toEqual({
      model: "gpt-4o-mini",
      api_key: REDACTED,
      headers: { Authorization: REDACTED, "x-request-id": "r-1" },
      messages: [{ role: "user", content: "hi" }],
      credentials: REDACTED,
      max_tokens: 5,
    });
  });

  it("JSON without credentials comes back as the same string, whatever its keys look like", () => {
    for (const text of [
      '{"max_tokens":5,"prompt_tokens":3,"tokenizer":"cl100k","messages":[{"role":"user","content":"a: b"}]}',
      '[{"token":"Hello","logprob":-0.1,"bytes":[72]}]',
      '{"note": "the key: is \\"password\\" in prose"}',
      "[INFO] 12:00:01 token count: 42",
      "{ not json at all: really }",
    ]) {
      expect(scrub(text)).toBe(text);
    }
  });

  it("pretty-printed JSON is written back in its own indentation", () => {
    const text = JSON.stringify({ user: "ada", password: "hunter2-0123", nested: { ok: true } }, null, 4);
    expect(scrub(text)).toBe(JSON.stringify({ user: "ada", password: REDACTED, nested: { ok: true } }, null, 4));
  });

  it("JSON inside a string inside JSON (a tool call's arguments in a recorded request)", () => {
    const args = JSON.stringify({ username: "ada", password: "pw-inner-0123" });
    const text = JSON.stringify({ tool_calls: [{ function: { name: "login", arguments: args } }] });
    const out = scrub(text);
    expect(out).not.toContain("pw-inner");
    const inner = JSON.parse(JSON.parse(out).tool_calls[0].function.arguments);
    expect(inner).toEqual({ username: "ada", password: REDACTED });
  });

  it("text cut short (an attribute limit) has its credential values masked where they stand", () => {
    const whole = JSON.stringify({ api_key: "sk-cut-0123456789", token: 12345, escaped: 'a\\"b', secret: "s-" });
    const cut = `${whole.slice(0, -3)}`; // ends inside the last value: `"secret":"s`
    const out = scrub(cut);
    expect(out).toBe(`{"api_key":"${REDACTED}","token":"${REDACTED}","escaped":"a\\\\\\"b","secret":"${REDACTED}`);
    // Nested JSON that no longer parses: `\"password\":\"…\"` inside a string, cut short.
    const nested = JSON.stringify({ body: JSON.stringify({ password: "pw-nested-0123", n: 1 }) }).slice(0, -2);
    expect(scrub(nested)).not.toContain("pw-nested");
  });

  it("a URL with a password or a credential parameter inside JSON is masked too; other URLs are left as they are", () => {
    expect(JSON.parse(scrub('{"dsn":"postgres://app:pw-1@db:5432/x","retries":3}'))).toEqual({
      dsn: `postgres://app:${REDACTED}@db:5432/x`,
      retries: 3,
    });
    expect(scrub('[{"hook":"https://h.example.com/x?token=t-1&a=2"}]')).toBe(
      `[{"hook":"https://h.example.com/x?token=${REDACTED}&a=2"}]`,
    );
    const links = '{\n  "image_url": "https://img.example.com/a.png",\n  "docs": "https://x.example.com/?q=1"\n}';
    expect(scrub(links)).toBe(links);
  });

  it('a key written with space before its colon (Jackson\'s pretty printer: `"password" : …`) is masked', () => {
    const text = '{\n  "user" : "ada",\n  "password" : "pw-spaced-0123",\n  "n" : 1\n}';
    expect(scrub(text)).toBe(text.replace("pw-spaced-0123", REDACTED));
    const cut = '{ "user" : "ada", "api_key"\t:\t"sk-spaced-0123';
    expect(scrub(cut)).toBe(`{ "user" : "ada", "api_key"\t:\t"${REDACTED}`);
  });

  it('a key spelled with escapes (`"api\\u005fkey"`, `"passwor\\u0064"`) is judged by what it says', () => {
    for (const key of ["api\\u005fkey", "passwor\\u0064", "Authorizatio\\u006E"]) {
      const text = `{"model":"m","${key}":"sk-escaped-0123"}`;
      expect(scrub(text)).not.toContain("sk-escaped");
      expect(scrub(text.slice(0, -2))).not.toContain("sk-escaped"); // cut short: masked where it stands
      const nested = JSON.stringify({ body: text });
      expect(scrub(nested)).not.toContain("sk-escaped");
    }
  });

  it("text cut short: an object or array under a credential key is masked whole, the rest kept", () => {
    const whole = JSON.stringify({
      credentials: { user: "ada", pass: "pw-obj-0123", scopes: ["a", "b}"] },
      api_keys: ["sk-arr-0123", "sk-arr-4567"],
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    const out = scrub(whole.slice(0, -4));
    expect(out).toBe(
      `{"credentials":"${REDACTED}","api_keys":"${REDACTED}","model":"m","messages":[{"role":"user","content":"hi`,
    );
    // Cut inside the object itself: masked to the end.
    expect(scrub(whole.slice(0, 40))).toBe(`{"credentials":"${REDACTED}"`);
    // In JSON nested in a string.
    const nested = JSON.stringify({ body: whole }).slice(0, -3);
    expect(scrub(nested)).not.toMatch(/pw-obj|sk-arr/);
    expect(scrub(nested)).toContain('\\"model\\":\\"m\\"');
  });

  it("JSON nested in strings two and three levels down: masked whole or cut at any point, the rest kept", () => {
    // A tool call's arguments holding a request whose body is JSON text: the credential is two strings down.
    const inner = {
      api_key: "sk-deep-0123456789",
      creds: { password: "pw-deep-0123", user: "ada" },
      headers: ["accept", "*/*", "authorization", "Bearer tok-deep-0123"],
      model: "m",
    };
    const two = JSON.stringify({ request: JSON.stringify({ body: JSON.stringify(inner) }) });
    const three = JSON.stringify({ call: two });
    const leak = /sk-deep|pw-deep|tok-deep/;
    for (const text of [two, three]) {
      for (let cut = 1; cut <= text.length; cut++) expect(scrub(text.slice(0, cut))).not.toMatch(leak);
    }
    const unwrapped = JSON.parse(JSON.parse(JSON.parse(scrub(two)).request).body);
    expect(unwrapped).toEqual({
      api_key: REDACTED,
      creds: { password: REDACTED, user: "ada" },
      headers: ["accept", "*/*", "authorization", REDACTED],
      model: "m",
    });
    // Cut short two levels down: the model after the masked values is still there.
    const cutTwo = scrub(two.slice(0, two.indexOf("ada") + 2));
    expect(cutTwo).toContain(String.raw`api_key\\\":\\\"${REDACTED}\\\",`);
    const cutModel = scrub(two.slice(0, -8));
    expect(cutModel).toContain(String.raw`model\\\":\\\"m`);
    expect(cutModel).not.toMatch(leak);
  });

  it("when something is masked, the rest of the text keeps its bytes: big integers, 1.0, -0, escapes, spacing", () => {
    const text =
      '{"seed": 12345678901234567891, "temperature": 1.0, "bias": -0, "top_p": 1e0, "note": "caf\\u00e9 \\/", "password": "pw-num-0123"}';
    expect(scrub(text)).toBe(text.replace("pw-num-0123", REDACTED));
    const nested = JSON.stringify({ args: '{"id": 98765432109876543210, "token": "t-0123456789"}' });
    expect(scrub(nested)).toBe(nested.replace("t-0123456789", REDACTED));
  });

  it("text cut short: a logprobs entry's `token` (a word piece of the answer) is kept", () => {
    const whole = JSON.stringify({
      choices: [
        {
          logprobs: {
            content: [
              { token: "Hello", logprob: -0.1, bytes: [72] },
              { token: " world", logprob: -0.2 },
            ],
          },
        },
      ],
    });
    const cut = whole.slice(0, -8);
    expect(scrub(cut)).toBe(cut);
  });

  it("nesting deeper than the walk: credentials below it are masked, and a tree too deep to write back never throws", () => {
    const deep = `{"a":${'{"b":'.repeat(80)}{"password":"pw-deep-0123"}${"}".repeat(80)}}`;
    expect(scrub(deep)).toBe(deep.replace("pw-deep-0123", REDACTED));
    const n = 20_000;
    const huge = `{"password":"pw-huge-0123","a":${"[".repeat(n)}${"]".repeat(n)}}`;
    let out = "";
    expect(() => {
      out = scrub(huge);
    }).not.toThrow();
    expect(out).toBe(huge.replace("pw-huge-0123", REDACTED));
  });

  it("text that opens with a byte order mark is scanned too", () => {
    expect(scrub('\uFEFF{"password":"pw-bom-0123"}')).toBe(`\uFEFF{"password":"${REDACTED}"}`);
  });

  it("text that does not parse (cut short, JSON Lines) has the URLs in it checked too", () => {
    const whole = JSON.stringify({
      dsn: "postgres://app:pw-url-0123@db:5432/x",
      hook: "https://h.example.com/x?token=t-url-1&a=2",
      note: "n",
    });
    expect(scrub(whole.slice(0, -6))).toBe(
      `{"dsn":"postgres://app:${REDACTED}@db:5432/x","hook":"https://h.example.com/x?token=${REDACTED}&a=2","note`,
    );
    const lines = '{"a":1}\n{"dsn":"redis://:pw-url-4567@cache:6379"}\n';
    expect(scrub(lines)).toBe(`{"a":1}\n{"dsn":"redis://:${REDACTED}@cache:6379"}\n`);
    const links = '{"a":"https://img.example.com/a.png","b":"https://x.example.com/?q=1"'; // cut short, nothing to mask
    expect(scrub(links)).toBe(links);
  });

  it("redactKeys: [] records the text as it is; a list of one's own decides the keys", () => {
    const text = '{"password":"pw-1","ssn":"078-05-1120"}';
    expect(scrubString(text, new KeyRedactor([]))).toBe(text);
    expect(scrubString(text, new KeyRedactor(["ssn"]))).toBe(`{"password":"pw-1","ssn":"${REDACTED}"}`);
  });

  it("a payload holding such text is recorded masked (the serializer's string rule)", () => {
    expect(serialize({ body: '{"client_secret":"cs-0123456789","grant_type":"client_credentials"}' })).toEqual({
      body: `{"client_secret":"${REDACTED}","grant_type":"client_credentials"}`,
    });
  });
});

describe("header pairs: a credential named by the pair, not by a key", () => {
  const pairs = [
    ["Authorization", "Bearer tok-0123456789"],
    ["Content-Type", "application/json"],
    ["x-api-key", "k-0123456789"],
  ];

  it("in a payload (fetch's and undici's `headers: [[name, value]]`), at any depth, unread", () => {
    let read = false;
    const lazy = ["Cookie", "c"];
    Object.defineProperty(lazy, 1, {
      get() {
        read = true;
        return "session=s-0123";
      },
    });
    expect(serialize({ init: { method: "POST", headers: pairs }, more: [lazy] })).toEqual({
      init: {
        method: "POST",
        headers: [
          ["Authorization", REDACTED],
          ["Content-Type", "application/json"],
          ["x-api-key", REDACTED],
        ],
      },
      more: [["Cookie", REDACTED]],
    });
    expect(read).toBe(false);
  });

  it("two strings that are not a credential's name and value are kept: a pair of words, longer lists", () => {
    const kept = [
      ["role", "user"],
      ["token", "a", "b"],
      ["max_tokens", 5],
      [1, "token"],
      ["a", "password"],
    ];
    expect(serialize(kept)).toEqual(kept);
  });

  it("in JSON text, parsed or cut short, nested in a string too; the rest of the text keeps its bytes", () => {
    const text = JSON.stringify({ url: "/v1", headers: pairs });
    expect(JSON.parse(scrub(text))).toEqual({
      url: "/v1",
      headers: [
        ["Authorization", REDACTED],
        ["Content-Type", "application/json"],
        ["x-api-key", REDACTED],
      ],
    });
    const spaced = '[ [ "Authorization" , "Bearer tok-0123456789" ], ["n", 1.0] ]';
    expect(scrub(spaced)).toBe(`[ [ "Authorization" , "${REDACTED}" ], ["n", 1.0] ]`);
    const cut = text.slice(0, text.lastIndexOf("k-0123") + 4);
    expect(scrub(cut)).not.toMatch(/tok-0123|k-01/);
    expect(scrub(cut)).toContain('"Content-Type","application/json"');
    const nested = JSON.stringify({ arguments: JSON.stringify({ headers: pairs }) });
    expect(scrub(nested)).not.toMatch(/tok-0123|k-0123/);
    expect(JSON.parse(JSON.parse(scrub(nested)).arguments).headers[1]).toEqual(["Content-Type", "application/json"]);
    for (const clean of ['[["role","user"],["n",1]]', '{"stop":["token","x","y"],"tags":["a","b"]}']) {
      expect(scrub(clean)).toBe(clean);
    }
  });

  it("undici's flat list (`[name, value, name, value]`): the item after each header name is masked", () => {
    const flat = ["content-type", "application/json", "authorization", "Bearer tok-0123456789", "x-api-key", "k-01"];
    const masked = ["content-type", "application/json", "authorization", REDACTED, "x-api-key", REDACTED];
    let read = false;
    const lazy = ["accept", "*/*", "cookie", "c"];
    Object.defineProperty(lazy, 3, {
      get() {
        read = true;
        return "session=s-0123";
      },
    });
    expect(serialize({ headers: flat, more: lazy })).toEqual({
      headers: masked,
      more: ["accept", "*/*", "cookie", REDACTED],
    });
    expect(read).toBe(false);
    expect(serializeShared({ headers: flat })).toEqual({ headers: masked });
    // Only a name at a name's place (first, third, …) of a list of even length: words in other lists are kept.
    for (const kept of [
      ["a", "token", "b", "c"],
      ["x", "y", "token", "z", "w"],
    ])
      expect(serialize(kept)).toEqual(kept);
    const text = JSON.stringify({ method: "POST", headers: flat });
    expect(JSON.parse(scrub(text))).toEqual({ method: "POST", headers: masked });
    expect(scrub(text)).toBe(JSON.stringify({ method: "POST", headers: masked }));
    const spaced = '["accept" , "*/*" , "authorization" , "Bearer tok-0123456789"]';
    expect(scrub(spaced)).toBe(`["accept" , "*/*" , "authorization" , "${REDACTED}"]`);
    for (const cut of [text.slice(0, text.indexOf("k-01") + 2), text.slice(0, text.indexOf("tok-0123") + 6)]) {
      expect(scrub(cut)).not.toMatch(/tok-0123|k-01/);
      expect(scrub(cut)).toContain('"content-type","application/json"');
    }
    const nested = JSON.stringify({ body: JSON.stringify({ headers: flat }) });
    expect(scrub(nested)).not.toMatch(/tok-0123|k-01/);
    expect(JSON.parse(JSON.parse(scrub(nested)).body).headers).toEqual(masked);
    const odd = '{"stop":["a","token","b","c"]}';
    expect(scrub(odd)).toBe(odd);
  });

  it("a one-character name of one's own list is masked in JSON text as in a payload and under a key", () => {
    const own = new KeyRedactor(["x"]);
    expect(serialize([["x", "s-0123456789"]], { redactor: own })).toEqual([["x", REDACTED]]);
    expect(scrubString('{"x":"s-0123456789"}', own)).toBe(`{"x":"${REDACTED}"}`);
    expect(scrubString('[["x","s-0123456789"]]', own)).toBe(`[["x","${REDACTED}"]]`);
    expect(scrubString('{"h":[["x","s-0123456789"', own)).toBe(`{"h":[["x","${REDACTED}"`);
    expect(scrubString('{"a":"[[\\"x\\",\\"s-0123456789\\"]]"}', own)).not.toMatch(/s-0123/);
  });

  it("the first item of a pair is still checked as a string: a URL's password and credential parameters", () => {
    for (const first of ["https://u:hunter2@h.example/token", "https://h.example/x?token=tok-0123456789&auth"]) {
      const masked = serialize([first, "v"]) as string[];
      expect(masked[1]).toBe(REDACTED);
      expect(masked[0]).not.toMatch(/hunter2|tok-0123/);
      for (const text of [JSON.stringify([first, "v"]), JSON.stringify({ a: [first, "v"] })]) {
        expect(scrub(text)).not.toMatch(/hunter2|tok-0123/);
        expect(scrub(text)).toContain(`"${REDACTED}"]`);
      }
    }
  });

  it("the name is read once (a getter or Proxy trap on it runs once, and its one answer decides)", () => {
    let reads = 0;
    const names = ["Content-Type", "Authorization"];
    const pair = new Proxy(["?", "Bearer tok-0123456789"], {
      get(target, key, receiver) {
        if (key === "0") return names[Math.min(reads++, 1)];
        return Reflect.get(target, key, receiver);
      },
    });
    const out = serialize({ headers: [pair] }) as { headers: unknown[][] };
    expect(reads).toBe(1);
    expect(out.headers[0]).toEqual(["Content-Type", "Bearer tok-0123456789"]);
    reads = 1; // the second answer from the first read on: a credential's name, so the value is not read
    expect(serialize([pair])).toEqual([["Authorization", REDACTED]]);
    expect(reads).toBe(2);
  });

  it('a boxed string name (`new String("Authorization")`, a Map key too) is a name like the string', () => {
    const name = new String("Authorization");
    expect(serialize({ headers: [[name, "Bearer tok-0123456789"]] })).toEqual({
      headers: [["Authorization", REDACTED]],
    });
    const map = new Map<unknown, unknown>([
      [name, "Bearer tok-0123456789"],
      [1, "one"],
    ]);
    expect(serializeShared(map)).toEqual([
      ["Authorization", REDACTED],
      [1, "one"],
    ]);
  });
});

describe("at the service", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function setup(route: "auto" | "calls" | "otlp" = "auto") {
    const own = await startOwnProvider({ export: route });
    cleanup = own.close;
    return own;
  }

  it("another instrumentation's input.value over OTLP, and an op's JSON argument on the calls route", async () => {
    const { double, processor } = await setup();
    const request = { model: "m", apiKey: "sk-oi-0123456789", messages: [{ role: "user", content: "hi" }] };
    const span = trace.getTracer("openinference-like").startSpan("ChatCompletion");
    span.setAttribute("input.value", JSON.stringify(request));
    span.setAttribute("input.mime_type", "application/json");
    span.end();
    const post = op(
      function post(body: string) {
        return body.length;
      },
      { parameterNames: ["body"] },
    );
    post('{"url":"/login","form":{"user":"ada","password":"pw-op-0123"}}');
    await processor.forceFlush();

    const [exported] = double.spans.filter((s) => s.name === "ChatCompletion");
    expect(JSON.parse(exported!.attributes["input.value"] as string)).toEqual({ ...request, apiKey: REDACTED });
    expect(exported!.attributes["input.mime_type"]).toBe("application/json");
    const [call] = double.callsNamed("post");
    expect(call!.start?.inputs).toEqual({ body: `{"url":"/login","form":{"user":"ada","password":"${REDACTED}"}}` });
    expect(double.wireText()).not.toMatch(/sk-oi|pw-op/);
  });

  it("over OTLP, an op's own input.value is sent as written; one the app sets over it is checked like any other", async () => {
    const { double, processor } = await setup("otlp");
    const login = op(
      function login(form: Record<string, string>) {
        trace.getActiveSpan()?.setAttribute("output.note", '{"session_token":"st-over-0123"}');
        return { ok: form.user === "ada" };
      },
      { parameterNames: ["form"] },
    );
    login({ user: "ada", password: "pw-form-0123" });
    const replaced = op(
      function replaced(n: number) {
        trace.getActiveSpan()?.setAttribute("input.value", '{"n":1,"api_key":"sk-over-0123456789"}');
        return n;
      },
      { parameterNames: ["n"] },
    );
    replaced(1);
    await processor.forceFlush();

    const [first] = double.spans.filter((s) => s.name === "login");
    expect(JSON.parse(first!.attributes["input.value"] as string)).toEqual({
      form: { user: "ada", password: REDACTED },
    });
    expect(first!.attributes["output.value"]).toBe('{"ok":true}');
    expect(first!.attributes["output.note"]).toBe(`{"session_token":"${REDACTED}"}`);
    const [second] = double.spans.filter((s) => s.name === "replaced");
    expect(second!.attributes["input.value"]).toBe(`{"n":1,"api_key":"${REDACTED}"}`);
    expect(double.wireText()).not.toMatch(/sk-over|st-over|pw-form/);
  });

  for (const route of ["auto", "calls"] as const) {
    it(`a string[] attribute has each of its strings checked (${route === "auto" ? "OTLP" : "calls route"})`, async () => {
      const { double, processor } = await setup(route);
      const span = trace.getTracer("ai-like").startSpan("generate");
      const tools = [
        JSON.stringify({ name: "login", parameters: { type: "object" } }),
        JSON.stringify({ name: "fetch", headers: { Authorization: "Bearer sk-arr-0123456789" } }),
      ];
      span.setAttribute("ai.prompt.tools", tools);
      span.setAttribute("app.dsns", ["postgres://app:pw-arr-0123@db/x", "plain"]);
      span.setAttribute("app.counts", [1, 2]);
      // A header pair as a string[] attribute: masked as in a payload.
      span.setAttribute("app.auth_header", ["Authorization", "Bearer sk-arr-pair-0123456789"]);
      span.setAttribute("app.role_pair", ["role", "user"]);
      // undici's flat header list: the item after each header name.
      span.setAttribute("app.headers", ["accept", "*/*", "authorization", "Bearer sk-arr-flat-0123456789"]);
      const spanId = span.spanContext().spanId;
      span.end();
      await processor.forceFlush();

      expect(double.wireText()).not.toMatch(/sk-arr|pw-arr/);
      const attributes = (
        route === "auto"
          ? double.spans.find((s) => s.spanId === spanId)!.attributes
          : double.call(spanId).start!.attributes
      ) as Record<string, unknown>;
      expect(attributes["ai.prompt.tools"]).toEqual([
        tools[0],
        JSON.stringify({ name: "fetch", headers: { Authorization: REDACTED } }),
      ]);
      expect(attributes["app.dsns"]).toEqual([`postgres://app:${REDACTED}@db/x`, "plain"]);
      expect(attributes["app.counts"]).toEqual([1, 2]);
      expect(attributes["app.auth_header"]).toEqual(["Authorization", REDACTED]);
      expect(attributes["app.role_pair"]).toEqual(["role", "user"]);
      expect(attributes["app.headers"]).toEqual(["accept", "*/*", "authorization", REDACTED]);
    });
  }

  for (const route of ["otlp", "calls"] as const) {
    it(`an op's fetch-style header pairs and undici's flat list, as objects and as JSON text (${route})`, async () => {
      const { double, processor } = await setup(route);
      const send = op(
        function send(url: string, init: { headers: string[][]; body: string; raw?: string[] }) {
          return { url, sent: init.body.length };
        },
        { parameterNames: ["url", "init"] },
      );
      const headers = [
        ["Authorization", "Bearer tok-pair-0123456789"],
        ["Accept", "application/json"],
      ];
      const raw = ["accept", "application/json", "authorization", "Bearer tok-flat-0123456789"];
      send("https://api.example.com/v1", { headers, body: JSON.stringify({ headers, raw }), raw });
      await processor.forceFlush();

      expect(double.wireText()).not.toMatch(/tok-pair|tok-flat/);
      const masked = [
        ["Authorization", REDACTED],
        ["Accept", "application/json"],
      ];
      const inputs = (
        route === "otlp"
          ? JSON.parse(double.spans.find((s) => s.name === "send")!.attributes["input.value"] as string)
          : double.callsNamed("send")[0]!.start!.inputs
      ) as { url: string; init: { headers: string[][]; body: string; raw: string[] } };
      expect(inputs.init.headers).toEqual(masked);
      const rawMasked = ["accept", "application/json", "authorization", REDACTED];
      expect(inputs.init.raw).toEqual(rawMasked);
      expect(JSON.parse(inputs.init.body)).toEqual({ headers: masked, raw: rawMasked });
    });
  }
});
