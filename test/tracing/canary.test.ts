/**
 * The canary suite: one secret string handed to tracewire in every way a user could — an op argument and return
 * value, call attributes, a refused thread id, an `openai` client and our own clients, `Headers` and `Request`
 * objects, an error message and its `cause`, a redact hook that throws, URLs with credentials, a foreign span's
 * attributes, a wrapped LLM call's parameters, and tracewire's own handle and processor — on both routes and both
 * OTLP encodings. Every byte that reaches the loopback stand-in service (bodies after gunzip, and every header but
 * the tracing API key's own `Authorization`) and every log line is scanned: the canary appears nowhere. With
 * `redactKeys: []` the same run does send it where the user put it under a key, so the scan can fail.
 */
import { inspect } from "node:util";
import { trace } from "@opentelemetry/api";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { type InitOptions, op, withAttributes, withThread } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { OpenAIServer } from "../support/openai-server.js";
import { type Session, startSession } from "../support/tracing-session.js";

const CANARY = "cnry-7Q2xZp9LwV4k";
/** The tracing service's own key: it travels in the Authorization header to the service, and nowhere else. */
const TRACING_KEY = `tracing-key-${CANARY}`;

const ROUTES: [string, InitOptions][] = [
  ["calls route", { export: "auto" }],
  ["OTLP protobuf", { export: "otlp", otlpProtocol: "http/protobuf" }],
  ["OTLP JSON", { export: "otlp", otlpProtocol: "http/json" }],
];

let llm: OpenAIServer;
beforeAll(async () => {
  llm = await OpenAIServer.start();
});
afterAll(() => llm.server.close());

/** Runs every placement of the canary inside one traced session; returns what the app saw, for fidelity checks. */
async function handOverTheCanary(
  s: Session,
): Promise<{ errors: string[]; userError: string | undefined; inspected: string[] }> {
  /** What tracewire itself raised. */
  const errors: string[] = [];
  let userError: string | undefined;
  const openai = new OpenAI({ apiKey: CANARY, baseURL: llm.baseURL, maxRetries: 0 });
  const ourClient = new TracingClient({ baseUrl: s.double.url, apiKey: CANARY, env: {} });
  const headers = new Headers({ authorization: `Bearer ${CANARY}`, "x-api-key": CANARY, accept: "text/plain" });
  const request = new Request(`https://example.com/v1?api_key=${CANARY}&page=2`, {
    headers: { authorization: `Bearer ${CANARY}` },
  });

  const agent = op(
    async function canaryAgent(config: Record<string, unknown>, client: OpenAI, hdrs: Headers) {
      expect(client).toBe(openai);
      expect(hdrs).toBe(headers);
      return {
        token: CANARY,
        session: { cookie: `sid=${CANARY}`, "Set-Cookie": `sid=${CANARY}; HttpOnly` },
        client,
        ourClient,
        tracing: s.tracing,
        processor: s.tracing.processor,
        request,
        signal: new AbortController().signal,
        url: new URL(`postgres://admin:${CANARY}@db.internal:5432/app`),
        dsn: `redis://default:${CANARY}@cache.internal:6379`,
        failure: new Error("upstream refused", { cause: { apiKey: CANARY, status: 401 } }),
        config,
      };
    },
    { attributes: { client_secret: CANARY, region: "eu" }, parameterNames: ["config", "client", "hdrs"] },
  );

  await withAttributes({ api_key: CANARY, tenant: "acme" }, () =>
    agent(
      { apiKey: CANARY, password: CANARY, nested: { OPENAI_API_KEY: CANARY, model: "gpt-4o-mini" } },
      openai,
      headers,
    ),
  );

  // A thread id is sent as it is (the user asked for that); a refused one is never echoed back.
  try {
    withThread(CANARY.repeat(100), () => op(function inThread() {})());
  } catch (err) {
    errors.push(String(err), inspect(err));
  }

  // An error message quoting a header, with a credential in its cause.
  const failing = op(function canaryFailure() {
    throw new Error(`upstream answered 401 for Authorization: Bearer ${CANARY} (api_key=${CANARY})`, {
      cause: { apiKey: CANARY },
    });
  });
  try {
    failing();
  } catch (err) {
    userError = (err as Error).message;
  }

  // Another instrumentation's span: a captured auth header and a URL with a password.
  const foreign = trace.getTracer("canary-http").startSpan("GET /v1", {
    attributes: {
      "http.request.header.authorization": [`Bearer ${CANARY}`],
      "http.request.header.x-api-key": [CANARY],
      "url.full": `https://svc:${CANARY}@example.com/v1`,
      "http.request.method": "GET",
    },
  });
  foreign.setStatus({ code: 2, message: `proxy said: token=${CANARY}` });
  foreign.recordException(new Error(`connect failed: https://user:${CANARY}@proxy.internal`));
  foreign.end();

  // A wrapped LLM call with a credential in its parameters (and GenAI content attributes on).
  const wrapped = wrapOpenAI(openai, { contentAttributes: true });
  const completion = await wrapped.chat.completions.create({
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "hello" }],
    metadata: { session_token: CANARY },
  });
  expect(completion.choices[0]?.message.content).toBeTypeOf("string");

  const inspected = [
    inspect(s.tracing, { depth: 10 }),
    inspect(s.tracing.processor, { depth: 10 }),
    JSON.stringify(s.tracing.processor),
    inspect(ourClient, { depth: 10 }),
    JSON.stringify(ourClient),
  ];
  await ourClient.close();
  await s.tracing.flush();
  return { errors, userError, inspected };
}

