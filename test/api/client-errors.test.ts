/**
 * What the service clients' errors may say: a server that quotes the API key back (as some OpenAI-compatible
 * servers and proxies do: "Incorrect API key provided: …") must not put it into an error's message, body or
 * inspection — those end up in logs, traces and bug reports.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { InferenceClient } from "../../src/api/inference/client.js";
import { TracingClient } from "../../src/api/tracing/client.js";
import { TrainingClient } from "../../src/api/training/client.js";
import { ApiError, AuthenticationError, ProtocolError, TimeoutError } from "../../src/errors.js";
import { setupTestServer, sseReply, type TestServer } from "../support/server.js";

let server: TestServer;
const KEY = "tw-echoed-key-7f3a9c2e5b1d";

setupTestServer((started) => {
  server = started;
});

/** Everything a log line, a trace or a bug report could show of an error. */
function everything(err: unknown): string {
  const e = err as ApiError;
  return [String(e), e.message, e.stack, inspect(e, { depth: 10, showHidden: true }), JSON.stringify(e.body)].join(
    "\n",
  );
}

const refusal = `Incorrect API key provided: ${KEY}. You can find your API key at https://example.test.`;

describe("an API key the server quotes back", () => {
  it("is masked in the errors of all three clients (JSON error bodies of each service's shape)", async () => {
    const inference = new InferenceClient({ baseUrl: `${server.url}/v1`, apiKey: KEY, env: {} });
    const training = new TrainingClient({ baseUrl: server.url, apiKey: KEY, env: {} });
    const tracing = new TracingClient({ baseUrl: server.url, apiKey: KEY, env: {}, project: "acme/demo" });
    server.on("POST", "/v1/chat/completions", { status: 401, json: { error: { message: refusal, code: 401 } } });
    server.on("POST", "/v1/preview/models", { status: 401, json: { detail: refusal } });
    server.on("POST", "/call/read", { status: 401, json: { reason: refusal } });
    const errors = [
      await inference.chat.completions.create({ model: "m", messages: [] }).catch((e: unknown) => e),
      await training.models.create({ project: "p", name: "n", base_model: "b" }).catch((e: unknown) => e),
      await tracing.calls.read({ id: "00f067aa0ba902b7" }).catch((e: unknown) => e),
    ];
    for (const err of errors) {
      expect(err).toBeInstanceOf(AuthenticationError);
      expect((err as Error).message).toContain("Incorrect API key provided: REDACTED.");
      expect(everything(err)).not.toContain(KEY);
    }
    await Promise.all([inference.close(), training.close(), tracing.close()]);
  });

  it("is masked in a plain-text error body, a non-JSON success body and an in-stream error event", async () => {
    const inference = new InferenceClient({ baseUrl: `${server.url}/v1`, apiKey: KEY, env: {} });
    server.on("POST", "/v1/chat/completions", { status: 401, text: refusal });
    const plain = await inference.chat.completions.create({ model: "m", messages: [] }).catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(AuthenticationError);
    expect(everything(plain)).not.toContain(KEY);

    server.on("GET", "/v1/models", { status: 200, text: `<html>${refusal}</html>` });
    const html = await inference.models.list().catch((e: unknown) => e);
    expect(html).toBeInstanceOf(ProtocolError);
    expect(everything(html)).not.toContain(KEY);

    server.on("POST", "/v1/chat/completions", sseReply([{ error: { message: refusal, code: 401 } }]));
    const stream = await inference.chat.completions.create({ model: "m", messages: [], stream: true });
    const inStream = await (async () => {
      for await (const _ of stream) throw new Error("no chunk expected");
    })().catch((e: unknown) => e);
    expect(inStream).toBeInstanceOf(AuthenticationError);
    expect((inStream as Error).message).toContain("REDACTED");
    expect(everything(inStream)).not.toContain(KEY);
    await inference.close();
  });
});

describe("timeouts", () => {
  it("say which setting ran out and how to change it (deadline, and silence inside a stream)", async () => {
    const inference = new InferenceClient({
      baseUrl: `${server.url}/v1`,
      apiKey: KEY,
      env: {},
      timeoutMs: 300,
      bodyTimeoutMs: 300,
      retry: { maxAttempts: 1 },
    });
    server.on("POST", "/v1/chat/completions", () => new Promise<void>(() => {}));
    const deadline = await inference.chat.completions.create({ model: "m", messages: [] }).catch((e: unknown) => e);
    expect(deadline).toBeInstanceOf(TimeoutError);
    expect(String(deadline)).toMatch(
      /timed out after 300 ms \(timeoutMs: raise it in the client options or per call\)/,
    );

    server.on("POST", "/v1/chat/completions", (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"id":"c","choices":[]}\n\n'); // then silence
    });
    const stream = await inference.chat.completions.create({ model: "m", messages: [], stream: true });
    const silence = await (async () => {
      for await (const _ of stream);
    })().catch((e: unknown) => e);
    expect(silence).toBeInstanceOf(TimeoutError);
    expect(String(silence)).toMatch(/no data for 300 ms \(bodyTimeoutMs: raise it in the client options\)/);
    await inference.close();
  });
});

describe("a streamed request answered with JSON instead of an event stream", () => {
  it("throws the error the JSON carries, or a ProtocolError, instead of ending with no chunk", async () => {
    const inference = new InferenceClient({ baseUrl: `${server.url}/v1`, apiKey: KEY, env: {} });
    const read = async () => {
      const stream = await inference.chat.completions.create({ model: "m", messages: [], stream: true });
      const chunks: unknown[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      return chunks;
    };
    server.on("POST", "/v1/chat/completions", {
      status: 200,
      json: { error: { message: "Concurrency limit reached for requests", code: 429 } },
    });
    const limited = await read().catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(ApiError);
    expect((limited as ApiError).status).toBe(429);
    expect(String(limited)).toContain("Concurrency limit reached for requests");

    server.on("POST", "/v1/chat/completions", {
      status: 200,
      json: { id: "c", object: "chat.completion", choices: [{ index: 0, message: { content: "hi" } }] },
    });
    const whole = await read().catch((e: unknown) => e);
    expect(whole).toBeInstanceOf(ProtocolError);
    expect(String(whole)).toMatch(/answered application\/json instead of an event stream/);
    await inference.close();
  });
});
