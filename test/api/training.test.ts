import type { ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TrainingChatCompletionCreateParams } from "../../src/api/training/chat-params.js";
import { TrainingClient } from "../../src/api/training/client.js";
import { isTrainingJobEvent } from "../../src/api/training/jobs.js";
import type { ChatCompletionChunk } from "../../src/api/types/chat.js";
import type { TrainingJobEvent } from "../../src/api/types/training.js";
import {
  AbortError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  ValidationError,
} from "../../src/errors.js";
import {
  type RecordedRequest,
  type Reply,
  resetConnection,
  resetMidResponse,
  sseReply,
  TestServer,
} from "../support/server.js";

let server: TestServer;
let client: TrainingClient;
const KEY = "tw-training-key-0001";

beforeAll(async () => {
  server = await TestServer.start();
  // The trailing /v1 is what users copy from the docs; the client must not double it.
  client = new TrainingClient({
    baseUrl: `${server.url}/v1/`,
    apiKey: KEY,
    env: {},
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  });
});
afterEach(() => server.reset());
afterAll(async () => {
  await client.close();
  await server.close();
});

function expectRequest(
  req: RecordedRequest,
  method: string,
  path: string,
  body: unknown,
  query: [string, string][] = [],
): void {
  expect(req.method).toBe(method);
  expect(req.path).toBe(path);
  expect([...req.query]).toEqual(query);
  expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(req.headers["user-agent"]).toMatch(/^tracewire\/\d+\.\d+\.\d+ /);
  expect(req.headers["openai-project"]).toBeUndefined();
  if (body === undefined) {
    expect(req.body.length).toBe(0);
    expect(req.headers["content-type"]).toBeUndefined();
  } else {
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.json).toEqual(body);
  }
}

