/**
 * The Responses API example's agent (examples/openai/responses-assistant.mjs, run by `npm run
 * example:openai-responses`) as the example runs it — the real `openai` client, wrapped, against the example's own
 * stand-in (its `/responses` endpoint), traced into the local tracing service — and its stored calls read back: a
 * function call, the tool op, then a streamed answer, each Responses request one `openai.responses.create` call.
 */
import OpenAI from "openai";
import { expect, it } from "vitest";
import type { Call } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { loadExample, setupExample } from "./support.js";

type Assistant = (question: string) => Promise<{ answer: string; llmCall: Call }>;
const { makeResponsesAssistant } = await loadExample<{
  makeResponsesAssistant(client: OpenAI, model: string, write: (text: string) => void): Assistant;
}>("openai/responses-assistant.mjs");

const example = setupExample("demo/responses");

it("records a function call, the tool and a streamed answer, the same text the unwrapped client reads", async () => {
  const client = wrapOpenAI(new OpenAI({ apiKey: "sk-local-stand-in", baseURL: example.standIn.url }));
  let written = "";
  const assistant = makeResponsesAssistant(client, "demo-model", (text) => {
    written += text;
  });
  const { answer, llmCall } = await assistant("What's the weather in Lisbon?");
  expect(answer).toBe("Right now: sunny in Lisbon, 21 °C. Enjoy your day!");
  expect(written).toBe(`${answer}\n`);
  // The unwrapped client reads the same answer from the same stand-in.
  const plain = makeResponsesAssistant(
    new OpenAI({ apiKey: "sk-local-stand-in", baseURL: example.standIn.url }),
    "demo-model",
    () => {},
  );
  expect((await plain("What's the weather in Lisbon?")).answer).toBe(answer);
  await example.tracing.flush();

  const calls = await example.trace(llmCall.traceId);
  expect(calls.map((c) => c.op_name).sort()).toEqual(
    ["assistant", "openai.responses.create", "openai.responses.create", "tool.get_weather"].sort(),
  );
  const root = calls.find((c) => c.op_name === "assistant")!;
  const [first, second] = calls
    .filter((c) => c.op_name === "openai.responses.create")
    .sort((a, b) => String(a.started_at).localeCompare(String(b.started_at)));
  for (const call of [first!, second!]) expect(call.parent_id).toBe(root.id);
  expect(second!.id).toBe(llmCall.id);
  expect(first!.attributes).toMatchObject({ operation: "chat", provider: "openai", model: "demo-model" });
  expect(first!.output).toMatchObject({
    id: "resp_local",
    output: [{ type: "function_call", name: "get_weather", arguments: '{"city":"Lisbon"}' }],
  });
  expect(second!.inputs).toMatchObject({
    stream: true,
    instructions: "Answer in one sentence. Use tools when they help.",
  });
  expect(second!.output).toMatchObject({
    status: "completed",
    output: [{ type: "message", content: [{ type: "output_text", text: answer }] }],
  });
  expect(second!.summary?.usage).toBeDefined();
});
