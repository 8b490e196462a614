/**
 * The export queue's shutdown with an export still in flight. The exporter here is the test's own (the queue is the
 * unit under test; it takes any exporter function): it answers only after the shutdown's abort, as a service whose
 * answer was already on its way would. Every item must end up counted exactly once, as sent or as dropped.
 */
import { expect, it } from "vitest";
import { type ExportOutcome, ExportQueue } from "../../src/otel/export-queue.js";

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
