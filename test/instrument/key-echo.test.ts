/**
 * A server that answers a refused key with the key itself ("Incorrect API key provided: sk-…", as some
 * OpenAI-compatible servers and proxies do): the wrapped clients register their API key as a known secret, so the
 * failed call's exception, status and exception event reach the tracing service with the key masked, on the calls
 * route and on the OTLP route, and no log line quotes it either. The span itself is recorded masked, so the app's own
 * exporters on the same provider never see the key either.
 */
import Anthropic from "@anthropic-ai/sdk";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import OpenAI, { AzureOpenAI } from "openai";
import { describe, expect, it } from "vitest";
import { REDACTED } from "../../src/index.js";
import { wrapAnthropic } from "../../src/instrument/anthropic.js";
import { wrapGoogleGenAI } from "../../src/instrument/google.js";
import { wrapOpenAI } from "../../src/instrument/openai.js";
import { freshKey, setupKeyEcho } from "../support/key-echo-server.js";
import { genai, HAS_GOOGLE } from "./google-support.js";

const echo = setupKeyEcho();

/** Everything the tracing service received and everything tracewire logged: the key is in neither. */
function expectNowhere(key: string): void {
  expect(echo.session.double.wireText()).not.toContain(key);
  expect(echo.session.logs.map((l) => l.message).join("\n")).not.toContain(key);
}

/** What a request the echo server refuses (it refuses every key) rejects with. */
const refused = (request: PromiseLike<unknown>): Promise<unknown> =>
  Promise.resolve(request).then(
    () => expect.unreachable("the server refuses every key"),
    (e: unknown) => e,
  );

/** The call's exception quotes the refusal with the key masked, and the key reached neither the service nor a log. */
function expectMasked(call: { end?: { exception?: unknown } } | undefined, key: string): void {
  expect(String(call?.end?.exception)).toContain(`Incorrect API key provided: ${REDACTED}.`);
  expectNowhere(key);
}

const chat = (client: OpenAI) =>
  refused(
    client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
  ) as Promise<Error>;

describe("wrapOpenAI: a 401 that quotes the client's key", () => {
  it("calls route: the call's exception says why it failed, with the key masked", async () => {
    const session = await echo.start();
    const key = freshKey();
    const client = wrapOpenAI(new OpenAI({ apiKey: key, baseURL: `${echo.url}/v1`, maxRetries: 0 }));
    const err = await chat(client);
    // The app's own error is untouched: masking is for what leaves the process.
    expect(err.message).toContain(key);
    const call = await session.only("openai.chat.completions.create");
    const exception = String(call.end?.exception);
    expect(exception).toContain(`Incorrect API key provided: ${REDACTED}.`);
    expect(exception).toContain("401");
    expectNowhere(key);
  });

  it("OTLP route: status message and exception event masked", async () => {
    const session = await echo.start({ export: "otlp" });
    const key = freshKey();
    const client = wrapOpenAI(new OpenAI({ apiKey: key, baseURL: `${echo.url}/v1`, maxRetries: 0 }));
    await chat(client);
    await session.tracing.flush();
    const [span] = session.double.spans;
    expect(span?.status.message).toContain(`Incorrect API key provided: ${REDACTED}.`);
    const event = span?.events.find((e) => e.name === "exception");
    expect(String(event?.attributes["exception.message"])).toContain(`Incorrect API key provided: ${REDACTED}.`);
    expectNowhere(key);
  });

  it("a key shorter than 8 characters is not registered (masking it everywhere would mangle text)", async () => {
    const session = await echo.start();
    const client = wrapOpenAI(new OpenAI({ apiKey: "k", baseURL: `${echo.url}/v1`, maxRetries: 0 }));
    await chat(client);
    const call = await session.only("openai.chat.completions.create");
    expect(String(call.end?.exception)).toContain("Incorrect API key provided: k. You can find your API key");
  });
});

describe("wrapOpenAI: a key the client gets at request time, or a request's own key, is known too", () => {
  it("an apiKey function's key, quoted by a 401, is masked on the call and in the logs", async () => {
    const session = await echo.start();
    const key = freshKey();
    const client = wrapOpenAI(new OpenAI({ apiKey: async () => key, baseURL: `${echo.url}/v1`, maxRetries: 0 }));
    await chat(client);
    expectMasked(await session.only("openai.chat.completions.create"), key);
  });

  it("a key sent in one request's own headers (Authorization), quoted by a 401, is masked", async () => {
    const session = await echo.start();
    const key = freshKey();
    const client = wrapOpenAI(new OpenAI({ apiKey: freshKey(), baseURL: `${echo.url}/v1`, maxRetries: 0 }));
    await refused(
      client.chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
        { headers: { Authorization: `Bearer ${key}` } },
      ),
    );
    expectMasked(await session.only("openai.chat.completions.create"), key);
  });

  it("an AzureOpenAI client's api-key, and its Azure AD token, quoted by a 401, are masked", async () => {
    const session = await echo.start();
    const key = freshKey();
    const token = freshKey();
    const endpoint = echo.url;
    const byKey = wrapOpenAI(new AzureOpenAI({ apiKey: key, endpoint, apiVersion: "2024-10-21", maxRetries: 0 }));
    const byToken = wrapOpenAI(
      new AzureOpenAI({ azureADTokenProvider: async () => token, endpoint, apiVersion: "2024-10-21", maxRetries: 0 }),
    );
    await chat(byKey);
    await chat(byToken);
    await session.tracing.flush();
    const calls = session.double.callsNamed("openai.chat.completions.create");
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(String(call.end?.exception)).toContain(`Incorrect API key provided: ${REDACTED}.`);
    expectNowhere(key);
    expectNowhere(token);
  });
});

