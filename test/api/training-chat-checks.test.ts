/**
 * Sampling values the training service's engine refuses in every version (vLLM's SamplingParams checks), refused
 * before sending with the value and the accepted range in the message.
 */
import { describe, expect, it } from "vitest";
import { TrainingClient } from "../../src/api/training/client.js";
import { ValidationError } from "../../src/errors.js";
import { setupTestServer, type TestServer } from "../support/server.js";

let server: TestServer;
let client: TrainingClient;

setupTestServer((started) => {
  server = started;
  client = new TrainingClient({ baseUrl: server.url, apiKey: "tw-training-key-0003", env: {} });
  return () => client.close();
});

describe("training chat sampling checks", () => {
  it("top_k other than -1, 0 or an integer >= 1, and a negative top_logprobs, are refused before sending", () => {
    const base = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
    for (const top_k of [-2, 0.5, 2.5]) {
      const call = () => client.chat.completions.create({ ...base, top_k });
      expect(call, String(top_k)).toThrow(ValidationError);
      expect(call, String(top_k)).toThrow(`top_k must be -1 or 0 (off) or an integer >= 1, got ${top_k}.`);
    }
    expect(() => client.chat.completions.create({ ...base, logprobs: true, top_logprobs: -1 })).toThrow(
      "top_logprobs must be an integer >= 0, got -1.",
    );
    expect(server.requests).toHaveLength(0);
  });

  it("the values the engine accepts are sent", async () => {
    server.on("POST", "/v1/chat/completions", { status: 200, json: { id: "c", choices: [] } });
    const base = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
    for (const top_k of [-1, 0, 1, 50]) await client.chat.completions.create({ ...base, top_k });
    await client.chat.completions.create({ ...base, logprobs: true, top_logprobs: 0 });
    expect(server.requests).toHaveLength(5);
  });
});
