/**
 * The "Tracing Google's Gen AI SDK" snippet of docs/google.md, run verbatim with the real `@google/genai` 3 (Node ≥ 22), its
 * `GoogleGenAI` pointed at the loopback Gemini stand-in: a response, a stream and a chat message, each one call named
 * as the section says, with provider, usage keyed by `modelVersion` and the reassembled stream; `callOf` finds them
 * and the reaction lands on the first.
 */
import { describe, expect, it } from "vitest";
import * as tracewireGoogle from "../../src/instrument/google-entry.js";
import { genai, HAS_GOOGLE, setupGeminiServer } from "../instrument/google-support.js";
import { summaryOf } from "../instrument/support.js";
import { MODEL_SUFFIX, TEXT, USAGE } from "../support/google-server.js";
import { setupSession } from "../support/tracing-session.js";
import { docBlock, runBlock } from "./snippets.js";

const ctx = setupGeminiServer();

describe.skipIf(!HAS_GOOGLE)("docs/google.md: Tracing Google's Gen AI SDK", () => {
  const session = setupSession();

  it("the snippet traces a response, a stream and a chat message as one call each", async () => {
    const keys: unknown[] = [];
    // The SDK's class, pointed at the stand-in (the snippet itself is unchanged).
    const baseUrl = ctx.server.baseUrl;
    class GoogleGenAI extends genai.GoogleGenAI {
      constructor(options: ConstructorParameters<typeof genai.GoogleGenAI>[0]) {
        keys.push(options?.apiKey);
        super({ ...options, httpOptions: { baseUrl } });
      }
    }
    const written: string[] = [];
    await runBlock(
      docBlock("docs/google.md", "# Tracing Google's Gen AI SDK (`tracewire/google`)"),
      { process: { env: { GEMINI_API_KEY: "readme-key" }, stdout: { write: (t: string) => written.push(t) } } },
      { "@google/genai": { GoogleGenAI }, "tracewire/google": tracewireGoogle },
    );
    expect(keys).toEqual(["readme-key"]);
    expect(written.join("")).toBe(TEXT);

    const generated = await session.only("google.models.generateContent");
    expect(generated.start.attributes).toMatchObject({
      operation: "generate_content",
      provider: "gcp.gemini",
      model: "gemini-2.5-flash",
    });
    expect(summaryOf(generated).usage).toEqual({
      [`gemini-2.5-flash${MODEL_SUFFIX}`]: {
        prompt_tokens: USAGE.promptTokenCount,
        completion_tokens: USAGE.candidatesTokenCount + USAGE.thoughtsTokenCount,
        total_tokens: USAGE.totalTokenCount,
        requests: 1,
        cache_read_input_tokens: USAGE.cachedContentTokenCount,
        reasoning_tokens: USAGE.thoughtsTokenCount,
      },
    });
    const streamed = await session.only("google.models.generateContentStream");
    expect(streamed.end!.output).toMatchObject({
      candidates: [{ content: { parts: [{ thought: true }, { text: TEXT }] } }],
    });
    expect(typeof summaryOf(streamed).gen_ai!.time_to_first_chunk).toBe("number");
    const message = await session.only("google.chats.sendMessage");
    expect(message.start.inputs).toMatchObject({ config: { systemInstruction: "Be brief." } });
    await session.tracing.flush();
    const reaction = session.double.feedback.find((f) => (f.payload as { emoji?: string }).emoji === "👍");
    expect(reaction?.weave_ref).toContain(`/call/${generated.start.id}`);
  });
});
