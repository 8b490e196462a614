/**
 * docs/service-clients.md: the TracingClient, InferenceClient and TrainingClient blocks run verbatim, each client
 * configured from the environment variables its comment names, against loopback servers that answer as the services
 * do; each request the block makes arrives as the section describes, and what it prints is what came back.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { OpenAIServer, TEXT } from "../support/openai-server.js";
import { ndjsonReply, type RecordedRequest, TestServer } from "../support/server.js";
import { docBlock, runBlock, withEnv } from "./snippets.js";

const KEY = "tw-readme-key";
let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterEach(() => server.reset());
afterAll(() => server.close());

/** Runs a docs block with `console.log` and `process.stdout.write` captured; closes the client it made. */
async function run(block: string, env: Record<string, string | undefined>, client: string) {
  const printed: unknown[][] = [];
  const written: string[] = [];
  const scope = {
    console: { log: (...args: unknown[]) => printed.push(args) },
    process: { stdout: { write: (text: string) => written.push(text) } },
  };
  const declared = await withEnv(env, () => runBlock(block, scope));
  await (declared[client] as { close(): Promise<void> }).close();
  return { printed, written, declared };
}

const sent = (req: RecordedRequest) => [req.method, req.path, req.json];

it("the TracingClient block reads a call, streams calls, sends feedback and a score", async () => {
  const call = { id: "00f067aa0ba902b7", op_name: "answer", summary: { usage: {} } };
  const roots = [
    { id: "a1", op_name: "answer", summary: { usage: { "gpt-4o-mini": { requests: 1 } } } },
    { id: "a2", op_name: "retrieve", summary: {} },
  ];
  server.on("POST", "/call/read", { json: { call } });
  server.on("POST", "/calls/stream_query", ndjsonReply(roots));
  const receipt = { id: "fb-1", created_at: "2026-01-05T10:00:00Z", wb_user_id: "u-1", payload: { emoji: "👍" } };
  server.on("POST", "/feedback/create", { json: receipt });
  server.on("POST", "/v2/acme/demo/scores", { json: { score_id: "s-1" } });

  const env = { TRACEWIRE_BASE_URL: server.url, TRACEWIRE_API_KEY: KEY };
  const { printed, declared } = await run(docBlock("docs/service-clients.md", "## TracingClient"), env, "client");
  expect(declared.call).toEqual(call);
  expect(printed).toEqual(roots.map((c) => [c.op_name, c.summary]));
  expect(server.requests.map(sent)).toEqual([
    ["POST", "/call/read", { project_id: "acme/demo", id: "00f067aa0ba902b7" }],
    ["POST", "/calls/stream_query", { project_id: "acme/demo", filter: { trace_roots_only: true }, limit: 100 }],
    [
      "POST",
      "/feedback/create",
      {
        project_id: "acme/demo",
        weave_ref: "weave:///acme/demo/call/00f067aa0ba902b7",
        feedback_type: "wandb.reaction.1",
        payload: { emoji: "👍" },
      },
    ],
    [
      "POST",
      "/v2/acme/demo/scores",
      { prediction_id: "…", scorer: "weave:///acme/demo/object/exact:latest", value: 1 },
    ],
  ]);
  for (const req of server.requests) expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
});

it("the InferenceClient block gets a completion, streams one, and lists the models", async () => {
  const inference = await OpenAIServer.start();
  try {
    const env = { TRACEWIRE_INFERENCE_BASE_URL: `${inference.url}/v1`, TRACEWIRE_API_KEY: KEY };
    const { written, declared } = await run(
      docBlock("docs/service-clients.md", "## InferenceClient"),
      env,
      "inference",
    );
    expect(declared.completion).toMatchObject({ object: "chat.completion", choices: [{ message: { content: TEXT } }] });
    expect(written.join("")).toBe(TEXT);
    expect(declared.models).toEqual([expect.objectContaining({ id: "gpt-4o-mini", object: "model" })]);
    const requests = inference.server.requests;
    expect(requests.map((r) => [r.method, r.path])).toEqual([
      ["POST", "/v1/chat/completions"],
      ["POST", "/v1/chat/completions"],
      ["GET", "/v1/models"],
    ]);
    expect(requests[0]!.json).toMatchObject({
      model: "meta-llama/Llama-3.1-8B-Instruct",
      messages: [{ role: "user", content: "Say hi" }],
    });
    expect(requests[1]!.json).toMatchObject({ stream: true });
    for (const req of requests) {
      expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(req.headers["openai-project"]).toBe("acme/demo");
    }
  } finally {
    await inference.close();
  }
});

it("the TrainingClient block creates a model and a job, follows its events, lists checkpoints, checks health", async () => {
  const model = {
    id: "m-1",
    entity: "acme",
    project: "demo",
    name: "agent-001",
    base_model: "OpenPipe/Qwen3-14B-Instruct",
  };
  const events = [
    { id: "e1", type: "training_started", data: { num_sequences: 2 } },
    { id: "e2", type: "gradient_step", data: { loss: 0.7 } },
    { id: "e3", type: "training_ended", data: {} },
  ];
  const checkpoints = [
    { id: "ck-1", step: 10, metrics: {} },
    { id: "ck-2", step: 20, metrics: {} },
  ];
  const list = (data: { id: string }[]) => ({
    json: { object: "list", data, first_id: data[0]!.id, last_id: data.at(-1)!.id, has_more: false },
  });
  const health = { api: true, database: true, cpu_queue: { success: true }, gpu_queue: { success: false } };
  server.on("POST", "/v1/preview/models", { json: model });
  server.on("POST", "/v1/preview/training-jobs", { json: { id: "job-1" } });
  server.on("GET", "/v1/preview/training-jobs/job-1/events", list(events));
  server.on("GET", "/v1/preview/models/m-1/checkpoints", list(checkpoints));
  server.on("GET", "/v1/system-check", { status: 503, json: health });

  const env = { TRACEWIRE_TRAINING_BASE_URL: `${server.url}/v1`, TRACEWIRE_API_KEY: KEY };
  const { printed, declared } = await run(docBlock("docs/service-clients.md", "## TrainingClient"), env, "training");
  expect(printed).toEqual([...events.map((e) => [e.type, e.data]), [10], [20]]);
  expect(declared.health).toEqual({ ok: false, status: 503, body: health });
  expect(server.requests.map(sent)).toEqual([
    ["POST", "/v1/preview/models", { project: "demo", name: "agent-001", base_model: "OpenPipe/Qwen3-14B-Instruct" }],
    ["POST", "/v1/preview/training-jobs", { model_id: "m-1", trajectory_groups: [] }],
    ["GET", "/v1/preview/training-jobs/job-1/events", undefined],
    ["GET", "/v1/preview/models/m-1/checkpoints", undefined],
    ["GET", "/v1/system-check", undefined],
  ]);
});
