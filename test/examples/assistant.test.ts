/**
 * The examples' agent (examples/openai/assistant.mjs, also `npm run demo`), run as the example runs it — the real
 * `openai` client, wrapped, against the example's own stand-in, traced into the local tracing service — and its
 * stored calls read back: the op returns `{ answer, llmCall: callOf(stream) }`, and what is recorded for `llmCall` is
 * the call's short reference, never the span processor, its options, queues or encoding buffers, nor any key.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { init, type TracewireHandle } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";

// The examples are plain JavaScript: loaded by URL, typed here by what this test uses of them.
type Assistant = (question: string) => Promise<{ answer: string; llmCall: import("../../src/index.js").Call }>;
const { makeAssistant } = (await import(new URL("../../examples/openai/assistant.mjs", import.meta.url).href)) as {
  makeAssistant(client: OpenAI, model: string, write: (text: string) => void): Assistant;
};
const { startStandIn } = (await import(new URL("../../examples/openai/stand-in.mjs", import.meta.url).href)) as {
  startStandIn(): Promise<{ url: string; close(): Promise<void> }>;
};

const project = "demo/agent";
const TRACING_KEY = "tw-local-key-0123456789abcdef";
const OPENAI_KEY = "sk-local-stand-in-0123456789";
let service: DevServer;
let standIn: { url: string; close(): Promise<void> };
let tracing: TracewireHandle;

beforeAll(async () => {
  service = await startDevServer({
    port: 0,
    storage: "memory",
    apiKey: TRACING_KEY,
    logger: { warn() {}, error() {} },
  });
  standIn = await startStandIn();
  tracing = init({ baseUrl: service.url, apiKey: TRACING_KEY, project, env: {}, logger: { warn() {}, error() {} } });
});
afterAll(async () => {
  await tracing.shutdown();
  await standIn.close();
  await service.close();
});

it("records the agent's calls with the LLM call as a reference, and nothing of tracewire's insides", async () => {
  const client = wrapOpenAI(new OpenAI({ apiKey: OPENAI_KEY, baseURL: standIn.url }));
  const assistant = makeAssistant(client, "demo-model", () => {});
  const { answer, llmCall } = await assistant("What's the weather in Lisbon?");
  expect(answer).toContain("Lisbon");
  await llmCall.react("👍");
  await tracing.flush();

  const reader = new TracingClient({ baseUrl: service.url, apiKey: TRACING_KEY, project, env: {} });
  const calls = [];
  for await (const call of reader.calls.streamQuery({ filter: { trace_ids: [llmCall.traceId] } })) calls.push(call);
  await reader.close();
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
