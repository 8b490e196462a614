/**
 * A streamed chat completion is recorded as the completion its chunks add up to, field for field as the openai
 * package's own accumulator (`ChatCompletionStream.finalChatCompletion()`) adds them up: an audio answer (its
 * transcript, data, id and expiry), and the log probabilities of a refusal beside those of the content (once each).
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { type Reply, sseReply, TestServer } from "../support/server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { collect, MESSAGES, VERSIONS } from "./support.js";

const CREATE = "openai.chat.completions.create";
const base = { id: "chatcmpl-fields", object: "chat.completion.chunk", created: 1767607200, model: "gpt-4o-audio" };
const chunk = (delta: object, extra: object = {}) => ({
  ...base,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
});
const logprob = (token: string) => ({ token, logprob: -0.1, bytes: null, top_logprobs: [] });

const AUDIO_CHUNKS = [
  chunk({ role: "assistant", content: null, audio: { id: "audio_1", transcript: "Hel" } }),
  chunk({ audio: { transcript: "lo.", data: "AAAA" } }),
  chunk({ audio: { data: "BBBB" } }),
  chunk({ audio: { expires_at: 1767610800 } }),
  chunk({}, { finish_reason: "stop" }),
];
const REFUSAL_CHUNKS = [
  chunk({ role: "assistant", refusal: "I can't" }, { logprobs: { content: null, refusal: [logprob("I can't")] } }),
  chunk({ refusal: " help." }, { logprobs: { content: null, refusal: [logprob(" help.")] } }),
  chunk({}, { finish_reason: "stop" }),
];

describe.each(VERSIONS)("$name", (version) => {
  const session = setupSessionPerTest();

  async function recordedAndSdk(chunks: unknown[], params: object) {
    const server = await TestServer.start();
    try {
      server.on("POST", /\/chat\/completions$/, ...(Array(2).fill(sseReply(chunks)) as Reply[]));
      const options = { apiKey: "sk-test", baseURL: `${server.url}/v1`, maxRetries: 0 };
      const body = { model: "gpt-4o-audio", messages: MESSAGES, stream: true as const, ...params };
      // The caller asks for usage itself: nothing is injected, both clients send the same request.
      const stream_options = { include_usage: true };
      await collect(await wrapOpenAI(new version.OpenAI(options)).chat.completions.create({ ...body, stream_options }));
      const sdk = await new OpenAI(options).chat.completions.stream({ ...body, stream_options }).finalChatCompletion();
      const call = await session.only(CREATE);
      return { recorded: call.end!.output as { choices: Record<string, unknown>[] }, sdk };
    } finally {
      await server.close();
    }
  }

  it("a streamed audio answer records its transcript, data, id and expiry, as the SDK's accumulator does", async () => {
    const { recorded, sdk } = await recordedAndSdk(AUDIO_CHUNKS, { modalities: ["text", "audio"] });
    const message = recorded.choices[0]!.message as Record<string, unknown>;
    expect(message.audio).toEqual({ id: "audio_1", transcript: "Hello.", data: "AAAABBBB", expires_at: 1767610800 });
    expect(message.audio).toEqual(sdk.choices[0]!.message.audio);
  });

  it("a streamed refusal keeps its log probabilities, once each", async () => {
    const { recorded, sdk } = await recordedAndSdk(REFUSAL_CHUNKS, { logprobs: true });
    expect((recorded.choices[0]!.message as { refusal: string }).refusal).toBe(sdk.choices[0]!.message.refusal);
    // (openai 6's accumulator lists the first chunk's entries twice: its snapshot shares that chunk's list.)
    expect(recorded.choices[0]!.logprobs).toEqual({ content: null, refusal: [logprob("I can't"), logprob(" help.")] });
  });
});
