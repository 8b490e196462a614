/**
 * A prompt Gemini blocks (`@google/genai` 3, Node ≥ 22): the API answers with `promptFeedback.blockReason`, its
 * usage and no `candidates` — in a stream, one chunk of that. The SDK neither throws nor retries, so the caller gets
 * an answer without text; the block reason is the only account of why. It must reach both routes: the call's output
 * and its summary's finish reasons on the calls route, `gen_ai.response.finish_reasons`, the output and the opt-in
 * output messages (finish reason `content_filter`) on the OTLP route. The call is not failed or cancelled (no
 * request failed, the model answered), and the wrapped client returns exactly what an unwrapped one does.
 */
import { describe, expect, it } from "vitest";
import { wrapGoogleGenAI } from "../../src/instrument/google.js";
import { BLOCKED_USAGE, blockedResponse, MODEL_SUFFIX, RESPONSE_ID } from "../support/google-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { collect, genai, HAS_GOOGLE, makeGoogle, plain, recorded, setupGeminiServer } from "./google-support.js";
import { summaryOf } from "./support.js";

const GENERATE = "google.models.generateContent";
const STREAM = "google.models.generateContentStream";
const STATUS_UNSET = 0;

/** A request whose prompt the stand-in blocks for `reason`. */
const blockedRequest = (reason: string) => ({ model: `m-blocked-${reason}`, contents: "Tell me something terrible." });
/** The response the stand-in sends for it, as the SDK parses it (no `sdkHttpResponse`). */
const blockedAnswer = (reason: string) => plain(blockedResponse(`m-blocked-${reason}`, reason));

const ctx = setupGeminiServer();

describe.skipIf(!HAS_GOOGLE)("@google/genai 3: a blocked prompt, calls route", () => {
  const session = setupSessionPerTest();
  const wrapped = () => wrapGoogleGenAI(makeGoogle(ctx.server));
  const bare = () => makeGoogle(ctx.server);

  it("generateContent: the SDK's own answer; the output keeps promptFeedback, the summary the block reason", async () => {
    const request = blockedRequest("SAFETY");
    const response = await wrapped().models.generateContent(request);
    expect(response).toBeInstanceOf(genai.GenerateContentResponse);
    expect(response.text).toBeUndefined();
    expect(recorded(response)).toEqual(recorded(await bare().models.generateContent(request)));
    const call = await session.only(GENERATE);
    expect(call.end!.output).toMatchObject(blockedAnswer("SAFETY"));
    expect(call.end!.exception ?? undefined).toBeUndefined();
    expect(summaryOf(call).gen_ai).toEqual({
      response_id: RESPONSE_ID,
      response_model: `m-blocked-SAFETY${MODEL_SUFFIX}`,
      finish_reasons: ["SAFETY"],
    });
    expect(summaryOf(call).tracewire).toBeUndefined();
  });

  it("generateContentStream: the same chunk as unwrapped; the call ends complete, with the block reason", async () => {
    const request = blockedRequest("PROHIBITED_CONTENT");
    const chunks = await collect(await wrapped().models.generateContentStream(request));
    const reference = await collect(await bare().models.generateContentStream(request));
    expect(chunks.map(recorded)).toEqual(reference.map(recorded));
    expect(chunks).toHaveLength(1);
    const call = await session.only(STREAM);
    expect(call.end!.output).toMatchObject(blockedAnswer("PROHIBITED_CONTENT"));
    expect(call.end!.exception ?? undefined).toBeUndefined();
    expect(summaryOf(call).gen_ai).toMatchObject({ finish_reasons: ["PROHIBITED_CONTENT"] });
    expect(summaryOf(call).tracewire).toBeUndefined();
  });

  it("a chat message: recorded under its chat op, with the block reason", async () => {
    const chat = wrapped().chats.create({ model: "m-blocked-BLOCKLIST" });
    const answer = await chat.sendMessage({ message: "Say the forbidden word." });
    expect(answer.text).toBeUndefined();
    const call = await session.only("google.chats.sendMessage");
    expect(summaryOf(call).gen_ai).toMatchObject({ finish_reasons: ["BLOCKLIST"] });
  });
});

describe.skipIf(!HAS_GOOGLE)("@google/genai 3: a blocked prompt, OTLP route", () => {
  const session = setupSessionPerTest({ export: "otlp" });

  const onlySpan = () => session.onlySpan();

  for (const streaming of [false, true]) {
    it(`${streaming ? "a stream" : "a response"}: finish reasons, output and output messages say the prompt was blocked`, async () => {
      const client = wrapGoogleGenAI(makeGoogle(ctx.server), { contentAttributes: true });
      const request = blockedRequest("SAFETY");
      if (streaming) await collect(await client.models.generateContentStream(request));
      else await client.models.generateContent(request);
      const span = await onlySpan();
      // Not an error: the request succeeded and the model answered; the answer is a refusal.
      expect(span.status.code).toBe(STATUS_UNSET);
      expect(span.events).toEqual([]);
      const a = span.attributes;
      expect(a).not.toHaveProperty("error.type");
      expect(a).not.toHaveProperty("tracewire.cancelled");
      expect(a).toMatchObject({
        "gen_ai.response.finish_reasons": ["SAFETY"],
        "gen_ai.response.id": RESPONSE_ID,
        "gen_ai.usage.input_tokens": BLOCKED_USAGE.promptTokenCount,
      });
      expect(JSON.parse(a["output.value"] as string)).toMatchObject(blockedAnswer("SAFETY"));
      // One answer that never came, refused by a filter (semconv: every output message has a finish reason).
      expect(JSON.parse(a["gen_ai.output.messages"] as string)).toEqual([
        { role: "assistant", parts: [], finish_reason: "content_filter" },
      ]);
    });
  }

  it("a block reason of any name is kept as Gemini says it; the output message's is content_filter", async () => {
    const client = wrapGoogleGenAI(makeGoogle(ctx.server), { contentAttributes: true });
    await client.models.generateContent(blockedRequest("OTHER"));
    const a = (await onlySpan()).attributes;
    expect(a["gen_ai.response.finish_reasons"]).toEqual(["OTHER"]);
    expect(JSON.parse(a["gen_ai.output.messages"] as string)).toEqual([
      { role: "assistant", parts: [], finish_reason: "content_filter" },
    ]);
  });
});
