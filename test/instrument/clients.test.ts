/**
 * tracewire's own chat clients (`InferenceClient`, `TrainingClient`) are traced like a wrapped `openai` client:
 * one GenAI chat span per request, checked on the calls route and on the OTLP wire, against the loopback
 * OpenAI-compatible server. `trace: false` turns it off; the training engine's extras are handled.
 */
import { afterEach, describe, expect, it } from "vitest";
import { InferenceClient } from "../../src/api/inference/client.js";
import { TrainingClient } from "../../src/api/training/client.js";
import type { ChatCompletionChunk } from "../../src/api/types/chat.js";
import { ApiError, ConfigError } from "../../src/errors.js";
import { callOf } from "../../src/index.js";
import { MODEL_SUFFIX, PROMPT_TOKEN_IDS, TEXT, TOOL_CALLS, USAGE } from "../support/openai-server.js";
import { type Session, startSession } from "../support/tracing-session.js";
import { collect, MESSAGES, setupOpenAIServer, summaryOf, TOOLS, usageOfOneRequest } from "./support.js";

const MODEL = "meta-llama/Llama-3.1-8B-Instruct";
const USAGE_BY_MODEL = usageOfOneRequest(`${MODEL}${MODEL_SUFFIX}`);

const ctx = setupOpenAIServer();
let session: Session | undefined;

afterEach(async () => {
  await session?.stop();
  session = undefined;
  ctx.server.server.requests.length = 0;
});

const inference = (options: ConstructorParameters<typeof InferenceClient>[0] = {}) =>
  new InferenceClient({ baseUrl: ctx.server.baseURL, apiKey: "k", env: {}, retry: { maxAttempts: 1 }, ...options });
const training = (options: ConstructorParameters<typeof TrainingClient>[0] = {}) =>
  new TrainingClient({ baseUrl: ctx.server.url, apiKey: "k", env: {}, retry: { maxAttempts: 1 }, ...options });

describe("InferenceClient", () => {
  const OP = "inference.chat.completions.create";

  it("a completion is one call: parameters in, completion out, usage by response model", async () => {
    session = await startSession();
    const client = inference();
    const params = { model: MODEL, messages: MESSAGES, temperature: 0 };
    const completion = await client.chat.completions.create(params);
    const call = await session.only(OP);
    expect(call.start.inputs).toEqual(params);
    expect(call.end!.output).toEqual(completion);
    expect(summaryOf(call).usage).toEqual(USAGE_BY_MODEL);
    expect(callOf(completion)?.id).toBe(call.start.id);
    await client.close();
  });

  it("a stream yields the untraced chunks; usage is injected, hidden and recorded; tool calls reassembled", async () => {
    session = await startSession();
    const traced = inference();
    const plain = inference({ trace: false });
    const params = { model: MODEL, messages: MESSAGES, tools: TOOLS, stream: true as const };
    const got = await collect(await traced.chat.completions.create(params));
    const bodies = ctx.server.chatBodies();
    const expected = await collect(await plain.chat.completions.create(params));
    expect(got).toStrictEqual(expected);
    expect(bodies.at(-1)!.stream_options).toEqual({ include_usage: true });
    expect(ctx.server.chatBodies().at(-1)!.stream_options).toBeUndefined();

    const call = await session.only(OP);
    const output = call.end!.output as { choices: { message: { tool_calls: unknown[] } }[] };
    expect(output.choices[0]!.message.tool_calls).toEqual(
      TOOL_CALLS.map((t) => ({ id: t.id, type: "function", function: { name: t.name, arguments: t.arguments } })),
    );
    expect(summaryOf(call).usage).toEqual(USAGE_BY_MODEL);
    await Promise.all([traced.close(), plain.close()]);
  });

  it("trace: false records nothing and sends the request as given", async () => {
    session = await startSession();
    const client = inference({ trace: false });
    await collect(await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true }));
    await session.tracing.flush();
    expect(session.double.calls.size).toBe(0);
    expect(ctx.server.chatBodies().at(-1)!.stream_options).toBeUndefined();
    await client.close();
  });

  it("a bad trace option is a ConfigError at construction", () => {
    expect(() => inference({ trace: "yes" as unknown as boolean })).toThrow(ConfigError);
    expect(() => inference({ trace: { includeStreamUsage: 1 as unknown as boolean } })).toThrow(/includeStreamUsage/);
  });

  it("on the OTLP wire: provider tracewire.inference, server address, stream attributes", async () => {
    session = await startSession({ export: "otlp" });
    const client = inference();
    const stream = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true });
    const text = (await collect(stream)).map((c: ChatCompletionChunk) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe(TEXT);
    await session.tracing.flush();
    const [span] = session.double.spans;
    // Exported under the op name (the service makes it the call's op_name); the span itself is `chat {model}`.
    expect(span!.name).toBe("inference.chat.completions.create");
    expect(span!.attributes).toMatchObject({
      "gen_ai.provider.name": "tracewire.inference",
      "gen_ai.operation.name": "chat",
      "gen_ai.request.stream": true,
      "server.address": "127.0.0.1",
      "server.port": ctx.server.server.port,
      "gen_ai.usage.input_tokens": USAGE.prompt_tokens,
      "gen_ai.response.finish_reasons": ["stop"],
    });
    expect(typeof span!.attributes["gen_ai.response.time_to_first_chunk"]).toBe("number");
    await client.close();
  });

  it("abort and break end the span as cancelled; an API error as an error", async () => {
    session = await startSession({ export: "otlp" });
    const client = inference();
    const aborted = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
    let n = 0;
    for await (const _ of aborted) if (++n === 2) aborted.controller.abort();
    const broken = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
    for await (const _ of broken) break;
    const error = await client.chat.completions.create({ model: "m-status-404", messages: MESSAGES }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    await session.tracing.flush();
    const spans = session.double.spans;
    expect(
      spans.map((s) => [s.status.code, s.attributes["tracewire.cancel.reason"], s.attributes["error.type"]]),
    ).toEqual([
      [0, "abort", undefined],
      [0, "break", undefined],
      [2, undefined, "404"],
    ]);
    await client.close();
  });
});

