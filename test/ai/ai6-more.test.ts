/**
 * `ai` 6 (its own `experimental_telemetry` spans, mapped to calls), beyond text: `generateObject` / `streamObject`,
 * `embed` / `embedMany` (GenAI `embeddings` calls: counts, dimensions and usage, never a vector), an aborted
 * `streamText` (its calls end once each and say so), and `recordInputs: false` / `recordOutputs: false` (no content
 * recorded). Real `ai` 6 and `@ai-sdk/openai-compatible` 2 against the loopback stand-in, decoded on the double.
 */
import {
  embed as embed6,
  embedMany as embedMany6,
  generateObject as generateObject6,
  generateText as generateText6,
  jsonSchema,
  stepCountIs,
  streamObject as streamObject6,
  streamText as streamText6,
  tool,
} from "ai6";
import { createOpenAICompatible } from "ai6-openai-compatible";
import { describe, expect, it } from "vitest";
import { summaryOf } from "../instrument/support.js";
import { EMBEDDING_DIMENSIONS, EMBEDDING_TOKENS_PER_INPUT } from "../support/openai-responses-server.js";
import { JSON_ANSWER, TEXT } from "../support/openai-server.js";
import {
  CITY_SCHEMA,
  EMBEDDING_MODEL,
  MODEL,
  named,
  RESPONSE_MODEL,
  type Recorded,
  recorded,
  setupAiStandIn,
  TIME,
  TIME_SCHEMA,
  usageOf,
  WEATHER,
  WEATHER_SCHEMA,
} from "./support.js";

const { ctx, session } = setupAiStandIn();
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

function provider() {
  return createOpenAICompatible({
    name: "standin",
    baseURL: ctx.server.baseURL,
    apiKey: "sk-test",
    includeUsage: true,
    supportsStructuredOutputs: true,
  });
}

/** What the calls record of their content (timestamps left out: "…:00.118Z" would match a vector by chance). */
function contentOf(calls: Recorded[]): string {
  return JSON.stringify(
    calls.map((c) => [c.start.inputs, c.start.attributes, c.end.output, c.end.summary, c.end.exception]),
  );
}

