import type { ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { InferenceClient } from "../../src/api/inference/client.js";
import type { ChatCompletion, ChatCompletionChunk } from "../../src/api/types/chat.js";
import {
  ConfigError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  QuotaExceededError,
  RateLimitError,
  TracewireError,
  UnprocessableEntityError,
  ValidationError,
} from "../../src/errors.js";
import { type RecordedRequest, type Reply, resetMidResponse, sseReply, TestServer } from "../support/server.js";

let server: TestServer;
let client: InferenceClient;
const KEY = "tw-inference-key-0001";

function makeClient(options: ConstructorParameters<typeof InferenceClient>[0] = {}): InferenceClient {
  return new InferenceClient({
    baseUrl: `${server.url}/v1`,
    apiKey: KEY,
    env: {},
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
}

beforeAll(async () => {
  server = await TestServer.start();
  client = makeClient({ project: "acme/demo" });
});
afterEach(() => server.reset());
afterAll(async () => {
  await client.close();
  await server.close();
});

/** The headers every inference request must carry. */
function expectStandardHeaders(req: RecordedRequest, project: string | undefined): void {
  expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(req.headers["user-agent"]).toMatch(/^tracewire\/\d+\.\d+\.\d+ /);
  expect(req.headers["openai-project"]).toBe(project);
}

const messages = [
  { role: "system" as const, content: "Be brief." },
  { role: "user" as const, content: "Weather in Paris?" },
];

const completion: ChatCompletion = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1767607200,
  model: "meta-llama/Llama-3.1-8B-Instruct",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Sunny.", reasoning_content: null },
      finish_reason: "stop",
      logprobs: null,
      stop_reason: null,
    },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14, prompt_tokens_details: { cached_tokens: 8 } },
};

function chunk(choices: ChatCompletionChunk["choices"], extra: Partial<ChatCompletionChunk> = {}): ChatCompletionChunk {
  return { id: "chatcmpl-2", object: "chat.completion.chunk", created: 1767607200, model: "m", choices, ...extra };
}

/** An SSE body that never ends on its own; `closed` resolves when the client drops the connection. */
function endlessStream(): { reply: Reply; closed: Promise<void> } {
  let onClose: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    onClose = resolve;
  });
  const reply: Reply = (_req, res: ServerResponse) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    let i = 0;
    const timer = setInterval(() => {
      res.write(
        `data: ${JSON.stringify(chunk([{ index: 0, delta: { content: `t${i++}` }, finish_reason: null }]))}\n\n`,
      );
    }, 5);
    res.on("close", () => {
      clearInterval(timer);
      onClose();
    });
  };
  return { reply, closed };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms),
    ),
  ]);
}

