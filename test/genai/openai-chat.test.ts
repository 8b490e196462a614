/**
 * The provider-neutral GenAI chat mapping (src/otel/genai-{chat,response,chunks,content}.ts) on inputs no loopback server produces easily:
 * provider detection for real hosts, chunk reassembly edge cases, content parts, error types.
 */
import { describe, expect, it } from "vitest";
import { chatEndpoint, chatRequestAttributes } from "../../src/genai/openai-chat.js";
import { ChatChunkAccumulator } from "../../src/genai/openai-chunks.js";
import { inputMessagesJson, outputMessagesJson } from "../../src/genai/openai-content.js";
import { errorTypeOf, withoutTokenIds } from "../../src/genai/openai-response.js";
import { chunkWithoutUsage, USAGE_ONLY } from "../../src/genai/sse-usage.js";

describe("chatEndpoint", () => {
  const known = { inference: "https://inference.example.com", training: "http://127.0.0.1:8000" };

  it.each([
    ["https://api.openai.com/v1", "openai", "api.openai.com", 443],
    ["https://acme.openai.azure.com/openai", "azure.ai.openai", "acme.openai.azure.com", 443],
    ["https://acme.cognitiveservices.azure.com/openai", "azure.ai.openai", "acme.cognitiveservices.azure.com", 443],
    // Azure AI Foundry: Azure OpenAI under a resource's /openai path, the model inference API elsewhere.
    ["https://acme.services.ai.azure.com/openai/v1/", "azure.ai.openai", "acme.services.ai.azure.com", 443],
    ["https://acme.services.ai.azure.com/models", "azure.ai.inference", "acme.services.ai.azure.com", 443],
    ["https://acme.services.ai.azure.com/openaix", "azure.ai.inference", "acme.services.ai.azure.com", 443],
    ["https://llama.eastus2.models.ai.azure.com/v1", "azure.ai.inference", "llama.eastus2.models.ai.azure.com", 443],
    ["https://phi.eastus.inference.ai.azure.com", "azure.ai.inference", "phi.eastus.inference.ai.azure.com", 443],
    ["https://api.groq.com/openai/v1", "groq", "api.groq.com", 443],
    ["https://inference.example.com/v1", "tracewire.inference", "inference.example.com", 443],
    ["http://127.0.0.1:8000", "tracewire.training", "127.0.0.1", 8000],
    ["http://localhost:11434/v1", "openai", "localhost", 11434],
    ["http://[::1]:9000/v1", "openai", "::1", 9000],
    // A look-alike host is not OpenAI's.
    ["https://api.openai.com.evil.example/v1", "openai", "api.openai.com.evil.example", 443],
    ["https://notopenai.azure.com/v1", "openai", "notopenai.azure.com", 443],
  ])("%s → %s", (url, provider, address, port) => {
    expect(chatEndpoint(url, undefined, known)).toEqual({ provider, address, port });
  });

  it("providerName wins; a malformed URL leaves only the provider", () => {
    expect(chatEndpoint("https://api.openai.com/v1", "custom", known).provider).toBe("custom");
    expect(chatEndpoint("not a url", undefined, known)).toEqual({ provider: "openai" });
  });
});

describe("chatRequestAttributes", () => {
  it("maps parameters, and skips what is absent or malformed", () => {
    const endpoint = { provider: "openai", address: "h", port: 1 };
    expect(
      chatRequestAttributes(
        { model: "m", max_tokens: 5, stop: "END", response_format: { type: "json_object" }, top_k: 40, n: 3 },
        endpoint,
        false,
      ),
    ).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "m",
      "server.address": "h",
      "server.port": 1,
      "gen_ai.request.max_tokens": 5,
      "gen_ai.request.stop_sequences": ["END"],
      "gen_ai.output.type": "json",
      "gen_ai.request.top_k": 40,
      "gen_ai.request.choice.count": 3,
    });
    expect(chatRequestAttributes({ temperature: "hot", stop: [1] }, { provider: "p" }, true)).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "p",
      "gen_ai.request.stream": true,
    });
  });
});

