/**
 * wrapOpenAI's Responses API and embeddings spans as an OpenTelemetry backend sees them (`export: "otlp"`, decoded
 * from the wire): GenAI name, kind and attributes (`openai.api.type=responses`, `max_output_tokens` as
 * `gen_ai.request.max_tokens`, cached and reasoning tokens), ERROR and `error.type` for a failed response, the
 * opt-in content attributes (instructions, input items, tools, output items with the reasoning summary), and the
 * `embeddings` operation with its dimension and input counts.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { wrapOpenAI } from "../../src/instrument/index.js";
import {
  EMBEDDING_DIMENSIONS,
  EMBEDDING_TOKENS_PER_INPUT,
  RESPONSES_MODEL as MODEL,
  REASONING_PIECES,
  RESPONSE_CALLS,
  RESPONSE_ID,
  RESPONSE_TEXT,
  RESPONSE_USAGE,
  RESPONSES_ANSWER_MODEL,
} from "../support/openai-responses-server.js";
import { MODEL_SUFFIX } from "../support/openai-server.js";
import type { DecodedSpan } from "../support/otlp.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { type Client, collect, makeClient, setupOpenAIServer, VERSIONS } from "./support.js";

/** What a completed stand-in response puts on its span: its id, model, finish reason, tier and usage. */
const RESPONSE_OUTCOME = {
  "gen_ai.response.id": RESPONSE_ID,
  "gen_ai.response.model": RESPONSES_ANSWER_MODEL,
  "gen_ai.response.finish_reasons": ["stop"],
  "openai.response.service_tier": "default",
  "gen_ai.usage.input_tokens": RESPONSE_USAGE.input_tokens,
  "gen_ai.usage.output_tokens": RESPONSE_USAGE.output_tokens,
  "gen_ai.usage.cache_read.input_tokens": RESPONSE_USAGE.input_tokens_details.cached_tokens,
  "gen_ai.usage.reasoning.output_tokens": RESPONSE_USAGE.output_tokens_details.reasoning_tokens,
};
const SPAN_KIND_CLIENT = 3;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;
const TOOL = {
  type: "function" as const,
  name: "get_weather",
  description: "Weather of a city",
  parameters: { type: "object", properties: { city: { type: "string" } } },
  strict: false,
};

const ctx = setupOpenAIServer();
const session = setupSessionPerTest({ export: "otlp" });

async function spans(): Promise<DecodedSpan[]> {
  await session.tracing.flush();
  return session.double.spans;
}

