/**
 * wrapOpenAI spans as an OpenTelemetry backend sees them (`export: "otlp"`, decoded from the wire by the
 * independent protobufjs decoder): GenAI semantic-convention name, kind and attributes; status and `error.type` for
 * failures; cancellations told apart from errors; opt-in content attributes; provider detection.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { withThread } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { gc } from "../support/gc.js";
import { MODEL_SUFFIX, TEXT, TOOL_CALLS, USAGE } from "../support/openai-server.js";
import type { DecodedSpan } from "../support/otlp.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { type Client, collect, MESSAGES, makeClient, setupOpenAIServer, TOOLS, VERSIONS } from "./support.js";

const MODEL = "gpt-4o-mini";
const SPAN_KIND_CLIENT = 3;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;

const ctx = setupOpenAIServer();
const session = setupSessionPerTest({ export: "otlp" });

/** Flushes, then returns every span received, after checking that no span id arrived twice. */
async function spans(): Promise<DecodedSpan[]> {
  await session.tracing.flush();
  const all = session.double.spans;
  expect(new Set(all.map((s) => s.spanId)).size).toBe(all.length);
  return all;
}

async function onlySpan(): Promise<DecodedSpan> {
  const all = await spans();
  expect(all.map((s) => s.name)).toHaveLength(1);
  return all[0]!;
}

const errorOf = (promise: PromiseLike<unknown>) =>
  Promise.resolve(promise).then(
    () => undefined,
    (e: unknown) => e,
  );