describe("ai 6: objects, embeddings, abort, recordInputs / recordOutputs", () => {
  function checkObject(operationId: "ai.generateObject" | "ai.streamObject") {
    const calls = recorded(session.double);
    expect(calls).toHaveLength(2);
    const [operation] = named(calls, operationId);
    expect(operation!.start.inputs).toMatchObject({ prompt: "Weather in Paris?" });
    expect(operation!.end.output).toMatchObject({ object: JSON_ANSWER });
    const modelOp = operationId === "ai.generateObject" ? "ai.generateObject.doGenerate" : "ai.streamObject.doStream";
    const [model] = named(calls, modelOp, operation);
    expect(model, "the model call, under the operation").toBeDefined();
    expect(model!.start.inputs).toMatchObject({
      model: MODEL,
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }],
    });
    expect(model!.start.attributes).toMatchObject({ operation: "chat", provider: "standin", model: MODEL });
    // ai 6 reports less for objects than for text (generateObject: no cached or reasoning tokens).
    expect(model!.end.output).toMatchObject({ object: JSON_ANSWER });
    const { cache_read_input_tokens: _c, reasoning_tokens: _r, ...tokens } = usageOf(RESPONSE_MODEL)[RESPONSE_MODEL]!;
    expect(summaryOf(model!).usage).toMatchObject({ [RESPONSE_MODEL]: tokens });
  }

  const objectParams = () => ({
    model: provider()(MODEL),
    schema: jsonSchema<{ city: string; celsius: number }>(CITY_SCHEMA),
    prompt: "Weather in Paris?",
    maxRetries: 0,
    experimental_telemetry: { isEnabled: true },
  });

  it("generateObject: the operation and its model call, with the object and usage", async () => {
    expect((await generateObject6(objectParams())).object).toEqual(JSON_ANSWER);
    await session.tracing.flush();
    checkObject("ai.generateObject");
  });

  it("streamObject: the same, the model call as doStream", async () => {
    const result = streamObject6(objectParams());
    for await (const _partial of result.partialObjectStream);
    expect(await result.object).toEqual(JSON_ANSWER);
    await session.tracing.flush();
    checkObject("ai.streamObject");
  });

  it("embed and embedMany: GenAI embeddings calls with counts, dimensions and usage, never a vector", async () => {
    const model = provider().embeddingModel(EMBEDDING_MODEL);
    const telemetry = { isEnabled: true };
    const one = await embed6({ model, value: "hello", maxRetries: 0, experimental_telemetry: telemetry });
    expect(one.embedding).toHaveLength(EMBEDDING_DIMENSIONS);
    const many = await embedMany6({ model, values: ["a", "b"], maxRetries: 0, experimental_telemetry: telemetry });
    expect(many.embeddings).toHaveLength(2);
    await session.tracing.flush();
    const calls = recorded(session.double);
    expect(calls).toHaveLength(4);
    for (const [operationId, values] of [
      ["ai.embed", ["hello"]],
      ["ai.embedMany", ["a", "b"]],
    ] as const) {
      const [operation] = named(calls, operationId);
      const counts = { embeddings: values.length, dimensions: EMBEDDING_DIMENSIONS };
      expect(operation!.start.inputs).toMatchObject(operationId === "ai.embed" ? { value: "hello" } : { values });
      expect(operation!.end.output).toEqual(counts);
      const [doEmbed] = named(calls, `${operationId}.doEmbed`, operation);
      // The operation's own `ai.usage.tokens` is not counted again: its usage is its model call's (issue #22).
      expect(summaryOf(operation!).usage).toEqual(summaryOf(doEmbed!).usage);
      expect(doEmbed!.start.inputs).toEqual({ values });
      expect(doEmbed!.start.attributes).toMatchObject({
        operation: "embeddings",
        provider: "standin",
        model: EMBEDDING_MODEL,
      });
      expect(doEmbed!.end.output).toEqual(counts);
      expect(summaryOf(doEmbed!).usage).toEqual({
        [EMBEDDING_MODEL]: {
          prompt_tokens: values.length * EMBEDDING_TOKENS_PER_INPUT,
          completion_tokens: 0,
          total_tokens: values.length * EMBEDDING_TOKENS_PER_INPUT,
          requests: 1,
        },
      });
    }
    const content = contentOf(calls);
    for (const component of ["0.11", "0.12", "0.17", "0.21", "0.27"]) expect(content).not.toContain(component);
  });

  it("an aborted streamText ends its operation and model call once each (the model call as cancelled)", async () => {
    const abort = new AbortController();
    const result = streamText6({
      model: provider()("m-slow"),
      prompt: "hi",
      abortSignal: abort.signal,
      maxRetries: 0,
      experimental_telemetry: { isEnabled: true },
    });
    let pieces = 0;
    for await (const _piece of result.textStream) if (++pieces === 3) abort.abort();
    await session.tracing.flush();
    const calls = recorded(session.double);
    expect(calls.map((c) => c.start.op_name).sort()).toEqual(["ai.streamText", "ai.streamText.doStream"]);
    // ai 6 never ends its doStream span on abort: tracewire ends it with its operation, as cancelled (unfinished).
    const [operation] = named(calls, "ai.streamText");
    const [model] = named(calls, "ai.streamText.doStream", operation);
    expect(summaryOf(model!).tracewire).toEqual({ status: "cancelled", cancel_reason: "unfinished" });
    expect(Date.parse(String(model!.end.ended_at))).toBeLessThanOrEqual(
      Date.parse(String(operation!.end.ended_at)) + 5,
    );
  });

  function agentParams(telemetry: { recordInputs?: boolean; recordOutputs?: boolean }) {
    return {
      model: provider()(MODEL),
      system: "Be brief.",
      prompt: "Weather in Paris?",
      maxRetries: 0,
      tools: {
        get_weather: tool({
          description: "The weather in a city",
          inputSchema: jsonSchema<{ city: string }>(WEATHER_SCHEMA),
          execute: async () => WEATHER,
        }),
        get_time: tool({
          description: "The time in a zone",
          inputSchema: jsonSchema<{ tz: string }>(TIME_SCHEMA),
          execute: async () => TIME,
        }),
      },
      stopWhen: stepCountIs(3),
      experimental_telemetry: { isEnabled: true, functionId: "weather-agent", ...telemetry },
    };
  }

  it("recordInputs: false records no input content anywhere, and the outputs as usual", async () => {
    expect((await generateText6(agentParams({ recordInputs: false }))).text).toBe(TEXT);
    await session.tracing.flush();
    const calls = recorded(session.double);
    expect(calls).toHaveLength(1 + 2 + 2);
    const inputs = JSON.stringify(calls.map((c) => c.start.inputs));
    for (const content of ["Paris", "Be brief", "Europe", "The weather in a city"])
      expect(inputs).not.toContain(content);
    const tools = named(calls, "ai.toolCall").map((t) => t.start.inputs);
    expect(tools).toContainEqual({ toolCallId: "call_weather", toolName: "get_weather" });
    expect(tools).toContainEqual({ toolCallId: "call_time", toolName: "get_time" });
    expect(named(calls, "weather-agent")[0]!.end.output).toMatchObject({ text: TEXT, finishReason: "stop" });
  });

  it("recordOutputs: false records no output at all; inputs and usage stay", async () => {
    expect((await generateText6(agentParams({ recordOutputs: false }))).text).toBe(TEXT);
    await session.tracing.flush();
    const calls = recorded(session.double);
    expect(calls).toHaveLength(1 + 2 + 2);
    for (const call of calls) expect(call.end.output ?? null, String(call.start.op_name)).toBeNull();
    const ends = JSON.stringify(calls.map((c) => [c.end.output, c.end.summary]));
    for (const content of ["stand-in", "celsius", TIME]) expect(ends).not.toContain(content);
    expect(named(calls, "weather-agent")[0]!.start.inputs).toMatchObject({ prompt: "Weather in Paris?" });
    for (const model of named(calls, "ai.generateText.doGenerate"))
      expect(summaryOf(model).usage).toEqual(usageOf(RESPONSE_MODEL));
  });
});
