/**
 * Awaited feedback settles as soon as the service has answered — no wait for the batch timer (30 s here) — and still
 * never reaches the service before its call: on the calls route after the call's start, on the OTLP route
 * (portable mode) after the call's span has been exported, even when the feedback is given while the call runs. On
 * the OTLP route, feedback awaited inside the running call resolves at once with a receipt (the service cannot
 * answer before the call ends, and the call ends only after the await): it never hangs the app.
 */
import { describe, expect, it } from "vitest";
import { callById, getCurrentCall, op } from "../../src/index.js";
import { setupSessionPerTest } from "../support/tracing-session.js";

// Long enough that "sent without the timer" and "waited for it" cannot be confused on a loaded machine.
const DELAY = 30_000;
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `promise`, or a failure naming the hang after 5 s (well below the test's own timeout). */
function within<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms: it hangs`)), ms);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

/** Polls `check` until it holds (or 5 s pass). */
async function until(check: () => boolean): Promise<void> {
  for (const started = performance.now(); !check() && performance.now() - started < 5000; ) await tick(5);
}

describe.each(["auto", "otlp"] as const)("export %s, scheduledDelayMillis 30 s", (route) => {
  const s = setupSessionPerTest({ scheduledDelayMillis: DELAY, export: route });

  it("an awaited react() on a finished call settles in one round trip, after its call reached the service", async () => {
    const answer = op(async function timedAnswer() {
      await tick(5);
      return { text: "42" };
    });
    const [promise, call] = answer.invoke();
    await promise;
    const started = performance.now();
    const res = await call!.react("👍");
    expect(performance.now() - started).toBeLessThan(DELAY / 3);
    expect(res).toMatchObject({ payload: { emoji: "👍" } });
    expect(s.double.feedback).toHaveLength(1);
    expect(s.double.feedback[0]).toMatchObject({ _callStartedBefore: true, weave_ref: call!.ref });
    if (route === "otlp") expect(s.double.spans.map((sp) => sp.spanId)).toContain(call!.id);
  });

  it("feedback awaited inside the running call settles without waiting for the call, and arrives after it", async () => {
    let results: unknown[] = [];
    let endedAt = 0;
    const answer = op(async function runningAnswer() {
      const call = getCurrentCall()!;
      // The README's pattern, awaited inside the op: on the OTLP route this used to hang forever.
      results = await within(Promise.all([call.react("🔥"), call.note("given while running"), call.score("speed", 1)]));
      endedAt = performance.now();
      return "done";
    });
    const [promise, call] = answer.invoke();
    expect(await within(promise)).toBe("done");
    // Without the timer: the feedback follows the call at once (on the OTLP route, right after its span's export).
    await until(() => s.double.feedback.length === 3);
    expect(performance.now() - endedAt).toBeLessThan(DELAY / 3);
    expect(s.double.feedback.map((f) => f.feedback_type)).toEqual([
      "wandb.reaction.1",
      "wandb.note.1",
      "wandb.runnable.speed",
    ]);
    for (const fb of s.double.feedback) expect(fb).toMatchObject({ _callStartedBefore: true, weave_ref: call!.ref });
    if (route === "auto") {
      // The calls route: the call's start went first, so the service answered before the op went on.
      expect(results).toEqual(
        s.double.feedback.map((_, i) => expect.objectContaining({ id: `fb-${i + 1}`, wb_user_id: "user" })),
      );
    } else {
      // The OTLP route: a receipt, whose id the feedback carries (so the service stores it under that id).
      expect(results).toEqual(
        s.double.feedback.map((fb) => ({
          id: fb.id,
          created_at: expect.any(String),
          wb_user_id: "",
          payload: fb.payload,
        })),
      );
      expect(s.double.feedback[0]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it("the issue's repro: await getCurrentCall()?.react() inside an op returns", async () => {
    const answer = op(async function answer(q: string) {
      await getCurrentCall()?.react("👍");
      return `ok: ${q}`;
    });
    expect(await within(answer("hi"))).toBe("ok: hi");
    await s.tracing.flush();
    expect(s.double.feedback).toEqual([
      expect.objectContaining({ _callStartedBefore: true, payload: { emoji: "👍" } }),
    ]);
  });

  it("setDisplayName() and callById() feedback settle without the timer too", async () => {
    const [promise, call] = op(async function renamed() {
      return 1;
    }).invoke();
    await promise;
    const started = performance.now();
    await call!.setDisplayName("renamed at once");
    await callById("0123456789abcdef").react("🎉");
    expect(performance.now() - started).toBeLessThan(DELAY / 3);
    expect(s.double.feedback).toHaveLength(1);
    expect(s.double.updates).toEqual([{ project_id: "acme/demo", call_id: call!.id, display_name: "renamed at once" }]);
  });
});
