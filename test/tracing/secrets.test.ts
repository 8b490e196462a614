/**
 * The redaction rules themselves (secrets.ts): which keys match, what free text is masked, what is left alone
 * because it only looks like a secret; and that a TracewireSpanProcessor in the app's own provider applies the same
 * payload settings as init() — capture off, the redact hook, redactKeys — checked at the stand-in service.
 */
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { ApiError, DEFAULT_REDACT_KEYS, op, REDACTED } from "../../src/index.js";
import type { TracewireProcessorOptions } from "../../src/otel/index.js";
import { KeyRedactor, scrubText } from "../../src/secrets.js";
import { serialize } from "../../src/tracing/serialize.js";
import { startOwnProvider } from "../support/own-provider.js";
import { TestServer } from "../support/server.js";
import { recordingLogger } from "../support/tracing-session.js";

describe("which keys hold credentials", () => {
  const redactor = new KeyRedactor(DEFAULT_REDACT_KEYS);

  it.each([
    "api_key",
    "apiKey",
    "API-KEY",
    "x-api-key",
    "OPENAI_API_KEY",
    "authorization",
    "Proxy-Authorization",
    "password",
    "db_password",
    "secret",
    "client_secret",
    "token",
    "access_token",
    "refreshToken",
    "cookie",
    "Set-Cookie",
    "private_key",
    "credentials",
    "auth",
    "Helicone-Auth",
    "x-auth",
    "proxy-auth",
    "credential",
    "gcpCredential",
    "secret_key",
    "stripeSecretKey",
    "secret_access_key",
    "AWS_SECRET_ACCESS_KEY",
    "passphrase",
    "key_passphrase",
    "api_keys",
    "apiKeys",
  ])("%s is redacted", (key) => {
    expect(redactor.matches(key)).toBe(true);
  });

  it.each([
    "max_tokens",
    "prompt_tokens",
    "max_completion_tokens",
    "tokenizer",
    "keyboard",
    "key",
    "author",
    "authority",
    "keys",
    "secretary_name",
    "model",
  ])("%s is kept", (key) => {
    expect(redactor.matches(key)).toBe(false);
  });

  it("values under those keys are replaced unread; a logprob's token is model output and is kept", () => {
    let read = false;
    const input = {
      get apiKey() {
        read = true;
        return "sk-live";
      },
      logprobs: { content: [{ token: "Hello", logprob: -0.1, top_logprobs: [{ token: "Hi", logprob: -2 }] }] },
      session: { token: "abc" },
    };
    expect(serialize(input)).toEqual({
      apiKey: REDACTED,
      logprobs: { content: [{ token: "Hello", logprob: -0.1, top_logprobs: [{ token: "Hi", logprob: -2 }] }] },
      session: { token: REDACTED },
    });
    expect(read).toBe(false);
  });

  it("a Map's credential keys are redacted unread also when other keys make it [key, value] pairs", () => {
    let read = false;
    const secret = {
      toJSON() {
        read = true;
        return "sk-live";
      },
    };
    const m = new Map<unknown, unknown>([
      ["apiKey", "sk-0123456789"],
      [1, "one"],
      ["Authorization", secret],
      [{ token: "t" }, "object key"],
    ]);
    expect(serialize(m)).toEqual([
      ["apiKey", REDACTED],
      [1, "one"],
      ["Authorization", REDACTED],
      [{ token: REDACTED }, "object key"],
    ]);
    expect(read).toBe(false);
  });

  it("docs/configuration.md and docs/concepts.md name every entry of the list, and no other", () => {
    const listed = (text: string) => [...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).sort();
    const sorted = [...DEFAULT_REDACT_KEYS].sort();
    const configuration = readFileSync("docs/configuration.md", "utf8");
    expect(listed(/`DEFAULT_REDACT_KEYS` is (.*?)\. /s.exec(configuration)![1]!)).toEqual(sorted);
    const concepts = readFileSync("docs/concepts.md", "utf8");
    const sentence = /it equals the entry or ends with it: (.*?)\. A logprob/s.exec(concepts)![1]!;
    expect(listed(sentence.replace(/\(so [^)]*\)/g, ""))).toEqual(sorted);
  });

  it("a list of your own replaces the defaults; [] records everything", () => {
    const own = new KeyRedactor(["ssn"]);
    expect(serialize({ ssn: "1", apiKey: "2" }, { redactor: own })).toEqual({ ssn: REDACTED, apiKey: "2" });
    expect(serialize({ apiKey: "2" }, { redactor: new KeyRedactor([]) })).toEqual({ apiKey: "2" });
  });
});

