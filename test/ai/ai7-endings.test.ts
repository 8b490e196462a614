/**
 * `ai` 7 (Node ≥ 22) through `tracewireTelemetry()`: a model stream that carries an error event after HTTP 200 (the
 * stand-in's `m-error-stream`) used to record its model call as a success — the SDK streams the error to the consumer
 * and tells telemetry only the finish reason `error` — and now ends it failed; what the consumer reads is unchanged.
 * An aborted `generateText` (its `abortSignal` fired mid-request) used to end its calls failed with the AbortError,
 * where an aborted `streamText` ends them as cancelled: now both end cancelled (`abort`); a `timeout` stays a failure.
 * And two operations run at once (`Promise.all`) each keep their own tree: steps, model calls and tool calls under
 * their own operation and caller's op, usage counted once in each.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { tracewireTelemetry } from "../../src/instrument/ai.js";
import { summaryOf } from "../instrument/support.js";
import { childrenOf, one } from "../support/call-tree.js";
import {
  MODEL,
  named,
  RESPONSE_MODEL,
  recorded,
  setupAiStandIn,
  standinProvider,
  TIME,
  TIME_SCHEMA,
  usageOf,
  WEATHER_SCHEMA,
} from "./support.js";

const HAS_AI7 = Number(process.versions.node.split(".")[0]) >= 22;

const { ctx, session } = setupAiStandIn();

describe.skipIf(!HAS_AI7)("ai 7: a stream that carries an error; operations at once", () => {
  let ai: typeof import("ai");
  let provider: ReturnType<typeof import("@ai-sdk/openai-compatible").createOpenAICompatible>;

  beforeAll(async () => {
    ai = await import("ai");
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    provider = createOpenAICompatible(standinProvider(ctx));
    ai.registerTelemetry(tracewireTelemetry());
  });
  afterAll(() => {
    globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = undefined;
  });

  it("a streamText whose stream carries an error event: the model call ends failed, the text streamed unchanged", async () => {
    const errors: unknown[] = [];
    const result = ai.streamText({
      model: provider("m-error-stream"),
      prompt: "hi",
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    let text = "";
    for await (const piece of result.textStream) text += piece;
    expect(text).toBe("Hello");
    expect(errors).toHaveLength(1);
    await session.tracing.flush();
    const calls = recorded(session.double);
    const [model] = named(calls, "ai.streamText.doStream");
    expect(model!.end.exception).toMatch(/finish reason: error/);
    expect(summaryOf(model!).gen_ai).toMatchObject({ finish_reasons: ["error"], error_type: "_OTHER" });
    expect(model!.end.output).toEqual({ text: "Hello", finishReason: "error" });
  });

  it("two generateText runs at once: each tree stays under its own caller, usage counted once in each", async () => {
    const answer = (who: string) =>
      op(
        async () => {
          const { text } = await ai.generateText({
            model: provider(MODEL),
            prompt: "Weather in Paris?",
            maxRetries: 0,
            stopWhen: ai.stepCountIs(3),
            telemetry: { functionId: `agent-${who}` },
            tools: {
              get_weather: ai.tool({
                inputSchema: ai.jsonSchema<{ city: string }>(WEATHER_SCHEMA),
                execute: async () => ({ who }),
              }),
              get_time: ai.tool({ inputSchema: ai.jsonSchema<{ tz: string }>(TIME_SCHEMA), execute: async () => TIME }),
            },
          });
          return text;
        },
        { name: `ask-${who}` },
      )();
    await Promise.all([answer("a"), answer("b")]);
    await session.tracing.flush();
    const calls = recorded(session.double);
    for (const who of ["a", "b"]) {
      const caller = one(calls, `ask-${who}`);
      const operation = one(calls, `agent-${who}`, caller);
      const steps = named(calls, "ai.generateText.step", operation);
      expect(steps).toHaveLength(2);
      const tools = named(calls, "ai.toolCall", steps[0]);
      expect(tools.map((t) => t.end.output)).toEqual(expect.arrayContaining([{ who }, TIME]));
      for (const step of steps)
        expect(childrenOf(calls, step).every((c) => c.start.trace_id === caller.start.trace_id)).toBe(true);
      expect(summaryOf(operation).usage).toEqual(usageOf(RESPONSE_MODEL, 2));
    }
    expect(calls).toHaveLength(2 * (1 + 1 + 2 + 2 + 2));
  });

  it("an aborted generateText ends its operation, step and model call once each, as cancelled (abort)", async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const run = ai.generateText({ model: provider("m-hang"), prompt: "hi", maxRetries: 0, abortSignal: abort.signal });
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    await session.tracing.flush();
    const calls = recorded(session.double);
    expect(calls.map((c) => c.start.op_name).sort()).toEqual([
      "ai.generateText",
      "ai.generateText.doGenerate",
      "ai.generateText.step",
    ]);
    for (const call of calls) {
      expect(summaryOf(call).tracewire, String(call.start.op_name)).toEqual({
        status: "cancelled",
        cancel_reason: "abort",
      });
      expect(call.end.exception ?? null, String(call.start.op_name)).toBeNull();
    }
  });

  it("a generateText past its timeout is a failure, not a cancellation", async () => {
    const run = ai.generateText({ model: provider("m-hang"), prompt: "hi", maxRetries: 0, timeout: 100 });
    await expect(run).rejects.toThrow();
    await session.tracing.flush();
    const [operation] = named(recorded(session.double), "ai.generateText");
    expect(summaryOf(operation!).tracewire).toBeUndefined();
    expect(operation!.end.exception).toBeDefined();
  });
});
