/**
 * wrapGoogleGenAI against the real `@google/genai` 3 (Node ≥ 22) and a loopback server speaking the Gemini REST API:
 * what reaches the tracing service on the calls route, decoded field by field — inputs, the response (for a stream,
 * the response its chunks add up to), request facts, usage keyed by the answering model, outcome — one call per
 * `generateContent` / `generateContentStream` / chat message, however many HTTP requests the SDK makes for it
 * (automatic continuation, automatic function calling).
 */
import { trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { callOf, op } from "../../src/index.js";
import { wrapGoogleGenAI } from "../../src/instrument/google.js";
import {
  CONTINUE,
  FUNCTION_CALLS,
  MODEL_SUFFIX,
  RESPONSE_ID,
  responseFor,
  TEXT,
  TOOL_ANSWER,
  USAGE,
} from "../support/google-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import {
  callableTool,
  collect,
  errorOf,
  genai,
  HAS_GOOGLE,
  MODEL,
  makeGoogle,
  plain,
  recorded,
  setupGeminiServer,
  TEXT_REQUEST,
  TOOL_REQUEST,
  TOOL_RESULTS,
  TOOL_SECRET,
} from "./google-support.js";
import { summaryOf } from "./support.js";

const GENERATE = "google.models.generateContent";
const STREAM = "google.models.generateContentStream";
const RESPONSE_MODEL = `${MODEL}${MODEL_SUFFIX}`;
/** The usage summary of `requests` stand-in answers: output tokens are candidates plus thoughts (semconv). */
const usageSummary = (requests = 1) => ({
  [RESPONSE_MODEL]: {
    prompt_tokens: USAGE.promptTokenCount * requests,
    completion_tokens: (USAGE.candidatesTokenCount + USAGE.thoughtsTokenCount) * requests,
    total_tokens: USAGE.totalTokenCount * requests,
    requests: 1,
    cache_read_input_tokens: USAGE.cachedContentTokenCount * requests,
    reasoning_tokens: USAGE.thoughtsTokenCount * requests,
  },
});

const ctx = setupGeminiServer();