describe("free text", () => {
  it.each([
    ["Authorization: Bearer abc.def-123", "Authorization: Bearer REDACTED"],
    ["GET https://u:pw@host/x failed", "GET https://u:REDACTED@host/x failed"],
    ["bad request (api_key=sk-123)", "bad request (api_key=REDACTED)"],
    ['{"password": "hunter2"}', '{"password": "REDACTED"}'],
    ["max_tokens=100 and total_tokens: 42", "max_tokens=100 and total_tokens: 42"],
    ["a plain sentence with no secret", "a plain sentence with no secret"],
    // Header names and schemes are case-insensitive (RFC 9110): `bearer` in any case is a credential's mark.
    ["upstream said: authorization: bearer abc.def-123", "upstream said: authorization: bearer REDACTED"],
    ["BEARER abc.def-123", "BEARER REDACTED"],
    ["Proxy-Authorization: basic dXNlcjpwdw==", "Proxy-Authorization: basic REDACTED"],
    ["authorization: token ghp_abc123", "authorization: token REDACTED"],
    // As plain words `basic` and `token` are common: without a credential key before them, they are prose.
    ["the basic plan has a token limit", "the basic plan has a token limit"],
    // The names of the default key list that end in something else than a word already above.
    [
      "aws_secret_access_key = AKIA0123 and secret_key: sk-1",
      "aws_secret_access_key = REDACTED and secret_key: REDACTED",
    ],
    ["x-auth: tok-1, passphrase=pp-1, api_keys=k1", "x-auth: REDACTED, passphrase=REDACTED, api_keys=REDACTED"],
    ["credential: c-1", "credential: REDACTED"],
  ])("%s → %s", (text, masked) => {
    expect(scrubText(text)).toBe(masked);
  });

  it("every text field of an Error is masked like its message, not only message and stack", () => {
    const e = Object.assign(new Error("upstream refused", { cause: "Authorization: Bearer sk-in-cause" }), {
      detail: "retry with api_key=sk-in-detail",
      code: "E_AUTH",
    });
    const out = serialize(e) as Record<string, unknown>;
    expect(out.cause).toBe("Authorization: Bearer REDACTED");
    expect(out.detail).toBe("retry with api_key=REDACTED");
    expect(out.code).toBe("E_AUTH");
    expect(JSON.stringify(out)).not.toContain("sk-in");
  });

  it("a URL's credential query parameters are masked, Google's `key` too; look-alike names are kept", () => {
    const urls = [
      "https://api.example.com/v1?api_key=sk-1&page=2",
      "https://generativelanguage.googleapis.com/v1beta/models/g:generateContent?alt=sse&key=AIza-1",
      "https://app.example.com/callback#access_token=at-1&state=s",
      "https://api.example.com/v1?X-Api%5FKey=sk-2&sort_key=name&monkey=1&keyboard=us",
    ];
    expect(serialize([...urls, new URL("https://x.example.com/?key=AIza-2&q=cats")])).toEqual([
      "https://api.example.com/v1?api_key=REDACTED&page=2",
      "https://generativelanguage.googleapis.com/v1beta/models/g:generateContent?alt=sse&key=REDACTED",
      "https://app.example.com/callback#access_token=REDACTED&state=s",
      "https://api.example.com/v1?X-Api%5FKey=REDACTED&sort_key=name&monkey=1&keyboard=us",
      "https://x.example.com/?key=REDACTED&q=cats",
    ]);
    // A list of one's own decides the names, plus `key` (what Google's APIs take a key as).
    expect(serialize(urls.slice(0, 2), { redactor: new KeyRedactor(["page"]) })).toEqual([
      "https://api.example.com/v1?api_key=sk-1&page=REDACTED",
      "https://generativelanguage.googleapis.com/v1beta/models/g:generateContent?alt=sse&key=REDACTED",
    ]);
    expect(scrubText(`POST ${urls[1]} failed: 403`)).toBe(
      "POST https://generativelanguage.googleapis.com/v1beta/models/g:generateContent?alt=sse&key=REDACTED failed: 403",
    );
  });

  it("a payload string that is a URL with a password is masked; other strings are recorded as they are", () => {
    expect(serialize(["mysql://root:pw@db/app", "see https://example.com/x?a=1", "Bearer xyz"])).toEqual([
      "mysql://root:REDACTED@db/app",
      "see https://example.com/x?a=1",
      "Bearer xyz",
    ]);
  });
});