describe.each(VERSIONS)("$name", (version) => {
  let client: Client;
  beforeEach(() => {
    client = wrapOpenAI(makeClient(version, ctx.server));
  });

  it("a response is a GenAI chat CLIENT span with the Responses request, response and usage attributes", async () => {
    await client.responses.create({
      model: MODEL,
      instructions: "Be brief.",
      input: "Say hello.",
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 64,
      service_tier: "default",
      text: { format: { type: "text" } },
    });
    const [span, ...others] = await spans();
    expect(others).toHaveLength(0);
    expect(span!.name).toBe("openai.responses.create");
    expect(span!.kind).toBe(SPAN_KIND_CLIENT);
    expect(span!.status.code).toBe(STATUS_UNSET);
    expect(span!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "openai.api.type": "responses",
      "gen_ai.request.model": MODEL,
      "gen_ai.request.temperature": 0.2,
      "gen_ai.request.top_p": 0.9,
      "gen_ai.request.max_tokens": 64,
      "gen_ai.output.type": "text",
      "openai.request.service_tier": "default",
      ...RESPONSE_OUTCOME,
    });
    // Content attributes are opt-in.
    expect(span!.attributes).not.toHaveProperty("gen_ai.input.messages");
    expect(span!.attributes).not.toHaveProperty("gen_ai.system_instructions");
  });

  it("a failed streamed response sets ERROR and error.type from its error code", async () => {
    await collect(await client.responses.create({ model: "m-failed", input: "Say hello.", stream: true }));
    const [span] = await spans();
    expect(span!.status.code).toBe(STATUS_ERROR);
    expect(span!.attributes["error.type"]).toBe("server_error");
    expect(span!.attributes["gen_ai.request.stream"]).toBe(true);
  });

  it("a stream broken out of right after response.output_text.done: a finished span with the usage", async () => {
    const stream = await client.responses.create({ model: MODEL, input: "Say hello.", stream: true });
    for await (const event of stream) if (event.type === "response.output_text.done") break;
    const [span, ...others] = await spans();
    expect(others).toHaveLength(0);
    expect(span!.status.code).toBe(STATUS_UNSET);
    expect(span!.attributes).not.toHaveProperty("tracewire.cancelled");
    expect(span!.attributes).not.toHaveProperty("tracewire.cancel.reason");
    expect(span!.attributes).not.toHaveProperty("error.type");
    expect(span!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "openai.api.type": "responses",
      "gen_ai.request.stream": true,
      ...RESPONSE_OUTCOME,
    });
    expect(typeof span!.attributes["gen_ai.response.time_to_first_chunk"]).toBe("number");
  });

  it("content attributes: instructions, input items, tools, and output items with the reasoning summary", async () => {
    const traced = wrapOpenAI(makeClient(version, ctx.server), { contentAttributes: true });
    const input = [
      { role: "user" as const, content: [{ type: "input_text" as const, text: "Weather in Lyon?" }] },
      {
        type: "function_call" as const,
        call_id: "call_0",
        name: "get_weather",
        arguments: '{"city":"Lyon"}',
      },
      { type: "function_call_output" as const, call_id: "call_0", output: "sunny" },
    ];
    // Ends with a tool result (answered in text, streamed); then a fresh question (answered with function calls).
    await collect(
      await traced.responses.create({ model: MODEL, instructions: "Be brief.", input, tools: [TOOL], stream: true }),
    );
    await traced.responses.create({ model: MODEL, input: "Weather?", tools: [TOOL] });
    const [first, second] = await spans();
    const a = first!.attributes;
    expect(JSON.parse(a["gen_ai.system_instructions"] as string)).toEqual([{ type: "text", content: "Be brief." }]);
    expect(JSON.parse(a["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: "Weather in Lyon?" }] },
      {
        role: "assistant",
        parts: [{ type: "tool_call", id: "call_0", name: "get_weather", arguments: '{"city":"Lyon"}' }],
      },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_0", response: "sunny" }] },
    ]);
    expect(JSON.parse(a["gen_ai.tool.definitions"] as string)).toEqual([
      { type: "function", name: TOOL.name, description: TOOL.description, parameters: TOOL.parameters },
    ]);
    expect(JSON.parse(a["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: REASONING_PIECES.join("") },
          { type: "text", content: RESPONSE_TEXT },
        ],
        finish_reason: "stop",
      },
    ]);
    expect(JSON.parse(second!.attributes["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: REASONING_PIECES.join("") },
          ...RESPONSE_CALLS.map((c) => ({ type: "tool_call", id: c.call_id, name: c.name, arguments: c.arguments })),
        ],
        finish_reason: "tool_call",
      },
    ]);
    expect(JSON.parse(second!.attributes["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: "Weather?" }] },
    ]);
  });

  it("embeddings: an embeddings {model} span with dimension and input counts and input tokens", async () => {
    await client.embeddings.create({ model: "text-embedding-3-small", input: ["a", "b"], encoding_format: "float" });
    const [span] = await spans();
    expect(span!.name).toBe("openai.embeddings.create");
    expect(span!.kind).toBe(SPAN_KIND_CLIENT);
    expect(span!.attributes).toMatchObject({
      "gen_ai.operation.name": "embeddings",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "text-embedding-3-small",
      "gen_ai.request.encoding_formats": ["float"],
      "tracewire.embeddings.input_count": 2,
      "gen_ai.response.model": `text-embedding-3-small${MODEL_SUFFIX}`,
      "gen_ai.embeddings.dimension.count": EMBEDDING_DIMENSIONS,
      "gen_ai.usage.input_tokens": 2 * EMBEDDING_TOKENS_PER_INPUT,
    });
    expect(span!.attributes).not.toHaveProperty("gen_ai.usage.output_tokens");
    // The output carried over OTLP has no vectors either.
    expect(JSON.parse(span!.attributes["output.value"] as string)).toMatchObject({ count: 2, dimensions: 8 });
  });
});
