/**
 * The README's "Tracing Anthropic clients" snippet, run as written against the example's offline stand-in
 * (examples/anthropic/stand-in.mjs) with the real `@anthropic-ai/sdk`: a traced Message and a traced
 * `messages.stream()`, each one call with its provider, cache usage and reassembled output; `callOf` finds them.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, expect, it } from "vitest";
import { callOf } from "../../src/index.js";
import { wrapAnthropic } from "../../src/instrument/anthropic-entry.js";
import { setupSession } from "../support/tracing-session.js";

const { startStandIn } = (await import(new URL("../../examples/anthropic/stand-in.mjs", import.meta.url).href)) as {
  startStandIn(): Promise<{ url: string; close(): Promise<void> }>;
};

let standIn: { url: string; close(): Promise<void> };
beforeAll(async () => {
  standIn = await startStandIn();
});
afterAll(() => standIn.close());
const session = setupSession();

it("the snippet traces a Message and a messages.stream() as one call each", async () => {
  const system = "Be brief.";
  const messages = [{ role: "user" as const, content: "Hello?" }];
  const tools: Anthropic.Tool[] = [];
  const client = wrapAnthropic(new Anthropic({ apiKey: "sk-ant-readme", baseURL: standIn.url, maxRetries: 0 }));

  const message = await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 512, system, messages, tools });
  const stream = client.messages.stream({ model: "claude-haiku-4-5", max_tokens: 512, messages });
  const texts: string[] = [];
  stream.on("text", (text) => texts.push(text));
  const final = await stream.finalMessage();
  await callOf(message)?.react("👍");

  const created = await session.only("anthropic.messages.create");
  const streamed = await session.only("anthropic.messages.stream");
  expect(callOf(message)?.id).toBe(created.start.id);
  expect(callOf(stream)?.id).toBe(streamed.start.id);
  expect(callOf(final)?.id).toBe(streamed.start.id);
  expect(created.start.attributes).toMatchObject({ provider: "anthropic", model: "claude-haiku-4-5" });
  expect(created.end!.summary).toMatchObject({
    usage: {
      "claude-haiku-4-5-local": {
        prompt_tokens: 150,
        completion_tokens: 14,
        cache_read_input_tokens: 120,
        cache_creation_input_tokens: 0,
      },
    },
    gen_ai: { finish_reasons: ["end_turn"] },
  });
  expect(streamed.end!.output).toMatchObject({ content: [{ type: "text", text: texts.join("") }] });
  await session.tracing.flush();
  expect(session.double.feedback.map((f) => f.payload)).toEqual([{ emoji: "👍" }]);
});
