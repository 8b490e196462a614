/**
 * `@langchain/openai`'s `ChatOpenAI` (Node ≥ 22: it needs openai 7) against the loopback stand-in, traced by
 * tracewire's handler while its client is also wrapped with `wrapOpenAI`: each request is one call, ChatOpenAI's, a
 * GenAI chat call with the messages, the answer, and usage from its `usage_metadata` (cached and reasoning tokens)
 * keyed by the model that answered; streamed, with the time to first token and the usage of the stream's last chunk.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { MODEL_SUFFIX, OpenAIServer, TEXT, USAGE } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { one, recorded, summaryOf } from "./support.js";

const HAS_NODE22 = Number(process.versions.node.split(".")[0]) >= 22;
const session = setupSessionPerTest();
const RESPONSE_MODEL = `gpt-4o-mini${MODEL_SUFFIX}`;

describe.skipIf(!HAS_NODE22)("@langchain/openai ChatOpenAI through a wrapped client", () => {
  let server: OpenAIServer;
  let ChatOpenAI: typeof import("@langchain/openai").ChatOpenAI;
  let OpenAI: typeof import("openai7").default;
  beforeAll(async () => {
    server = await OpenAIServer.start();
    ({ ChatOpenAI } = await import("@langchain/openai"));
    OpenAI = (await import("openai7")).default;
  });
  afterAll(async () => {
    await server?.close();
  });

  function chatModel(streaming = false) {
    const chat = new ChatOpenAI({
      model: "gpt-4o-mini",
      apiKey: "sk-test",
      configuration: { baseURL: server.baseURL },
      maxRetries: 0,
      streaming,
    });
    // The app's own client, wrapped: ChatOpenAI sends its requests through it.
    (chat as unknown as { completions: { client: unknown } }).completions.client = wrapOpenAI(
      new OpenAI({ apiKey: "sk-test", baseURL: server.baseURL, maxRetries: 0 }),
    );
    return chat;
  }

  const usage = {
    [RESPONSE_MODEL]: {
      prompt_tokens: USAGE.prompt_tokens,
      completion_tokens: USAGE.completion_tokens,
      total_tokens: USAGE.total_tokens,
      requests: 1,
      cache_read_input_tokens: USAGE.prompt_tokens_details.cached_tokens,
      reasoning_tokens: USAGE.completion_tokens_details.reasoning_tokens,
    },
  };

  it("invoke: one ChatOpenAI call with the messages, the answer and usage", async () => {
    const answer = await chatModel().invoke([{ role: "user", content: "Hello?" }], {
      callbacks: [new TracewireCallbackHandler()],
    });
    expect(answer.content).toBe(TEXT);
    const calls = await recorded(session);
    expect(calls.map((c) => c.start.op_name)).toEqual(["ChatOpenAI"]);
    const chat = one(calls, "ChatOpenAI");
    expect(chat.start.attributes).toMatchObject({
      kind: "llm",
      operation: "chat",
      provider: "openai",
      model: "gpt-4o-mini",
    });
    expect(chat.start.inputs).toMatchObject({ messages: [{ role: "user", content: "Hello?" }] });
    expect(chat.end.output).toMatchObject([{ role: "assistant", content: TEXT, finish_reason: "stop" }]);
    expect(summaryOf(chat).usage).toEqual(usage);
    expect(server.chatBodies()).toHaveLength(1);
    server.server.requests.length = 0;
  });

  it("streamed: one call, time to first token, usage of the last chunk", async () => {
    let text = "";
    const stream = await chatModel(true).stream("Hello?", { callbacks: [new TracewireCallbackHandler()] });
    for await (const chunk of stream) text += String(chunk.content);
    expect(text).toBe(TEXT);
    const calls = await recorded(session);
    expect(calls.map((c) => c.start.op_name)).toEqual(["ChatOpenAI"]);
    const chat = one(calls, "ChatOpenAI");
    expect((summaryOf(chat).gen_ai as { time_to_first_chunk: number }).time_to_first_chunk).toBeGreaterThan(0);
    expect(summaryOf(chat).usage).toEqual(usage);
    server.server.requests.length = 0;
  });
});