function jsonReply(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Serves `items` as the service's cursor-paged list, honouring `after` and `limit` (default 20). */
function pagedList(items: { id: string }[]): Reply {
  return (req, res) => {
    const after = req.query.get("after");
    const limit = Number(req.query.get("limit") ?? 20);
    const start = after ? items.findIndex((item) => item.id === after) + 1 : 0;
    const data = items.slice(start, start + limit);
    jsonReply(res, {
      object: "list",
      data,
      first_id: data[0]?.id ?? "",
      last_id: data.at(-1)?.id ?? "",
      has_more: start + limit < items.length,
    });
  };
}

const page = (data: TrainingJobEvent[], has_more = false) => ({
  json: { object: "list", data, first_id: data[0]?.id ?? "", last_id: data.at(-1)?.id ?? "", has_more },
});

const messages = [{ role: "user" as const, content: "Say hi" }];
const MODEL = "wandb-artifact:///acme/demo/agent:step12";

describe("TrainingClient.chat.completions", () => {
  it("sends the extended engine request unchanged to /v1/chat/completions", async () => {
    const completion = {
      id: "chatcmpl-9",
      object: "chat.completion",
      created: 1,
      model: MODEL,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "hi" },
          finish_reason: "stop",
          logprobs: null,
          stop_reason: "</s>",
          token_ids: [5, 6],
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      prompt_token_ids: [1, 2, 3],
      kv_transfer_params: null,
    };
    server.on("POST", "/v1/chat/completions", { json: completion });
    const params: TrainingChatCompletionCreateParams = {
      model: MODEL,
      messages: [...messages, { role: "assistant", content: "Hi th" }],
      continue_final_message: true,
      add_generation_prompt: false,
      use_beam_search: false,
      top_k: 20,
      min_p: 0.05,
      repetition_penalty: 1.1,
      length_penalty: 1,
      stop_token_ids: [2],
      min_tokens: 1,
      max_completion_tokens: 16,
      skip_special_tokens: false,
      structured_outputs: { regex: "[a-z]+" },
      chat_template_kwargs: { enable_thinking: false },
      priority: 0,
      request_id: "req-1",
      return_token_ids: true,
      cache_salt: "salt-123",
      kv_transfer_params: { do_remote_decode: false },
      vllm_xargs: { tag: "x", weights: [1, 2] },
    };
    const res = await client.chat.completions.create(params);
    expect(res).toEqual(completion);
    expect(res.prompt_token_ids).toEqual([1, 2, 3]);
    expectRequest(server.only(), "POST", "/v1/chat/completions", params);
  });

  it("streams chunks with prompt_token_ids and token_ids, in order, to [DONE]", async () => {
    const chunks: ChatCompletionChunk[] = [
      {
        id: "c",
        object: "chat.completion.chunk",
        created: 1,
        model: MODEL,
        prompt_token_ids: [1, 2],
        choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
      },
      {
        id: "c",
        object: "chat.completion.chunk",
        created: 1,
        model: MODEL,
        choices: [{ index: 0, delta: { content: "hi" }, finish_reason: null, token_ids: [7] }],
      },
      {
        id: "c",
        object: "chat.completion.chunk",
        created: 1,
        model: MODEL,
        choices: [{ index: 0, delta: {}, finish_reason: "stop", stop_reason: null, token_ids: [] }],
      },
    ];
    server.on("POST", "/v1/chat/completions", sseReply(chunks));
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages,
      stream: true,
      return_token_ids: true,
    });
    const seen: ChatCompletionChunk[] = [];
    for await (const c of stream) seen.push(c);
    expect(seen).toEqual(chunks);
    expectRequest(server.only(), "POST", "/v1/chat/completions", {
      model: MODEL,
      messages,
      stream: true,
      return_token_ids: true,
    });
  });

  it("an in-stream error event after 200 (nested or old flat shape) throws with the engine's message", async () => {
    const shapes = [
      {
        error: {
          message: "Got priority 5 but Priority scheduling is not enabled.",
          type: "BadRequestError",
          param: null,
          code: 400,
        },
      },
      {
        error: {
          object: "error",
          message: "Got priority 5 but Priority scheduling is not enabled.",
          type: "BadRequestError",
          param: null,
          code: 400,
        },
      },
    ];
    for (const event of shapes) {
      server.reset();
      server.on("POST", "/v1/chat/completions", sseReply([event]));
      const stream = await client.chat.completions.create({ model: MODEL, messages, stream: true, priority: 5 });
      const err = await (async () => {
        for await (const _ of stream) throw new Error("no chunk expected");
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as Error).message).toContain("Priority scheduling is not enabled");
    }
  });

  it("engine error bodies (nested and flat) become typed errors with the engine's message", async () => {
    server.on("POST", "/v1/chat/completions", {
      status: 404,
      json: {
        object: "error",
        message: "The model `nope` does not exist.",
        type: "NotFoundError",
        param: null,
        code: 404,
      },
    });
    const notFound = await client.chat.completions.create({ model: "nope", messages }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect((notFound as Error).message).toContain("The model `nope` does not exist.");

    server.on("POST", "/v1/chat/completions", {
      status: 400,
      json: { error: { message: "min_p must be in [0, 1]", type: "BadRequestError", param: "min_p", code: 400 } },
    });
    const bad = await client.chat.completions.create({ model: MODEL, messages }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect((bad as Error).message).toContain("min_p must be in [0, 1] (param: min_p)");
    expect(server.requests).toHaveLength(2);
  });

  it("continue_final_message without add_generation_prompt: false is refused before sending, saying how to fix it", () => {
    for (const extra of [{}, { add_generation_prompt: true }]) {
      let err: unknown;
      try {
        client.chat.completions.create({ model: MODEL, messages, continue_final_message: true, ...extra });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).param).toBe("add_generation_prompt");
      expect((err as Error).message).toContain("continue_final_message: true requires add_generation_prompt: false");
      expect((err as Error).message).toContain("Pass { continue_final_message: true, add_generation_prompt: false }");
    }
    expect(server.requests).toHaveLength(0);
  });

  it("other combinations the engine always rejects are refused before sending", () => {
    const fn = { type: "function" as const, function: { name: "lookup" } };
    const cases: [Partial<TrainingChatCompletionCreateParams>, string, RegExp][] = [
      [{ stream_options: { include_usage: true } }, "stream_options", /only be set with stream: true/],
      [{ top_logprobs: 3 }, "top_logprobs", /needs logprobs: true/],
      [{ stream: true, prompt_logprobs: 1 }, "prompt_logprobs", /not available with stream: true/],
      [
        { structured_outputs: { json: {}, regex: "a" } },
        "structured_outputs",
        /one kind of constraint, got json and regex/,
      ],
      [{ tool_choice: "required" }, "tool_choice", /needs tools/],
      [
        { tools: [fn], tool_choice: { type: "function", function: { name: "other" } } },
        "tool_choice",
        /not among tools/,
      ],
      [{ cache_salt: "" }, "cache_salt", /non-empty string/],
      [{ temperature: -0.5 }, "temperature", /must be >= 0/],
      [{ top_p: 0 }, "top_p", /in \(0, 1\]/],
      [{ n: 0 }, "n", /integer >= 1/],
      [{ min_tokens: 10, max_completion_tokens: 5 }, "min_tokens", /must not exceed/],
      [{ stop: ["\n", ""] }, "stop", /empty string/],
    ];
    for (const [extra, param, message] of cases) {
      const call = () =>
        client.chat.completions.create({ model: MODEL, messages, ...extra } as TrainingChatCompletionCreateParams);
      expect(call, param).toThrow(ValidationError);
      expect(call, param).toThrow(message);
      try {
        call();
      } catch (e) {
        expect((e as ValidationError).param, param).toBe(param);
      }
    }
    expect(server.requests).toHaveLength(0);
  });

  it("accepts the allowed edge cases of those rules (they are sent)", async () => {
    server.on("POST", "/v1/chat/completions", {
      json: { id: "x", object: "chat.completion", created: 1, model: MODEL, choices: [] },
    });
    const ok: Partial<TrainingChatCompletionCreateParams>[] = [
      { top_logprobs: 0 },
      { stream_options: {} },
      { tool_choice: "none" },
      { tools: [], tool_choice: "required" },
      { structured_outputs: { json: {}, disable_any_whitespace: true } },
    ];
    for (const extra of ok) {
      await client.chat.completions.create({ model: MODEL, messages, ...extra } as TrainingChatCompletionCreateParams);
    }
    expect(server.requests.map((r) => r.json)).toEqual(ok.map((extra) => ({ model: MODEL, messages, ...extra })));
  });
});

