/**
 * wrapOpenAI against the real `openai` package (v6 and v5) and a loopback OpenAI-compatible server, checked on the
 * tracing service's calls route: one call per request, inputs = the request parameters, output = the completion
 * (reassembled for streams), usage keyed by the response model, errors and cancellations told apart.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callOf, op, withAttributes } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { JSON_ANSWER, MODEL_SUFFIX, PROMPT_TOKEN_IDS, TEXT, TOOL_CALLS, USAGE } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import {
  type Client,
  collect,
  MESSAGES,
  makeClient,
  plain,
  setupOpenAIServer,
  summaryOf,
  TOOLS,
  usageOfOneRequest,
  VERSIONS,
} from "./support.js";

const CREATE = "openai.chat.completions.create";
const MODEL = "gpt-4o-mini";
const RESPONSE_MODEL = `${MODEL}${MODEL_SUFFIX}`;
const EXPECTED_USAGE = usageOfOneRequest(RESPONSE_MODEL);

const ctx = setupOpenAIServer();
const session = setupSessionPerTest();
afterEach(() => {
  ctx.server.server.requests.length = 0;
});

describe.each(VERSIONS)("$name", (version) => {
  let client: Client;
  beforeEach(() => {
    client = wrapOpenAI(makeClient(version, ctx.server));
  });

  it("records a completion: inputs are the parameters, output the completion, usage keyed by the response model", async () => {
    const params = { model: MODEL, messages: MESSAGES, temperature: 0.2 };
    const completion = await client.chat.completions.create(params);
    expect(completion.choices[0]!.message.content).toBe(TEXT);

    const call = await session.only(CREATE);
    expect(call.start.inputs).toEqual(params);
    expect(call.end!.output).toEqual(plain(completion));
    expect(summaryOf(call).usage).toEqual(EXPECTED_USAGE);
    expect(call.end!.exception).toBeUndefined();
    expect(call.starts).toBe(1);
    expect(call.ends).toBe(1);
    // callOf(answer) leads back to the call, e.g. to attach feedback.
    expect(callOf(completion)?.id).toBe(call.start.id);
  });

  it("records a stream: output is the reassembled completion, usage comes from the injected usage chunk", async () => {
    const params = { model: MODEL, messages: MESSAGES, stream: true as const };
    const chunks = await collect(await client.chat.completions.create(params));
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe(TEXT);
    // The server was asked for usage, the consumer never saw it.
    expect(ctx.server.chatBodies().at(-1)!.stream_options).toEqual({ include_usage: true });
    expect(chunks.every((c) => !("usage" in c))).toBe(true);

    const call = await session.only(CREATE);
    expect(call.start.inputs).toEqual(params);
    expect(call.end!.output).toEqual({
      id: "chatcmpl-standin-2",
      object: "chat.completion",
      created: 1767607200,
      model: RESPONSE_MODEL,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: TEXT },
          finish_reason: "stop",
          logprobs: null,
        },
      ],
      usage: USAGE,
      system_fingerprint: "fp_standin",
      service_tier: "default",
    });
    expect(summaryOf(call).usage).toEqual(EXPECTED_USAGE);
  });

  it("keeps parallel tool calls apart when their deltas interleave", async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
      tools: TOOLS,
      stream: true,
    });
    await collect(stream);
    const call = await session.only(CREATE);
    const output = call.end!.output as { choices: { message: { tool_calls: unknown }; finish_reason: string }[] };
    expect(output.choices[0]!.message.tool_calls).toEqual(
      TOOL_CALLS.map((t) => ({ id: t.id, type: "function", function: { name: t.name, arguments: t.arguments } })),
    );
    expect(output.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("reassembles n > 1 choices per index", async () => {
    await collect(await client.chat.completions.create({ model: MODEL, messages: MESSAGES, n: 2, stream: true }));
    const call = await session.only(CREATE);
    const output = call.end!.output as { choices: { index: number; message: { content: string } }[] };
    expect(output.choices.map((c) => [c.index, c.message.content])).toEqual([
      [0, TEXT],
      [1, "Hi again!"],
    ]);
  });

  it("when the caller asks for usage, it sees the usage chunk as usual and it is recorded", async () => {
    const params = { model: MODEL, messages: MESSAGES, stream: true as const, stream_options: { include_usage: true } };
    const chunks = await collect(await client.chat.completions.create(params));
    expect(chunks.at(-1)!.usage).toEqual(USAGE);
    expect(chunks[0]!.usage).toBeNull();
    const call = await session.only(CREATE);
    expect(summaryOf(call).usage).toEqual(EXPECTED_USAGE);
  });

  it("stream_options without include_usage (include_obfuscation: false) get it added, hidden, and usage recorded", async () => {
    const streamOptions = { include_obfuscation: false };
    const params = { model: MODEL, messages: MESSAGES, stream: true as const, stream_options: streamOptions };
    const chunks = await collect(await client.chat.completions.create(params));
    const plainChunks = await collect(await makeClient(version, ctx.server).chat.completions.create(params));
    expect(ctx.server.chatBodies().map((b) => b.stream_options)).toEqual([
      { include_obfuscation: false, include_usage: true },
      { include_obfuscation: false },
    ]);
    // The caller's object is untouched, and its chunks are the unwrapped ones (ids aside: the stand-in counts).
    expect(streamOptions).toEqual({ include_obfuscation: false });
    expect(chunks.map(({ id: _id, ...chunk }) => chunk)).toEqual(plainChunks.map(({ id: _id, ...chunk }) => chunk));
    const call = await session.only(CREATE);
    expect(call.start.inputs).toEqual(params);
    expect(summaryOf(call).usage).toEqual(EXPECTED_USAGE);
  });

  it("stream_options with include_usage: false are sent as written, and no usage is recorded", async () => {
    const params = {
      model: MODEL,
      messages: MESSAGES,
      stream: true as const,
      stream_options: { include_usage: false },
    };
    await collect(await client.chat.completions.create(params));
    expect(ctx.server.chatBodies().at(-1)!.stream_options).toEqual({ include_usage: false });
    expect(summaryOf(await session.only(CREATE)).usage).toBeUndefined();
  });

  it("with includeStreamUsage: false nothing is injected and no usage is recorded", async () => {
    const bare = wrapOpenAI(makeClient(version, ctx.server), { includeStreamUsage: false });
    await collect(await bare.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true }));
    expect(ctx.server.chatBodies().at(-1)!.stream_options).toBeUndefined();
    const call = await session.only(CREATE);
    expect(summaryOf(call).usage).toBeUndefined();
  });

  it("parse() is one call named openai.chat.completions.parse with the raw completion as output", async () => {
    const parsed = await client.chat.completions.parse({
      model: MODEL,
      messages: MESSAGES,
      response_format: {
        type: "json_schema",
        json_schema: { name: "weather", schema: { type: "object", properties: {} }, strict: false },
      },
    });
    expect(parsed.choices[0]!.message.parsed).toEqual(JSON_ANSWER);
    await session.tracing.flush();
    expect(session.double.callsNamed(CREATE)).toHaveLength(0);
    const call = await session.only("openai.chat.completions.parse");
    const output = call.end!.output as { choices: { message: { content: string } }[] };
    expect(JSON.parse(output.choices[0]!.message.content)).toEqual(JSON_ANSWER);
    expect(summaryOf(call).usage).toEqual(EXPECTED_USAGE);
  });

  it("the stream() helper is one call named openai.chat.completions.stream", async () => {
    const runner = client.chat.completions.stream({ model: MODEL, messages: MESSAGES });
    const deltas: string[] = [];
    runner.on("content", (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe(TEXT);
    expect(deltas.join("")).toBe(TEXT);
    await session.tracing.flush();
    expect(session.double.callsNamed(CREATE)).toHaveLength(0);
    const call = await session.only("openai.chat.completions.stream");
    const output = call.end!.output as { choices: { message: { content: string } }[] };
    expect(output.choices[0]!.message.content).toBe(TEXT);
    expect(summaryOf(call).usage).toEqual(EXPECTED_USAGE);
  });

  it("runTools() records one call per round, named openai.chat.completions.runTools", async () => {
    const tools = TOOLS.map((t) => ({
      type: "function" as const,
      function: {
        ...t.function,
        parse: (text: string) => JSON.parse(text) as object,
        function: (args: object) => JSON.stringify(args),
      },
    }));
    // The SDK types runnable tools with branded helpers; these plain ones are what it accepts at runtime.
    const runner = client.chat.completions.runTools({ model: MODEL, messages: MESSAGES, tools: tools as never });
    expect(await runner.finalContent()).toBe(TEXT);
    await session.tracing.flush();
    const calls = session.double.callsNamed("openai.chat.completions.runTools");
    expect(calls).toHaveLength(2);
    const rounds = calls.map(
      (c) => (c.end!.output as { choices: { finish_reason: string }[] }).choices[0]!.finish_reason,
    );
    expect(rounds).toEqual(["tool_calls", "stop"]);
    expect((calls[1]!.start!.inputs as { messages: unknown[] }).messages).toHaveLength(MESSAGES.length + 3);
  });

  it("nests under the enclosing op and carries withAttributes", async () => {
    const answer = op(async function answer() {
      return client.chat.completions.create({ model: MODEL, messages: MESSAGES });
    });
    await withAttributes({ tenant: "acme" }, () => answer());
    await session.tracing.flush();
    const parent = await session.only("answer");
    const call = await session.only(CREATE);
    expect(call.start.parent_id).toBe(parent.start.id);
    expect(call.start.trace_id).toBe(parent.start.trace_id);
    expect(call.start.attributes).toMatchObject({ tenant: "acme", operation: "chat", model: MODEL });
  });

  it("an API error ends the call with the exception; the SDK's error reaches the caller", async () => {
    const error = await client.chat.completions.create({ model: "m-status-429", messages: MESSAGES }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(version.OpenAI.RateLimitError);
    const call = await session.only(CREATE);
    expect(call.end!.exception).toContain("429");
    expect(call.end!.output).toBeUndefined();
  });

  it("a request the SDK retries (a 429, then an answer) is one call, with the answer", async () => {
    ctx.server.failNext(1, 429, "0");
    const completion = await client.chat.completions.create({ model: MODEL, messages: MESSAGES }, { maxRetries: 1 });
    expect(ctx.server.chatBodies()).toHaveLength(2);
    const call = await session.only(CREATE);
    expect(call.end!.output).toEqual(plain(completion));
    expect(call.end!.exception).toBeUndefined();
  });

  it("parameters only tracewire can serialize (a BigInt): the SDK's own failure reaches the caller, recorded", async () => {
    const params = { model: MODEL, messages: MESSAGES, metadata: { run: 12n } } as unknown as {
      model: string;
      messages: typeof MESSAGES;
    };
    const plainError = await makeClient(version, ctx.server)
      .chat.completions.create(params)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const error = await client.chat.completions.create(params).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe((plainError as Error).message);
    const call = await session.only(CREATE);
    expect(call.start.inputs).toMatchObject({ metadata: { run: expect.stringContaining("12") } });
    expect(call.end!.exception).toContain("BigInt");
    expect(session.logs).toEqual([]);
  });

  it("an error event inside a 200 stream ends the call with the error and keeps what arrived", async () => {
    const stream = await client.chat.completions.create({ model: "m-error-stream", messages: MESSAGES, stream: true });
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const chunk of stream) seen.push(chunk);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(version.OpenAI.APIError);
    expect((error as Error).message).toContain("The engine stopped unexpectedly");
    expect(seen).toHaveLength(2);
    const call = await session.only(CREATE);
    expect(call.end!.exception).toContain("The engine stopped unexpectedly");
    expect((call.end!.output as { choices: unknown[] }).choices).toHaveLength(1);
  });

  it("a stream the caller aborts is ended once, as cancelled, with the partial answer", async () => {
    const stream = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
    const seen: string[] = [];
    for await (const chunk of stream) {
      seen.push(chunk.choices[0]?.delta.content ?? "");
      if (seen.length === 2) stream.controller.abort();
    }
    expect(seen).toEqual(["", "Hello"]);
    const call = await session.only(CREATE);
    expect(call.ends).toBe(1);
    expect(call.end!.exception).toBeUndefined();
    const output = call.end!.output as { choices: { message: { content: string }; finish_reason: null }[] };
    expect(output.choices[0]!.message.content).toBe("Hello");
    expect(output.choices[0]!.finish_reason).toBeNull();
  });

  it("a create the app replaced before wrapping (an async function delegating to the SDK) is recorded in full", async () => {
    const raw = makeClient(version, ctx.server);
    const completions = raw.chat.completions;
    const sdkCreate = completions.create.bind(completions);
    const replaced = async (params: unknown, options?: unknown) =>
      sdkCreate(params as Parameters<typeof sdkCreate>[0], options as Parameters<typeof sdkCreate>[1]);
    (completions as unknown as { create: unknown }).create = replaced;
    const traced = wrapOpenAI(raw);
    const completion = await traced.chat.completions.create({ model: MODEL, messages: MESSAGES });
    const stream = await traced.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true });
    const chunks = await collect(stream as AsyncIterable<{ choices: unknown[] }>);
    // What the app reads is what it reads untraced: no usage chunk without choices it never asked for.
    expect(chunks.every((c) => c.choices.length > 0 && !("usage" in c))).toBe(true);
    await session.tracing.flush();
    const [first, second] = session.double.callsNamed(CREATE);
    expect(first!.end!.output).toEqual(plain(completion));
    expect((second!.end!.output as { choices: { message: unknown }[] }).choices[0]!.message).toEqual({
      role: "assistant",
      content: TEXT,
    });
    expect(summaryOf(second!).usage).toEqual(EXPECTED_USAGE);
    expect(session.logs).toEqual([]);
  });

  it("a create the app replaced with a synchronous one (a test double returning a completion) records it", async () => {
    const raw = makeClient(version, ctx.server);
    const canned = { id: "chatcmpl-double", object: "chat.completion", model: MODEL, choices: [] };
    (raw.chat.completions as unknown as { create: unknown }).create = () => canned;
    const traced = wrapOpenAI(raw);
    expect(traced.chat.completions.create({ model: MODEL, messages: MESSAGES })).toBe(canned);
    const call = await session.only(CREATE);
    expect(call.end!.output).toEqual(canned);
    expect(session.logs).toEqual([]);
  });

  it("an SDK promise of a shape tracewire does not know is never read (asResponse() keeps its body): raw, said once", async () => {
    let reads = 0;
    class UnknownApiPromise extends Promise<unknown> {
      asResponse() {
        return Promise.resolve(new Response("{}"));
      }
      // biome-ignore lint/suspicious/noThenProperty: a Promise subclass that counts who reads it.
      override then<A = unknown, B = never>(
        ok?: ((value: unknown) => A | PromiseLike<A>) | null,
        ko?: ((reason: unknown) => B | PromiseLike<B>) | null,
      ): Promise<A | B> {
        reads++;
        return super.then(ok, ko);
      }
    }
    const raw = makeClient(version, ctx.server);
    (raw.chat.completions as unknown as { create: unknown }).create = () =>
      new UnknownApiPromise((resolve) => resolve({ id: "x" }));
    const traced = wrapOpenAI(raw);
    traced.chat.completions.create({ model: MODEL, messages: MESSAGES });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reads).toBe(0);
    const call = await session.only(CREATE);
    expect(summaryOf(call).tracewire).toEqual({ response_raw: true });
    expect(session.logs.map((l) => l.message)).toEqual([expect.stringContaining("unknown promise type")]);
  });

  it("captureContent: false records no inputs or output, but still usage", async () => {
    await session.restart({ captureContent: false });
    await client.chat.completions.create({ model: MODEL, messages: MESSAGES });
    const call = await session.only(CREATE);
    expect(call.start.inputs).toEqual({});
    expect(call.end!.output).toBeUndefined();
    expect(summaryOf(call).usage).toEqual(EXPECTED_USAGE);
  });

  it("the training service's token ids stay out of the output unless captureTokenIds is set", async () => {
    const params = { model: MODEL, messages: MESSAGES, return_token_ids: true } as unknown as {
      model: string;
      messages: typeof MESSAGES;
    };
    const completion = await client.chat.completions.create(params);
    expect((completion as unknown as { prompt_token_ids: number[] }).prompt_token_ids).toEqual(PROMPT_TOKEN_IDS);
    const call = await session.only(CREATE);
    expect(call.end!.output).not.toHaveProperty("prompt_token_ids");
    expect((call.end!.output as { choices: object[] }).choices[0]).not.toHaveProperty("token_ids");

    const keeping = wrapOpenAI(makeClient(version, ctx.server), { captureTokenIds: true });
    await keeping.chat.completions.create(params);
    await session.tracing.flush();
    const calls = session.double.callsNamed(CREATE);
    expect(calls[1]!.end!.output).toHaveProperty("prompt_token_ids", PROMPT_TOKEN_IDS);
  });
});
