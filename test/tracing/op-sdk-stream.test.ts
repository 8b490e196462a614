/**
 * op() around a function that returns an SDK stream (the `openai` package's `Stream`): the stream hands out its
 * iterator through its own `iterator()` factory, which `tee()` calls directly rather than through
 * `Symbol.asyncIterator`. However the caller reads it (`for await`, `tee()`, `toReadableStream()`), the op's call ends
 * with the chunks read, each once.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { makeClient, setupOpenAIServer, VERSIONS } from "../instrument/support.js";
import { TEXT } from "../support/openai-server.js";
import { setupSession } from "../support/tracing-session.js";

const s = setupSession();
const llm = setupOpenAIServer();
const MESSAGES = [{ role: "user" as const, content: "Say hello." }];

type Chunk = { choices: { delta?: { content?: string | null } }[] };

/** The text of streamed chunks. */
const textOf = (chunks: unknown[]) => (chunks as Chunk[]).map((c) => c.choices[0]?.delta?.content ?? "").join("");

/** Reads an async iterable to its end. */
async function readAll(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe.each(VERSIONS.map((v) => [v.name, v] as const))("an openai Stream returned by an op (%s)", (_, v) => {
  /** An op streaming one answer through `client`, named per SDK version and case. */
  const streamingOp = (name: string, client = makeClient(v, llm.server)) =>
    op(async () => client.chat.completions.create({ model: "gpt-4o-mini", messages: MESSAGES, stream: true }), {
      name: `${name} ${v.name}`,
    });

  it("ends when the caller reads it through tee(), with the chunks the tee read", async () => {
    const ask = streamingOp("teeStream");
    const [left, right] = (await ask()).tee();
    const fromLeft = await readAll(left);
    const fromRight = await readAll(right);
    expect(textOf(fromLeft)).toBe(TEXT);
    expect(fromRight).toEqual(fromLeft);
    const call = await s.only(`teeStream ${v.name}`);
    expect(call.ends).toBe(1);
    expect(call.end?.output).toHaveLength(fromLeft.length);
    expect(textOf(call.end?.output as unknown[])).toBe(TEXT);
  });

  it("ends through tee() of a wrapOpenAI client's stream too, and so does the chat call", async () => {
    const ask = streamingOp("teeWrapped", wrapOpenAI(makeClient(v, llm.server)));
    const [left, right] = (await ask()).tee();
    await readAll(left);
    await readAll(right);
    const call = await s.only(`teeWrapped ${v.name}`);
    expect(textOf(call.end?.output as unknown[])).toBe(TEXT);
    const chat = s.double
      .callsNamed("openai.chat.completions.create")
      .filter((c) => c.start?.parent_id === call.start.id);
    expect(chat.map((c) => c.ends)).toEqual([1]);
  });

  it("records each chunk once when read with for await", async () => {
    const ask = streamingOp("forAwaitStream");
    const chunks = await readAll(await ask());
    const call = await s.only(`forAwaitStream ${v.name}`);
    expect(call.end?.output).toHaveLength(chunks.length);
    expect(textOf(call.end?.output as unknown[])).toBe(TEXT);
  });

  it("ends when read through toReadableStream()", async () => {
    const ask = streamingOp("readableStream");
    const lines = (await new Response((await ask()).toReadableStream()).text()).trim().split("\n");
    const call = await s.only(`readableStream ${v.name}`);
    expect(call.end?.output).toHaveLength(lines.length);
  });
});

describe("a Node Readable read through readable.iterator()", () => {
  it("ends with the chunks read, as for await does", async () => {
    const read = op(function readableIterator() {
      return Readable.from(["i1", "i2"]);
    });
    const seen = await readAll(read().iterator());
    expect(seen).toEqual(["i1", "i2"]);
    expect((await s.only("readableIterator")).end?.output).toEqual(["i1", "i2"]);
  });
});
