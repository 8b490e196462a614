/**
 * `ai` 6 (Node 20) emits its own OpenTelemetry spans under `experimental_telemetry`; with `init()` they become the
 * same first-class calls the `ai` 7 integration records (no step level: `ai` 6 has no step span). `generateText` and
 * `streamText` with a tool-call step, through `@ai-sdk/openai-compatible` 2 at the loopback stand-in, decoded field
 * by field on the tracing double.
 */

import { generateText as generateText6, jsonSchema, stepCountIs, streamText as streamText6, tool } from "ai6";
import { createOpenAICompatible } from "ai6-openai-compatible";
import { describe, expect, it } from "vitest";
import { op, withAttributes } from "../../src/index.js";
import { TEXT, TOOL_CALLS } from "../support/openai-server.js";
import {
  MODEL,
  named,
  RESPONSE_MODEL,
  recorded,
  setupAiStandIn,
  TIME,
  TIME_SCHEMA,
  usageOf,
  WEATHER,
  WEATHER_SCHEMA,
} from "./support.js";

const { ctx, session } = setupAiStandIn();

const lookup = op(async function lookup(_city: string) {
  return WEATHER;
});

function params() {
  const provider = createOpenAICompatible({
    name: "standin",
    baseURL: ctx.server.baseURL,
    apiKey: "sk-test",
    includeUsage: true,
  });
  return {
    model: provider(MODEL),
    system: "Be brief.",
    prompt: "Weather in Paris?",
    temperature: 0.2,
    maxRetries: 0,
    tools: {
      get_weather: tool({
        description: "The weather in a city",
        inputSchema: jsonSchema<{ city: string }>(WEATHER_SCHEMA),
        execute: async ({ city }) => lookup(city),
      }),
      get_time: tool({
        description: "The time in a zone",
        inputSchema: jsonSchema<{ tz: string }>(TIME_SCHEMA),
        execute: async () => TIME,
      }),
    },
    stopWhen: stepCountIs(3),
    experimental_telemetry: { isEnabled: true, functionId: "weather-agent", metadata: { user: "u-1" } },
  };
}

const TOOL_CALL_OUTPUT = TOOL_CALLS.map((t) => ({
  toolCallId: t.id,
  toolName: t.name,
  input: JSON.parse(t.arguments) as unknown,
}));

function checkTree(operationId: "ai.generateText" | "ai.streamText") {
  const calls = recorded(session.double);
  const modelOp = operationId === "ai.generateText" ? "ai.generateText.doGenerate" : "ai.streamText.doStream";
  const [agent] = named(calls, "agent");
  const [operation] = named(calls, "weather-agent", agent);
  expect(operation, "the operation nests under the caller's op").toBeDefined();
  const attributes = { team: "search", user: "u-1" };
  expect(operation!.start.attributes).toEqual({
    ...attributes,
    ai: { operation_id: operationId, function_id: "weather-agent", provider: "standin.chat", model: MODEL },
  });
  expect(operation!.start.inputs).toEqual({
    system: "Be brief.",
    prompt: "Weather in Paris?",
    settings: { temperature: 0.2, maxRetries: 0 },
  });
  expect(operation!.end.output).toMatchObject({ text: TEXT, finishReason: "stop" });
  expect((operation!.end.output as { usage: unknown }).usage).toMatchObject({ inputTokens: 38, outputTokens: 20 });
  // The operation's usage is its two model calls', each counted once (issue #22); the caller's op holds the same.
  expect((operation!.end.summary as Record<string, unknown>).usage).toEqual(usageOf(RESPONSE_MODEL, 2));
  expect((agent!.end.summary as Record<string, unknown>).usage).toEqual(usageOf(RESPONSE_MODEL, 2));

  const models = named(calls, modelOp, operation);
  expect(models).toHaveLength(2);
  expect(models[0]!.start.inputs).toEqual({
    model: MODEL,
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
    ],
    tools: [
      { type: "function", name: "get_weather", description: "The weather in a city", inputSchema: WEATHER_SCHEMA },
      { type: "function", name: "get_time", description: "The time in a zone", inputSchema: TIME_SCHEMA },
    ],
    toolChoice: { type: "auto" },
  });
  expect(models[0]!.start.attributes).toEqual({
    ...attributes,
    operation: "chat",
    provider: "standin",
    model: MODEL,
    model_parameters: { model: MODEL, temperature: 0.2 },
  });
  expect(models[0]!.end.output).toEqual({ text: "", toolCalls: TOOL_CALL_OUTPUT, finishReason: "tool-calls" });
  expect(models[1]!.end.output).toEqual({ text: TEXT, finishReason: "stop" });
  const sent = (models[1]!.start.inputs as { messages: { role: string }[] }).messages.map((m) => m.role);
  expect(sent).toEqual(["system", "user", "assistant", "tool"]);
  for (const call of models) {
    const summary = call.end.summary as Record<string, unknown>;
    expect(summary.usage).toEqual(usageOf(RESPONSE_MODEL));
  }

  // ai 6 parents its tool spans itself: under the operation, or (streamText on Node 24, where its stream
  // transform runs in the model call's context) under the first model call. Each span stays one call, as parented.
  const tools = [...named(calls, "ai.toolCall", operation), ...named(calls, "ai.toolCall", models[0])];
  expect(tools).toHaveLength(2);
  const weather = tools.find((t) => t.start.display_name === "get_weather")!;
  const time = tools.find((t) => t.start.display_name === "get_time")!;
  expect(weather.start.inputs).toEqual({
    toolCallId: "call_weather",
    toolName: "get_weather",
    input: { city: "Paris" },
  });
  expect(time.start.inputs).toEqual({ toolCallId: "call_time", toolName: "get_time", input: { tz: "Europe/Paris" } });
  expect(weather.end.output).toEqual(WEATHER);
  expect(time.end.output).toBe(TIME);
  expect(weather.start.attributes).toEqual({ ...attributes, operation: "execute_tool" });
  expect(named(calls, "lookup", weather)).toHaveLength(1);
  // Nothing of the AI SDK went by OTLP: every span became a call.
  expect(session.double.spans).toHaveLength(0);
  expect(calls).toHaveLength(1 + 1 + 2 + 2 + 1);
}

describe("ai 6: its experimental_telemetry spans become native calls", () => {
  it("generateText with a tool-call step", async () => {
    const agent = op(async function agent() {
      return withAttributes({ team: "search" }, () => generateText6(params()));
    });
    const result = await agent();
    expect(result.text).toBe(TEXT);
    await session.tracing.flush();
    checkTree("ai.generateText");
  });

  it("streamText with a tool-call step", async () => {
    const agent = op(async function agent() {
      const result = withAttributes({ team: "search" }, () => streamText6(params()));
      let text = "";
      for await (const piece of result.textStream) text += piece;
      return text;
    });
    expect(await agent()).toBe(TEXT);
    await session.tracing.flush();
    checkTree("ai.streamText");
  });
});