describe("TrainingClient.models", () => {
  it("create, delete, deleteCheckpoints and log send exactly the documented requests", async () => {
    const model = {
      id: "m-1",
      entity: "acme",
      project: "demo",
      name: "agent",
      base_model: "OpenPipe/Qwen3-14B-Instruct",
      run_id: "r1",
    };
    server.on("POST", "/v1/preview/models", { json: model });
    const createBody = {
      project: "demo",
      name: "agent",
      base_model: "OpenPipe/Qwen3-14B-Instruct",
      entity: "acme",
      return_existing: true,
    };
    await expect(client.models.create(createBody)).resolves.toEqual(model);
    expectRequest(server.only(), "POST", "/v1/preview/models", createBody);

    server.reset();
    server.on("DELETE", "/v1/preview/models/m%201", {
      json: { model_id: "m 1", deleted_checkpoints: 3, deleted_run: true },
    });
    await expect(client.models.delete("m 1")).resolves.toEqual({
      model_id: "m 1",
      deleted_checkpoints: 3,
      deleted_run: true,
    });
    expectRequest(server.only(), "DELETE", "/v1/preview/models/m%201", undefined);

    // Retried after the first answer was lost on the way back: the 404 says the model may be gone by that attempt.
    server.reset();
    server.on("DELETE", "/v1/preview/models/m-2", resetMidResponse, {
      status: 404,
      json: { detail: "Model not found" },
    });
    const lost = await client.models.delete("m-2").catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(NotFoundError);
    expect(String(lost)).toMatch(/An earlier attempt of this DELETE reached the server .*: it may have deleted it\./);
    expect(server.requests).toHaveLength(2);
    server.reset();
    server.on("DELETE", "/v1/preview/models/m-2", { status: 404, json: { detail: "Model not found" } });
    expect(String(await client.models.delete("m-2").catch((e: unknown) => e))).not.toMatch(/earlier attempt/);

    server.reset();
    server.on("DELETE", "/v1/preview/models/m-1/checkpoints", { json: { deleted_count: 2, not_found_steps: [9] } });
    await expect(client.models.deleteCheckpoints("m-1", { steps: [1, 2, 9] })).resolves.toEqual({
      deleted_count: 2,
      not_found_steps: [9],
    });
    expectRequest(server.only(), "DELETE", "/v1/preview/models/m-1/checkpoints", { steps: [1, 2, 9] });

    server.reset();
    server.on("POST", "/v1/preview/models/m-1/log", { json: {} });
    const logBody = {
      split: "val",
      trajectory_groups: [
        {
          trajectories: [
            {
              messages_and_choices: [
                ...messages,
                { finish_reason: "stop" as const, index: 0, message: { role: "assistant" as const, content: "hi" } },
              ],
              reward: 1,
              metrics: { correct: true },
              metadata: { task: "greet" },
            },
          ],
        },
      ],
    };
    await expect(client.models.log("m-1", logBody)).resolves.toEqual({});
    expectRequest(server.only(), "POST", "/v1/preview/models/m-1/log", logBody);
  });

  it("checkpoints iterates over every page with after = last_id, limit and order", async () => {
    const all = Array.from({ length: 5 }, (_, i) => ({ id: `ck-${i}`, step: 50 - i * 10, metrics: { loss: i } }));
    server.on("GET", "/v1/preview/models/m-1/checkpoints", pagedList(all));
    const seen = [];
    for await (const checkpoint of client.models.checkpoints("m-1", { limit: 2, order: "desc" })) seen.push(checkpoint);
    expect(seen).toEqual(all);
    const reqs = server.received("GET", "/v1/preview/models/m-1/checkpoints");
    expect(reqs).toHaveLength(3);
    expectRequest(reqs[0]!, "GET", "/v1/preview/models/m-1/checkpoints", undefined, [
      ["limit", "2"],
      ["order", "desc"],
    ]);
    expect([...reqs[1]!.query]).toEqual([
      ["after", "ck-1"],
      ["limit", "2"],
      ["order", "desc"],
    ]);
    expect([...reqs[2]!.query]).toEqual([
      ["after", "ck-3"],
      ["limit", "2"],
      ["order", "desc"],
    ]);
  });

  it("bad arguments throw before anything is sent", () => {
    expect(() => client.models.checkpoints("m-1", { limit: 0 })).toThrow(ValidationError);
    // @ts-expect-error order is asc|desc
    expect(() => client.models.checkpoints("m-1", { order: "newest" })).toThrow(/order must be/);
    expect(() => client.models.deleteCheckpoints("m-1", { steps: [1.5] })).toThrow(/integer steps/);
    expect(() => client.models.delete("")).toThrow(/modelId must be a non-empty string/);
    // @ts-expect-error base_model is required
    expect(() => client.models.create({ project: "p", name: "n" })).toThrow(/base_model/);
    expect(server.requests).toHaveLength(0);
  });
});