describe.each(VERSIONS)("$name", (version) => {
  let client: Client;
  beforeEach(() => {
    client = wrapOpenAI(makeClient(version, ctx.server));
  });

  it("a completion is a GenAI CLIENT span with the GenAI request, response and usage attributes", async () => {
    await client.chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
      temperature: 0.2,
      top_p: 0.9,
      max_completion_tokens: 64,
      seed: 7,
      stop: ["\n\n"],
      frequency_penalty: 0.1,
      presence_penalty: 0.3,
      n: 1,
    });
    const span = await onlySpan();
    // Exported to the tracing service under the op name, which the service makes the call's op_name (as on the
    // calls route); the span itself keeps its GenAI name `chat {model}` for every other span processor.
    expect(span.name).toBe("openai.chat.completions.create");
    expect(span.kind).toBe(SPAN_KIND_CLIENT);
    expect(span.status.code).toBe(STATUS_UNSET);
    const a = span.attributes;
    expect(a).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "openai.api.type": "chat_completions",
      "gen_ai.request.model": MODEL,
      "server.address": "127.0.0.1",
      "server.port": ctx.server.server.port,
      "gen_ai.request.temperature": 0.2,
      "gen_ai.request.top_p": 0.9,
      "gen_ai.request.max_tokens": 64,
      "gen_ai.request.seed": 7,
      "gen_ai.request.stop_sequences": ["\n\n"],
      "gen_ai.request.frequency_penalty": 0.1,
      "gen_ai.request.presence_penalty": 0.3,
      "gen_ai.response.id": "chatcmpl-standin-1",
      "gen_ai.response.model": `${MODEL}${MODEL_SUFFIX}`,
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.usage.input_tokens": USAGE.prompt_tokens,
      "gen_ai.usage.output_tokens": USAGE.completion_tokens,
      "gen_ai.usage.cache_read.input_tokens": USAGE.prompt_tokens_details.cached_tokens,
      "gen_ai.usage.reasoning.output_tokens": USAGE.completion_tokens_details.reasoning_tokens,
      "openai.response.system_fingerprint": "fp_standin",
      "openai.response.service_tier": "default",
    });
    // Not streamed: no stream flag, no time to first chunk; n = 1 is not reported.
    expect(a).not.toHaveProperty("gen_ai.request.stream");
    expect(a).not.toHaveProperty("gen_ai.response.time_to_first_chunk");
    expect(a).not.toHaveProperty("gen_ai.request.choice.count");
    // Content attributes are opt-in; the call's inputs/output travel as input.value/output.value.
    expect(a).not.toHaveProperty("gen_ai.input.messages");
    expect(a).not.toHaveProperty("gen_ai.output.messages");
    expect(JSON.parse(a["input.value"] as string).messages).toEqual(MESSAGES);
    expect(JSON.parse(a["output.value"] as string).choices[0].message.content).toBe(TEXT);
  });

  it("a stream sets gen_ai.request.stream and the time to first chunk, and usage from the injected chunk", async () => {
    await collect(await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true, n: 2 }));
    const a = (await onlySpan()).attributes;
    expect(a["gen_ai.request.stream"]).toBe(true);
    expect(a["gen_ai.request.choice.count"]).toBe(2);
    expect(typeof a["gen_ai.response.time_to_first_chunk"]).toBe("number");
    expect(a["gen_ai.response.time_to_first_chunk"]).toBeGreaterThanOrEqual(0);
    expect(a["gen_ai.response.finish_reasons"]).toEqual(["stop", "stop"]);
    expect(a["gen_ai.usage.input_tokens"]).toBe(USAGE.prompt_tokens);
    expect(a["gen_ai.usage.output_tokens"]).toBe(USAGE.completion_tokens);
  });

  it("API errors end the span with ERROR and error.type; the exception is recorded", async () => {
    await errorOf(client.chat.completions.create({ model: "m-status-429", messages: MESSAGES }));
    await errorOf(client.chat.completions.create({ model: "m-reset", messages: MESSAGES }));
    const slow = wrapOpenAI(makeClient(version, ctx.server, { timeout: 50 }));
    await errorOf(slow.chat.completions.create({ model: "m-hang", messages: MESSAGES }));
    const all = await spans();
    expect(all.map((s) => [s.status.code, s.attributes["error.type"]])).toEqual([
      [STATUS_ERROR, "429"],
      // A connection error names its cause: the socket's error code, read through the error's `cause` chain.
      [STATUS_ERROR, "UND_ERR_SOCKET"],
      [STATUS_ERROR, "APIConnectionTimeoutError"],
    ]);
    expect(all[0]!.status.message).toContain("Stand-in error 429");
    expect(all[0]!.events.map((e) => e.name)).toEqual(["exception"]);
    expect(all.every((s) => s.attributes["tracewire.cancelled"] === undefined)).toBe(true);
  });

  it("an error event inside a 200 stream ends the span with ERROR", async () => {
    const stream = await client.chat.completions.create({ model: "m-error-stream", messages: MESSAGES, stream: true });
    await errorOf(collect(stream));
    const span = await onlySpan();
    expect(span.status.code).toBe(STATUS_ERROR);
    expect(span.attributes["error.type"]).toBe("engine_error");
    expect(span.attributes["tracewire.cancelled"]).toBeUndefined();
  });

  it("aborting through the stream's controller is a cancellation, not an error", async () => {
    const stream = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
    let n = 0;
    for await (const _ of stream) if (++n === 2) stream.controller.abort();
    const span = await onlySpan();
    expect(span.status.code).toBe(STATUS_UNSET);
    expect(span.attributes).toMatchObject({ "tracewire.cancelled": true, "tracewire.cancel.reason": "abort" });
    expect(span.attributes["error.type"]).toBeUndefined();
    expect(span.events).toEqual([]);
  });

  it("aborting a stream nobody reads any more (or never read) ends its span at once", async () => {
    const started = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
    await started[Symbol.asyncIterator]().next();
    started.controller.abort();
    const unread = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
    unread.controller.abort();
    const all = await spans();
    expect(all.map((s) => [s.status.code, s.attributes["tracewire.cancel.reason"]])).toEqual([
      [STATUS_UNSET, "abort"],
      [STATUS_UNSET, "abort"],
    ]);
  });

  it("aborting through an AbortSignal mid-stream is a cancellation", async () => {
    const abort = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "m-slow", messages: MESSAGES, stream: true },
      { signal: abort.signal },
    );
    let n = 0;
    await errorOf(
      (async () => {
        for await (const _ of stream) if (++n === 2) abort.abort();
      })(),
    );
    const span = await onlySpan();
    expect(span.status.code).toBe(STATUS_UNSET);
    expect(span.attributes["tracewire.cancelled"]).toBe(true);
  });

  it("aborting before the response arrives is a cancellation; the caller gets the SDK's abort error", async () => {
    const abort = new AbortController();
    const promise = client.chat.completions.create({ model: "m-hang", messages: MESSAGES }, { signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    abort.abort();
    expect(await errorOf(promise)).toBeInstanceOf(version.OpenAI.APIUserAbortError);
    const span = await onlySpan();
    expect(span.status.code).toBe(STATUS_UNSET);
    expect(span.attributes).toMatchObject({ "tracewire.cancelled": true, "tracewire.cancel.reason": "abort" });
  });

  it("breaking out of the loop is a cancellation (reason break), and the server sees the stream closed", async () => {
    const closedBefore = ctx.server.closedEarly;
    const stream = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
    for await (const _ of stream) break;
    const span = await onlySpan();
    expect(span.status.code).toBe(STATUS_UNSET);
    expect(span.attributes).toMatchObject({ "tracewire.cancelled": true, "tracewire.cancel.reason": "break" });
    await expect.poll(() => ctx.server.closedEarly).toBe(closedBefore + 1);
  });

  it("the iterator the stream hands out works by hand like the SDK's own: next(), return(), its own iterator", async () => {
    const closedBefore = ctx.server.closedEarly;
    const stream = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
    const iterator = stream[Symbol.asyncIterator]();
    expect((iterator as unknown as AsyncIterable<unknown>)[Symbol.asyncIterator]()).toBe(iterator);
    const first = await iterator.next();
    expect(first.done).toBe(false);
    expect(first.value.choices[0]?.delta).toBeDefined();
    expect(await iterator.return!()).toEqual({ done: true, value: undefined });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    const span = await onlySpan();
    expect(span.attributes).toMatchObject({ "tracewire.cancelled": true, "tracewire.cancel.reason": "break" });
    await expect.poll(() => ctx.server.closedEarly).toBe(closedBefore + 1);
  });

  it("the iterator handed out is disposable like the SDK's own (`await using`: Node 24, or a polyfill before it)", async () => {
    // The SDK's iterator is an async generator: it inherits %AsyncIteratorPrototype%[Symbol.asyncDispose] (built in
    // from Node 24; core-js and other polyfills add it before). An object standing in for it must have it too, or
    // `await using it = stream[Symbol.asyncIterator]()` throws a TypeError only when traced.
    const asyncIteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}.prototype)) as {
      [Symbol.asyncDispose]?: unknown;
    };
    const builtIn = Object.hasOwn(asyncIteratorPrototype, Symbol.asyncDispose);
    if (!builtIn) {
      Object.defineProperty(asyncIteratorPrototype, Symbol.asyncDispose, {
        configurable: true,
        writable: true,
        async value(this: AsyncIterator<unknown>) {
          await this.return?.();
        },
      });
    }
    try {
      const closedBefore = ctx.server.closedEarly;
      const stream = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
      const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<unknown> & { [Symbol.asyncDispose]?: unknown };
      expect(typeof iterator[Symbol.asyncDispose]).toBe("function");
      expect((await iterator.next()).done).toBe(false);
      await (iterator[Symbol.asyncDispose] as () => Promise<void>)();
      expect(await iterator.next()).toEqual({ done: true, value: undefined });
      const span = await onlySpan();
      expect(span.attributes).toMatchObject({ "tracewire.cancelled": true, "tracewire.cancel.reason": "break" });
      await expect.poll(() => ctx.server.closedEarly).toBe(closedBefore + 1);
    } finally {
      if (!builtIn) delete asyncIteratorPrototype[Symbol.asyncDispose];
    }
  });

  it("breaking after every choice finished is a complete answer, not a cancellation", async () => {
    const stream = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true });
    for await (const chunk of stream) if (chunk.choices[0]?.finish_reason) break;
    const span = await onlySpan();
    expect(span.attributes["tracewire.cancelled"]).toBeUndefined();
    expect(span.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
  });

  it("asResponse() ends the span at the response, marked raw", async () => {
    const response = await client.chat.completions.create({ model: MODEL, messages: MESSAGES }).asResponse();
    const span = await onlySpan();
    expect(span.attributes["tracewire.response.raw"]).toBe(true);
    expect(span.attributes["gen_ai.response.id"]).toBeUndefined();
    expect(response.bodyUsed).toBe(false);
  });

  it("asResponse() taken only after the response arrived still ends the span, marked raw", async () => {
    const promise = client.chat.completions.create({ model: MODEL, messages: MESSAGES });
    // The SDK's own (untyped) field: once it settles, the response has arrived and nobody has consumed it yet.
    await (promise as unknown as { responsePromise: Promise<unknown> }).responsePromise;
    expect(session.double.spans).toHaveLength(0);
    const response = await promise.asResponse();
    const span = await onlySpan();
    expect(span.attributes["tracewire.response.raw"]).toBe(true);
    expect(response.bodyUsed).toBe(false);
  });

  it("content attributes are opt-in: messages, output messages and tool definitions as semconv JSON", async () => {
    const traced = wrapOpenAI(makeClient(version, ctx.server), { contentAttributes: true });
    const history = [
      ...MESSAGES,
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [{ id: "call_1", type: "function" as const, function: { name: "get_weather", arguments: "{}" } }],
      },
      { role: "tool" as const, tool_call_id: "call_1", content: "sunny" },
    ];
    // A conversation that ends with a tool result (answered in text), then a fresh one (answered with tool calls).
    await collect(
      await traced.chat.completions.create({ model: MODEL, messages: history, tools: TOOLS, stream: true }),
    );
    await collect(
      await traced.chat.completions.create({ model: MODEL, messages: MESSAGES, tools: TOOLS, stream: true }),
    );
    const [first, second] = await spans();
    const a = first!.attributes;
    expect(JSON.parse(a["gen_ai.input.messages"] as string)).toEqual([
      { role: "system", parts: [{ type: "text", content: "Be brief." }] },
      { role: "user", parts: [{ type: "text", content: "Say hello." }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "get_weather", arguments: "{}" }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: "sunny" }] },
    ]);
    expect(JSON.parse(a["gen_ai.output.messages"] as string)).toEqual([
      { role: "assistant", parts: [{ type: "text", content: TEXT }], finish_reason: "stop" },
    ]);
    expect(JSON.parse(second!.attributes["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: TOOL_CALLS.map((t) => ({ type: "tool_call", id: t.id, name: t.name, arguments: t.arguments })),
        finish_reason: "tool_call",
      },
    ]);
    expect(JSON.parse(a["gen_ai.tool.definitions"] as string)).toEqual(
      TOOLS.map((t) => ({ type: "function", ...t.function })),
    );
  });

  it("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true opts in; captureContent: false always wins", async () => {
    const env = { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" };
    await wrapOpenAI(makeClient(version, ctx.server), { env }).chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
    });
    expect((await onlySpan()).attributes["gen_ai.output.messages"]).toBeDefined();

    await session.restart({ export: "otlp", captureContent: false });
    const traced = wrapOpenAI(makeClient(version, ctx.server), { contentAttributes: true });
    await traced.chat.completions.create({ model: MODEL, messages: MESSAGES });
    const a = (await onlySpan()).attributes;
    expect(a["gen_ai.input.messages"]).toBeUndefined();
    expect(a["gen_ai.output.messages"]).toBeUndefined();
    expect(a["input.value"]).toBe("{}");
    expect(a["gen_ai.usage.input_tokens"]).toBe(USAGE.prompt_tokens);
  });

  it("the redact hook applies to content attributes too", async () => {
    await session.restart({
      export: "otlp",
      redact: (payload) =>
        JSON.parse(JSON.stringify(payload).replaceAll("hello", "[name]").replaceAll("Hello", "[name]")),
    });
    const traced = wrapOpenAI(makeClient(version, ctx.server), { contentAttributes: true });
    await traced.chat.completions.create({ model: MODEL, messages: MESSAGES });
    const a = (await onlySpan()).attributes;
    expect(a["gen_ai.input.messages"]).toContain("Say [name].");
    expect(a["gen_ai.output.messages"]).toContain("[name] from the stand-in.");
    expect(JSON.stringify(a)).not.toMatch(/hello/i);
  });

  it("gen_ai.provider.name: our services from their base URL settings, or the providerName option", async () => {
    const env = { TRACEWIRE_INFERENCE_BASE_URL: ctx.server.baseURL };
    await wrapOpenAI(makeClient(version, ctx.server), { env }).chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
    });
    const training = { TRACEWIRE_TRAINING_BASE_URL: ctx.server.url };
    await wrapOpenAI(makeClient(version, ctx.server), { env: training }).chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
    });
    await wrapOpenAI(makeClient(version, ctx.server), { env, providerName: "my.gateway" }).chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
    });
    const all = await spans();
    expect(all.map((s) => s.attributes["gen_ai.provider.name"])).toEqual([
      "tracewire.inference",
      "tracewire.training",
      "my.gateway",
    ]);
  });

  it("inside withThread, the thread is the gen_ai.conversation.id", async () => {
    await withThread("conversation-7", () => client.chat.completions.create({ model: MODEL, messages: MESSAGES }));
    const span = await onlySpan();
    expect(span.attributes["gen_ai.conversation.id"]).toBe("conversation-7");
    expect(span.attributes["wandb.thread_id"]).toBe("conversation-7");
  });

  it("priority and request_id (training engine fields) become attributes", async () => {
    const params = { model: MODEL, messages: MESSAGES, priority: 3, request_id: "job-7-step-2" };
    await client.chat.completions.create(params as { model: string; messages: typeof MESSAGES });
    expect((await onlySpan()).attributes).toMatchObject({
      "tracewire.request.priority": 3,
      "tracewire.request.id": "job-7-step-2",
    });
  });
});

