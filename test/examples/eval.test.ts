/**
 * `npm run example:eval` (examples/eval/index.mjs) as the example runs it — the real `openai` client, wrapped,
 * against the example's quiz stand-in, `evaluate()` over 20 questions × 2 trials with three scorers — here
 * against a local tracing service this test starts (the example starts its own when TRACEWIRE_BASE_URL is unset),
 * with what it printed and what it recorded read back.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import type { EvaluationResult } from "../../src/eval/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";
import { loadExample } from "./support.js";

const PROJECT = "demo/example-eval";
let service: DevServer;
const saved = { base: process.env.TRACEWIRE_BASE_URL, project: process.env.TRACEWIRE_PROJECT };
beforeAll(async () => {
  service = await startDevServer({ port: 0, storage: "memory", logger: { warn() {}, error() {} } });
  process.env.TRACEWIRE_BASE_URL = service.url;
  process.env.TRACEWIRE_PROJECT = PROJECT;
});
afterAll(async () => {
  for (const [key, value] of [
    ["TRACEWIRE_BASE_URL", saved.base],
    ["TRACEWIRE_PROJECT", saved.project],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await service.close();
});

it("evaluates 20 questions × 2 trials with three scorers, prints the summary and the viewer link", async () => {
  const { main } = await loadExample<{ main(): Promise<EvaluationResult> }>("eval/index.mjs");
  const { QUESTIONS } = await loadExample<{ QUESTIONS: { question: string; expected: number }[] }>("eval/quiz.mjs");
  const printed: string[] = [];
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((text) => {
    printed.push(String(text));
    return true;
  });
  const log = vi.spyOn(console, "log").mockImplementation((text) => void printed.push(String(text)));
  let result: EvaluationResult;
  try {
    result = await main();
  } finally {
    stderr.mockRestore();
    log.mockRestore();
  }
  expect(result.counts).toEqual({ rows: 20, trials: 2, total: 40, ok: 40, failed: 0, cancelled: 0, resumed: 0 });
  // The stand-in is off by one when the sum is a multiple of 7, and wordy when the first number is even.
  const right = QUESTIONS.filter((q) => q.expected % 7 !== 0).length;
  const terse = QUESTIONS.filter((q) => Number(/What is (\d+)/.exec(q.question)![1]) % 2 === 1).length;
  expect(result.summary).toMatchObject({
    correct: { true_count: 2 * right, true_fraction: right / 20 },
    concise: { true_count: 2 * terse, true_fraction: terse / 20 },
    judge: { true_count: 2 * right, true_fraction: right / 20 },
    model_latency: { mean: expect.any(Number) },
  });
  const text = printed.join("");
  expect(text).toMatch(/arithmetic-quiz \(done\): 40\/40 scored \(20 rows × 2 trials\)/);
  expect(text).toMatch(/correct\s+true fraction\s+\d+\.\d%/);
  expect(text).toContain(`viewer: ${service.url}/#project=demo%2Fexample-eval&view=evals&eval=${result.callId}`);

  // The LLM-as-judge's own LLM call is recorded under its scorer call.
  const reader = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
  const calls = [];
  for await (const call of reader.calls.streamQuery({ filter: { trace_ids: [result.traceId] } })) calls.push(call);
  await reader.close();
  const judges = calls.filter((c) => /\/op\/judge:/.test(c.op_name));
  expect(judges).toHaveLength(40);
  for (const judge of judges.slice(0, 3))
    expect(calls.filter((c) => c.parent_id === judge.id).map((c) => c.op_name)).toEqual([
      "openai.chat.completions.create",
    ]);
});