describe("TrainingClient.jobs", () => {
  it("create, createSft and retrieve send the documented requests; retrieve keeps undocumented fields", async () => {
    server.on("POST", "/v1/preview/training-jobs", { json: { id: "job-1" } });
    const rl = {
      model_id: "m-1",
      trajectory_groups: [{ trajectories: [{ messages_and_choices: messages, reward: 0.5 }] }],
      experimental_config: {
        learning_rate: 5e-6,
        loss_fn: "cispo" as const,
        importance_sampling_level: "token" as const,
      },
    };
    await expect(client.jobs.create(rl)).resolves.toEqual({ id: "job-1" });
    expectRequest(server.only(), "POST", "/v1/preview/training-jobs", rl);

    server.reset();
    server.on("POST", "/v1/preview/sft-training-jobs", { json: { id: "job-2" } });
    const sft = {
      model_id: "m-1",
      training_data_url: "wandb-artifact:///acme/demo/agent-sft-data-0123456789ab:v0",
      config: { batch_size: "auto" as const, learning_rate: [1e-5, 5e-6] },
    };
    await expect(client.jobs.createSft(sft)).resolves.toEqual({ id: "job-2" });
    expectRequest(server.only(), "POST", "/v1/preview/sft-training-jobs", sft);

    server.reset();
    const job = {
      id: "job-1",
      status: "RUNNING",
      model_id: "m-1",
      training_start: "2026-01-05T10:00:00Z",
      extra: { a: 1 },
    };
    server.on("GET", "/v1/preview/training-jobs/job-1", { json: job });
    await expect(client.jobs.retrieve("job-1")).resolves.toEqual(job);
    expectRequest(server.only(), "GET", "/v1/preview/training-jobs/job-1", undefined);
  });

  it("events: 250 events served in pages of 100 arrive in order with exactly 3 requests", async () => {
    const events: TrainingJobEvent[] = Array.from({ length: 250 }, (_, i) => ({
      id: `ev-${i}`,
      type: "gradient_step",
      data: { step: i, loss: 1 / (i + 1) },
    }));
    server.on("GET", "/v1/preview/training-jobs/job-1/events", pagedList(events));
    const seen: TrainingJobEvent[] = [];
    for await (const event of client.jobs.events("job-1", { limit: 100 })) seen.push(event);
    expect(seen).toEqual(events);
    const reqs = server.received("GET", "/v1/preview/training-jobs/job-1/events");
    expect(reqs).toHaveLength(3);
    expectRequest(reqs[0]!, "GET", "/v1/preview/training-jobs/job-1/events", undefined, [["limit", "100"]]);
    expect([...reqs[1]!.query]).toEqual([
      ["after", "ev-99"],
      ["limit", "100"],
    ]);
    expect([...reqs[2]!.query]).toEqual([
      ["after", "ev-199"],
      ["limit", "100"],
    ]);
  });

  it("events: limit 0, 101, 2.5 (and a non-number) throw a ValidationError when called, before any request", () => {
    for (const limit of [0, 101, 2.5, "10"]) {
      // @ts-expect-error a string limit is wrong on purpose
      const call = () => client.jobs.events("job-1", { limit });
      expect(call).toThrow(ValidationError);
      expect(call).toThrow(`limit must be an integer from 1 to 100, got ${JSON.stringify(limit)}`);
    }
    expect(() => client.jobs.events("job-1", { pollIntervalMs: -1 })).toThrow(/pollIntervalMs/);
    expect(server.requests).toHaveLength(0);
  });

  it("follow mode polls past empty pages and stops right after training_failed", async () => {
    const started: TrainingJobEvent = { id: "e1", type: "training_started", data: { num_sequences: 2 } };
    const steps: TrainingJobEvent[] = [
      { id: "e2", type: "gradient_step", data: { loss: 0.9 } },
      { id: "e3", type: "gradient_step", data: { loss: 0.7 } },
    ];
    const failed: TrainingJobEvent = {
      id: "e4",
      type: "training_failed",
      data: { error_message: "CUDA error: device-side assert" },
    };
    server.on(
      "GET",
      "/v1/preview/training-jobs/job-1/events",
      page([started]),
      page([]),
      page(steps),
      page([failed]),
      page([]),
    );
    const seen: TrainingJobEvent[] = [];
    for await (const event of client.jobs.events("job-1", { follow: true, pollIntervalMs: 20 })) seen.push(event);
    expect(seen).toEqual([started, ...steps, failed]);

    const reqs = server.received("GET", "/v1/preview/training-jobs/job-1/events");
    expect(reqs.map((r) => r.query.get("after"))).toEqual([null, "e1", "e1", "e3"]);
    for (let i = 1; i < reqs.length; i++) {
      // The poll interval is honoured (a little slack for timer granularity).
      expect(reqs[i]!.receivedAt - reqs[i - 1]!.receivedAt).toBeGreaterThanOrEqual(15);
    }
    const last = seen.at(-1)!;
    expect(isTrainingJobEvent(last, "training_failed") && last.data.error_message).toBe(
      "CUDA error: device-side assert",
    );
  });

  it("follow mode ends with an AbortError when the signal fires between polls, and sends nothing more", async () => {
    const controller = new AbortController();
    let count = 0;
    let abortedAt = 0;
    server.on("GET", "/v1/preview/training-jobs/job-1/events", (_req, res) => {
      if (++count === 3) {
        setTimeout(() => {
          abortedAt = Date.now();
          controller.abort();
        }, 10);
      }
      jsonReply(res, { object: "list", data: [], first_id: "", last_id: "", has_more: false });
    });
    const iteration = (async () => {
      for await (const _ of client.jobs.events("job-1", {
        follow: true,
        pollIntervalMs: 200,
        signal: controller.signal,
      })) {
        throw new Error("no event expected");
      }
    })();
    await expect(iteration).rejects.toBeInstanceOf(AbortError);
    // The abort cut the third 200 ms wait short instead of waiting it out.
    expect(abortedAt).toBeGreaterThan(0);
    expect(Date.now() - abortedAt).toBeLessThan(100);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(server.requests).toHaveLength(3);
  });
});