/** Everything that reached the service, but the tracing key's own Authorization header. */
function wire(s: Session): string {
  const headers = s.double.server.requests.map((r) =>
    Object.entries(r.headers)
      .filter(([key]) => key !== "authorization")
      .map(([key, value]) => `${key}: ${value}`)
      .join("\n"),
  );
  return `${s.double.wireText()}\n${headers.join("\n")}`;
}

describe.each(ROUTES)("the canary never leaves the process: %s", (_name, options) => {
  let s: Session;
  let seen: Awaited<ReturnType<typeof handOverTheCanary>>;
  beforeAll(async () => {
    s = await startSession({ ...options, apiKey: TRACING_KEY });
    seen = await handOverTheCanary(s);
  });
  afterAll(() => s.stop());

  it("is nowhere in what the service received, while the calls themselves arrived", () => {
    const text = wire(s);
    expect(text).toContain("canaryAgent"); // the scan is over real traffic
    expect(text).toContain("REDACTED");
    expect(text).not.toContain(CANARY);
  });

  it("is in no log line, no error tracewire raised, and no inspection of our objects", () => {
    expect(s.logs.map((l) => l.message).join("\n")).not.toContain(CANARY);
    expect(seen.errors.join("\n")).not.toContain(CANARY);
    for (const text of seen.inspected) expect(text).not.toContain(CANARY);
    expect(seen.inspected[0]).toContain("TracewireHandle");
    expect(seen.inspected[1]).toContain("TracewireSpanProcessor");
  });

  it("the user's own error still reaches the user unchanged (only what is recorded is masked)", () => {
    expect(seen.userError).toBe(`upstream answered 401 for Authorization: Bearer ${CANARY} (api_key=${CANARY})`);
  });
});

describe("the recorded call shows where a secret was, and our objects as summaries (calls route)", () => {
  let s: Session;
  beforeAll(async () => {
    s = await startSession({ apiKey: TRACING_KEY });
    await handOverTheCanary(s);
  });
  afterAll(() => s.stop());

  it("inputs, output and attributes hold REDACTED under credential keys and summaries for clients", async () => {
    const call = await s.only("canaryAgent");
    const inputs = call.start.inputs as Record<string, Record<string, unknown>>;
    expect(inputs.config).toEqual({
      apiKey: "REDACTED",
      password: "REDACTED",
      nested: { OPENAI_API_KEY: "REDACTED", model: "gpt-4o-mini" },
    });
    expect(inputs.client).toEqual({ _type: "OpenAI", baseURL: llm.baseURL });
    expect(inputs.hdrs).toEqual({
      _type: "Headers",
      accept: "text/plain",
      authorization: "REDACTED",
      "x-api-key": "REDACTED",
    });
    expect(call.start.attributes).toMatchObject({ api_key: "REDACTED", tenant: "acme" });
    const output = call.end?.output as Record<string, unknown>;
    expect(output).toMatchObject({
      token: "REDACTED",
      session: { cookie: "REDACTED", "Set-Cookie": "REDACTED" },
      client: { _type: "OpenAI" },
      ourClient: { _type: "TracingClient" },
      tracing: { _type: "TracewireHandle", enabled: true },
      processor: { _type: "TracewireSpanProcessor", project: "acme/demo" },
      request: { _type: "Request", method: "GET", url: "https://example.com/v1?api_key=REDACTED&page=2" },
      signal: { _type: "AbortSignal", aborted: false },
      url: "postgres://admin:REDACTED@db.internal:5432/app",
      dsn: "redis://default:REDACTED@cache.internal:6379",
      failure: { name: "Error", message: "upstream refused", cause: { apiKey: "REDACTED", status: 401 } },
    });
    // The summaries are the whole record: nothing of the processor's insides (options, queues, buffers).
    expect(Object.keys(output.processor as object)).toEqual(["_type", "project"]);
  });

  it("a failed call's exception keeps the words and masks the credential", async () => {
    const call = await s.only("canaryFailure");
    expect(call.end?.exception).toBe(
      "Error: upstream answered 401 for Authorization: Bearer REDACTED (api_key=REDACTED)",
    );
  });
});

describe("redactKeys: [] records what is under credential keys, as asked (so the scan above can fail)", () => {
  let s: Session;
  beforeAll(async () => {
    s = await startSession({ apiKey: TRACING_KEY, redactKeys: [] });
    await handOverTheCanary(s);
  });
  afterAll(() => s.stop());

  it("sends the canary under the keys the user put it", async () => {
    const call = await s.only("canaryAgent");
    expect((call.start.inputs as { config: unknown }).config).toMatchObject({ apiKey: CANARY, password: CANARY });
    expect(wire(s)).toContain(CANARY);
    // Our own objects stay summaries whatever the list: they are never data.
    expect(wire(s)).not.toContain(TRACING_KEY);
  });
});

describe.each(ROUTES)("a redact hook that throws with the secret in its message: %s", (_name, options) => {
  let s: Session;
  beforeAll(async () => {
    s = await startSession({
      ...options,
      apiKey: TRACING_KEY,
      redact: (payload) => {
        throw new Error(`cannot redact ${JSON.stringify(payload)} ${CANARY}`);
      },
    });
    op(function hookVictim(note: string) {
      return note;
    })(`private note ${CANARY}`);
    await s.tracing.flush();
  });
  afterAll(() => s.stop());

  it("withholds the payload and logs the failure without the message", () => {
    expect(wire(s)).toContain("hookVictim");
    expect(wire(s)).not.toContain(CANARY);
    expect(s.logs.map((l) => l.message).join("\n")).toContain("The redact hook threw an Error (message withheld)");
    expect(s.logs.map((l) => l.message).join("\n")).not.toContain(CANARY);
  });
});
