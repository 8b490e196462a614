/**
 * The examples' agent (examples/openai/assistant.mjs, also `npm run demo`), run as the example runs it — the real
 * `openai` client, wrapped, against the example's own stand-in, traced into the local tracing service — and its
 * stored calls read back: the op returns `{ answer, llmCall: callOf(stream) }`, and what is recorded for `llmCall` is
 * the call's short reference, never the span processor, its options, queues or encoding buffers, nor any key.
 */
import OpenAI from "openai";
import { expect, it } from "vitest";
import type { Call } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { loadExample, setupExample, TRACING_KEY } from "./support.js";

type Assistant = (question: string) => Promise<{ answer: string; llmCall: Call }>;
const { makeAssistant } = await loadExample<{
  makeAssistant(client: OpenAI, model: string, write: (text: string) => void): Assistant;
}>("openai/assistant.mjs");

const OPENAI_KEY = "sk-local-stand-in-0123456789";
const example = setupExample("demo/agent");

it("records the agent's calls with the LLM call as a reference, and nothing of tracewire's insides", async () => {
  const client = wrapOpenAI(new OpenAI({ apiKey: OPENAI_KEY, baseURL: example.standIn.url }));
  const assistant = makeAssistant(client, "demo-model", () => {});
  const { answer, llmCall } = await assistant("What's the weather in Lisbon?");
  expect(answer).toContain("Lisbon");
  await llmCall.react("👍");
  await example.tracing.flush();

  const calls = await example.trace(llmCall.traceId);
  expect(calls.map((c) => c.op_name).sort()).toEqual(
    ["assistant", "openai.chat.completions.create", "openai.chat.completions.create", "tool.get_weather"].sort(),
  );

  const root = calls.find((c) => c.op_name === "assistant")!;
  expect(root.output).toEqual({
    answer,
    llmCall: { _type: "Call", id: llmCall.id, trace_id: llmCall.traceId, ref: llmCall.ref },
  });
  const stored = JSON.stringify(calls);
  for (const inside of ["exitFlushMillis", "maxQueueSize", "base64", "_spanProcessor", TRACING_KEY, OPENAI_KEY]) {
    expect(stored).not.toContain(inside);
  }
});
