/**
 * Awaited feedback settles as soon as the service has answered — no wait for the batch timer (3 s here) — and still
 * never reaches the service before its call: on the calls route after the call's start, on the OTLP route
 * (portable mode) after the call's span has been exported, even when the feedback is given while the call runs.
 */
import { describe, expect, it } from "vitest";
import { callById, getCurrentCall, op } from "../../src/index.js";
import { setupSessionPerTest } from "../support/tracing-session.js";

const DELAY = 3000;
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(["auto", "otlp"] as const)("export %s, scheduledDelayMillis 3000", (route) => {
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

  it("feedback given while the call runs waits for the call, then settles without the timer", async () => {
    let inside: Promise<unknown>[] = [];
    let endedAt = 0;
    const answer = op(async function runningAnswer() {
      const call = getCurrentCall()!;
      inside = [call.react("🔥"), call.note("given while running"), call.score("speed", 1)];
      await tick(100);
      endedAt = performance.now();
      return "done";
    });
    const [promise, call] = answer.invoke();
    await promise;
    await Promise.all(inside);
    expect(performance.now() - endedAt).toBeLessThan(DELAY / 3);
    expect(s.double.feedback.map((f) => f.feedback_type)).toEqual([
      "wandb.reaction.1",
      "wandb.note.1",
      "wandb.runnable.speed",
    ]);
    for (const fb of s.double.feedback) expect(fb).toMatchObject({ _callStartedBefore: true, weave_ref: call!.ref });
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
