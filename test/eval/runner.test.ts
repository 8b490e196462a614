/**
 * Running well: bounded concurrency (task and scorers apart), retries on 429/5xx with the wait kept out of the
 * latency, a failing task marks its row failed and the run goes on, cancellation ends every open call as cancelled
 * and keeps what was scored. Real loopback servers: the local service and the OpenAI stand-in (which injects 429s).
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/index.js";
import { init } from "../../src/index.js";
import { childrenOf, opName, quiet, setupEval } from "./support.js";

const setup = setupEval("acme/runner");
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ question: `q${i}`, expected: `q${i}` }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("concurrency", () => {
  it("keeps task runs and scorer runs under their own limits", async () => {
    let tasks = 0;
    let maxTasks = 0;
    let scoring = 0;
    let maxScoring = 0;
    const result = await evaluate({
      name: "limits",
      dataset: rows(24),
      task: async (row) => {
        maxTasks = Math.max(maxTasks, ++tasks);
        await sleep(15);
        tasks--;
        return row.question;
      },
      scorers: [
        async function slow({ output }) {
          maxScoring = Math.max(maxScoring, ++scoring);
          await sleep(25);
          scoring--;
          return output.length > 0;
        },
        async function slower({ output }) {
          maxScoring = Math.max(maxScoring, ++scoring);
          await sleep(30);
          scoring--;
          return output.length;
        },
      ],
      concurrency: { task: 3, scorers: 4 },
      progress: false,
    });
    expect(result.counts.ok).toBe(24);
    expect(maxTasks).toBe(3);
    expect(maxScoring).toBe(4);
  });
});

describe("backpressure", () => {
  it("paces the rows by the calls queue instead of overflowing it: nothing dropped, every row recorded", async () => {
    await setup.tracing.shutdown();
    // A small queue that only drains on its timer (1 s) unless someone flushes: 100 rows add ~800 items.
    const small = init({
      baseUrl: setup.service.url,
      project: setup.project,
      env: {},
      maxQueueSize: 64,
      maxExportBatchSize: 64,
      scheduledDelayMillis: 1000,
      logger: quiet,
    });
    try {
      const result = await evaluate({
        name: "paced",
        dataset: rows(100),
        task: async (row) => row.question,
        scorers: [
          function same({ output, row }) {
            return output === row.question;
          },
        ],
        concurrency: 8,
        progress: false,
      });
      expect(small.stats().calls.dropped).toBe(0);
      const calls = await setup.trace(result.traceId);
      expect(calls.filter((c) => opName(c) === "Evaluation.predict_and_score" && c.ended_at)).toHaveLength(100);
      expect(result.summary.same).toEqual({ true_count: 100, true_fraction: 1 });
    } finally {
      await small.shutdown();
      setup.tracing = init({ baseUrl: setup.service.url, project: setup.project, env: {}, logger: quiet });
    }
  });
});

describe("retries", () => {
  it("retries a 429 (Retry-After) and a 503, and keeps the waits out of the row's latency", async () => {
    setup.standIn.failNext(1, 429, "1");
    setup.standIn.failNext(1, 503);
    const started = performance.now();
    const result = await evaluate({
      name: "rate-limited",
      dataset: [{ question: "hello" }],
      task: async (row) => {
        const c = await setup.openai.chat.completions.create({
          model: "m-echo",
          messages: [{ role: "user", content: row.question }],
        });
        return c.choices[0]!.message.content;
      },
      scorers: [
        function echoed({ output, row }) {
          return output === row.question;
        },
      ],
      retry: { baseDelayMs: 10 },
      progress: false,
    });
    const elapsed = (performance.now() - started) / 1000;
    expect(result.rows[0]).toMatchObject({ status: "ok", output: "hello", retries: 2, scores: { echoed: true } });
    expect(elapsed).toBeGreaterThan(1);
    expect(result.rows[0]!.latency!).toBeLessThan(0.5);
    expect((result.summary.model_latency as { mean: number }).mean).toBe(result.rows[0]!.latency);
    const calls = await setup.trace(result.traceId);
    const model = calls.find((c) => opName(c).endsWith(".predict"))!;
    // One model call; the failed attempts are its children, recorded as errors.
    const attempts = childrenOf(calls, model);
    expect(attempts.map((c) => Boolean(c.exception))).toEqual([true, true, false]);
    expect(model.exception).toBeNull();
  });

  it("gives up after `attempts` and marks the row failed; a 400 is not retried", async () => {
    setup.standIn.failNext(2, 500);
    const result = await evaluate({
      name: "gives-up",
      dataset: [{ question: "a" }, { question: "b" }],
      task: async (row) => {
        const model = row.question === "b" ? "m-status-400" : "m-echo";
        const c = await setup.openai.chat.completions.create({ model, messages: [{ role: "user", content: "x" }] });
        return c.choices[0]!.message.content;
      },
      retry: { attempts: 2, baseDelayMs: 1 },
      concurrency: 1,
      progress: false,
    });
    expect(result.rows.map((r) => [r.status, r.retries])).toEqual([
      ["failed", 0],
      ["failed", 0],
    ]);
    expect(result.rows[0]!.error).toMatch(/500/);
    expect(result.rows[1]!.error).toMatch(/400/);
    expect(setup.standIn.chatBodies().filter((b) => b.model === "m-status-400")).toHaveLength(1);
  });
});

describe("a task that throws", () => {
  it("fails that row (recorded with its error), skips its scorers, and the run goes on", async () => {
    let scored = 0;
    const result = await evaluate({
      name: "one-fails",
      dataset: rows(4),
      task: async (row) => {
        if (row.question === "q2") throw new TypeError("no answer for q2");
        return row.question.toUpperCase();
      },
      scorers: [
        function upper({ output }) {
          scored++;
          return output === output.toUpperCase();
        },
      ],
      retry: false,
      progress: false,
    });
    expect(scored).toBe(3);
    expect(result.counts).toMatchObject({ ok: 3, failed: 1 });
    expect(result.rows[2]).toMatchObject({ status: "failed", error: "TypeError: no answer for q2", scores: {} });
    expect(result.summary.upper).toEqual({ true_count: 3, true_fraction: 1 });
    const calls = await setup.trace(result.traceId);
    const failed = calls.find((c) => opName(c) === "Evaluation.predict_and_score" && c.id === result.rows[2]!.callId)!;
    expect(failed.output).toEqual({ output: null, scores: {}, model_latency: null });
    const [model] = childrenOf(calls, failed);
    expect(model!.exception).toBe("TypeError: no answer for q2");
    expect((failed.summary!.weave as { status: string }).status).toBe("descendant_error");
  });
});

describe("cancellation", () => {
  it("ends every open call as cancelled, keeps what was scored, and resolves with the partial result", async () => {
    const controller = new AbortController();
    let done = 0;
    const result = await evaluate({
      name: "cancelled",
      dataset: rows(20),
      task: async (row, { signal }) => {
        if (Number(row.question.slice(1)) >= 5) {
          // Never answers on its own: only the cancellation ends it.
          await new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
        }
        return row.question;
      },
      scorers: [
        function seen() {
          if (++done === 5) setTimeout(() => controller.abort(), 50);
          return true;
        },
      ],
      concurrency: 4,
      signal: controller.signal,
      progress: false,
    });
    expect(result.cancelled).toBe(true);
    expect(result.counts).toMatchObject({ ok: 5, cancelled: 15, failed: 0 });
    expect(result.summary.seen).toEqual({ true_count: 5, true_fraction: 1 });
    const calls = await setup.trace(result.traceId);
    const root = calls.find((c) => c.id === result.callId)!;
    expect(root.summary!.tracewire).toEqual({ status: "cancelled", cancel_reason: "abort" });
    expect(root.output).toEqual(result.summary);
    // The rows that were running (4 at a time) ended as cancelled with their model calls; none is left open.
    const open = calls.filter((c) => !c.ended_at);
    expect(open).toEqual([]);
    const cancelled = calls.filter(
      (c) => (c.summary?.tracewire as { status?: string } | undefined)?.status === "cancelled",
    );
    expect(cancelled.map(opName).sort()).toEqual(
      [
        "Evaluation.evaluate",
        ...Array(4).fill("Evaluation.predict_and_score"),
        ...Array(4).fill("Model.predict"),
      ].sort(),
    );
    expect(calls.filter((c) => opName(c) === "Evaluation.summarize")).toEqual([]);
  });
});
