/**
 * wrapGoogleGenAI spans as an OpenTelemetry backend sees them (`export: "otlp"`, decoded from the wire field by
 * field; `@google/genai` 3, Node ≥ 22): GenAI semantic-convention kind and attributes (operation `generate_content`,
 * provider `gcp.gemini` / `gcp.vertex_ai`, request settings from `config`, usage with cached and reasoning tokens,
 * finish reasons), the stream flag and time to first chunk, the opt-in content attributes (system instruction,
 * input messages, tool definitions, output messages with tool calls and reasoning), errors and cancellations, and
 * one span per invocation.
 */
import { describe, expect, it } from "vitest";
import { wrapGoogleGenAI } from "../../src/instrument/google.js";
import {
  FUNCTION_CALLS,
  MODEL_SUFFIX,
  RESPONSE_ID,
  TEXT,
  THOUGHT,
  TOOL_ANSWER,
  USAGE,
} from "../support/google-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import {
  callableTool,
  collect,
  errorOf,
  FUNCTION_DECLARATIONS,
  HAS_GOOGLE,
  MODEL,
  makeGoogle,
  QUESTION,
  SYSTEM,
  setupGeminiServer,
  TEXT_REQUEST,
  TOOL_REQUEST,
} from "./google-support.js";

const SPAN_KIND_CLIENT = 3;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;

const ctx = setupGeminiServer();

