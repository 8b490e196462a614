/**
 * `evaluate()` while tracing shuts down under it (the app's shutdown hook runs mid-evaluation): the evaluation's
 * promise settles — with its result, or a typed tracewire error — and never stays pending.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { evaluate } from "../../src/eval/index.js";
import { init, TracewireError, type TracewireHandle } from "../../src/index.js";
import { type DevServer, startDevServer } from "../../src/server/index.js";
import { quiet } from "./support.js";

let service: DevServer;
let tracing: TracewireHandle;
beforeAll(async () => {
  service = await startDevServer({ port: 0, storage: "memory", logger: quiet });
  tracing = init({ baseUrl: service.url, project: "acme/shutdown", env: {}, scheduledDelayMillis: 20, logger: quiet });
});
afterAll(async () => {
  await tracing.shutdown();
  await service.close();
});

it("shutdown() in the middle of evaluate(): the evaluation settles, resolved or typed", async () => {
  let started: () => void = () => {};
  const taskStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const running = evaluate({
    name: "cut-short",
    dataset: [{ q: "one" }, { q: "three" }],
    task: async function length(row: { q: string }) {
      started();
      await released;
      return row.q.length;
    },
    scorers: [
      function long({ output }: { output: number }) {
        return output > 3;
      },
    ],
    progress: false,
  }).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  const first = await Promise.race([taskStarted.then(() => "task started" as const), running]);
  expect(first).toBe("task started");
  await tracing.shutdown();
  release();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    running,
    new Promise<"pending">((resolve) => {
      timer = setTimeout(() => resolve("pending"), 15_000);
    }),
  ]);
  clearTimeout(timer);
  expect(outcome).not.toBe("pending");
  if (outcome !== "pending" && "error" in outcome) expect(outcome.error).toBeInstanceOf(TracewireError);
}, 30_000);
