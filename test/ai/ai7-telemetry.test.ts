/**
 * `ai` 7 (Node ≥ 22) through `tracewireTelemetry()`: `generateText` and `streamText` with a tool-call step, through
 * `@ai-sdk/openai-compatible` pointed at the loopback stand-in, decoded field by field on the tracing double: the
 * operation → step → model call / tool call tree, real JSON inputs and outputs, usage keyed by the response model,
 * `functionId` as op name, the included runtime context as call attributes, all under the caller's op.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { op, withAttributes } from "../../src/index.js";
import { tracewireTelemetry } from "../../src/instrument/ai.js";
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

const HAS_AI7 = Number(process.versions.node.split(".")[0]) >= 22;

const { ctx, session } = setupAiStandIn();

describe.skipIf(!HAS_AI7)("ai 7: tracewireTelemetry()", () => {
  // Loaded only where it runs: `ai` 7 requires Node ≥ 22.
  let ai: typeof import("ai");
  let createOpenAICompatible: typeof import("@ai-sdk/openai-compatible").createOpenAICompatible;

  beforeAll(async () => {
    ai = await import("ai");
    ({ createOpenAICompatible } = await import("@ai-sdk/openai-compatible"));
    // The README's one line: the integration implements ai 7's Telemetry interface (type-checked here).
    ai.registerTelemetry(tracewireTelemetry());
  });
  afterAll(() => {
    globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = undefined;
  });

  const lookups: string[] = [];
  const lookup = op(async function lookup(city: string) {
    lookups.push(city);
    return WEATHER;
  });

  function request(stream: boolean) {
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
        get_weather: ai.tool({
          description: "The weather in a city",
          inputSchema: ai.jsonSchema<{ city: string }>(WEATHER_SCHEMA),
          execute: async ({ city }) => lookup(city),
        }),
        get_time: ai.tool({
          description: "The time in a zone",
          inputSchema: ai.jsonSchema<{ tz: string }>(TIME_SCHEMA),
          execute: async () => TIME,
        }),
      },
      stopWhen: ai.stepCountIs(3),
      telemetry: { functionId: "weather-agent", includeRuntimeContext: { user: true } },
      runtimeContext: { user: "u-1", session: "not included" },
      stream,
    };
  }

  const PROMPT_MESSAGES = [
    { role: "system", content: "Be brief." },
    { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
  ];
  const STEP_TOOLS = [
    { type: "function", name: "get_weather", description: "The weather in a city", inputSchema: WEATHER_SCHEMA },
    { type: "function", name: "get_time", description: "The time in a zone", inputSchema: TIME_SCHEMA },
  ];
  const TOOL_CALL_OUTPUT = TOOL_CALLS.map((t) => ({
    toolCallId: t.id,
    toolName: t.name,
    input: JSON.parse(t.arguments) as unknown,
  }));

  /** The whole tree under the caller's op, checked field by field. */
  function checkTree(operationId: "ai.generateText" | "ai.streamText") {
    const calls = recorded(session.double);
    const modelOp = operationId === "ai.generateText" ? "ai.generateText.doGenerate" : "ai.streamText.doStream";
    const [agent] = named(calls, "agent");
    expect(agent).toBeDefined();
    const [operation] = named(calls, "weather-agent", agent);
    expect(operation, "the operation nests under the caller's op").toBeDefined();
    const attributes = { user: "u-1", team: "search" };
    expect(operation!.start.attributes).toEqual({
      ...attributes,
      ai: { operation_id: operationId, function_id: "weather-agent", provider: "standin.chat", model: MODEL },
    });
    expect(operation!.start.inputs).toEqual({
      instructions: "Be brief.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: {
        get_weather: { description: "The weather in a city", inputSchema: WEATHER_SCHEMA },
        get_time: { description: "The time in a zone", inputSchema: TIME_SCHEMA },
      },
      settings: { temperature: 0.2, maxRetries: 0 },
    });
    const output = operation!.end.output as Record<string, unknown>;
    expect(output).toMatchObject({ text: TEXT, toolCalls: TOOL_CALL_OUTPUT, finishReason: "stop", steps: 2 });
    expect(output.usage).toMatchObject({ inputTokens: 38, outputTokens: 20, totalTokens: 58 });
    // The operation adds none of its own: its usage is its two model calls', each counted once (issue #22).
    expect((operation!.end.summary as Record<string, unknown>).usage).toEqual(usageOf(RESPONSE_MODEL, 2));

    const steps = named(calls, `${operationId}.step`, operation);
    expect(steps).toHaveLength(2);
    expect(steps.map((s) => s.start.display_name)).toEqual(["step 1", "step 2"]);
    expect(steps[0]!.start.inputs).toEqual({
      stepNumber: 0,
      instructions: "Be brief.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    const stepOutput = steps[0]!.end.output as { toolResults: { toolCallId: string }[] };
    // Tool results come in the order the tools finished.
    stepOutput.toolResults.sort((a, b) => a.toolCallId.localeCompare(b.toolCallId));
    expect(stepOutput).toEqual({
      text: "",
      toolCalls: TOOL_CALL_OUTPUT,
      finishReason: "tool-calls",
      toolResults: [
        { toolCallId: "call_time", toolName: "get_time", output: TIME },
        { toolCallId: "call_weather", toolName: "get_weather", output: WEATHER },
      ],
    });
    expect(steps[1]!.end.output).toEqual({ text: TEXT, finishReason: "stop" });
    for (const step of steps) expect(step.start.attributes).toEqual(attributes);

    const first = named(calls, modelOp, steps[0]);
    const second = named(calls, modelOp, steps[1]);
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect(first[0]!.start.inputs).toEqual({
      model: MODEL,
      messages: PROMPT_MESSAGES,
      tools: STEP_TOOLS,
      toolChoice: { type: "auto" },
    });
    expect(first[0]!.start.attributes).toEqual({
      ...attributes,
      operation: "chat",
      provider: "standin",
      model: MODEL,
      model_parameters: { model: MODEL, temperature: 0.2 },
    });
    expect(first[0]!.end.output).toEqual({ text: "", toolCalls: TOOL_CALL_OUTPUT, finishReason: "tool-calls" });
    expect(second[0]!.end.output).toEqual({ text: TEXT, finishReason: "stop" });
    // The second model call saw the tool results.
    const sent = (second[0]!.start.inputs as { messages: { role: string }[] }).messages.map((m) => m.role);
    expect(sent).toEqual(["system", "user", "assistant", "tool"]);
    for (const call of [...first, ...second]) {
      const summary = call.end.summary as Record<string, Record<string, unknown>>;
      expect(summary.usage).toEqual(usageOf(RESPONSE_MODEL));
      expect(summary.gen_ai).toMatchObject({ response_model: RESPONSE_MODEL });
    }
    expect((first[0]!.end.summary as { gen_ai: unknown }).gen_ai).toMatchObject({ finish_reasons: ["tool-calls"] });

    // Two parallel tool calls, apart, under the first step; the traced function inside a tool nests under it.
    const tools = named(calls, "ai.toolCall", steps[0]);
    expect(tools).toHaveLength(2);
    expect(tools.map((t) => t.start.inputs).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      [
        { toolCallId: "call_time", toolName: "get_time", input: { tz: "Europe/Paris" } },
        { toolCallId: "call_weather", toolName: "get_weather", input: { city: "Paris" } },
      ],
    );
    const weather = tools.find((t) => t.start.display_name === "get_weather")!;
    const time = tools.find((t) => t.start.display_name === "get_time")!;
    expect(weather.end.output).toEqual(WEATHER);
    expect(time.end.output).toBe(TIME);
    expect(weather.start.attributes).toEqual({
      ...attributes,
      operation: "execute_tool",
    });
    expect(named(calls, "lookup", weather)).toHaveLength(1);
    // One trace.
    expect(new Set(calls.map((c) => c.start.trace_id)).size).toBe(1);
    expect(calls).toHaveLength(1 + 1 + 2 + 2 + 2 + 1);
  }

  it("generateText with a tool-call step: operation → steps → model calls / tool calls under the caller's op", async () => {
    const { stream: _stream, ...params } = request(false);
    const agent = op(async function agent() {
      return withAttributes({ team: "search" }, () => ai.generateText(params));
    });
    const result = await agent();
    expect(result.text).toBe(TEXT);
    expect(result.steps).toHaveLength(2);
    await session.tracing.flush();
    checkTree("ai.generateText");
  });

  it("streamText with a tool-call step: the same tree, model calls as doStream", async () => {
    const { stream: _stream, ...params } = request(true);
    const agent = op(async function agent() {
      const result = withAttributes({ team: "search" }, () => ai.streamText(params));
      let text = "";
      for await (const piece of result.textStream) text += piece;
      return text;
    });
    expect(await agent()).toBe(TEXT);
    await session.tracing.flush();
    checkTree("ai.streamText");
  });
});
