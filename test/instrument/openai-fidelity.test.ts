/**
 * wrapOpenAI changes nothing the caller can observe: every value is compared, deep and strict, with what an
 * unwrapped client of the same SDK major receives from the same loopback server — completions, chunk by chunk
 * streams, `tee()` branches, `toReadableStream()` bytes — and the SDK's own types and helpers keep working
 * (`APIPromise.withResponse()/asResponse()`, `Stream.tee()/toReadableStream()/controller`, private fields,
 * `instanceof`). Tracing is on throughout, so the wrapper really runs.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { TEXT } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { type Client, collect, MESSAGES, makeClient, setupOpenAIServer, TOOLS, VERSIONS } from "./support.js";

const CREATE = "openai.chat.completions.create";
const MODEL = "gpt-4o-mini";

const ctx = setupOpenAIServer();
const session = setupSessionPerTest();

/** Reads a web ReadableStream of bytes to text. */
async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const bytes of stream as unknown as AsyncIterable<Uint8Array>)
    text += decoder.decode(bytes, { stream: true });
  return text + decoder.decode();
}

/** What an error looks like to a caller: its class, message and own fields (headers compared as entries). */
function errorShape(err: unknown) {
  const e = err as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(e)) {
    const value = e[key];
    fields[key] =
      value instanceof Headers ? [...value.entries()].filter(([k]) => k !== "date" && k !== "x-request-id") : value;
  }
  delete fields.requestID;
  return { proto: Object.getPrototypeOf(err), message: (err as Error).message, fields };
}