describe("a stream nobody finishes", () => {
  /** Collects garbage until the span arrives (finalizers run after a collection, on a later turn). */
  async function collectUntilEnded(): Promise<DecodedSpan[]> {
    for (let i = 0; i < 50 && session.double.spans.length === 0; i++) {
      gc!();
      await new Promise((resolve) => setImmediate(resolve));
      await session.tracing.flush();
    }
    return session.double.spans;
  }

  it.skipIf(!gc)("is ended as cancelled (abandoned) once it is garbage-collected", async () => {
    const client = wrapOpenAI(makeClient(VERSIONS[0]!, ctx.server));
    await (async () => {
      // Read one chunk by hand, then drop stream and iterator without return().
      const stream = await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
      const iterator = stream[Symbol.asyncIterator]();
      await iterator.next();
    })();
    const [span] = await collectUntilEnded();
    expect(span?.attributes).toMatchObject({ "tracewire.cancelled": true, "tracewire.cancel.reason": "abandoned" });
  });

  it.skipIf(!gc)("a stream never iterated is ended as abandoned too", async () => {
    const client = wrapOpenAI(makeClient(VERSIONS[1]!, ctx.server));
    await (async () => {
      await client.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
    })();
    const [span] = await collectUntilEnded();
    expect(span?.attributes["tracewire.cancel.reason"]).toBe("abandoned");
  });

  it.skipIf(!gc)("a request whose promise is never read is ended as abandoned after its response arrived", async () => {
    const client = wrapOpenAI(makeClient(VERSIONS[0]!, ctx.server));
    const before = ctx.server.chatBodies().length;
    (() => {
      // Neither awaited nor asked for its response: the SDK still sends the request.
      void client.chat.completions.create({ model: "gpt-4o-mini", messages: MESSAGES });
    })();
    const [span] = await collectUntilEnded();
    expect(span?.attributes).toMatchObject({ "tracewire.cancelled": true, "tracewire.cancel.reason": "abandoned" });
    expect(ctx.server.chatBodies().length).toBe(before + 1);
  });
});
