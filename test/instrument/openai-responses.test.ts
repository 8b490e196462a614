/**
 * wrapOpenAI traces the Responses API and embeddings of the real `openai` package (v6, v5, and v7 on Node ≥ 22)
 * against the loopback server (test/support/openai-responses-server.ts), checked on the calls route: one call per
 * request, inputs = the request parameters, output = the response (for a stream, the one its typed events add up
 * to; for embeddings, everything but the vectors), usage keyed by the response model with cached and reasoning
 * tokens. What the consumer gets — responses, events one by one, the SDK's own APIPromise and Stream, errors — is
 * compared with an unwrapped client of the same major.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { callOf } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import {
  RESPONSES_CREATE as CREATE,
  EMBEDDING_DIMENSIONS,
  EMBEDDING_TOKENS_PER_INPUT,
  RESPONSES_MODEL as MODEL,
  REASONING_PIECES,
  RESPONSE_CALLS,
  RESPONSE_ID,
  RESPONSE_JSON,
  RESPONSES_ANSWER_MODEL as RESPONSE_MODEL,
  RESPONSE_TEXT,
  responseUsageSummary,
} from "../support/openai-responses-server.js";
import { MODEL_SUFFIX } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { type Client, collect, makeClient, plain, setupOpenAIServer, summaryOf, VERSIONS } from "./support.js";

const INSTRUCTIONS = "Be brief.";
const INPUT = [{ role: "user" as const, content: "Say hello." }];
const TOOLS = [
  {
    type: "function" as const,
    name: "get_weather",
    description: "Weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    strict: false,
  },
  {
    type: "function" as const,
    name: "get_time",
    description: "Local time",
    parameters: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] },
    strict: false,
  },
];
const USAGE_SUMMARY = responseUsageSummary(RESPONSE_MODEL);

const ctx = setupOpenAIServer();
const session = setupSessionPerTest();

const errorOf = (promise: PromiseLike<unknown>) =>
  Promise.resolve(promise).then(
    () => undefined,
    (e: unknown) => e,
  );

/** Flushes, then returns the `n`th call (1-based) recorded under `opName`, checking there are exactly `n`. */
async function nth(opName: string, n: number) {
  await session.tracing.flush();
  const calls = session.double.callsNamed(opName);
  expect(calls, `calls named ${opName}`).toHaveLength(n);
  return calls[n - 1] as (typeof calls)[number] & { start: Record<string, unknown> };
}

/** An event stream's events as the consumer sees them (typed loosely: the fields differ per event type). */
type Event = { type: string; [key: string]: unknown };