describe("ChatChunkAccumulator", () => {
  it("keeps tool calls apart by index across choices, whatever the order", () => {
    const acc = new ChatChunkAccumulator();
    const tc = (choice: number, index: number, fn: object, id?: string) => ({
      choices: [
        { index: choice, delta: { tool_calls: [{ index, ...(id ? { id, type: "function" } : {}), function: fn }] } },
      ],
    });
    acc.add({ id: "c", model: "m", choices: [{ index: 1, delta: { role: "assistant" } }] });
    acc.add(tc(1, 1, { name: "b", arguments: "" }, "id-b"));
    acc.add(tc(0, 0, { name: "a", arguments: '{"x"' }, "id-a"));
    acc.add(tc(1, 1, { arguments: '{"y":2}' }));
    acc.add(tc(0, 0, { arguments: ":1}" }));
    acc.add(tc(1, 0, { name: "c", arguments: "{}" }, "id-c"));
    acc.add({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
    const completion = acc.completion() as { choices: { index: number; message: { tool_calls: unknown[] } }[] };
    expect(completion.choices.map((c) => [c.index, c.message.tool_calls])).toEqual([
      [0, [{ id: "id-a", type: "function", function: { name: "a", arguments: '{"x":1}' } }]],
      [
        1,
        [
          { id: "id-c", type: "function", function: { name: "c", arguments: "{}" } },
          { id: "id-b", type: "function", function: { name: "b", arguments: '{"y":2}' } },
        ],
      ],
    ]);
    expect(acc.finished).toBe(false);
  });

  it("skips choices and tool calls with negative, fractional or absurd indexes instead of building sparse arrays", () => {
    const acc = new ChatChunkAccumulator();
    acc.add({ choices: [{ index: 0, delta: { content: "ok" } }] });
    for (const index of [-1, 0.5, 5e7, Number.NaN]) acc.add({ choices: [{ index, delta: { content: "bad" } }] });
    acc.add({ choices: [{ index: 0, delta: { tool_calls: [{ index: 5e7, id: "x", function: { name: "f" } }] } }] });
    acc.add({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
    const completion = acc.completion() as { choices: { index: number; message: Record<string, unknown> }[] };
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]!.message.content).toBe("ok");
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    expect(acc.finished).toBe(true);
  });

  it("collects reasoning, refusal, logprobs and the last usage; ignores junk", () => {
    const acc = new ChatChunkAccumulator();
    acc.add(null);
    acc.add({ choices: "nope" });
    acc.add({
      choices: [{ index: 0, delta: { reasoning_content: "think", content: "A" }, logprobs: { content: [1] } }],
    });
    acc.add({
      choices: [{ index: 0, delta: { reasoning_content: "ing", refusal: "no" }, logprobs: { content: [2] } }],
    });
    acc.add({
      choices: [{ index: 0, delta: {}, finish_reason: "stop", stop_reason: 42 }],
      usage: { prompt_tokens: 1 },
    });
    acc.add({ choices: [], usage: { prompt_tokens: 2 } });
    expect(acc.completion()).toEqual({
      id: null,
      object: "chat.completion",
      created: null,
      model: null,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "A", refusal: "no", reasoning_content: "thinking" },
          finish_reason: "stop",
          stop_reason: 42,
          logprobs: { content: [1, 2] },
        },
      ],
      usage: { prompt_tokens: 2 },
    });
    expect(acc.finished).toBe(true);
    expect(acc.chunks).toBe(5);
  });
});

describe("content JSON", () => {
  it("maps image, audio and data URLs to semconv parts; unknown parts pass through", () => {
    const json = inputMessagesJson([
      {
        role: "user",
        name: "ann",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "https://x/cat.png" } },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          { type: "input_audio", input_audio: { data: "BBBB", format: "wav" } },
          { type: "mystery", value: 1 },
        ],
      },
    ]);
    expect(JSON.parse(json!)).toEqual([
      {
        role: "user",
        name: "ann",
        parts: [
          { type: "text", content: "look" },
          { type: "uri", modality: "image", uri: "https://x/cat.png" },
          { type: "blob", modality: "image", mime_type: "image/png", content: "AAAA" },
          { type: "blob", modality: "audio", mime_type: "audio/wav", content: "BBBB" },
          { type: "mystery", value: 1 },
        ],
      },
    ]);
  });

  it("an answer that never finished is reported with finish_reason error", () => {
    const json = outputMessagesJson({
      choices: [{ message: { role: "assistant", content: "par" }, finish_reason: null }],
    });
    expect(JSON.parse(json!)).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "par" }], finish_reason: "error" },
    ]);
  });
});