describe("InferenceClient.chat.completions.create", () => {
  it("sends the request as given with auth, project and JSON headers, and returns the completion", async () => {
    server.on("POST", "/v1/chat/completions", { json: completion });
    const tools = [{ type: "function" as const, function: { name: "weather", parameters: { type: "object" } } }];
    const res = await client.chat.completions.create({
      model: "meta-llama/Llama-3.1-8B-Instruct",
      messages,
      temperature: 0.2,
      max_completion_tokens: 50,
      tools,
    });
    expect(res).toEqual(completion);
    expect(res.choices[0]?.stop_reason).toBeNull();
    const req = server.only();
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/chat/completions");
    expect([...req.query]).toEqual([]);
    expectStandardHeaders(req, "acme/demo");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.json).toEqual({
      model: "meta-llama/Llama-3.1-8B-Instruct",
      messages,
      temperature: 0.2,
      max_completion_tokens: 50,
      tools,
    });
  });

  it("streams chunks in order (tool-call deltas and the usage chunk included) and ends at [DONE]", async () => {
    const chunks = [
      chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null, logprobs: null }]),
      chunk([{ index: 0, delta: { content: "Let me check" }, finish_reason: null }]),
      chunk([
        {
          index: 0,
          delta: {
            tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "weather", arguments: "" } }],
          },
          finish_reason: null,
        },
      ]),
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] },
          finish_reason: null,
        },
      ]),
      chunk([{ index: 0, delta: {}, finish_reason: "tool_calls", stop_reason: null }]),
      chunk([], {
        usage: {
          prompt_tokens: 9,
          completion_tokens: 7,
          total_tokens: 16,
          prompt_tokens_details: { cached_tokens: 4 },
          completion_tokens_details: { reasoning_tokens: 3 },
        },
      }),
    ];
    // Everything after [DONE] must be ignored.
    server.on(
      "POST",
      "/v1/chat/completions",
      sseReply([...chunks, { raw: "data: [DONE]\n\n" }, chunk([])], { done: false }),
    );
    const stream = await client.chat.completions.create({
      model: "m",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers["content-type"]).toBe("text/event-stream");
    const seen: ChatCompletionChunk[] = [];
    for await (const c of stream) seen.push(c);
    expect(seen).toEqual(chunks);
    expect(seen.at(-1)?.usage?.completion_tokens_details?.reasoning_tokens).toBe(3);

    const req = server.only();
    expectStandardHeaders(req, "acme/demo");
    expect(req.headers.accept).toBe("text/event-stream");
    expect(req.json).toEqual({ model: "m", messages, stream: true, stream_options: { include_usage: true } });
    // A stream is read off the socket once.
    expect(() => stream[Symbol.asyncIterator]()).toThrow(TracewireError);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/already iterated/);
  });

  it("throws the engine's in-stream error event (after HTTP 200) as a typed error with its message", async () => {
    const first = chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
    server.on(
      "POST",
      "/v1/chat/completions",
      sseReply([
        first,
        { error: { message: "CUDA out of memory on the engine", type: "InternalServerError", param: null, code: 500 } },
      ]),
    );
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true });
    const seen: unknown[] = [];
    const err = await (async () => {
      for await (const c of stream) seen.push(c);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([first]);
    expect(err).toBeInstanceOf(InternalServerError);
    expect((err as InternalServerError).status).toBe(500);
    expect((err as Error).message).toContain("CUDA out of memory on the engine");
    expect(server.requests).toHaveLength(1);
  });

  it("breaking out of the loop closes the connection, and the client keeps working", async () => {
    const { reply, closed } = endlessStream();
    server.on("POST", "/v1/chat/completions", reply);
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true });
    const seen: string[] = [];
    for await (const c of stream) {
      seen.push(String(c.choices[0]?.delta.content));
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(["t0", "t1", "t2"]);
    await within(closed, 2000, "the server seeing the connection close");

    server.on("GET", "/v1/models", { json: { object: "list", data: [] } });
    await expect(client.models.list()).resolves.toEqual({ object: "list", data: [] });
  });

  it("controller.abort() ends the loop without an error and closes the connection", async () => {
    const { reply, closed } = endlessStream();
    server.on("POST", "/v1/chat/completions", reply);
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true });
    let count = 0;
    for await (const _ of stream) {
      count++;
      // No break: the loop must end by itself, and no chunk may arrive after the abort.
      if (count === 2) stream.controller.abort();
    }
    expect(count).toBe(2);
    expect(stream.controller.signal.aborted).toBe(true);
    await within(closed, 2000, "the server seeing the connection close");
  });

  it("an abort while waiting for the next chunk (via the call's signal) also ends the loop quietly", async () => {
    let onClose: () => void = () => {};
    const closed = new Promise<void>((resolve) => {
      onClose = resolve;
    });
    server.on("POST", "/v1/chat/completions", (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify(chunk([{ index: 0, delta: { content: "a" }, finish_reason: null }]))}\n\n`);
      res.on("close", () => onClose());
    });
    const external = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "m", messages, stream: true },
      { signal: external.signal },
    );
    setTimeout(() => external.abort(), 30);
    const seen: unknown[] = [];
    for await (const c of stream) seen.push(c);
    expect(seen).toHaveLength(1);
    expect(stream.controller.signal.aborted).toBe(true);
    await within(closed, 2000, "the server seeing the connection close");
  });

  it("rejects a request without model or messages before sending anything", () => {
    // @ts-expect-error model is required
    expect(() => client.chat.completions.create({ messages })).toThrow(ValidationError);
    // @ts-expect-error messages is required
    expect(() => client.chat.completions.create({ model: "m" })).toThrow(/messages must be an array/);
    expect(server.requests).toHaveLength(0);
  });
});

describe("InferenceClient errors and retries", () => {
  const cases = [
    [
      402,
      { error: { message: "You exceeded your current quota, please check your plan and billing details" } },
      QuotaExceededError,
      "You exceeded your current quota",
    ],
    [
      404,
      { error: { message: "The requested resource was not found", code: "model_not_found" } },
      NotFoundError,
      "The requested resource was not found",
    ],
    [
      422,
      {
        detail: [
          { loc: ["body", "temperature"], msg: "Input should be less than or equal to 2", type: "less_than_equal" },
        ],
      },
      UnprocessableEntityError,
      "body.temperature: Input should be less than or equal to 2",
    ],
  ] as const;

  for (const [status, body, ErrorClass, text] of cases) {
    it(`${status} surfaces as ${ErrorClass.name} with the server's message, not retried`, async () => {
      server.on("POST", "/v1/chat/completions", { status, json: body });
      const err = await client.chat.completions.create({ model: "nope", messages }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ErrorClass);
      expect((err as InternalServerError).status).toBe(status);
      expect((err as Error).message).toContain(text);
      expect((err as InternalServerError).body).toEqual(body);
      expect(server.requests).toHaveLength(1);
    });
  }

  it("422 exposes the validation detail list", async () => {
    server.on("POST", "/v1/chat/completions", { status: 422, json: cases[2][1] });
    const err = (await client.chat.completions
      .create({ model: "m", messages })
      .catch((e: unknown) => e)) as UnprocessableEntityError;
    expect(err.detail).toEqual([
      { loc: ["body", "temperature"], msg: "Input should be less than or equal to 2", type: "less_than_equal" },
    ]);
  });

  it("429 (concurrency limit, no rate headers) and 503 (overloaded) are retried with backoff", async () => {
    server.on(
      "POST",
      "/v1/chat/completions",
      { status: 429, json: { error: { message: "Concurrency limit reached for requests" } } },
      { status: 503, json: { error: { message: "The engine is currently overloaded, please try again later" } } },
      { json: completion },
    );
    await expect(client.chat.completions.create({ model: "m", messages })).resolves.toEqual(completion);
    expect(server.received("POST", "/v1/chat/completions")).toHaveLength(3);
  });

  it("429 that persists gives up after maxAttempts with a RateLimitError", async () => {
    server.on("POST", "/v1/chat/completions", {
      status: 429,
      json: { error: { message: "Concurrency limit reached for requests" } },
    });
    const limited = makeClient({ retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const err = await limited.chat.completions.create({ model: "m", messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toContain("Concurrency limit reached");
    expect(server.requests).toHaveLength(2);
    await limited.close();
  });

  it("a chat POST whose connection broke mid-response is not repeated", async () => {
    server.on("POST", "/v1/chat/completions", resetMidResponse);
    const err = await client.chat.completions.create({ model: "m", messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(server.requests).toHaveLength(1);
  });
});

describe("InferenceClient.models and configuration", () => {
  it("models.list sends GET /models and returns the list", async () => {
    const list = {
      object: "list",
      data: [
        {
          id: "OpenPipe/Qwen3-14B-Instruct",
          object: "model",
          created: 0,
          owned_by: "system",
          root: "OpenPipe/Qwen3-14B-Instruct",
        },
      ],
    };
    server.on("GET", "/v1/models", { json: list });
    await expect(client.models.list()).resolves.toEqual(list);
    const req = server.only();
    expect(req.method).toBe("GET");
    expect([...req.query]).toEqual([]);
    expect(req.body.length).toBe(0);
    expect(req.headers["content-type"]).toBeUndefined();
    expectStandardHeaders(req, "acme/demo");
  });

  it("reads base URL and project from the environment: TRACEWIRE_INFERENCE_PROJECT, else TRACEWIRE_PROJECT", async () => {
    server.on("GET", "/v1/models", { json: { object: "list", data: [] } });
    const base = { TRACEWIRE_INFERENCE_BASE_URL: `${server.url}/v1`, TRACEWIRE_API_KEY: KEY };
    const cases: [Record<string, string>, string | undefined][] = [
      [{ TRACEWIRE_INFERENCE_PROJECT: "team-a/inf", TRACEWIRE_PROJECT: "team-b/general" }, "team-a/inf"],
      [{ TRACEWIRE_PROJECT: "team-b/general" }, "team-b/general"],
      [{}, undefined],
    ];
    for (const [env, expected] of cases) {
      server.reset();
      server.on("GET", "/v1/models", { json: { object: "list", data: [] } });
      const c = new InferenceClient({ env: { ...base, ...env } });
      expect(c.project).toBe(expected);
      await c.models.list();
      expectStandardHeaders(server.only(), expected);
      await c.close();
    }
    // The option wins over the environment.
    expect(new InferenceClient({ env: base, project: "opt/proj", baseUrl: server.url }).project).toBe("opt/proj");
  });

  it("a malformed project or a missing base URL is a ConfigError naming the setting", () => {
    expect(() => makeClient({ project: "no-slash" })).toThrow(ConfigError);
    expect(
      () =>
        new InferenceClient({ env: { TRACEWIRE_INFERENCE_BASE_URL: server.url, TRACEWIRE_INFERENCE_PROJECT: "x" } }),
    ).toThrow(/TRACEWIRE_INFERENCE_PROJECT/);
    expect(() => new InferenceClient({ env: {} })).toThrow(/TRACEWIRE_INFERENCE_BASE_URL/);
  });
});
