/**
 * A wrong or revoked API key (401/403) refuses the whole request, not one item in it: each route sends one request
 * per batch (no bisection storm against the auth endpoint), counts every item of it as rejected, warns once with the
 * status and what to check (never the key), and backs off before the next batch.
 */
import { expect, it, vi } from "vitest";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { burst, PATHS } from "./support.js";

const KEY = "sk-test-revoked-key-0123456789";
const session = setupSessionPerTest({ apiKey: KEY, exportTimeoutMillis: 2000, otlpTimeoutMillis: 2000 });

it.each([401, 403])("%i: one request per batch on each route, every item counted, one warning", async (status) => {
  const { double, tracing, logs } = session;
  double.down([PATHS.calls, PATHS.otlp], { status, body: { reason: status === 401 ? "Unauthorized" : "Forbidden" } });

  // 20 calls = 40 call items (a start and an end each) in one batch, and 20 foreign spans in one OTLP batch.
  burst(20, 0);
  await tracing.flush();
  expect(double.server.received("POST", PATHS.calls)).toHaveLength(1);
  expect(double.server.received("POST", PATHS.otlp)).toHaveLength(1);
  expect(tracing.stats().calls).toMatchObject({ sent: 0, rejected: 40, dropped: 0, queued: 0, retries: 0 });
  expect(tracing.stats().otlp).toMatchObject({ sent: 0, rejected: 20, dropped: 0, queued: 0, retries: 0 });

  // The next batch waits for a backoff (1 s) instead of going at once.
  burst(20, 20);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(double.server.received("POST", PATHS.calls)).toHaveLength(1);
  await vi.waitFor(() => expect(double.server.received("POST", PATHS.calls)).toHaveLength(2), { timeout: 5000 });
  await tracing.flush();
  expect(double.server.received("POST", PATHS.calls)).toHaveLength(2);
  expect(double.server.received("POST", PATHS.otlp)).toHaveLength(2);
  expect(tracing.stats().calls).toMatchObject({ sent: 0, rejected: 80, dropped: 0, queued: 0 });
  expect(tracing.stats().otlp).toMatchObject({ sent: 0, rejected: 40, dropped: 0, queued: 0 });

  // One warning for both routes and both batches: the status and what to check, never the key.
  const warnings = logs.filter((l) => l.message.includes(String(status)));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]!.message).toMatch(/TRACEWIRE_API_KEY/);
  expect(warnings[0]!.message).toMatch(/rejected/);
  for (const line of logs) expect(line.message).not.toContain(KEY);
  expect(logs.filter((l) => l.level === "error")).toEqual([]);
  expect(tracing.stats().internalErrors).toBe(0);
});

it("a feedback request refused with 401 settles with the error and counts once", async () => {
  const { double, tracing } = session;
  double.down(["/feedback/create"], { status: 401 });
  const { callIds } = burst(2, 0);
  const pending = tracing.processor!.enqueueRequest("/feedback/create", {
    project_id: "acme/demo",
    weave_ref: `weave:///acme/demo/call/${callIds[0]}`,
    feedback_type: "wandb.reaction.1",
    payload: { emoji: "👍" },
  });
  await expect(pending).rejects.toMatchObject({ status: 401 });
  await tracing.flush();
  expect(double.server.received("POST", "/feedback/create")).toHaveLength(1);
  // 2 calls (4 items) sent, the feedback request rejected.
  expect(tracing.stats().calls).toMatchObject({ sent: 4, rejected: 1, dropped: 0, queued: 0 });
});
