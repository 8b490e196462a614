/**
 * The "Tracing Anthropic clients" snippet of docs/anthropic.md, run verbatim against the example's offline stand-in
 * (examples/anthropic/stand-in.mjs) with the real `@anthropic-ai/sdk`, its `new Anthropic()` configured from
 * `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY` as users configure it: a traced Message and a traced
 * `messages.stream()`, each one call with its provider, cache usage and reassembled output; `callOf` finds them from
 * the message, the stream and its final message.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { callOf } from "../../src/index.js";
import { setupSession } from "../support/tracing-session.js";
import { docBlock, runBlock, withEnv } from "./snippets.js";

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
  const written: string[] = [];
  const scope = {
    system: "Be brief.",
    messages: [{ role: "user", content: "Hello?" }],
    tools: [],
    process: { stdout: { write: (text: string) => written.push(text) } },
  };
  const env = { ANTHROPIC_BASE_URL: standIn.url, ANTHROPIC_API_KEY: "sk-ant-readme" };
  const block = docBlock("docs/anthropic.md", "# Tracing Anthropic clients (`tracewire/anthropic`)");
  const { message, stream, final } = await withEnv(env, () => runBlock(block, scope));

  const created = await session.only("anthropic.messages.create");
  const streamed = await session.only("anthropic.messages.stream");
  expect(callOf(message as object)?.id).toBe(created.start.id);
  expect(callOf(stream as object)?.id).toBe(streamed.start.id);
  expect(callOf(final as object)?.id).toBe(streamed.start.id);
  expect(created.start.attributes).toMatchObject({ provider: "anthropic", model: "claude-haiku-4-5" });
  expect(created.start.inputs).toMatchObject({ system: "Be brief.", messages: scope.messages, tools: [] });
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
  expect(written.join("")).not.toBe("");
  expect(streamed.end!.output).toMatchObject({ content: [{ type: "text", text: written.join("") }] });
  await session.tracing.flush();
  expect(session.double.feedback.map((f) => [f.weave_ref, f.payload])).toEqual([
    [`weave:///acme/demo/call/${created.start.id}`, { emoji: "👍" }],
  ]);
});
