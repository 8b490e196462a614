/**
 * `ai` 7 (Node ≥ 22) through `tracewireTelemetry()`, beyond text: `generateObject` / `streamObject` (the operation
 * and its one model call, with the object and usage), `embed` / `embedMany` (GenAI `embeddings` calls that record how
 * many vectors and their size, never a vector), an aborted `streamText` (every open call ends cancelled, once), and
 * `recordInputs: false` / `recordOutputs: false` (no content recorded at all, usage kept). Real `ai` and
 * `@ai-sdk/openai-compatible` against the loopback stand-in, decoded field by field on the tracing double.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tracewireTelemetry } from "../../src/instrument/ai.js";
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

const HAS_AI7 = Number(process.versions.node.split(".")[0]) >= 22;

const { ctx, session } = setupAiStandIn();

/** Every stand-in vector component is (index + 1) / 10 + d / 100: none may appear in what was recorded. */
function expectNoVectors(calls: Recorded[]) {
  // What a call records of its content (its timestamps, e.g. "…:00.118Z", would match by chance).
  const text = JSON.stringify(
    calls.map((c) => [c.start.inputs, c.start.attributes, c.end.output, c.end.summary, c.end.exception]),
  );
  for (const component of ["0.11", "0.12", "0.17", "0.21", "0.27"]) expect(text).not.toContain(component);
}

