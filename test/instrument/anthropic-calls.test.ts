/**
 * wrapAnthropic against the real `@anthropic-ai/sdk` (1.x and 0.x) and a loopback server speaking Anthropic's wire
 * format: what the consumer receives is the unwrapped client's (same objects, same classes, same errors), and what
 * reaches the tracing service on the calls route is decoded field by field — inputs, the (reassembled) Message,
 * request facts, usage with cache tokens, outcome — one call per request.
 */
import { describe, expect, it } from "vitest";
import { callOf, getCurrentCall, op } from "../../src/index.js";
import { wrapAnthropic } from "../../src/instrument/anthropic.js";
import { MODEL_SUFFIX, messageFor, TEXT, TOOL_USES, USAGE } from "../support/anthropic-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import {
  ANTHROPIC_VERSIONS,
  collect,
  MODEL,
  makeAnthropic,
  plain,
  setupAnthropicServer,
  TEXT_REQUEST,
  TOOL_REQUEST,
} from "./anthropic-support.js";
import { summaryOf } from "./support.js";

const CREATE = "anthropic.messages.create";
const STREAM = "anthropic.messages.stream";
const BETA_CREATE = "anthropic.beta.messages.create";
const BETA_STREAM = "anthropic.beta.messages.stream";
const RESPONSE_MODEL = `${MODEL}${MODEL_SUFFIX}`;
/** The usage summary of one request: input tokens include the cache read and creation tokens (semconv). */
const USAGE_SUMMARY = {
  [RESPONSE_MODEL]: {
    prompt_tokens: USAGE.input_tokens + USAGE.cache_read_input_tokens + USAGE.cache_creation_input_tokens,
    completion_tokens: USAGE.output_tokens,
    total_tokens:
      USAGE.input_tokens + USAGE.cache_read_input_tokens + USAGE.cache_creation_input_tokens + USAGE.output_tokens,
    requests: 1,
    cache_read_input_tokens: USAGE.cache_read_input_tokens,
    cache_creation_input_tokens: USAGE.cache_creation_input_tokens,
  },
};

const ctx = setupAnthropicServer();

const errorOf = (promise: PromiseLike<unknown>) =>
  Promise.resolve(promise).then(
    () => undefined,
    (e: unknown) => e,
  );

