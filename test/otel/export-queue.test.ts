/**
 * The export queue's shutdown with an export still in flight. The exporter here is the test's own (the queue is the
 * unit under test; it takes any exporter function): it answers only after the shutdown's abort, as a service whose
 * answer was already on its way would. Every item must end up counted exactly once, as sent or as dropped.
 */
import { expect, it } from "vitest";
import type { ExportOutcome } from "../../src/otel/export-outcome.js";
import { ExportQueue } from "../../src/otel/export-queue.js";

const OPTIONS = {
  maxQueueSize: 100,
  maxBatchSize: 10,
  scheduleDelayMs: 1,
  exportTimeoutMs: 60_000,
  retryBaseDelayMs: 10,
  retryMaxDelayMs: 10,
};

function queueWith(answer: "sent" | "failed") {
  const dropped: number[] = [];
  const queue: ExportQueue<number> = new ExportQueue<number>(
    (batch, signal) =>
      new Promise<ExportOutcome>((resolve) => {
        // The answer lands just after the abort: either the whole batch went through, or nothing did.
        signal.addEventListener("abort", () =>
          setTimeout(() => {
            if (answer === "sent") queue.countSent(batch.length);
            resolve(answer === "sent" ? { done: batch.length, retry: false } : { done: 0, retry: true });
          }, 20),
        );
      }),
    OPTIONS,
    (count) => dropped.push(count),
  );
  return { queue, dropped };
}

it.each(["sent", "failed"] as const)(
  "counts each item of a batch in flight at shutdown once (its answer: %s)",
  async (answer) => {
    const { queue } = queueWith(answer);
    for (let i = 0; i < 25; i++) queue.offer(i);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the first batch of 10 is now in flight
    await queue.shutdown(50); // the flush gives up; the in-flight batch is aborted

    const { sent, dropped, queued } = queue.stats;
    expect(queued).toBe(0);
    expect(sent + dropped).toBe(25);
    expect(sent).toBe(answer === "sent" ? 10 : 0);
    // Nothing changes afterwards either.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(queue.stats).toMatchObject({ sent, dropped, queued: 0 });
  },
);

/** A queue whose exporter records when each batch went out; `fail` makes the next `fail` exports ask for a retry. */
function timedQueue(scheduleDelayMs: number, options: { fail?: number; slowMs?: number } = {}) {
  const batches: { at: number; items: number[] }[] = [];
  let failures = options.fail ?? 0;
  const queue: ExportQueue<number> = new ExportQueue<number>(
    async (batch) => {
      batches.push({ at: performance.now(), items: [...batch] });
      if (options.slowMs) await new Promise((resolve) => setTimeout(resolve, options.slowMs));
      if (failures > 0) {
        failures--;
        return { done: 0, retry: true };
      }
      queue.countSent(batch.length);
      return { done: batch.length, retry: false };
    },
    { ...OPTIONS, scheduleDelayMs, retryBaseDelayMs: 300, retryMaxDelayMs: 300 },
    () => {},
  );
  return { queue, batches };
}

it("hurry() sends what is queued without the timer; whenFinished() runs once it is all done", async () => {
  const { queue, batches } = timedQueue(60_000);
  const start = performance.now();
  queue.offer(1);
  queue.offer(2);
  const finished = new Promise<number>((resolve) => queue.whenFinished(() => resolve(performance.now())));
  queue.hurry();
  const at = await finished;
  expect(at - start).toBeLessThan(500);
  expect(batches.map((b) => b.items)).toEqual([[1, 2]]);
  // Nothing queued: whenFinished runs at once.
  let ran = false;
  queue.whenFinished(() => {
    ran = true;
  });
  expect(ran).toBe(true);
  await queue.shutdown(100);
});

it("hurry() during an export in flight sends the rest right after it, in order", async () => {
  const { queue, batches } = timedQueue(60_000, { slowMs: 50 });
  for (let i = 0; i < 12; i++) queue.offer(i); // a full batch of 10 goes at once
  await new Promise((resolve) => setTimeout(resolve, 10));
  queue.offer(12);
  queue.hurry();
  await new Promise<void>((resolve) => queue.whenFinished(() => resolve()));
  expect(batches.map((b) => b.items)).toEqual([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [10, 11, 12],
  ]);
  expect(batches[1]!.at - batches[0]!.at).toBeLessThan(500);
  await queue.shutdown(100);
});

it("hurry() does not cut a retry backoff short", async () => {
  const { queue, batches } = timedQueue(1, { fail: 1 });
  queue.offer(1);
  await new Promise((resolve) => setTimeout(resolve, 30)); // the first export failed; a 300 ms backoff runs
  expect(batches).toHaveLength(1);
  queue.hurry();
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(batches).toHaveLength(1);
  await new Promise<void>((resolve) => queue.whenFinished(() => resolve()));
  expect(batches).toHaveLength(2);
  expect(batches[1]!.at - batches[0]!.at).toBeGreaterThanOrEqual(250);
  await queue.shutdown(100);
});