describe.each(VERSIONS)("$name", (version) => {
  let plain: Client;
  let wrapped: Client;
  beforeEach(() => {
    plain = makeClient(version, ctx.server);
    wrapped = wrapOpenAI(makeClient(version, ctx.server));
  });

  it("a completion is deep-equal to the unwrapped one, and the APIPromise is the SDK's own", async () => {
    const params = { model: MODEL, messages: MESSAGES };
    const promise = wrapped.chat.completions.create(params);
    expect(promise).toBeInstanceOf(version.APIPromise);
    const [got, expected] = await Promise.all([promise, plain.chat.completions.create(params)]);
    expect(got).toStrictEqual(expected);
    expect(got._request_id).toMatch(/^req_standin_/);
    await session.only(CREATE);
  });

  it("withResponse() gives data, the raw Response and the request id", async () => {
    const params = { model: MODEL, messages: MESSAGES, tools: TOOLS };
    const { data, response, request_id } = await wrapped.chat.completions.create(params).withResponse();
    const expected = await plain.chat.completions.create(params).withResponse();
    expect(data).toStrictEqual(expected.data);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(request_id).toMatch(/^req_standin_/);
    const call = await session.only(CREATE);
    expect(call.end!.output).toEqual(JSON.parse(JSON.stringify(data)));
  });

  it("asResponse() gives the unread raw Response; the call ends without reading the body", async () => {
    const params = { model: MODEL, messages: MESSAGES };
    const response = await wrapped.chat.completions.create(params).asResponse();
    expect(response).toBeInstanceOf(Response);
    expect(response.bodyUsed).toBe(false);
    const body = await response.json();
    expect(body).toStrictEqual(
      await plain.chat.completions
        .create(params)
        .asResponse()
        .then((r) => r.json()),
    );
    const call = await session.only(CREATE);
    expect(call.ends).toBe(1);
    expect(call.end!.output).toBeUndefined();
    expect(call.end!.exception).toBeUndefined();
  });

  it("asResponse() of a stream gives the raw SSE body, untouched", async () => {
    const params = { model: MODEL, messages: MESSAGES, stream: true as const };
    const response = await wrapped.chat.completions.create(params).asResponse();
    const text = await response.text();
    expect(text).toContain("data: [DONE]");
    const call = await session.only(CREATE);
    expect(call.ends).toBe(1);
  });

  it("a stream is the SDK's Stream and yields exactly the unwrapped chunks, one by one", async () => {
    for (const extra of [{}, { tools: TOOLS }, { n: 2 }, { stream_options: { include_usage: true } }]) {
      const params = { model: MODEL, messages: MESSAGES, stream: true as const, ...extra };
      const stream = await wrapped.chat.completions.create(params);
      expect(stream).toBeInstanceOf(version.Stream);
      expect(stream.controller).toBeInstanceOf(AbortController);
      const got = await collect(stream);
      const expected = await collect(await plain.chat.completions.create(params));
      expect(got.length).toBe(expected.length);
      for (let i = 0; i < got.length; i++)
        expect(got[i], `chunk ${i} of ${JSON.stringify(extra)}`).toStrictEqual(expected[i]);
    }
    await session.tracing.flush();
    expect(session.double.callsNamed(CREATE)).toHaveLength(4);
  });

  it("tee() gives two Streams with the unwrapped chunks; the call ends once, with the whole answer", async () => {
    const params = { model: MODEL, messages: MESSAGES, stream: true as const };
    const [left, right] = (await wrapped.chat.completions.create(params)).tee();
    expect(left).toBeInstanceOf(version.Stream);
    const [a, b] = await Promise.all([collect(left), collect(right)]);
    const expected = await collect(await plain.chat.completions.create(params));
    expect(a).toStrictEqual(expected);
    expect(b).toStrictEqual(expected);
    const call = await session.only(CREATE);
    expect(call.ends).toBe(1);
    expect((call.end!.output as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(
      TEXT,
    );
  });

  it("toReadableStream() gives byte-for-byte the unwrapped bytes, and the call ends", async () => {
    const params = { model: MODEL, messages: MESSAGES, stream: true as const, tools: TOOLS };
    const got = await readText((await wrapped.chat.completions.create(params)).toReadableStream());
    const expected = await readText((await plain.chat.completions.create(params)).toReadableStream());
    expect(got).toBe(expected);
    const call = await session.only(CREATE);
    expect(call.ends).toBe(1);
  });

  it("cancelling toReadableStream() ends the call as cancelled", async () => {
    const stream = await wrapped.chat.completions.create({ model: "m-slow", messages: MESSAGES, stream: true });
    const reader = stream.toReadableStream().getReader();
    await reader.read();
    await reader.cancel();
    const call = await session.only(CREATE);
    expect(call.ends).toBe(1);
    expect(call.end!.exception).toBeUndefined();
  });

  it("the APIPromise and the Stream keep their own keys, in order, with their attributes", async () => {
    /** Own keys with their attributes (not their values, which hold the request's own objects). */
    const shape = (target: object) =>
      Reflect.ownKeys(target).map((key) => {
        const d = Object.getOwnPropertyDescriptor(target, key)!;
        return [String(key), d.enumerable, d.configurable, "value" in d ? d.writable : "accessor"];
      });
    const enumerable = (target: object) => shape(target).filter(([, isEnumerable]) => isEnumerable);
    const params = { model: MODEL, messages: MESSAGES };
    const promise = wrapped.chat.completions.create(params);
    const reference = plain.chat.completions.create(params);
    // Observing the promise redefines its `responsePromise` and `parseResponse` fields in place (never by assignment:
    // see replaceOwn) and shadows methods with non-enumerable own properties.
    expect(enumerable(promise)).toEqual(enumerable(reference));
    expect(shape(promise).filter(([key]) => shape(reference).some(([k]) => k === key))).toEqual(shape(reference));
    await Promise.all([promise, reference]);
    const stream = await wrapped.chat.completions.create({ ...params, stream: true });
    const plainStream = await plain.chat.completions.create({ ...params, stream: true });
    expect(enumerable(stream)).toEqual(enumerable(plainStream));
    await Promise.all([collect(stream), collect(plainStream)]);
  });

  it("the client keeps its class, private fields, other endpoints and own keys", async () => {
    const reference = makeClient(version, ctx.server);
    expect(wrapped).toBeInstanceOf(version.OpenAI);
    expect(wrapped.chat.completions).toBeInstanceOf(reference.chat.completions.constructor);
    expect(Object.keys(wrapped.chat.completions)).toEqual(Object.keys(reference.chat.completions));
    expect(Object.keys(wrapped)).toEqual(Object.keys(reference));
    // buildURL reads a native #private method of the client.
    expect(wrapped.buildURL("/chat/completions", null)).toBe(reference.buildURL("/chat/completions", null));
    // Other endpoints pass through untouched and untraced (a PagePromise keeps its own helpers).
    const page = await wrapped.models.list();
    expect(page.data.map((m) => m.id)).toEqual(["gpt-4o-mini"]);
    await session.tracing.flush();
    expect(session.double.calls.size).toBe(0);
    // Only create is shadowed; retrieve, update, … are the prototype's.
    expect(Object.getOwnPropertyNames(wrapped.chat.completions)).toContain("create");
    expect(Object.hasOwn(wrapped.chat.completions, "retrieve")).toBe(false);
  });

  it("wrapping twice is a no-op: the same client, one call per request", async () => {
    expect(wrapOpenAI(wrapped)).toBe(wrapped);
    const create = wrapped.chat.completions.create;
    wrapOpenAI(wrapped, { includeStreamUsage: false });
    expect(wrapped.chat.completions.create).toBe(create);
    await wrapped.chat.completions.create({ model: MODEL, messages: MESSAGES });
    await session.only(CREATE);
  });

  it("withOptions() returns a client that is traced too", async () => {
    const derived = wrapped.withOptions({ timeout: 5000 });
    expect(derived).toBeInstanceOf(version.OpenAI);
    expect(derived).not.toBe(wrapped);
    await derived.chat.completions.create({ model: MODEL, messages: MESSAGES });
    await session.only(CREATE);
  });

  it("API errors reach the caller as the SDK's own error object, unchanged", async () => {
    for (const model of ["m-status-400", "m-status-429", "m-status-500"]) {
      const params = { model, messages: MESSAGES };
      const promise = wrapped.chat.completions.create(params);
      const viaThen = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      // The same object on every path: nothing re-wraps or copies it.
      const viaRaw = await promise.asResponse().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(viaRaw).toBe(viaThen);
      const expected = await plain.chat.completions.create(params).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(errorShape(viaThen)).toEqual(errorShape(expected));
    }
  });

  it("an in-stream error reaches the caller after the same chunks, as the same kind of error", async () => {
    const params = { model: "m-error-stream", messages: MESSAGES, stream: true as const };
    const run = async (client: Client) => {
      const seen: unknown[] = [];
      try {
        for await (const chunk of await client.chat.completions.create(params)) seen.push(chunk);
      } catch (err) {
        return { seen, err };
      }
      return { seen, err: undefined };
    };
    const got = await run(wrapped);
    const expected = await run(plain);
    expect(got.seen).toStrictEqual(expected.seen);
    expect(errorShape(got.err)).toEqual(errorShape(expected.err));
  });

  it("connection errors and timeouts reach the caller as the SDK's errors", async () => {
    const reset = await wrapped.chat.completions.create({ model: "m-reset", messages: MESSAGES }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(reset).toBeInstanceOf(version.OpenAI.APIConnectionError);
    const slow = wrapOpenAI(makeClient(version, ctx.server, { timeout: 50 }));
    const timeout = await slow.chat.completions.create({ model: "m-hang", messages: MESSAGES }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(timeout).toBeInstanceOf(version.OpenAI.APIConnectionTimeoutError);
    await session.tracing.flush();
    const calls = session.double.callsNamed(CREATE);
    expect(calls.map((c) => c.ends)).toEqual([1, 1]);
    expect(calls.every((c) => typeof c.end!.exception === "string")).toBe(true);
  });
});