describe.skipIf(!HAS_GOOGLE)("@google/genai 3", () => {
  const session = setupSessionPerTest({ export: "otlp" });

  const onlySpan = () => session.onlySpan();

  it("a response is one GenAI CLIENT span with the request, response and usage attributes", async () => {
    await wrapGoogleGenAI(makeGoogle(ctx.server)).models.generateContent({
      ...TEXT_REQUEST,
      config: {
        ...TEXT_REQUEST.config,
        seed: 7,
        presencePenalty: 0.3,
        frequencyPenalty: 0.1,
        responseMimeType: "application/json",
      },
    });
    const span = await onlySpan();
    // The service makes a span's name its op name, so both routes name the call alike.
    expect(span.name).toBe("google.models.generateContent");
    expect(span.kind).toBe(SPAN_KIND_CLIENT);
    expect(span.status.code).toBe(STATUS_UNSET);
    const a = span.attributes;
    expect(a).toMatchObject({
      "gen_ai.operation.name": "generate_content",
      "gen_ai.provider.name": "gcp.gemini",
      "gen_ai.request.model": MODEL,
      "server.address": "127.0.0.1",
      "server.port": ctx.server.server.port,
      "gen_ai.request.temperature": 0.2,
      "gen_ai.request.top_p": 0.9,
      "gen_ai.request.top_k": 5,
      "gen_ai.request.max_tokens": 256,
      "gen_ai.request.stop_sequences": ["\n\nUser:"],
      "gen_ai.request.seed": 7,
      "gen_ai.request.presence_penalty": 0.3,
      "gen_ai.request.frequency_penalty": 0.1,
      "gen_ai.output.type": "json",
      "gen_ai.response.id": RESPONSE_ID,
      "gen_ai.response.model": `${MODEL}${MODEL_SUFFIX}`,
      "gen_ai.response.finish_reasons": ["STOP"],
      // Cached tokens are part of the prompt count; thoughts count as output (semconv).
      "gen_ai.usage.input_tokens": USAGE.promptTokenCount,
      "gen_ai.usage.output_tokens": USAGE.candidatesTokenCount + USAGE.thoughtsTokenCount,
      "gen_ai.usage.cache_read.input_tokens": USAGE.cachedContentTokenCount,
      "gen_ai.usage.reasoning.output_tokens": USAGE.thoughtsTokenCount,
    });
    expect(a).not.toHaveProperty("gen_ai.request.stream");
    expect(a).not.toHaveProperty("gen_ai.input.messages");
    expect(JSON.parse(a["input.value"] as string)).toMatchObject({ model: MODEL, contents: "Say hello." });
    const output = JSON.parse(a["output.value"] as string);
    expect(output.candidates[0].content.parts[1]).toEqual({ text: TEXT });
    expect(output).not.toHaveProperty("sdkHttpResponse");
  });

  it("a stream: stream flag, time to first chunk, usage of the last chunk (running totals, not summed)", async () => {
    const client = wrapGoogleGenAI(makeGoogle(ctx.server, { vertex: true }));
    await collect(await client.models.generateContentStream(TEXT_REQUEST));
    const span = await onlySpan();
    expect(span.name).toBe("google.models.generateContentStream");
    const a = span.attributes;
    expect(a["gen_ai.provider.name"]).toBe("gcp.vertex_ai");
    expect(a["gen_ai.request.stream"]).toBe(true);
    expect(a["gen_ai.response.time_to_first_chunk"]).toBeGreaterThanOrEqual(0);
    expect(a["gen_ai.response.finish_reasons"]).toEqual(["STOP"]);
    expect(a["gen_ai.usage.input_tokens"]).toBe(USAGE.promptTokenCount);
    expect(a["gen_ai.usage.output_tokens"]).toBe(USAGE.candidatesTokenCount + USAGE.thoughtsTokenCount);
    expect(JSON.parse(a["output.value"] as string).candidates[0].content.parts).toEqual([
      { text: THOUGHT, thought: true },
      { text: TEXT },
    ]);
  });

  it("opt-in content attributes: system instruction, input messages, tool definitions, output tool calls", async () => {
    const client = wrapGoogleGenAI(makeGoogle(ctx.server), { contentAttributes: true });
    await collect(await client.models.generateContentStream(TOOL_REQUEST));
    const a = (await onlySpan()).attributes;
    expect(JSON.parse(a["gen_ai.system_instructions"] as string)).toEqual([{ type: "text", content: SYSTEM }]);
    expect(JSON.parse(a["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: QUESTION }] },
    ]);
    expect(JSON.parse(a["gen_ai.tool.definitions"] as string)).toEqual(
      FUNCTION_DECLARATIONS.map((d) => ({
        type: "function",
        name: d.name,
        description: d.description,
        parameters: d.parametersJsonSchema,
      })),
    );
    expect(JSON.parse(a["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: FUNCTION_CALLS.map((c) => ({ type: "tool_call", id: c.id, name: c.name, arguments: c.args })),
        finish_reason: "tool_call",
      },
    ]);
  });

  it("content attributes of a text answer: the thought as a reasoning part; a string prompt as a user message", async () => {
    const client = wrapGoogleGenAI(makeGoogle(ctx.server), { contentAttributes: true });
    await client.models.generateContent(TEXT_REQUEST);
    const a = (await onlySpan()).attributes;
    expect(JSON.parse(a["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: "Say hello." }] },
    ]);
    expect(a).not.toHaveProperty("gen_ai.system_instructions");
    expect(JSON.parse(a["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: THOUGHT },
          { type: "text", content: TEXT },
        ],
        finish_reason: "stop",
      },
    ]);
  });

  it("automatic function calling: one span; its input tokens are both requests'; function responses as tool messages", async () => {
    const client = wrapGoogleGenAI(makeGoogle(ctx.server), { contentAttributes: true });
    const response = await client.models.generateContent({
      ...TOOL_REQUEST,
      config: { ...TOOL_REQUEST.config, tools: [callableTool()] },
    });
    expect(response.text).toBe(TOOL_ANSWER);
    const a = (await onlySpan()).attributes;
    expect(a["gen_ai.usage.input_tokens"]).toBe(2 * USAGE.promptTokenCount);
    expect(a["gen_ai.usage.output_tokens"]).toBe(2 * (USAGE.candidatesTokenCount + USAGE.thoughtsTokenCount));
    expect(JSON.parse(a["gen_ai.output.messages"] as string)).toEqual([
      { role: "assistant", parts: [{ type: "text", content: TOOL_ANSWER }], finish_reason: "stop" },
    ]);
  });

  it("a failed request: status ERROR and error.type the HTTP status", async () => {
    const client = wrapGoogleGenAI(makeGoogle(ctx.server));
    const err = await errorOf(client.models.generateContent({ ...TEXT_REQUEST, model: "m-status-429" }));
    expect(err).toMatchObject({ status: 429 });
    const span = await onlySpan();
    expect(span.status.code).toBe(STATUS_ERROR);
    expect(span.attributes["error.type"]).toBe("429");
    expect(span.events.map((e) => e.name)).toEqual(["exception"]);
  });

  it("a broken-off stream is cancelled, not failed: status UNSET, finish reason `cancelled` in the output", async () => {
    const client = wrapGoogleGenAI(makeGoogle(ctx.server), { contentAttributes: true });
    for await (const _chunk of await client.models.generateContentStream({ ...TEXT_REQUEST, model: "m-slow" })) break;
    const span = await onlySpan();
    expect(span.status.code).toBe(STATUS_UNSET);
    expect(span.attributes).toMatchObject({ "tracewire.cancelled": true, "tracewire.cancel.reason": "break" });
    expect(JSON.parse(span.attributes["gen_ai.output.messages"] as string)[0].finish_reason).toBe("cancelled");
  });
});