describe("TrainingClient", () => {
  const OP = "training.chat.completions.create";

  it("token ids stay out of the recorded output; priority and request_id are attributes", async () => {
    session = await startSession({ export: "otlp" });
    const client = training();
    const params = {
      model: MODEL,
      messages: MESSAGES,
      stream: true as const,
      return_token_ids: true,
      priority: 2,
      request_id: "rollout-3",
    };
    const chunks = await collect(await client.chat.completions.create(params));
    // The consumer still gets the token ids.
    expect(chunks[0]!.prompt_token_ids).toEqual(PROMPT_TOKEN_IDS);
    expect(chunks[1]!.choices[0]!.token_ids).toEqual([7]);
    await session.tracing.flush();
    const [span] = session.double.spans;
    expect(span!.attributes).toMatchObject({
      "gen_ai.provider.name": "tracewire.training",
      "tracewire.request.priority": 2,
      "tracewire.request.id": "rollout-3",
    });
    const output = JSON.parse(span!.attributes["output.value"] as string);
    expect(output).not.toHaveProperty("prompt_token_ids");
    expect(output.choices[0]).not.toHaveProperty("token_ids");
    expect(output.choices[0].message.content).toBe(TEXT);
    await client.close();
  });

  it("trace.captureTokenIds keeps them (reassembled per choice)", async () => {
    session = await startSession();
    const client = training({ trace: { captureTokenIds: true } });
    await collect(
      await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true, return_token_ids: true }),
    );
    const call = await session.only(OP);
    const output = call.end!.output as { prompt_token_ids: number[]; choices: { token_ids: number[] }[] };
    expect(output.prompt_token_ids).toEqual(PROMPT_TOKEN_IDS);
    expect(output.choices[0]!.token_ids).toEqual([7, 7, 7, 7, 7, 7]);
    await client.close();
  });

  it("an error event inside a 200 stream ends the call with the error", async () => {
    session = await startSession();
    const client = training();
    const stream = await client.chat.completions.create({ model: "m-error-stream", messages: MESSAGES, stream: true });
    const error = await collect(stream).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const call = await session.only(OP);
    expect(call.end!.exception).toContain("The engine stopped unexpectedly");
    await client.close();
  });

  it("a request rejected client-side makes no call", async () => {
    session = await startSession();
    const client = training();
    expect(() =>
      client.chat.completions.create({ model: MODEL, messages: MESSAGES, continue_final_message: true }),
    ).toThrow(/add_generation_prompt/);
    await session.tracing.flush();
    expect(session.double.calls.size).toBe(0);
    await client.close();
  });
});