describe.each(ANTHROPIC_VERSIONS)("$name", (version) => {
  const session = setupSessionPerTest();
  const wrapped = () => wrapAnthropic(makeAnthropic(version, ctx.server));
  const bare = () => makeAnthropic(version, ctx.server);

  it("a Message: the same object type and content as unwrapped; inputs, output, facts and usage recorded", async () => {
    const promise = wrapped().messages.create(TOOL_REQUEST);
    expect(promise).toBeInstanceOf(version.APIPromise);
    const message = await promise;
    expect(plain(message)).toEqual(plain(await bare().messages.create(TOOL_REQUEST)));
    const call = await session.only(CREATE);
    expect(call.start.inputs).toEqual(plain(TOOL_REQUEST));
    expect(call.end!.output).toEqual(plain(message));
    const port = Number(new URL(ctx.server.baseURL).port);
    expect(call.start.attributes).toEqual({
      operation: "chat",
      provider: "anthropic",
      model: MODEL,
      model_parameters: { model: MODEL, max_tokens: 256, temperature: 0.2, top_k: 5, stop_sequences: ["\n\nHuman:"] },
      server: { address: "127.0.0.1", port },
    });
    expect(call.end!.summary).toEqual({
      usage: USAGE_SUMMARY,
      gen_ai: { response_id: "msg_standin", response_model: RESPONSE_MODEL, finish_reasons: ["tool_use"] },
    });
    expect(callOf(message)?.id).toBe(call.start.id);
  });

  it("stream: true — the same events as unwrapped; the Message they add up to (tool inputs per index) recorded", async () => {
    const params = { ...TOOL_REQUEST, stream: true as const };
    const stream = await wrapped().messages.create(params);
    expect(stream).toBeInstanceOf(version.Stream);
    const events = await collect(stream);
    expect(plain(events)).toEqual(plain(await collect(await bare().messages.create(params))));
    expect(events.map((e) => e.type)).not.toContain("ping");
    const call = await session.only(CREATE);
    expect(call.start.inputs).toEqual(plain(params));
    // Exactly what the same request answers without streaming: interleaved tool inputs reassembled per index.
    expect(call.end!.output).toEqual(messageFor(TOOL_REQUEST, "msg_standin"));
    const output = call.end!.output as { content: { input?: unknown }[] };
    expect(output.content.slice(1).map((b) => b.input)).toEqual(TOOL_USES.map((t) => t.input));
    expect(call.end!.summary).toMatchObject({ usage: USAGE_SUMMARY, gen_ai: { finish_reasons: ["tool_use"] } });
    expect(typeof summaryOf(call).gen_ai!.time_to_first_chunk).toBe("number");
    expect(call.start.attributes).toMatchObject({ model_parameters: { stream: true } });
  });

  it("messages.stream(): the same final Message and text as unwrapped; one call named after the helper", async () => {
    const helper = wrapped().messages.stream(TOOL_REQUEST);
    expect(helper).toBeInstanceOf(version.MessageStream);
    const texts: string[] = [];
    helper.on("text", (t) => texts.push(t));
    const final = await helper.finalMessage();
    const reference = bare().messages.stream(TOOL_REQUEST);
    const referenceTexts: string[] = [];
    reference.on("text", (t) => referenceTexts.push(t));
    expect(plain(final)).toEqual(plain(await reference.finalMessage()));
    expect(texts).toEqual(referenceTexts);
    await session.tracing.flush();
    expect(session.double.callsNamed(CREATE)).toHaveLength(0);
    const call = await session.only(STREAM);
    expect(call.start.inputs).toEqual({ ...plain(TOOL_REQUEST), stream: true });
    // The Message the stream added up to; `parsed_output` is what the helper adds to it afterwards.
    const { parsed_output: _parsed, ...streamed } = plain(final) as typeof final & { parsed_output?: unknown };
    expect(call.end!.output).toEqual(streamed);
    expect(call.end!.summary).toMatchObject({ usage: USAGE_SUMMARY });
    expect(callOf(helper)?.id).toBe(call.start.id);
    expect(callOf(final)?.id).toBe(call.start.id);
  });

  it("messages.stream(): its listeners run in the caller's context, so a follow-up request nests under the caller", async () => {
    const client = wrapped();
    const seen: (string | undefined)[] = [];
    const agent = op(async function agent() {
      const helper = client.messages.stream(TEXT_REQUEST);
      const followUp = new Promise<unknown>((resolve, reject) => {
        helper.on("text", () => seen.push(getCurrentCall()?.id));
        helper.on("finalMessage", () => {
          seen.push(getCurrentCall()?.id);
          client.messages.create(TEXT_REQUEST).then(resolve, reject);
        });
      });
      await helper.done();
      await followUp;
    });
    await agent();
    const parent = await session.only("agent");
    const streamed = await session.only(STREAM);
    const next = await session.only(CREATE);
    expect(streamed.start.parent_id).toBe(parent.start.id);
    expect(next.start.parent_id).toBe(parent.start.id);
    expect(seen.length).toBeGreaterThan(1);
    expect(new Set(seen)).toEqual(new Set([parent.start.id]));
  });

  it("withResponse() and asResponse() answer as unwrapped; a raw-only read ends the call without output", async () => {
    const { data, response, request_id } = await wrapped().messages.create(TEXT_REQUEST).withResponse();
    expect(plain(data)).toEqual(plain(await bare().messages.create(TEXT_REQUEST)));
    expect(response.status).toBe(200);
    expect(request_id).toMatch(/^req_standin_/);
    await session.only(CREATE);
    const raw = await wrapped().messages.create(TEXT_REQUEST).asResponse();
    expect(JSON.parse(await raw.text())).toMatchObject({ content: [{ type: "text", text: TEXT }] });
    await session.tracing.flush();
    const rawCall = session.double.callsNamed(CREATE).find((c) => summaryOf(c).tracewire?.response_raw === true);
    expect(rawCall?.end?.output).toBeUndefined();
  });

  it("one request is one call: the SDK's own span is handed over, and its trace headers name tracewire's call", async () => {
    const before = ctx.server.messageRequests().length;
    await wrapped().messages.create(TEXT_REQUEST);
    await session.tracing.flush();
    expect([...session.double.calls.values()]).toHaveLength(1);
    // The SDK's own span would arrive over OTLP (a foreign span): none does.
    expect(session.double.spans.map((s) => s.name)).toEqual([]);
    const call = await session.only(CREATE);
    const sent = ctx.server.messageRequests().slice(before);
    expect(sent).toHaveLength(1);
    const traceparent = sent[0]!.headers.traceparent;
    expect(traceparent).toBe(`00-${call.start.trace_id}-${call.start.id}-01`);
  });

  it("an API error is rethrown unchanged (same class and message as unwrapped) and recorded as the call's error", async () => {
    const params = { ...TEXT_REQUEST, model: "m-status-400" };
    const err = (await errorOf(wrapped().messages.create(params))) as Error & { status?: number };
    const reference = (await errorOf(bare().messages.create(params))) as Error;
    expect(err.constructor).toBe(reference.constructor);
    expect(err.message).toBe(reference.message);
    expect(err.status).toBe(400);
    const call = await session.only(CREATE);
    expect(call.end!.exception).toContain("Stand-in error 400");
    expect(summaryOf(call).gen_ai).toMatchObject({ error_type: "400" });
  });

  it("an error event inside the stream is rethrown as unwrapped; the call fails with what arrived before it", async () => {
    const params = { ...TEXT_REQUEST, model: "m-error-stream", stream: true as const };
    const err = (await errorOf(collect(await wrapped().messages.create(params)))) as Error;
    const reference = (await errorOf(collect(await bare().messages.create(params)))) as Error;
    expect(err.constructor).toBe(reference.constructor);
    expect(err.message).toBe(reference.message);
    const call = await session.only(CREATE);
    expect(call.end!.exception).toContain("Overloaded");
    expect(call.end!.output).toMatchObject({ content: [{ type: "text", text: "Hello" }], stop_reason: null });
  });

  it("a stream the caller breaks out of is cancelled (break), exactly once", async () => {
    const stream = await wrapped().messages.create({ ...TEXT_REQUEST, model: "m-slow", stream: true });
    for await (const event of stream) if (event.type === "content_block_delta") break;
    const call = await session.only(CREATE);
    expect(call.ends).toBe(1);
    expect(call.end!.exception).toBeUndefined();
    expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "break" });
  });

  it("a messages.stream() helper the caller breaks out of is cancelled (break), exactly once, with the text so far", async () => {
    const helper = wrapped().messages.stream({ ...TEXT_REQUEST, model: "m-slow" });
    for await (const event of helper) if (event.type === "content_block_delta") break;
    await errorOf(helper.done());
    const call = await session.only(STREAM);
    expect(call.ends).toBe(1);
    expect(call.end!.exception).toBeUndefined();
    expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "break" });
    expect(call.end!.output).toMatchObject({ content: [{ type: "text" }], stop_reason: null });
  });

  it("an aborted stream (the caller's signal, or the helper's abort()) is cancelled (abort)", async () => {
    const controller = new AbortController();
    const stream = await wrapped().messages.create(
      { ...TEXT_REQUEST, model: "m-slow", stream: true },
      { signal: controller.signal },
    );
    let seen = 0;
    const read = (async () => {
      for await (const _event of stream) if (++seen === 4) controller.abort();
    })();
    await errorOf(read);
    const call = await session.only(CREATE);
    expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "abort" });

    const helper = wrapped().messages.stream({ ...TEXT_REQUEST, model: "m-slow" });
    helper.on("text", () => helper.abort());
    await errorOf(helper.done());
    const helperCall = await session.only(STREAM);
    expect(summaryOf(helperCall).tracewire).toMatchObject({ status: "cancelled" });
  });

  it("wrapping twice is a no-op, withOptions() is traced too, and other endpoints are untouched", async () => {
    const client = wrapped();
    expect(wrapAnthropic(client)).toBe(client);
    const create = client.messages.create;
    wrapAnthropic(client);
    expect(client.messages.create).toBe(create);
    await client.withOptions({ timeout: 5000 }).messages.create(TEXT_REQUEST);
    await session.only(CREATE);
    expect(Object.hasOwn(client.messages.batches, "create")).toBe(false);
  });

  it("client.beta.messages: create (streamed or not) and stream() are traced like messages, one call per request", async () => {
    const client = wrapped();
    const params = { ...TOOL_REQUEST, stream: true as const };
    const message = await client.beta.messages.create(TOOL_REQUEST);
    const sent = ctx.server.messageRequests().at(-1)!;
    const events = await collect(await client.beta.messages.create(params));
    const helper = client.beta.messages.stream(TOOL_REQUEST);
    const final = await helper.finalMessage();
    await session.tracing.flush();
    // The SDK's own span of each request is handed over: none arrives over OTLP, its trace headers name the call.
    expect(session.double.spans.map((s) => s.name)).toEqual([]);
    expect(session.double.callsNamed(CREATE)).toHaveLength(0);
    const [call, streamed] = session.double.callsNamed(BETA_CREATE);
    expect(call!.start!.inputs).toEqual(plain(TOOL_REQUEST));
    expect(call!.end!.output).toEqual(plain(message));
    expect(call!.end!.summary).toMatchObject({ usage: USAGE_SUMMARY, gen_ai: { finish_reasons: ["tool_use"] } });
    expect(callOf(message)?.id).toBe(call!.start!.id);
    expect(sent.headers.traceparent).toBe(`00-${call!.start!.trace_id}-${call!.start!.id}-01`);
    expect(streamed!.end!.output).toEqual(messageFor(TOOL_REQUEST, "msg_standin"));
    const helperCall = await session.only(BETA_STREAM);
    expect(helperCall.end!.output).toEqual(messageFor(TOOL_REQUEST, "msg_standin"));
    expect(callOf(helper)?.id).toBe(helperCall.start.id);
    // What the caller got is what an unwrapped client gets.
    expect(plain(message)).toEqual(plain(await bare().beta.messages.create(TOOL_REQUEST)));
    expect(plain(events)).toEqual(plain(await collect(await bare().beta.messages.create(params))));
    expect(plain(final)).toEqual(plain(await bare().beta.messages.stream(TOOL_REQUEST).finalMessage()));
  });

  it("client.beta.messages.toolRunner(): one call per model request, the tools' results in the next one's inputs", async () => {
    const tools = TOOL_REQUEST.tools.map((tool) => ({
      ...tool,
      type: "custom" as const,
      parse: (input: unknown) => input,
      run: async () => `result of ${tool.name}`,
    }));
    const params = { ...TOOL_REQUEST, tools, max_iterations: 3 };
    const final = await wrapped().beta.messages.toolRunner(params);
    await session.tracing.flush();
    const calls = session.double.callsNamed(BETA_CREATE);
    expect(calls.map((c) => c.end?.summary)).toMatchObject([
      { gen_ai: { finish_reasons: ["tool_use"] } },
      { gen_ai: { finish_reasons: ["end_turn"] } },
    ]);
    const inputs = calls[1]!.start!.inputs as { messages: { content: unknown }[] };
    const results = inputs.messages.at(-1)!.content;
    expect(results).toMatchObject(TOOL_USES.map((t) => ({ type: "tool_result", tool_use_id: t.id })));
    expect(calls[1]!.end!.output).toEqual(plain(final));
    // The runner's answer is the unwrapped client's.
    expect(plain(final)).toEqual(plain(await bare().beta.messages.toolRunner(params)));
  });
});