describe("TrainingClient retries and health", () => {
  const job = { model_id: "m-1", trajectory_groups: [] };

  it("a connection reset on a training POST (mid-response or before it) is not retried", async () => {
    for (const reply of [resetMidResponse, resetConnection]) {
      server.reset();
      server.on("POST", "/v1/preview/training-jobs", reply);
      const err = await client.jobs.create(job).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionError);
      expect(server.requests).toHaveLength(1);
    }
  });

  it("429 and 503 with Retry-After on a training POST are retried; 429 without it is not", async () => {
    server.on(
      "POST",
      "/v1/preview/training-jobs",
      { status: 429, headers: { "retry-after": "0" }, json: { detail: "Concurrency limit reached for requests" } },
      { status: 503, headers: { "retry-after": "0" }, json: { detail: "busy" } },
      { json: { id: "job-3" } },
    );
    await expect(client.jobs.create(job)).resolves.toEqual({ id: "job-3" });
    expect(server.received("POST", "/v1/preview/training-jobs")).toHaveLength(3);

    server.reset();
    server.on("POST", "/v1/preview/training-jobs", {
      status: 429,
      json: { detail: "Concurrency limit reached for requests" },
    });
    const err = await client.jobs.create(job).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toContain("Concurrency limit reached for requests");
    expect(server.requests).toHaveLength(1);
  });

  it("health and a passing system check", async () => {
    server.on("GET", "/v1/health", { json: { status: "ok" } });
    await expect(client.health()).resolves.toEqual({ status: "ok" });
    expectRequest(server.only(), "GET", "/v1/health", undefined);

    server.reset();
    const body = {
      api: true,
      database: true,
      cpu_queue: { success: true, duration: 0.01 },
      gpu_queue: { success: true },
    };
    server.on("GET", "/v1/system-check", { json: body });
    await expect(client.systemCheck()).resolves.toEqual({ ok: true, status: 200, body });
    expectRequest(server.only(), "GET", "/v1/system-check", undefined);
  });

  it("a failing system check (503) returns its body at once instead of throwing or retrying", async () => {
    const body = {
      api: true,
      database: false,
      cpu_queue: { success: true },
      gpu_queue: { success: false, error: "no workers" },
    };
    server.on("GET", "/v1/system-check", { status: 503, json: body });
    await expect(client.systemCheck()).resolves.toEqual({ ok: false, status: 503, body });
    expect(server.requests).toHaveLength(1);
  });

  it("a 503 without a system-check body (an outage page) still throws", async () => {
    server.on("GET", "/v1/system-check", { status: 503, json: { message: "Service Unavailable" } });
    const err = await client.systemCheck().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect((err as InternalServerError).status).toBe(503);
  });

  it("takes its host from TRACEWIRE_TRAINING_BASE_URL, with or without /v1", async () => {
    for (const baseUrl of [server.url, `${server.url}/v1`]) {
      server.reset();
      server.on("GET", "/v1/health", { json: {} });
      const c = new TrainingClient({ env: { TRACEWIRE_TRAINING_BASE_URL: baseUrl } });
      await c.health();
      expect(server.only().path).toBe("/v1/health");
      await c.close();
    }
    expect(() => new TrainingClient({ env: {} })).toThrow(/TRACEWIRE_TRAINING_BASE_URL/);
  });
});

describe("isTrainingJobEvent", () => {
  it("answers false for anything that is not an event, and refuses a non-string type", () => {
    const event = { id: "e1", type: "training_failed", data: { error_message: "oom" } } as const;
    expect(isTrainingJobEvent(event, "training_failed")).toBe(true);
    expect(isTrainingJobEvent(event, "training_ended")).toBe(false);
    for (const junk of [null, undefined, 7, "training_failed", []]) {
      expect(isTrainingJobEvent(junk as never, "training_failed")).toBe(false);
    }
    expect(() => isTrainingJobEvent(event, 3 as never)).toThrow(/type must be an event type string/);
  });
});
