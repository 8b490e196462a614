/**
 * Options the clients do not know are refused, not ignored: a JavaScript caller gets no excess-property check, and
 * the `openai` package's spellings (`timeout`, `maxRetries`) or a typo would otherwise change nothing, silently.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { InferenceClient } from "../../src/api/inference/client.js";
import { TracingClient } from "../../src/api/tracing/client.js";
import { TrainingClient } from "../../src/api/training/client.js";
import { ConfigError, ConnectionError, ValidationError } from "../../src/errors.js";
import { setupTestServer, type TestServer } from "../support/server.js";

let server: TestServer;
const KEY = "tw-options-key-4d2c8e1a";

setupTestServer((started) => {
  server = started;
});

describe("client options", () => {
  it("an unknown constructor option is a ConfigError naming it and the option meant", () => {
    const base = { apiKey: KEY, env: {} };
    const make = [
      (extra: object) => new InferenceClient({ baseUrl: `${server.url}/v1`, ...base, ...extra }),
      (extra: object) => new TrainingClient({ baseUrl: server.url, ...base, ...extra }),
      (extra: object) => new TracingClient({ baseUrl: server.url, ...base, ...extra }),
    ];
    for (const build of make) {
      expect(() => build({ timeout: 5000 })).toThrow(ConfigError);
      expect(() => build({ timeout: 5000 })).toThrow(/option timeout .*timeoutMs/);
      expect(() => build({ maxRetries: 0 })).toThrow(/option maxRetries .*retry: \{ maxAttempts \}/);
      // A misspelt key option: named, its value (which may be a secret) never printed.
      const typo = () => build({ apikey: "sk-secret-value-123456" });
      expect(typo).toThrow(/option apikey .*apiKey/);
      expect(typo).not.toThrow(/sk-secret-value/);
    }
    // The clients' own options are still accepted.
    expect(() => make[0]!({ project: "acme/demo", trace: false })).not.toThrow();
    expect(() => make[1]!({ trace: { captureTokenIds: true } })).not.toThrow();
    expect(() => make[2]!({ project: "acme/demo" })).not.toThrow();
  });

  it("an unknown per-call option is a ValidationError naming it, and nothing is sent", async () => {
    const inference = new InferenceClient({ baseUrl: `${server.url}/v1`, apiKey: KEY, env: {} });
    server.on("GET", "/v1/models", { status: 200, json: { object: "list", data: [] } });
    // Thrown when called or as a rejection: either way, before anything is sent.
    const list = (options: object) => Promise.resolve().then(() => inference.models.list(options as never));
    await expect(list({ timeout: 1000 })).rejects.toThrow(ValidationError);
    await expect(list({ timeout: 1000 })).rejects.toThrow(/unknown option timeout \(did you mean timeoutMs\?\)/);
    await expect(list({ maxRetries: 0 })).rejects.toThrow(/unknown option maxRetries .*retry: \{ maxAttempts \}/);
    expect(server.requests).toHaveLength(0);
    // Known options still work.
    await expect(inference.models.list({ timeoutMs: 5000, headers: { "x-trace": "1" } })).resolves.toEqual({
      object: "list",
      data: [],
    });
    await inference.close();
  });
});

describe("a closed client", () => {
  it("refuses further requests at once with a ConnectionError that says close() was called (no retries)", async () => {
    // Backoff this long would show as a hang if the refused request were retried.
    const retry = { baseDelayMs: 60_000, maxDelayMs: 60_000 };
    const training = new TrainingClient({ baseUrl: server.url, apiKey: KEY, env: {}, retry });
    const tracing = new TracingClient({ baseUrl: server.url, apiKey: KEY, env: {}, retry, project: "acme/demo" });
    server.on("GET", "/v1/health", { status: 200, json: {} });
    await training.health();
    await Promise.all([training.close(), tracing.close()]); // tracing: closed before its first request
    server.reset();
    const guard = new Promise((_, reject) => setTimeout(() => reject(new Error("still retrying after 10 s")), 10_000));
    for (const request of [training.health(), tracing.service.health()]) {
      const err = await Promise.race([request, guard]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionError);
      expect(String(err)).toMatch(/the client was closed \(close\(\) was called\): make a new client/);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe("close() with a stream still open", () => {
  it("ends the stream instead of waiting for it: reading it then says the client was closed", async () => {
    // A server that streams for as long as the connection stays open.
    const endless = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = { id: "c-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [] };
      const timer = setInterval(() => res.write(`data: ${JSON.stringify(chunk)}\n\n`), 5);
      req.on("close", () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => endless.listen(0, "127.0.0.1", resolve));
    const { port } = endless.address() as AddressInfo;
    const inference = new InferenceClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY, env: {} });
    try {
      const stream = await inference.chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      });
      // Before the fix close() waited for the unread stream until the server ended it: here, never.
      const guard = new Promise((_, reject) => setTimeout(() => reject(new Error("close() still waiting")), 10_000));
      await Promise.race([inference.close(), guard]);
      const err = await (async () => {
        for await (const _ of stream);
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionError);
      expect(String(err)).toMatch(
        /the response stream was ended because the client was closed \(close\(\) was called\)/,
      );
    } finally {
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });
});

describe("bad numbers in messages", () => {
  it("NaN and Infinity are shown as themselves, not as JSON's null", () => {
    const training = new TrainingClient({ baseUrl: server.url, apiKey: KEY, env: {} });
    const tracing = new TracingClient({ baseUrl: server.url, apiKey: KEY, env: {}, project: "acme/demo" });
    expect(() => training.chat.completions.create({ model: "m", messages: [], temperature: Number.NaN })).toThrow(
      "temperature must be >= 0, got NaN.",
    );
    expect(() =>
      training.chat.completions.create({ model: "m", messages: [], top_p: Number.POSITIVE_INFINITY }),
    ).toThrow("top_p must be in (0, 1], got Infinity.");
    expect(() => training.models.checkpoints("m-1", { limit: Number.NaN })).toThrow("got NaN.");
    expect(() => tracing.calls.streamQuery({ limit: Number.NaN })).toThrow(
      "limit must be a whole number >= 0, got NaN.",
    );
    expect(server.requests).toHaveLength(0);
  });
});
