/**
 * wrapOpenAI against OpenAI-compatible servers of every streamed-usage shape: OpenAI's own (a usage-only chunk and
 * `"usage": null` elsewhere), usage on the last content chunk, a usage chunk without `choices`, a late usage chunk,
 * and a server that refuses `stream_options` (older Azure API versions). For each, what the caller reads — chunks,
 * and the raw SSE body through `asResponse()` / `withResponse()` — is byte for byte what an unwrapped client of the
 * same SDK major reads, and the call still records the usage.
 */
import { afterEach, describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { CREATED, MODEL_SUFFIX, TEXT } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { collect, MESSAGES, makeClient, setupOpenAIServer, usageOfOneRequest, VERSIONS } from "./support.js";

const CREATE = "openai.chat.completions.create";
/** Models the stand-in answers with each streamed-usage shape. */
const SHAPES = ["gpt-4o-mini", "m-usage-last", "m-usage-nochoices", "m-usage-late", "m-azure-filters"];

const ctx = setupOpenAIServer();
const session = setupSessionPerTest();
afterEach(() => {
  ctx.server.server.requests.length = 0;
});

/** A body's text, or the class and message of the error reading it. */
const textOrError = (response: Response) =>
  response.text().then(
    (text) => ({ text }),
    (err: Error) => ({ error: `${err.constructor.name}: ${err.message}` }),
  );

const streamParams = (model: string) => ({ model, messages: MESSAGES, stream: true as const });

describe.each(VERSIONS)("$name", (version) => {
  const clients = () => ({
    plain: makeClient(version, ctx.server),
    wrapped: wrapOpenAI(makeClient(version, ctx.server)),
  });

  it.each(SHAPES)(
    "%s: the chunks are the unwrapped ones, every chunk has its choices, and usage is recorded",
    async (model) => {
      const { plain, wrapped } = clients();
      const got = await collect(await wrapped.chat.completions.create(streamParams(model)));
      const expected = await collect(await plain.chat.completions.create(streamParams(model)));
      expect(got).toStrictEqual(expected);
      // Member for member, in the server's order (a chunk is handed on as a copy without the injected usage).
      expect(got.map((c) => Object.keys(c))).toEqual(expected.map((c) => Object.keys(c)));
      // The usual consumer code works on every chunk.
      expect(got.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe(TEXT);
      expect(got.every((c) => !("usage" in c))).toBe(true);
      // The server was asked for the usage; the call has it.
      expect(ctx.server.chatBodies()[0]!.stream_options).toEqual({ include_usage: true });
      const call = await session.only(CREATE);
      expect((call.end!.summary as { usage?: unknown }).usage).toEqual(usageOfOneRequest(`${model}${MODEL_SUFFIX}`));
    },
  );

  it.each(SHAPES)("%s: asResponse() of a stream is byte for byte the unwrapped body", async (model) => {
    const { plain, wrapped } = clients();
    const response = await wrapped.chat.completions.create(streamParams(model)).asResponse();
    const expected = await plain.chat.completions.create(streamParams(model)).asResponse();
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.url).toBe(expected.url);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const [text, expectedText] = await Promise.all([response.text(), expected.text()]);
    expect(text).toBe(expectedText);
    expect(text).not.toContain(`"usage"`);
    const call = await session.only(CREATE);
    expect(call.ends).toBe(1);
  });

  it.each(SHAPES)("%s: withResponse() of a stream: the raw body, or the Stream, as unwrapped", async (model) => {
    const { plain, wrapped } = clients();
    const raw = await wrapped.chat.completions.create(streamParams(model)).withResponse();
    const expectedRaw = await plain.chat.completions.create(streamParams(model)).withResponse();
    // openai 7 starts reading the body for the Stream at once (then the raw body is unusable, as unwrapped).
    expect(await textOrError(raw.response)).toEqual(await textOrError(expectedRaw.response));

    const parsed = await wrapped.chat.completions.create(streamParams(model)).withResponse();
    const expectedParsed = await plain.chat.completions.create(streamParams(model)).withResponse();
    expect(await collect(parsed.data)).toStrictEqual(await collect(expectedParsed.data));
    await session.tracing.flush();
    const calls = session.double.callsNamed(CREATE);
    expect(calls).toHaveLength(2);
    // The call whose Stream was read has the usage.
    expect(calls.some((c) => (c.end?.summary as { usage?: unknown } | undefined)?.usage !== undefined)).toBe(true);
  });

  it("Azure's prompt filter chunk (empty id, created 0) does not stand for the answer's id; filter results are kept", async () => {
    const { wrapped } = clients();
    await collect(await wrapped.chat.completions.create(streamParams("m-azure-filters")));
    const call = await session.only(CREATE);
    expect(call.end!.output).toMatchObject({
      id: "chatcmpl-standin-2",
      created: CREATED,
      object: "chat.completion",
      // Kept, as Azure's non-streamed completion keeps it.
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: { filtered: false } } }],
    });
    // A choice keeps the verdict on its text, as in a non-streamed completion (the finishing chunk's `{}` says nothing).
    expect((call.end!.output as { choices: Record<string, unknown>[] }).choices[0]!.content_filter_results).toEqual({
      hate: { filtered: false, severity: "safe" },
    });
    expect((call.end!.summary as { gen_ai?: unknown }).gen_ai).toMatchObject({ response_id: "chatcmpl-standin-2" });
  });

  it("a server that refuses stream_options: the call behaves as unwrapped, and that base URL is not asked again", async () => {
    // A base URL of this test's own: the refusal is remembered per base URL for the life of the process.
    const baseURL = `${ctx.server.url}/azure-${version.name.replace(/\W/g, "")}/v1`;
    const plain = makeClient(version, ctx.server, { baseURL });
    const wrapped = wrapOpenAI(makeClient(version, ctx.server, { baseURL }));
    const params = streamParams("m-azure-old");
    const got = await collect(await wrapped.chat.completions.create(params));
    const expected = await collect(await plain.chat.completions.create(params));
    expect(got).toStrictEqual(expected);
    const call = await session.only(CREATE);
    expect(call.ends).toBe(1);
    expect(call.end!.exception).toBeUndefined();
    expect((call.end!.output as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(
      TEXT,
    );
    // Refused once, sent as written, then the plain client; the next wrapped request goes as written at once.
    const again = await wrapped.chat.completions.create(params).asResponse();
    expect(await again.text()).toContain("[DONE]");
    expect(ctx.server.chatBodies().map((b) => b.stream_options)).toEqual([
      { include_usage: true },
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("a refusal of stream_options is remembered per API version: another version of the same server still gets usage", async () => {
    const baseURL = `${ctx.server.url}/azure-versions-${version.name.replace(/\W/g, "")}/v1`;
    const client = (apiVersion: string) =>
      wrapOpenAI(
        new version.OpenAI({ apiKey: "sk-test", baseURL, maxRetries: 0, defaultQuery: { "api-version": apiVersion } }),
      );
    const old = client("2024-02-01");
    await collect(await old.chat.completions.create(streamParams("m-azure-old")));
    await collect(await old.chat.completions.create(streamParams("gpt-4o-mini")));
    const current = client("2024-10-21");
    await collect(await current.chat.completions.create(streamParams("gpt-4o-mini")));
    // The old version: refused, sent as written, and as written from then on; the newer one still asks for usage.
    expect(ctx.server.chatBodies().map((b) => b.stream_options)).toEqual([
      { include_usage: true },
      undefined,
      undefined,
      { include_usage: true },
    ]);
    await session.tracing.flush();
    const usage = session.double
      .callsNamed(CREATE)
      .map((c) => (c.end?.summary as { usage?: unknown } | undefined)?.usage !== undefined);
    expect(usage).toEqual([false, false, true]);
  });

  it("a 400 about the caller's own stream_options field does not stop the usage of later streams to that server", async () => {
    const baseURL = `${ctx.server.url}/strict-${version.name.replace(/\W/g, "")}/v1`;
    const wrapped = wrapOpenAI(makeClient(version, ctx.server, { baseURL }));
    const own = { ...streamParams("m-strict-options"), stream_options: { include_obfuscation: false } };
    const err = await wrapped.chat.completions.create(own).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(version.OpenAI.BadRequestError);
    // Sent with the usage added, then as written (refused too): the caller's error, for the request as written.
    expect((err as Error).message).toContain("include_obfuscation");
    await collect(await wrapped.chat.completions.create(streamParams("m-strict-options")));
    expect(ctx.server.chatBodies().map((b) => b.stream_options)).toEqual([
      { include_obfuscation: false, include_usage: true },
      { include_obfuscation: false },
      { include_usage: true },
    ]);
  });

  it("a refused stream_options with the caller's own stream_options is the caller's error, not retried", async () => {
    const { wrapped } = clients();
    const params = { ...streamParams("m-azure-old"), stream_options: { include_usage: true } };
    const err = await wrapped.chat.completions.create(params).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(version.OpenAI.BadRequestError);
    expect(ctx.server.chatBodies()).toHaveLength(1);
    const call = await session.only(CREATE);
    expect(call.end!.exception).toContain("stream_options");
  });

  it("break right after the last finish_reason returns at once: the usage is awaited behind the caller's back", async () => {
    const { wrapped } = clients();
    // The stand-in sends the usage chunk 100 ms after the last finish_reason.
    const stream = await wrapped.chat.completions.create(streamParams("m-usage-late"));
    const sentBefore = ctx.server.lateUsageSent;
    for await (const chunk of stream) if (chunk.choices[0]?.finish_reason) break;
    // The loop is done before the server even sent the usage: tracewire reads on for it after the caller's `break`
    // returned (before: the break waited for the usage chunk, up to 500 ms).
    expect(ctx.server.lateUsageSent).toBe(sentBefore);
    const call = await session.only(CREATE);
    expect(ctx.server.lateUsageSent).toBe(sentBefore + 1);
    expect((call.end!.summary as { usage?: unknown }).usage).toEqual(usageOfOneRequest(`m-usage-late${MODEL_SUFFIX}`));
  });

  it("break right after the last finish_reason inside an op: the usage counts in the op's rolled-up usage", async () => {
    const { wrapped } = clients();
    // OpenAI's shape: the usage chunk follows the last finish_reason at once.
    const answer = op(async function answer() {
      const stream = await wrapped.chat.completions.create(streamParams("gpt-4o-mini"));
      let text = "";
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        if (chunk.choices[0]?.finish_reason) break;
      }
      return text;
    });
    expect(await answer()).toBe(TEXT);
    const parent = await session.only("answer");
    expect((parent.end!.summary as { usage?: unknown }).usage).toEqual(usageOfOneRequest(`gpt-4o-mini${MODEL_SUFFIX}`));
  });

  it("break out of the chat.completions.stream() runner right after the last finish_reason records the usage", async () => {
    const { wrapped } = clients();
    const answer = op(async function answer() {
      const runner = wrapped.chat.completions.stream(streamParams("gpt-4o-mini"));
      for await (const chunk of runner) if (chunk.choices[0]?.finish_reason) break;
    });
    await answer();
    const call = await session.only("openai.chat.completions.stream");
    expect(call.end!.exception).toBeUndefined();
    expect((call.end!.summary as { tracewire?: unknown }).tracewire).toBeUndefined();
    const usage = usageOfOneRequest(`gpt-4o-mini${MODEL_SUFFIX}`);
    expect((call.end!.summary as { usage?: unknown }).usage).toEqual(usage);
    expect(((await session.only("answer")).end!.summary as { usage?: unknown }).usage).toEqual(usage);
  });

  it("break right after the last finish_reason still records the usage that follows", async () => {
    const { wrapped } = clients();
    const stream = await wrapped.chat.completions.create(streamParams("m-usage-late"));
    let text = "";
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.choices[0]?.finish_reason) break;
    }
    expect(text).toBe(TEXT);
    const call = await session.only(CREATE);
    expect((call.end!.summary as { usage?: unknown }).usage).toEqual(usageOfOneRequest(`m-usage-late${MODEL_SUFFIX}`));
    expect(call.end!.exception).toBeUndefined();
  });
});
