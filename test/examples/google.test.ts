/**
 * The Gemini example's agent (examples/google/assistant.mjs, run by `npm run example:google`) as the example runs it —
 * the real `@google/genai` 3 client (Node ≥ 22), wrapped, against the example's own stand-in, traced into the local
 * tracing service — and its stored calls read back: a chat message answered with a function call, the tool op, then
 * a streamed answer, each message one `generate_content` call under the assistant op.
 */
import { describe, expect, it } from "vitest";
import type { Call } from "../../src/index.js";
import { wrapGoogleGenAI } from "../../src/instrument/google.js";
import { genai, HAS_GOOGLE } from "../instrument/google-support.js";
import { loadExample, setupExample } from "./support.js";

type Assistant = (question: string) => Promise<{ answer: string; llmCall: Call }>;
const { makeGeminiAssistant } = await loadExample<{
  makeGeminiAssistant(client: unknown, model: string, write: (text: string) => void): Assistant;
}>("google/assistant.mjs");

describe.skipIf(!HAS_GOOGLE)("examples/google", () => {
  const example = setupExample("demo/google", "google/stand-in.mjs");
  const client = () =>
    new genai.GoogleGenAI({ apiKey: "local-stand-in", httpOptions: { baseUrl: example.standIn.url } });

  it("records a function call, the tool and a streamed answer, the same text the unwrapped client reads", async () => {
    let written = "";
    const assistant = makeGeminiAssistant(wrapGoogleGenAI(client()), "gemini-2.5-flash", (text) => {
      written += text;
    });
    const { answer, llmCall } = await assistant("What's the weather in Lisbon?");
    expect(answer).toBe("Right now: sunny in Lisbon, 21 °C. Enjoy your day!");
    expect(written).toBe(`${answer}\n`);
    const plain = makeGeminiAssistant(client(), "gemini-2.5-flash", () => {});
    expect((await plain("What's the weather in Lisbon?")).answer).toBe(answer);
    await example.tracing.flush();

    const calls = await example.trace(llmCall.traceId);
    expect(calls.map((c) => c.op_name).sort()).toEqual(
      ["assistant", "google.chats.sendMessage", "google.chats.sendMessageStream", "tool.get_weather"].sort(),
    );
    const root = calls.find((c) => c.op_name === "assistant")!;
    const first = calls.find((c) => c.op_name === "google.chats.sendMessage")!;
    const second = calls.find((c) => c.op_name === "google.chats.sendMessageStream")!;
    for (const call of [first, second]) expect(call.parent_id).toBe(root.id);
    expect(second.id).toBe(llmCall.id);
    expect(first.attributes).toMatchObject({
      operation: "generate_content",
      provider: "gcp.gemini",
      model: "gemini-2.5-flash",
    });
    expect(first.output).toMatchObject({
      candidates: [{ content: { parts: [{ functionCall: { name: "get_weather", args: { city: "Lisbon" } } }] } }],
    });
    // The streamed message carries the chat's history: the question, the function call, the function's result.
    expect((second.inputs as { contents: unknown[] }).contents).toHaveLength(3);
    expect(second.output).toMatchObject({
      candidates: [{ content: { role: "model", parts: [{ text: answer }] }, finishReason: "STOP" }],
    });
    expect(second.summary?.usage).toMatchObject({
      "gemini-2.5-flash-local": { prompt_tokens: 64, cache_read_input_tokens: 32, reasoning_tokens: 12 },
    });
  });
});