describe.skipIf(!HAS_AI7)("ai 7: objects, embeddings, abort, recordInputs / recordOutputs", () => {
  let ai: typeof import("ai");
  let provider: ReturnType<typeof import("@ai-sdk/openai-compatible").createOpenAICompatible>;

  beforeAll(async () => {
    ai = await import("ai");
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    provider = createOpenAICompatible({
      name: "standin",
      baseURL: ctx.server.baseURL,
      apiKey: "sk-test",
      includeUsage: true,
      supportsStructuredOutputs: true,
    });
    (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
    ai.registerTelemetry(tracewireTelemetry());
  });
  afterAll(() => {
    globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = undefined;
  });

  function checkObject(operationId: "ai.generateObject" | "ai.streamObject") {
    const calls = recorded(session.double);
    expect(calls).toHaveLength(2);
    const [operation] = named(calls, operationId);
    expect(operation!.start.inputs).toEqual({
      prompt: "Weather in Paris?",
      output: "object",
      schema: CITY_SCHEMA,
      settings: { temperature: 0.2, maxRetries: 0 },
    });
    expect(operation!.end.output).toEqual({ object: JSON_ANSWER, finishReason: "stop" });
    // Its one model call's usage, rolled up (issue #22).
    expect(summaryOf(operation!).usage).toEqual(usageOf(RESPONSE_MODEL));
    const modelOp = operationId === "ai.generateObject" ? "ai.generateObject.doGenerate" : "ai.streamObject.doStream";
    const [model] = named(calls, modelOp, operation);
    expect(model, "the model call, under the operation").toBeDefined();
    expect(model!.start.inputs).toEqual({
      model: MODEL,
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }],
    });
    expect(model!.start.attributes).toEqual({
      operation: "chat",
      provider: "standin",
      model: MODEL,
      model_parameters: { model: MODEL, temperature: 0.2 },
    });
    expect(model!.end.output).toEqual({ object: JSON_ANSWER, finishReason: "stop" });
    expect(summaryOf(model!).usage).toEqual(usageOf(RESPONSE_MODEL));
    expect(summaryOf(model!).gen_ai).toMatchObject({ response_model: RESPONSE_MODEL, finish_reasons: ["stop"] });
  }

  const objectParams = () => ({
    model: provider(MODEL),
    schema: ai.jsonSchema<{ city: string; celsius: number }>(CITY_SCHEMA),
    prompt: "Weather in Paris?",
    temperature: 0.2,
    maxRetries: 0,
  });

  it("generateObject: the operation and its model call, with the object and usage", async () => {
    const result = await ai.generateObject(objectParams());
    expect(result.object).toEqual(JSON_ANSWER);
    await session.tracing.flush();
    checkObject("ai.generateObject");
  });

  it("streamObject: the same, the model call as doStream", async () => {
    const result = ai.streamObject(objectParams());
    const partials: unknown[] = [];
    for await (const partial of result.partialObjectStream) partials.push(partial);
    expect(partials.at(-1)).toEqual(JSON_ANSWER);
    expect(await result.object).toEqual(JSON_ANSWER);
    await session.tracing.flush();
    checkObject("ai.streamObject");
  });

  it("embed and embedMany: GenAI embeddings calls with counts, dimensions and usage, never a vector", async () => {
    const one = await ai.embed({ model: provider.embeddingModel(EMBEDDING_MODEL), value: "hello", maxRetries: 0 });
    expect(one.embedding).toHaveLength(EMBEDDING_DIMENSIONS);
    const many = await ai.embedMany({
      model: provider.embeddingModel(EMBEDDING_MODEL),
      values: ["a", "b"],
      maxRetries: 0,
    });
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
      expect(operation!.start.inputs).toEqual({
        value: operationId === "ai.embed" ? values[0] : values,
        settings: { maxRetries: 0 },
      });
      expect(operation!.end.output).toEqual(counts);
      const [model] = named(calls, `${operationId}.doEmbed`, operation);
      expect(model!.start.inputs).toEqual({ values });
      expect(model!.start.attributes).toEqual({
        operation: "embeddings",
        provider: "standin",
        model: EMBEDDING_MODEL,
        model_parameters: { model: EMBEDDING_MODEL },
      });
      expect(model!.end.output).toEqual(counts);
      expect(summaryOf(model!).usage).toEqual({
        [EMBEDDING_MODEL]: {
          prompt_tokens: values.length * EMBEDDING_TOKENS_PER_INPUT,
          completion_tokens: 0,
          total_tokens: values.length * EMBEDDING_TOKENS_PER_INPUT,
          requests: 1,
        },
      });
    }
    expectNoVectors(calls);
  });

  it("an aborted streamText ends its operation, step and model call as cancelled, each once", async () => {
    const abort = new AbortController();
    const result = ai.streamText({ model: provider("m-slow"), prompt: "hi", abortSignal: abort.signal, maxRetries: 0 });
    let pieces = 0;
    for await (const _piece of result.textStream) if (++pieces === 3) abort.abort();
    await session.tracing.flush();
    const calls = recorded(session.double);
    expect(calls.map((c) => c.start.op_name).sort()).toEqual([
      "ai.streamText",
      "ai.streamText.doStream",
      "ai.streamText.step",
    ]);
    for (const call of calls) {
      expect(summaryOf(call).tracewire, String(call.start.op_name)).toEqual({
        status: "cancelled",
        cancel_reason: "abort",
      });
      expect(call.end.exception ?? null).toBeNull();
    }
  });

  function agentParams(telemetry: { recordInputs?: boolean; recordOutputs?: boolean }) {
    return {
      model: provider(MODEL),
      system: "Be brief.",
      prompt: "Weather in Paris?",
      maxRetries: 0,
      tools: {
        get_weather: ai.tool({
          description: "The weather in a city",
          inputSchema: ai.jsonSchema<{ city: string }>(WEATHER_SCHEMA),
          execute: async () => WEATHER,
        }),
        get_time: ai.tool({
          description: "The time in a zone",
          inputSchema: ai.jsonSchema<{ tz: string }>(TIME_SCHEMA),
          execute: async () => TIME,
        }),
      },
      stopWhen: ai.stepCountIs(3),
      telemetry: { functionId: "weather-agent", ...telemetry },
    };
  }

  it("recordInputs: false records no input content anywhere, and the outputs as usual", async () => {
    const result = await ai.generateText(agentParams({ recordInputs: false }));
    expect(result.text).toBe(TEXT);
    await session.tracing.flush();
    const calls = recorded(session.double);
    expect(calls).toHaveLength(1 + 2 + 2 + 2);
    const inputs = JSON.stringify(calls.map((c) => c.start.inputs));
    for (const content of ["Paris", "Be brief", "Europe", "The weather in a city", "messages"])
      expect(inputs).not.toContain(content);
    expect(named(calls, "weather-agent")[0]!.start.inputs).toEqual({ settings: { maxRetries: 0 } });
    expect(named(calls, "ai.generateText.step").map((s) => s.start.inputs)).toEqual([
      { stepNumber: 0 },
      { stepNumber: 1 },
    ]);
    for (const model of named(calls, "ai.generateText.doGenerate"))
      expect(model.start.inputs).toEqual({ model: MODEL });
    const tools = named(calls, "ai.toolCall").map((t) => t.start.inputs);
    expect(tools).toContainEqual({ toolCallId: "call_weather", toolName: "get_weather" });
    expect(tools).toContainEqual({ toolCallId: "call_time", toolName: "get_time" });
    // Outputs are recorded as usual.
    expect(named(calls, "weather-agent")[0]!.end.output).toMatchObject({ text: TEXT, finishReason: "stop" });
    expect(named(calls, "ai.toolCall").map((t) => t.end.output)).toContainEqual(WEATHER);
  });

  it("recordOutputs: false records no output at all; inputs and usage stay", async () => {
    const result = await ai.generateText(agentParams({ recordOutputs: false }));
    expect(result.text).toBe(TEXT);
    await session.tracing.flush();
    const calls = recorded(session.double);
    expect(calls).toHaveLength(1 + 2 + 2 + 2);
    for (const call of calls) expect(call.end.output ?? null, String(call.start.op_name)).toBeNull();
    const ends = JSON.stringify(calls.map((c) => c.end));
    for (const content of ["stand-in", "celsius", TIME]) expect(ends).not.toContain(content);
    expect(named(calls, "weather-agent")[0]!.start.inputs).toMatchObject({
      instructions: "Be brief.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    for (const model of named(calls, "ai.generateText.doGenerate"))
      expect(summaryOf(model).usage).toEqual(usageOf(RESPONSE_MODEL));
  });
});