describe("withoutTokenIds / errorTypeOf", () => {
  it("strips token ids without touching the original; returns the same object when there are none", () => {
    const completion = { prompt_token_ids: [1], choices: [{ index: 0, token_ids: [2], message: {} }] };
    expect(withoutTokenIds(completion)).toEqual({ choices: [{ index: 0, message: {} }] });
    expect(completion.choices[0]).toHaveProperty("token_ids");
    const clean = { choices: [{ index: 0 }] };
    expect(withoutTokenIds(clean)).toBe(clean);
  });

  it("status, then code, then type, then class name, else _OTHER", () => {
    class APIConnectionError extends Error {}
    expect(errorTypeOf({ status: 503, code: "x" })).toBe("503");
    expect(errorTypeOf({ code: "rate_limit" })).toBe("rate_limit");
    expect(errorTypeOf({ type: "server_error" })).toBe("server_error");
    expect(errorTypeOf(new APIConnectionError("x"))).toBe("APIConnectionError");
    expect(errorTypeOf(new TypeError("x"))).toBe("TypeError");
    expect(errorTypeOf(new Error("x"))).toBe("_OTHER");
    expect(errorTypeOf("boom")).toBe("_OTHER");
  });
});

describe("chunkWithoutUsage (the injected usage hidden from parsed chunks)", () => {
  it("a copy without the member, in the server's order; the usage-only chunk hidden; other chunks as they are", () => {
    const chunk = {
      id: "c",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { content: "a" } }],
      usage: null,
    };
    const shown = chunkWithoutUsage(chunk) as Record<string, unknown>;
    expect(Object.keys(shown)).toEqual(["id", "object", "choices"]);
    expect(shown.choices).toBe(chunk.choices);
    expect(chunk.usage).toBeNull(); // the SDK's own object is left as it was
    expect(chunkWithoutUsage({ id: "c", choices: [], usage: { total_tokens: 3 } })).toBe(USAGE_ONLY);
    const last = { id: "c", choices: [{ index: 0, finish_reason: "stop" }], usage: { total_tokens: 3 } };
    expect(chunkWithoutUsage(last)).toEqual({ id: "c", choices: last.choices });
    const plain = { id: "c", choices: [] };
    expect(chunkWithoutUsage(plain)).toBe(plain);
    expect(chunkWithoutUsage("text")).toBe("text");
  });

  it("OpenAI's chunk shapes (with and without the `obfuscation` padding) and any other: every member but usage, in order", () => {
    const choices = [{ index: 0, delta: { content: "a" }, logprobs: null, finish_reason: null }];
    const openai = {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-4o-mini",
      service_tier: "default",
      system_fingerprint: "fp",
      choices,
      usage: null,
    };
    const padded = { ...openai, obfuscation: "Zx9" };
    const other = { id: "c", model: "m", choices, usage: null, x_extra: { n: 1 } };
    const noTier = { ...openai, service_tier: undefined };
    for (const chunk of [openai, padded, other, noTier] as Record<string, unknown>[]) {
      const shown = chunkWithoutUsage(chunk) as Record<string, unknown>;
      const { usage: _usage, ...expected } = chunk;
      expect(Object.keys(shown)).toEqual(Object.keys(expected));
      expect(shown).toStrictEqual(expected);
      expect(shown.choices).toBe(choices);
    }
  });

  it("a chunk that is not a plain object keeps its identity and prototype (the member is removed in place)", () => {
    class Chunk {
      id = "c";
      usage: null | undefined = null;
    }
    const own = new Chunk();
    expect(chunkWithoutUsage(own)).toBe(own);
    expect("usage" in own).toBe(false);
    const proto = JSON.parse('{"id":"c","__proto__":{"x":1},"usage":null}');
    const shown = chunkWithoutUsage(proto) as Record<string, unknown>;
    expect(shown).toBe(proto);
    expect(Object.keys(shown)).toEqual(["id", "__proto__"]);
  });
});