describe.skipIf(!HAS_GOOGLE)("@google/genai 3", () => {
  const session = setupSessionPerTest();
  const wrapped = () => wrapGoogleGenAI(makeGoogle(ctx.server));
  const bare = () => makeGoogle(ctx.server);

  it("generateContent: the SDK's own response, deep-equal to unwrapped; inputs, output, facts and usage recorded", async () => {
    const response = await wrapped().models.generateContent(TEXT_REQUEST);
    expect(response).toBeInstanceOf(genai.GenerateContentResponse);
    expect(response.text).toBe(TEXT);
    expect(recorded(response)).toEqual(recorded(await bare().models.generateContent(TEXT_REQUEST)));
    const call = await session.only(GENERATE);
    expect(call.start.inputs).toEqual(plain(TEXT_REQUEST));
    // The response without the SDK's HTTP headers, with the usage's non-enumerable initialPromptTokenCount kept.
    const output = call.end!.output as { usageMetadata: Record<string, unknown> };
    expect(output).toEqual({
      ...recorded(response),
      usageMetadata: { ...USAGE, initialPromptTokenCount: USAGE.promptTokenCount },
    });
    expect(response.usageMetadata?.initialPromptTokenCount).toBe(USAGE.promptTokenCount);
    expect(call.start.attributes).toEqual({
      operation: "generate_content",
      provider: "gcp.gemini",
      model: MODEL,
      model_parameters: {
        model: MODEL,
        temperature: 0.2,
        top_p: 0.9,
        top_k: 5,
        max_tokens: 256,
        stop_sequences: ["\n\nUser:"],
      },
      server: { address: "127.0.0.1", port: ctx.server.server.port },
    });
    expect(call.end!.summary).toEqual({
      usage: usageSummary(),
      gen_ai: { response_id: RESPONSE_ID, response_model: RESPONSE_MODEL, finish_reasons: ["STOP"] },
    });
    expect(callOf(response)?.id).toBe(call.start.id);
  });

  it("generateContentStream: the same chunks as unwrapped; the response they add up to, time to first chunk", async () => {
    const stream = await wrapped().models.generateContentStream(TEXT_REQUEST);
    const chunks = await collect(stream);
    const reference = await collect(await bare().models.generateContentStream(TEXT_REQUEST));
    expect(chunks.map(recorded)).toEqual(reference.map(recorded));
    for (const chunk of chunks) expect(chunk).toBeInstanceOf(genai.GenerateContentResponse);
    const call = await session.only(STREAM);
    expect(call.start.inputs).toEqual(plain(TEXT_REQUEST));
    // Exactly what the same request answers without streaming: the thought, then the text pieces joined.
    expect(call.end!.output).toEqual({
      ...plain(responseFor({}, MODEL)),
      usageMetadata: { ...USAGE, initialPromptTokenCount: USAGE.promptTokenCount },
    });
    // Stream chunks carry running totals: the last one is the usage, never their sum.
    expect(call.end!.summary).toMatchObject({ usage: usageSummary(), gen_ai: { finish_reasons: ["STOP"] } });
    expect(typeof summaryOf(call).gen_ai!.time_to_first_chunk).toBe("number");
    expect(call.start.attributes).toMatchObject({ model_parameters: { stream: true } });
    expect(callOf(stream)?.id).toBe(call.start.id);
  });

  it("function declarations: the function calls recorded as the model's parts; a stream's arrive whole", async () => {
    const response = await wrapped().models.generateContent(TOOL_REQUEST);
    expect(response.functionCalls).toEqual(FUNCTION_CALLS);
    const call = await session.only(GENERATE);
    expect(call.start.inputs).toEqual(plain(TOOL_REQUEST));
    expect(call.end!.output).toMatchObject({
      candidates: [{ content: { role: "model", parts: FUNCTION_CALLS.map((functionCall) => ({ functionCall })) } }],
    });
    await collect(await wrapped().models.generateContentStream(TOOL_REQUEST));
    const streamed = await session.only(STREAM);
    expect(streamed.end!.output).toMatchObject({
      candidates: [
        { content: { parts: FUNCTION_CALLS.map((functionCall) => ({ functionCall })) }, finishReason: "STOP" },
      ],
    });
  });

  it("candidateCount 2: both candidates reassembled from the stream by index; choice count recorded", async () => {
    const params = { ...TEXT_REQUEST, config: { candidateCount: 2 } };
    await collect(await wrapped().models.generateContentStream(params));
    const call = await session.only(STREAM);
    const output = call.end!.output as { candidates: { index: number; content: { parts: { text: string }[] } }[] };
    expect(output.candidates.map((c) => [c.index, c.content.parts.map((p) => p.text).join("|")])).toEqual([
      [0, `Thinking it over.|${TEXT}`],
      [1, `Thinking it over.|${TEXT}`],
    ]);
    expect(call.start.attributes).toMatchObject({ model_parameters: { choice: { count: 2 } } });
    expect(summaryOf(call).gen_ai).toMatchObject({ finish_reasons: ["STOP", "STOP"] });
  });

  it("chats keep the same models object: each message is one call, named after the chat method", async () => {
    const client = wrapped();
    const chat = client.chats.create({ model: MODEL, config: { systemInstruction: "Be brief." } });
    const first = await chat.sendMessage({ message: "Hi!" });
    const stream = await chat.sendMessageStream({ message: "And again?" });
    const chunks = await collect(stream);
    // The same exchange, untraced, gives the same answers and history.
    const reference = bare().chats.create({ model: MODEL, config: { systemInstruction: "Be brief." } });
    expect(recorded(first)).toEqual(recorded(await reference.sendMessage({ message: "Hi!" })));
    const referenceChunks = await collect(await reference.sendMessageStream({ message: "And again?" }));
    expect(chunks.map(recorded)).toEqual(referenceChunks.map(recorded));
    expect(plain(chat.getHistory())).toEqual(plain(reference.getHistory()));

    const sent = await session.only("google.chats.sendMessage");
    expect(sent.start.inputs).toEqual({
      model: MODEL,
      contents: [{ role: "user", parts: [{ text: "Hi!" }] }],
      config: { systemInstruction: "Be brief." },
    });
    expect(callOf(first)?.id).toBe(sent.start.id);
    const streamed = await session.only("google.chats.sendMessageStream");
    // The second message carries the history: the first question and the model's answer.
    expect((streamed.start.inputs as { contents: unknown[] }).contents).toHaveLength(3);
    expect(callOf(stream)?.id).toBe(streamed.start.id);
    expect(session.double.callsNamed(GENERATE)).toHaveLength(0);
    expect(session.double.callsNamed(STREAM)).toHaveLength(0);
  });

  it("automatic function calling: one call for all its requests, usage summed, tools run inside the call", async () => {
    const client = wrapped();
    const spans: (string | undefined)[] = [];
    const tool = callableTool(() => spans.push(trace.getActiveSpan()?.spanContext().spanId));
    const before = ctx.server.generateRequests().length;
    const response = await client.models.generateContent({
      ...TOOL_REQUEST,
      config: { ...TOOL_REQUEST.config, tools: [tool] },
    });
    expect(response.text).toBe(TOOL_ANSWER);
    expect(ctx.server.generateRequests().length - before).toBe(2);
    expect(tool.calls).toEqual(["get_weather", "get_time"]);
    const call = await session.only(GENERATE);
    // The response carries the last request's usage; the call, what both requests used.
    expect(response.usageMetadata?.promptTokenCount).toBe(USAGE.promptTokenCount);
    expect(call.end!.summary).toMatchObject({ usage: usageSummary(2) });
    expect(spans).toEqual([call.start.id]);
    // The conversation the SDK held: the question, the function calls, the function responses.
    const history = (call.end!.output as { automaticFunctionCallingHistory: { role: string }[] })
      .automaticFunctionCallingHistory;
    expect(history.map((c) => c.role)).toEqual(["user", "model", "user"]);
    // The tool is code holding settings (a secret among them): recorded as its class only.
    expect(call.start.inputs).toEqual({
      ...plain(TOOL_REQUEST),
      config: { ...TOOL_REQUEST.config, tools: [{ _type: "WeatherTools" }] },
    });
    expect(JSON.stringify(call)).not.toContain(TOOL_SECRET);
  });

  it("automatic function calling, streamed: one call; rounds' usage summed, history as the response has it", async () => {
    const client = wrapped();
    const params = { ...TOOL_REQUEST, config: { ...TOOL_REQUEST.config, tools: [callableTool()] } };
    const chunks = await collect(await client.models.generateContentStream(params));
    const reference = await collect(
      await bare().models.generateContentStream({
        ...TOOL_REQUEST,
        config: { ...TOOL_REQUEST.config, tools: [callableTool()] },
      }),
    );
    expect(chunks.map(recorded)).toEqual(reference.map(recorded));
    const call = await session.only(STREAM);
    expect(call.end!.summary).toMatchObject({ usage: usageSummary(2) });
    const output = call.end!.output as Record<string, unknown>;
    expect(output.candidates).toEqual([
      { content: { role: "model", parts: [{ text: TOOL_ANSWER }] }, finishReason: "STOP", index: 0 },
    ]);
    // The same history the non-streamed call's response carries.
    const nonStreamed = await client.models.generateContent({
      ...TOOL_REQUEST,
      config: { ...TOOL_REQUEST.config, tools: [callableTool()] },
    });
    expect(output.automaticFunctionCallingHistory).toEqual(plain(nonStreamed.automaticFunctionCallingHistory));
    expect(JSON.stringify(output)).toContain(JSON.stringify(TOOL_RESULTS.get_weather));
  });

  it("automatic continuation: the hops of one generation are one call, with the usage the SDK adds up", async () => {
    const client = wrapped();
    const params = { ...TEXT_REQUEST, model: "m-continue" };
    const before = ctx.server.generateRequests().length;
    const response = await client.models.generateContent(params);
    expect(ctx.server.generateRequests().length - before).toBe(2);
    const call = await session.only(GENERATE);
    const prompt = CONTINUE[0]!.usage.promptTokenCount + CONTINUE[1]!.usage.promptTokenCount;
    const candidates = CONTINUE[0]!.usage.candidatesTokenCount + CONTINUE[1]!.usage.candidatesTokenCount;
    expect(call.end!.summary).toMatchObject({
      usage: { [`m-continue${MODEL_SUFFIX}`]: { prompt_tokens: prompt, completion_tokens: candidates } },
    });
    // The first request's prompt tokens, a non-enumerable getter of the SDK's, survive into the record.
    expect(response.usageMetadata?.initialPromptTokenCount).toBe(CONTINUE[0]!.usage.promptTokenCount);
    expect(call.end!.output).toMatchObject({
      usageMetadata: { promptTokenCount: prompt, initialPromptTokenCount: CONTINUE[0]!.usage.promptTokenCount },
    });

    const chunks = await collect(await client.models.generateContentStream(params));
    expect(chunks.map((c) => c.text).join("")).toBe(CONTINUE.map((h) => h.text).join(""));
    const streamed = await session.only(STREAM);
    expect(streamed.end!.summary).toMatchObject({
      usage: { [`m-continue${MODEL_SUFFIX}`]: { prompt_tokens: prompt, completion_tokens: candidates } },
      gen_ai: { finish_reasons: ["STOP"] },
    });
  });

  it("a Vertex AI client is provider gcp.vertex_ai; providerName overrides", async () => {
    await wrapGoogleGenAI(makeGoogle(ctx.server, { vertex: true })).models.generateContent(TEXT_REQUEST);
    expect((await session.only(GENERATE)).start.attributes).toMatchObject({ provider: "gcp.vertex_ai" });
    await session.restart({});
    await wrapGoogleGenAI(makeGoogle(ctx.server), { providerName: "gcp.gen_ai" }).models.generateContent(TEXT_REQUEST);
    expect((await session.only(GENERATE)).start.attributes).toMatchObject({ provider: "gcp.gen_ai" });
  });

  it("wrapping twice is a no-op; the models object, its keys and other endpoints are untouched", async () => {
    const client = makeGoogle(ctx.server);
    const models = client.models;
    const keys = Object.keys(models);
    const embed = models.embedContent;
    expect(wrapGoogleGenAI(client)).toBe(client);
    const generate = client.models.generateContent;
    wrapGoogleGenAI(client);
    expect(client.models).toBe(models);
    expect(client.models.generateContent).toBe(generate);
    expect(Object.keys(client.models)).toEqual(keys);
    expect(client.models.embedContent).toBe(embed);
    expect(client.models).toBeInstanceOf(genai.Models);
    await client.models.generateContent(TEXT_REQUEST);
    await session.only(GENERATE);
  });

  it("a GoogleGenAI client in a traced op's inputs is recorded as a summary, not its auth and settings", async () => {
    const client = new genai.GoogleGenAI({
      apiKey: "AIza-secret-key-0123",
      httpOptions: { baseUrl: ctx.server.baseUrl },
    });
    await op(
      async function ask(_client: unknown, question: string) {
        return question;
      },
      { parameterNames: ["client", "question"] },
    )(client, "Hi?");
    const call = await session.only("ask");
    expect(call.start.inputs).toEqual({ client: { _type: "GoogleGenAI" }, question: "Hi?" });
  });

  it("rejects what is not a @google/genai client, naming the fix", () => {
    expect(() => wrapGoogleGenAI({} as object)).toThrow(/client\.models\.generateContent is missing/);
    expect(() => wrapGoogleGenAI(null as unknown as object)).toThrow(/expects a GoogleGenAI client, got null/);
  });

  it("an API error is rethrown unchanged (same class, status and message) and recorded as the call's error", async () => {
    const params = { ...TEXT_REQUEST, model: "m-status-400" };
    const err = (await errorOf(wrapped().models.generateContent(params))) as Error & { status?: number };
    const reference = (await errorOf(bare().models.generateContent(params))) as Error;
    expect(err).toBeInstanceOf(genai.ApiError);
    expect(Object.getPrototypeOf(err)).toBe(Object.getPrototypeOf(reference));
    expect(err.message).toBe(reference.message);
    expect(err.status).toBe(400);
    const call = await session.only(GENERATE);
    expect(call.end!.exception).toContain("Stand-in error 400");
    expect(summaryOf(call).gen_ai).toMatchObject({ error_type: "400" });
    expect(call.end!.output).toBeUndefined();

    const streamErr = (await errorOf(wrapped().models.generateContentStream({ ...params, model: "m-status-503" }))) as {
      status?: number;
    };
    expect(streamErr.status).toBe(503);
    const streamCall = await session.only(STREAM);
    expect(summaryOf(streamCall).gen_ai).toMatchObject({ error_type: "503" });
  });

  it("an error event inside the stream fails the call with what arrived before it", async () => {
    const params = { ...TEXT_REQUEST, model: "m-error-stream" };
    const err = (await errorOf(collect(await wrapped().models.generateContentStream(params)))) as Error & {
      status?: number;
    };
    const reference = (await errorOf(collect(await bare().models.generateContentStream(params)))) as Error;
    expect(Object.getPrototypeOf(err)).toBe(Object.getPrototypeOf(reference));
    expect(err.message).toBe(reference.message);
    expect(err.status).toBe(503);
    const call = await session.only(STREAM);
    expect(call.end!.exception).toContain("The model is overloaded.");
    expect(summaryOf(call).gen_ai).toMatchObject({ error_type: "503" });
    expect(call.end!.output).toMatchObject({
      candidates: [{ content: { parts: [{ text: "Thinking it over.", thought: true }, { text: "Hello" }] } }],
    });
    expect(call.ends).toBe(1);
  });

  it("a connection cut mid-stream fails the call with the SDK's error and the partial answer", async () => {
    const params = { ...TEXT_REQUEST, model: "m-drop" };
    const err = (await errorOf(collect(await wrapped().models.generateContentStream(params)))) as Error;
    const reference = (await errorOf(collect(await bare().models.generateContentStream(params)))) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(Object.getPrototypeOf(err)).toBe(Object.getPrototypeOf(reference));
    expect(err.message).toBe(reference.message);
    const call = await session.only(STREAM);
    expect(call.end!.exception).toBeTruthy();
    expect(summaryOf(call).tracewire).toBeUndefined();
    expect(call.end!.output).toMatchObject({ candidates: [{ content: { parts: [{}, { text: "Hello" }] } }] });
  });

  it("a stream the caller breaks out of is cancelled (break), exactly once, with the text so far", async () => {
    const stream = await wrapped().models.generateContentStream({ ...TEXT_REQUEST, model: "m-slow" });
    let seen = 0;
    for await (const _chunk of stream) if (++seen === 3) break;
    const call = await session.only(STREAM);
    expect(call.ends).toBe(1);
    expect(call.end!.exception).toBeUndefined();
    expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "break" });
    expect(call.end!.output).toMatchObject({ candidates: [{ content: { parts: [{}, { text: "1 2 " }] } }] });
  });

  it("an aborted request (config.abortSignal) is cancelled (abort), streamed or not", async () => {
    const controller = new AbortController();
    const stream = await wrapped().models.generateContentStream({
      ...TEXT_REQUEST,
      model: "m-slow",
      config: { abortSignal: controller.signal },
    });
    let seen = 0;
    const err = await errorOf(
      (async () => {
        for await (const _chunk of stream) if (++seen === 3) controller.abort();
      })(),
    );
    expect(err).toBeDefined();
    const call = await session.only(STREAM);
    expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "abort" });
    expect(call.end!.exception).toBeUndefined();

    await session.restart({});
    const early = new AbortController();
    early.abort();
    const rejected = await errorOf(
      wrapped().models.generateContent({ ...TEXT_REQUEST, config: { abortSignal: early.signal } }),
    );
    expect(rejected).toBeDefined();
    const aborted = await session.only(GENERATE);
    expect(summaryOf(aborted).tracewire).toEqual({ status: "cancelled", cancel_reason: "abort" });
  });
});