describe("a private key in PEM form is masked wherever it sits", () => {
  const pem = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  const body = pem.split("\n")[1]!;
  const block = (label: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;

  it("under a key that is no credential's name: a service account's JWT client keeps it as `key`", () => {
    class JWT {
      email = "runner@p.iam.gserviceaccount.com";
      key = pem;
      scopes = ["https://www.googleapis.com/auth/cloud-platform"];
    }
    const out = serialize({ chat: { model: "gemini-2.5-flash", client: new JWT() } });
    expect(out).toEqual({
      chat: {
        model: "gemini-2.5-flash",
        client: {
          _type: "JWT",
          email: "runner@p.iam.gserviceaccount.com",
          key: `${REDACTED}\n`,
          scopes: ["https://www.googleapis.com/auth/cloud-platform"],
        },
      },
    });
  });

  it.each(["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "OPENSSH PRIVATE KEY"])(
    "%s: the block inside other text is replaced, the text around it kept",
    (label) => {
      const text = `loaded ${block(label)} from env`;
      expect(serialize([text])).toEqual([`loaded ${REDACTED} from env`]);
      expect(scrubText(`cannot parse ${block(label)} at line 3`)).toBe(`cannot parse ${REDACTED} at line 3`);
    },
  );

  it("a block cut short (no END line) is masked to the end of the text", () => {
    const cut = `key=-----BEGIN PRIVATE KEY-----\n${body.slice(0, 20)}`;
    expect(serialize({ note: cut })).toEqual({ note: `key=${REDACTED}` });
    expect(scrubText(`bad ${cut}`)).toBe(`bad key=${REDACTED}`);
  });

  it("public keys and certificates are not secrets and are kept", () => {
    const text = `${block("PUBLIC KEY")}\n${block("CERTIFICATE")}`;
    expect(serialize(text)).toBe(text);
    expect(scrubText(text)).toBe(text);
  });
});

describe("a TracewireSpanProcessor in the app's own provider honours the payload settings", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function ownProvider(options: TracewireProcessorOptions) {
    const { logger, lines } = recordingLogger();
    const { double, processor, close } = await startOwnProvider({ scheduledDelayMillis: 10, logger, ...options });
    cleanup = close;
    const greet = op(
      function greet(form: Record<string, string>) {
        return { reply: `hi ${form.name}`, form };
      },
      { parameterNames: ["form"] },
    );
    greet({ name: "ada", password: "pw-1", ssn: "078-05-1120" });
    await processor.forceFlush();
    const [call] = double.callsNamed("greet");
    return { call: call!, processor, lines };
  }

  it("TRACEWIRE_CAPTURE_CONTENT=false: no inputs, no output", async () => {
    const { call } = await ownProvider({ env: { TRACEWIRE_CAPTURE_CONTENT: "false" } });
    expect(call.start?.inputs).toEqual({});
    expect(call.end?.output).toBeUndefined();
  });

  it("default redaction, then the redact hook", async () => {
    const { call } = await ownProvider({
      env: {},
      redact: (payload) => {
        const form = (payload as { form?: { ssn?: string } }).form;
        if (form?.ssn) form.ssn = "***";
      },
    });
    expect(call.start?.inputs).toEqual({ form: { name: "ada", password: REDACTED, ssn: "***" } });
  });

  it("redactKeys extends the list; TRACEWIRE_REDACT_KEYS adds to it", async () => {
    const { call } = await ownProvider({ env: { TRACEWIRE_REDACT_KEYS: "ssn" } });
    expect(call.start?.inputs).toEqual({ form: { name: "ada", password: REDACTED, ssn: REDACTED } });
    expect(call.end?.output).toEqual({ reply: "hi ada", form: { name: "ada", password: REDACTED, ssn: REDACTED } });
  });

  it("inspecting the processor shows its project, never its key", async () => {
    const { processor } = await ownProvider({ env: {}, apiKey: "sk-tracing-abcdef0123456789" });
    expect(inspect(processor, { depth: 20 })).not.toContain("sk-tracing");
    expect(JSON.stringify(processor)).toBe('{"_type":"TracewireSpanProcessor","project":"acme/demo"}');
  });
});

describe("errors and clients never print a credential", () => {
  it("an ApiError keeps response headers with set-cookie masked; a client inspects without its key", async () => {
    const server = await TestServer.start();
    server.on("GET", "/health", {
      status: 401,
      json: { detail: "bad key" },
      headers: { "set-cookie": "session=s3cr3t-cookie-value; HttpOnly", "x-request-id": "req-1" },
    });
    const client = new TracingClient({ baseUrl: server.url, apiKey: "sk-client-0123456789abcdef", env: {} });
    try {
      const err = await client.service.health().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).headers["set-cookie"]).toBe(REDACTED);
      expect((err as ApiError).headers["x-request-id"]).toBe("req-1");
      expect(inspect(err, { depth: 10 })).not.toContain("s3cr3t-cookie-value");
      expect(inspect(err, { depth: 10 })).not.toContain("sk-client-0123456789abcdef");
      expect(inspect(client, { depth: 10 })).not.toContain("sk-client-0123456789abcdef");
    } finally {
      await client.close();
      await server.close();
    }
  });
});
