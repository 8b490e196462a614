/**
 * The Responses API example's agent (examples/openai/responses-assistant.mjs, run by `npm run
 * example:openai-responses`) as the example runs it — the real `openai` client, wrapped, against the example's own
 * stand-in (its `/responses` endpoint), traced into the local tracing service — and its stored calls read back: a
 * function call, the tool op, then a streamed answer, each Responses request one `openai.responses.create` call.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { type Call, init, type TracewireHandle } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";

// The examples are plain JavaScript: loaded by URL, typed here by what this test uses of them.
type Assistant = (question: string) => Promise<{ answer: string; llmCall: Call }>;
const { makeResponsesAssistant } = (await import(
  new URL("../../examples/openai/responses-assistant.mjs", import.meta.url).href
)) as { makeResponsesAssistant(client: OpenAI, model: string, write: (text: string) => void): Assistant };
const { startStandIn } = (await import(new URL("../../examples/openai/stand-in.mjs", import.meta.url).href)) as {
  startStandIn(): Promise<{ url: string; close(): Promise<void> }>;
};

const project = "demo/responses";
const TRACING_KEY = "tw-local-key-0123456789abcdef";
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

it("records a function call, the tool and a streamed answer, the same text the unwrapped client reads", async () => {
  const client = wrapOpenAI(new OpenAI({ apiKey: "sk-local-stand-in", baseURL: standIn.url }));
  let written = "";
  const assistant = makeResponsesAssistant(client, "demo-model", (text) => {
    written += text;
  });
  const { answer, llmCall } = await assistant("What's the weather in Lisbon?");
  expect(answer).toBe("Right now: sunny in Lisbon, 21 °C. Enjoy your day!");
  expect(written).toBe(`${answer}\n`);
  // The unwrapped client reads the same answer from the same stand-in.
  const plain = makeResponsesAssistant(
    new OpenAI({ apiKey: "sk-local-stand-in", baseURL: standIn.url }),
    "demo-model",
    () => {},
  );
  expect((await plain("What's the weather in Lisbon?")).answer).toBe(answer);
  await tracing.flush();

  const reader = new TracingClient({ baseUrl: service.url, apiKey: TRACING_KEY, project, env: {} });
  const calls = [];
  for await (const call of reader.calls.streamQuery({ filter: { trace_ids: [llmCall.traceId] } })) calls.push(call);
  await reader.close();
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