describe("wrapAnthropic: the client's apiKey and authToken are known secrets", () => {
  it.each(["apiKey", "authToken"] as const)("%s quoted by a 401 is masked", async (option) => {
    const session = await echo.start();
    const key = freshKey();
    const client = wrapAnthropic(new Anthropic({ [option]: key, baseURL: echo.url, maxRetries: 0 }));
    await refused(
      client.messages.create({ model: "claude-x", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    );
    const call = await session.only("anthropic.messages.create");
    expectMasked(call, key);
  });
});

describe("wrapAnthropic: a key the client gets from a function (apiKey: () => …) at request time is known too", () => {
  it("quoted by a 401, it is masked on the call and in the logs", async () => {
    const session = await echo.start();
    const key = freshKey();
    const client = wrapAnthropic(
      new Anthropic({ apiKey: async () => key, baseURL: echo.url, maxRetries: 0 } as unknown as { apiKey: string }),
    );
    const error = await refused(
      client.messages.create({ model: "claude-x", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    );
    // The caller gets the SDK's error unchanged.
    expect(String(error)).toContain(key);
    const call = await session.only("anthropic.messages.create");
    expectMasked(call, key);
  });

  it("a key sent in one request's own headers (Authorization), quoted by a 401, is masked", async () => {
    const session = await echo.start();
    const key = freshKey();
    const client = wrapAnthropic(new Anthropic({ apiKey: freshKey(), baseURL: echo.url, maxRetries: 0 }));
    await refused(
      client.messages.create(
        { model: "claude-x", max_tokens: 8, messages: [{ role: "user", content: "hi" }] },
        { headers: { Authorization: `Bearer ${key}` } },
      ),
    );
    const call = await session.only("anthropic.messages.create");
    expectMasked(call, key);
  });
});

describe.skipIf(!HAS_GOOGLE)("wrapGoogleGenAI: the client's apiKey is a known secret", () => {
  it("a 401 quoting it is masked", async () => {
    const session = await echo.start();
    const key = freshKey();
    const client = wrapGoogleGenAI(new genai.GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: echo.url } }));
    await refused(client.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }));
    await session.tracing.flush();
    const [call] = [...session.double.calls.values()];
    expectMasked(call, key);
  });

  it("a Vertex AI client's Google auth token (no API key), quoted by a 401, is masked", async () => {
    const session = await echo.start();
    const token = freshKey();
    const client = new genai.GoogleGenAI({
      vertexai: true,
      project: "demo-project",
      location: "us-central1",
      httpOptions: { baseUrl: echo.url },
    });
    // Application default credentials, stood in for: what google-auth-library hands the SDK for each request.
    const auth = (client as unknown as { apiClient: { clientOptions: { auth: { googleAuth: unknown } } } }).apiClient
      .clientOptions.auth;
    auth.googleAuth = { getRequestHeaders: async () => new Headers({ Authorization: `Bearer ${token}` }) };
    wrapGoogleGenAI(client);
    await refused(client.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }));
    await session.tracing.flush();
    const [call] = [...session.double.calls.values()];
    expectMasked(call, token);
  });

  it("a key sent in one request's config.httpOptions.headers, quoted by a 401, is masked", async () => {
    const session = await echo.start();
    const key = freshKey();
    const client = wrapGoogleGenAI(new genai.GoogleGenAI({ apiKey: freshKey(), httpOptions: { baseUrl: echo.url } }));
    const config = { httpOptions: { headers: { "x-goog-api-key": key } } };
    await refused(client.models.generateContent({ model: "gemini-2.5-flash", contents: "hi", config }));
    await session.tracing.flush();
    const [call] = [...session.double.calls.values()];
    expectMasked(call, key);
  });
});

describe("masked where the span is recorded, not only where tracewire exports it", () => {
  it("the app's own exporter on the same provider sees the status and exception masked", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      const key = freshKey();
      await chat(wrapOpenAI(new OpenAI({ apiKey: key, baseURL: `${echo.url}/v1`, maxRetries: 0 })));
      const [span] = exporter.getFinishedSpans();
      expect(span?.status.message).toContain(`Incorrect API key provided: ${REDACTED}.`);
      const event = span?.events.find((e) => e.name === "exception");
      expect(String(event?.attributes?.["exception.message"])).toContain(`Incorrect API key provided: ${REDACTED}.`);
      expect(JSON.stringify([span?.status, span?.events])).not.toContain(key);
    } finally {
      await provider.shutdown();
      trace.disable();
    }
  });
});