describe.each(VERSIONS)("$name", (version) => {
  let client: Client;
  let unwrapped: Client;
  beforeEach(() => {
    client = wrapOpenAI(makeClient(version, ctx.server));
    unwrapped = makeClient(version, ctx.server);
  });

  it("create: inputs are the parameters, output the response, usage with cached and reasoning tokens", async () => {
    const params = { model: MODEL, instructions: INSTRUCTIONS, input: INPUT, max_output_tokens: 64 };
    const promise = client.responses.create(params);
    expect(promise).toBeInstanceOf(version.APIPromise);
    const [response, expected] = await Promise.all([promise, unwrapped.responses.create(params)]);
    expect(response).toStrictEqual(expected);
    expect(response.output_text).toBe(RESPONSE_TEXT);

    const call = await session.only(CREATE);
    expect(call.start.inputs).toEqual(params);
    expect(call.end!.output).toEqual(plain(response));
    expect(call.end!.exception).toBeUndefined();
    expect(summaryOf(call).usage).toEqual(USAGE_SUMMARY);
    expect(summaryOf(call).gen_ai).toEqual({
      response_id: RESPONSE_ID,
      response_model: RESPONSE_MODEL,
      finish_reasons: ["stop"],
    });
    expect(call.start.attributes).toMatchObject({
      operation: "chat",
      provider: "openai",
      model: MODEL,
      model_parameters: { model: MODEL, max_tokens: 64 },
    });
    expect(call.starts).toBe(1);
    expect(call.ends).toBe(1);
    expect(callOf(response)?.id).toBe(call.start.id);
  });

  it("create with tools: the function calls are the output, finish reason tool_call", async () => {
    const response = await client.responses.create({ model: MODEL, input: INPUT, tools: TOOLS });
    const call = await session.only(CREATE);
    const output = (call.end!.output as { output: { type: string }[] }).output;
    expect(output.filter((item) => item.type === "function_call")).toEqual(
      RESPONSE_CALLS.map((c) => ({ ...c, type: "function_call", status: "completed" })),
    );
    expect(call.end!.output).toEqual(plain(response));
    expect(summaryOf(call).gen_ai!.finish_reasons).toEqual(["tool_call"]);
  });

  it("stream: the SDK's Stream with exactly the unwrapped events; output is the completed response", async () => {
    for (const [n, extra] of [{}, { tools: TOOLS }].entries()) {
      const params = { model: MODEL, instructions: INSTRUCTIONS, input: INPUT, stream: true as const, ...extra };
      const stream = await client.responses.create(params);
      expect(stream).toBeInstanceOf(version.Stream);
      const events = (await collect(stream)) as unknown as Event[];
      const expected = (await collect(await unwrapped.responses.create(params))) as unknown as Event[];
      expect(events.length).toBe(expected.length);
      for (let i = 0; i < events.length; i++) expect(events[i], `event ${i}`).toStrictEqual(expected[i]);

      const call = await nth(CREATE, n + 1);
      const completed = events.at(-1)!;
      expect(completed.type).toBe("response.completed");
      expect(call.start.inputs).toEqual(params);
      expect(call.end!.output).toEqual(plain(completed.response));
      expect(summaryOf(call).usage).toEqual(USAGE_SUMMARY);
      expect(typeof summaryOf(call).gen_ai!.time_to_first_chunk).toBe("number");
      expect(callOf(stream)?.id).toBe(call.start.id);
    }
  });

  it("a stream broken out of mid-answer is cancelled, with the output items its events built so far", async () => {
    const stream = await client.responses.create({ model: "m-slow", input: INPUT, stream: true });
    let deltas = 0;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta" && ++deltas === 3) break;
    }
    const call = await session.only(CREATE);
    expect(call.end!.exception).toBeUndefined();
    expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "break" });
    const output = call.end!.output as { id: string; status: string; output: unknown[] };
    expect(output.id).toBe(RESPONSE_ID);
    expect(output.status).toBe("in_progress");
    expect(output.output).toEqual([
      { id: "rs_standin", type: "reasoning", summary: [{ type: "summary_text", text: REASONING_PIECES.join("") }] },
      {
        id: "msg_standin",
        type: "message",
        status: "in_progress",
        role: "assistant",
        content: [{ type: "output_text", text: "Hello from.", annotations: [] }],
      },
    ]);
    expect(call.ends).toBe(1);
  });

  it("a stream aborted through its controller ends once, as cancelled (abort)", async () => {
    const closedBefore = ctx.server.closedEarly;
    const stream = await client.responses.create({ model: "m-slow", input: INPUT, stream: true });
    const seen: Event[] = [];
    const error = await errorOf(
      (async () => {
        for await (const event of stream) {
          seen.push(event as unknown as Event);
          if (seen.length === 8) stream.controller.abort();
        }
      })(),
    );
    // The SDK ends an aborted stream quietly or with its own abort error, as it does unwrapped.
    if (error !== undefined) expect((error as Error).constructor.name).toBe("APIUserAbortError");
    const call = await session.only(CREATE);
    expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "abort" });
    expect(call.end!.exception).toBeUndefined();
    expect(call.ends).toBe(1);
    await expect.poll(() => ctx.server.closedEarly).toBeGreaterThan(closedBefore);
  });

  it("an error event inside the stream fails the call; the consumer sees the unwrapped events", async () => {
    // openai 5 and 6 yield the `error` event; openai 7 throws it as an APIError: the same either way.
    const drain = async (stream: AsyncIterable<unknown>) => {
      const events: unknown[] = [];
      const error = await errorOf(
        (async () => {
          for await (const event of stream) events.push(event);
        })(),
      );
      return { events, error: error === undefined ? undefined : [Object.getPrototypeOf(error), String(error)] };
    };
    const params = { model: "m-error-event", input: INPUT, stream: true as const };
    const got = await drain(await client.responses.create(params));
    expect(got).toStrictEqual(await drain(await unwrapped.responses.create(params)));
    const call = await session.only(CREATE);
    expect(call.end!.exception).toContain("The engine stopped unexpectedly");
    expect(summaryOf(call).gen_ai!.error_type).toBe("engine_error");
  });

  it("a failed response fails the call (streamed or not); an API error is rethrown unchanged", async () => {
    await client.responses.create({ model: "m-failed", input: INPUT });
    let call = await nth(CREATE, 1);
    expect(call.end!.exception).toContain("The model failed to answer");
    expect(summaryOf(call).gen_ai).toMatchObject({ error_type: "server_error", finish_reasons: ["error"] });

    await collect(await client.responses.create({ model: "m-failed", input: INPUT, stream: true }));
    call = await nth(CREATE, 2);
    expect(summaryOf(call).gen_ai).toMatchObject({ error_type: "server_error", finish_reasons: ["error"] });

    const err = await errorOf(client.responses.create({ model: "m-status-429", input: INPUT }));
    const plainErr = await errorOf(unwrapped.responses.create({ model: "m-status-429", input: INPUT }));
    expect(Object.getPrototypeOf(err)).toBe(Object.getPrototypeOf(plainErr));
    expect((err as Error).message).toBe((plainErr as Error).message);
    call = await nth(CREATE, 3);
    expect(summaryOf(call).gen_ai!.error_type).toBe("429");
  });

  it("an incomplete response finishes with length", async () => {
    await client.responses.create({ model: "m-incomplete", input: INPUT });
    const call = await session.only(CREATE);
    expect(call.end!.exception).toBeUndefined();
    expect(summaryOf(call).gen_ai!.finish_reasons).toEqual(["length"]);
  });

  it("responses.stream() is one call named openai.responses.stream; callOf(runner) leads to it", async () => {
    const params = { model: MODEL, input: INPUT };
    const runner = client.responses.stream(params);
    let text = "";
    runner.on("response.output_text.delta", (event) => {
      text += event.delta;
    });
    const final = await runner.finalResponse();
    expect(text).toBe(RESPONSE_TEXT);
    const expected = await unwrapped.responses.stream(params).finalResponse();
    expect(plain(final)).toEqual(plain(expected));
    await session.tracing.flush();
    expect(session.double.callsNamed(CREATE)).toHaveLength(0);
    const call = await session.only("openai.responses.stream");
    expect(call.start.inputs).toEqual({ ...params, stream: true });
    expect((call.end!.output as { output_text?: unknown; status: string }).status).toBe("completed");
    expect(summaryOf(call).usage).toEqual(USAGE_SUMMARY);
    expect(callOf(runner)?.id).toBe(call.start.id);
  });

  it("responses.stream() aborted mid-answer ends its call as cancelled", async () => {
    const runner = client.responses.stream({ model: "m-slow", input: INPUT });
    let deltas = 0;
    runner.on("response.output_text.delta", () => {
      if (++deltas === 2) runner.abort();
    });
    await errorOf(runner.done());
    const call = await session.only("openai.responses.stream");
    expect(summaryOf(call).tracewire).toEqual({ status: "cancelled", cancel_reason: "abort" });
    expect(call.ends).toBe(1);
  });

  it("responses.parse() is one call named openai.responses.parse with the raw response as output", async () => {
    const params = {
      model: MODEL,
      input: INPUT,
      text: {
        format: {
          type: "json_schema" as const,
          name: "weather",
          schema: { type: "object", properties: {} },
          strict: false,
        },
      },
    };
    const parsed = await client.responses.parse(params);
    expect(parsed.output_parsed).toEqual(RESPONSE_JSON);
    expect(plain(parsed)).toEqual(plain(await unwrapped.responses.parse(params)));
    await session.tracing.flush();
    expect(session.double.callsNamed(CREATE)).toHaveLength(0);
    const call = await session.only("openai.responses.parse");
    const output = call.end!.output as { output_text: string };
    expect(JSON.parse(output.output_text)).toEqual(RESPONSE_JSON);
    expect(summaryOf(call).usage).toEqual(USAGE_SUMMARY);
    expect(callOf(parsed)?.id).toBe(call.start.id);
  });

  it("asResponse() gives the unread raw Response; the call ends without reading the body", async () => {
    const response = await client.responses.create({ model: MODEL, input: INPUT }).asResponse();
    expect(response.bodyUsed).toBe(false);
    expect(((await response.json()) as { id: string }).id).toBe(RESPONSE_ID);
    const call = await session.only(CREATE);
    expect(call.end!.output).toBeUndefined();
    expect(summaryOf(call).tracewire).toEqual({ response_raw: true });
  });

  it("embeddings.create: an embeddings call with counts and usage, never the vectors", async () => {
    const params = { model: "text-embedding-3-small", input: ["one", "two", "three"] };
    const result = await client.embeddings.create(params);
    expect(result).toStrictEqual(await unwrapped.embeddings.create(params));
    expect(result.data[0]!.embedding).toHaveLength(EMBEDDING_DIMENSIONS);

    const call = await session.only("openai.embeddings.create");
    expect(call.start.inputs).toEqual(params);
    const model = `text-embedding-3-small${MODEL_SUFFIX}`;
    const tokens = 3 * EMBEDDING_TOKENS_PER_INPUT;
    expect(call.end!.output).toEqual({
      object: "list",
      model,
      count: 3,
      dimensions: EMBEDDING_DIMENSIONS,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
    expect(call.start.attributes).toMatchObject({ operation: "embeddings", model: "text-embedding-3-small" });
    expect(summaryOf(call).usage).toEqual({
      [model]: { prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens, requests: 1 },
    });
    expect(callOf(result)?.id).toBe(call.start.id);
  });

  it("embeddings.create with encoding_format base64 and dimensions: the count comes from the base64 vector", async () => {
    const params = {
      model: "text-embedding-3-small",
      input: "one",
      dimensions: 5,
      encoding_format: "base64" as const,
    };
    const result = await client.embeddings.create(params);
    expect(result).toStrictEqual(await unwrapped.embeddings.create(params));
    const call = await session.only("openai.embeddings.create");
    expect(call.end!.output).toMatchObject({ count: 1, dimensions: 5 });
    expect(JSON.stringify(call.end!.output)).not.toContain(result.data[0]!.embedding as unknown as string);
  });
});
