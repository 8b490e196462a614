/**
 * wrapAnthropic spans as an OpenTelemetry backend sees them (`export: "otlp"`, decoded from the wire): GenAI
 * name, kind and attributes (provider `anthropic`, usage with cache creation and read tokens, stop reason), the
 * opt-in content attributes (system prompt, messages, tools, output with tool calls), and one span per request.
 */
import { describe, expect, it } from "vitest";
import { wrapAnthropic } from "../../src/instrument/anthropic.js";
import { MODEL_SUFFIX, TEXT, TOOL_TEXT, TOOL_USES, USAGE } from "../support/anthropic-server.js";
import type { DecodedSpan } from "../support/otlp.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import {
  ANTHROPIC_VERSIONS,
  collect,
  MESSAGES,
  MODEL,
  makeAnthropic,
  SYSTEM,
  setupAnthropicServer,
  TEXT_REQUEST,
  TOOL_REQUEST,
  TOOLS,
} from "./anthropic-support.js";

const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;

const ctx = setupAnthropicServer();
const session = setupSessionPerTest({ export: "otlp" });

async function onlySpan(): Promise<DecodedSpan> {
  await session.tracing.flush();
  const all = session.double.spans;
  expect(all.map((s) => s.name)).toHaveLength(1);
  return all[0]!;
}

describe.each(ANTHROPIC_VERSIONS)("$name", (version) => {
  it("a Message is one GenAI CLIENT span with the request, response and usage attributes", async () => {
    await wrapAnthropic(makeAnthropic(version, ctx.server)).messages.create(TOOL_REQUEST);
    const span = await onlySpan();
    expect(span.name).toBe("anthropic.messages.create");
    expect(span.kind).toBe(SPAN_KIND_CLIENT);
    const a = span.attributes;
    expect(a).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": MODEL,
      "server.address": "127.0.0.1",
      "server.port": ctx.server.server.port,
      "gen_ai.request.max_tokens": 256,
      "gen_ai.request.temperature": 0.2,
      "gen_ai.request.top_k": 5,
      "gen_ai.request.stop_sequences": ["\n\nHuman:"],
      "gen_ai.response.id": "msg_standin",
      "gen_ai.response.model": `${MODEL}${MODEL_SUFFIX}`,
      "gen_ai.response.finish_reasons": ["tool_use"],
      "gen_ai.usage.input_tokens":
        USAGE.input_tokens + USAGE.cache_read_input_tokens + USAGE.cache_creation_input_tokens,
      "gen_ai.usage.output_tokens": USAGE.output_tokens,
      "gen_ai.usage.cache_read.input_tokens": USAGE.cache_read_input_tokens,
      "gen_ai.usage.cache_creation.input_tokens": USAGE.cache_creation_input_tokens,
      "anthropic.response.service_tier": "standard",
    });
    expect(a).not.toHaveProperty("gen_ai.request.stream");
    expect(a).not.toHaveProperty("gen_ai.input.messages");
    expect(JSON.parse(a["input.value"] as string)).toMatchObject({ system: SYSTEM, tools: TOOLS });
    expect(JSON.parse(a["output.value"] as string).content[1]).toEqual({ type: "tool_use", ...TOOL_USES[0] });
  });

  it("a stream: stream flag, time to first chunk, usage from message_start and message_delta", async () => {
    const client = wrapAnthropic(makeAnthropic(version, ctx.server));
    await collect(await client.messages.create({ ...TEXT_REQUEST, stream: true }));
    const a = (await onlySpan()).attributes;
    expect(a["gen_ai.request.stream"]).toBe(true);
    expect(a["gen_ai.response.time_to_first_chunk"]).toBeGreaterThanOrEqual(0);
    expect(a["gen_ai.response.finish_reasons"]).toEqual(["end_turn"]);
    expect(a["gen_ai.usage.output_tokens"]).toBe(USAGE.output_tokens);
    expect(a["gen_ai.usage.cache_creation.input_tokens"]).toBe(USAGE.cache_creation_input_tokens);
    expect(JSON.parse(a["output.value"] as string).content).toEqual([{ type: "text", text: TEXT }]);
  });

  it("opt-in content attributes: system instructions, input messages, tool definitions, output tool calls", async () => {
    const client = wrapAnthropic(makeAnthropic(version, ctx.server), { contentAttributes: true });
    await collect(await client.messages.create({ ...TOOL_REQUEST, stream: true }));
    const a = (await onlySpan()).attributes;
    expect(JSON.parse(a["gen_ai.system_instructions"] as string)).toEqual([{ type: "text", content: SYSTEM }]);
    expect(JSON.parse(a["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: MESSAGES[0]!.content }] },
    ]);
    expect(JSON.parse(a["gen_ai.tool.definitions"] as string)).toEqual(
      TOOLS.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.input_schema })),
    );
    expect(JSON.parse(a["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "text", content: TOOL_TEXT },
          ...TOOL_USES.map((t) => ({ type: "tool_call", id: t.id, name: t.name, arguments: t.input })),
        ],
        finish_reason: "tool_call",
      },
    ]);
  });

  it("a failed request: status ERROR and error.type the HTTP status", async () => {
    const client = wrapAnthropic(makeAnthropic(version, ctx.server));
    await expect(client.messages.create({ ...TEXT_REQUEST, model: "m-status-529" })).rejects.toThrow(/529/);
    const span = await onlySpan();
    expect(span.status.code).toBe(STATUS_ERROR);
    expect(span.attributes["error.type"]).toBe("529");
  });
});
