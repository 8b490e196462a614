/**
 * The integration never throws into the AI SDK: garbage events (wrong shapes, unknown call ids, events out of order)
 * are ignored, and an operation that was started and then ends by error closes every call it opened, once.
 */
import { context } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { TracewireTelemetry, tracewireTelemetry } from "../../src/instrument/ai.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { recorded } from "./support.js";

const session = setupSessionPerTest();
const METHODS = [
  "onStart",
  "onStepStart",
  "onLanguageModelCallStart",
  "onLanguageModelCallEnd",
  "onToolExecutionStart",
  "onToolExecutionEnd",
  "onStepEnd",
  "onStepError",
  "onEmbedStart",
  "onEmbedEnd",
  "onEnd",
  "onAbort",
  "onError",
] as const;

describe("tracewireTelemetry() and bad events", () => {
  it("ignores garbage events without throwing", () => {
    const telemetry = tracewireTelemetry();
    expect(telemetry).toBeInstanceOf(TracewireTelemetry);
    const garbage: unknown[] = [null, undefined, 42, "x", {}, { callId: "nope" }, { callId: "nope", toolCall: 5 }];
    for (const method of METHODS)
      for (const event of garbage) expect(() => (telemetry[method] as (e: unknown) => void)(event)).not.toThrow();
    expect(String(JSON.stringify(telemetry))).toContain("TracewireTelemetry");
  });

  it("an operation that fails mid-step ends its open calls with the error, each once", async () => {
    const telemetry = tracewireTelemetry();
    const event = { callId: "c1", operationId: "ai.generateText", provider: "p.chat", modelId: "m" };
    telemetry.onStart({ ...event, messages: [{ role: "user", content: "hi" }] });
    telemetry.onStepStart({ ...event, stepNumber: 0 });
    telemetry.onLanguageModelCallStart({ ...event, messages: [] });
    await telemetry.executeLanguageModelCall({ callId: "c1", execute: async () => context.active() });
    telemetry.onError({ callId: "c1", error: new Error("provider down") });
    telemetry.onEnd({ callId: "c1", text: "late" }); // after the error: ignored
    await session.tracing.flush();
    const calls = recorded(session.double);
    expect(calls.map((c) => c.start.op_name).sort()).toEqual([
      "ai.generateText",
      "ai.generateText.doGenerate",
      "ai.generateText.step",
    ]);
    for (const call of calls) expect(call.end.exception).toBe("Error: provider down");
  });
});
