/**
 * Call: feedback, scores and renames, checked as the exact bodies the service receives, and their ordering
 * behind the call's start.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Call, callById, getCurrentCall, op, ValidationError } from "../../src/index.js";
import { type Session, setupSession, startSession } from "../support/tracing-session.js";

/** A feedback record as sent, without the double's bookkeeping fields. */
function sent(entry: Record<string, unknown>): Record<string, unknown> {
  const { _seq, _callStartedBefore, ...body } = entry;
  return body;
}

describe("feedback and renames on the wire", () => {
  let s: Session;
  let call: Call;
  let ref: string;
  beforeAll(async () => {
    s = await startSession();
    const answer = op(function answerQuestion(q: string) {
      return `answer to ${q}`;
    });
    const [, c] = answer.invoke("life");
    call = c!;
    ref = `weave:///acme/demo/call/${call.id}`;
    await s.tracing.flush();
  });
  afterAll(async () => {
    await s.stop();
  });

  /** Runs `send`, flushes, and returns the feedback bodies that arrived meanwhile. */
  async function arrivals(send: () => Promise<unknown>) {
    const before = s.double.feedback.length;
    const res = await send();
    await s.tracing.flush();
    return { res, bodies: s.double.feedback.slice(before).map(sent) };
  }

  it("react(emoji) sends wandb.reaction.1 {emoji} and resolves with the service's answer", async () => {
    const { res, bodies } = await arrivals(() => call.react("👍"));
    expect(bodies).toEqual([
      { project_id: "acme/demo", weave_ref: ref, feedback_type: "wandb.reaction.1", payload: { emoji: "👍" } },
    ]);
    expect(res).toMatchObject({ id: expect.stringMatching(/^fb-/), payload: { emoji: "👍" } });
  });

  it("note(text) sends wandb.note.1 {note} for 1 and 1024 characters", async () => {
    const long = "n".repeat(1024);
    const { bodies } = await arrivals(async () => {
      await call.note("x");
      await call.note(long);
    });
    expect(bodies).toEqual([
      { project_id: "acme/demo", weave_ref: ref, feedback_type: "wandb.note.1", payload: { note: "x" } },
      { project_id: "acme/demo", weave_ref: ref, feedback_type: "wandb.note.1", payload: { note: long } },
    ]);
  });

  it("rejects a note of 0 or 1025 characters with ValidationError, before sending anything", async () => {
    const requests = s.double.server.requests.length;
    await expect(call.note("")).rejects.toThrow(ValidationError);
    await expect(call.note("n".repeat(1025))).rejects.toThrow(ValidationError);
    await expect(call.note("n".repeat(1025))).rejects.toThrow(/1024/);
    await s.tracing.flush();
    expect(s.double.server.requests.length).toBe(requests);
  });

  it("feedback(): custom types go through; an unknown wandb.* type is a ValidationError", async () => {
    const requests = s.double.server.requests.length;
    await expect(call.feedback("wandb.thumbs.2", { up: true })).rejects.toThrow(ValidationError);
    await expect(call.feedback("wandb.reaction.2", { emoji: "x" })).rejects.toThrow(ValidationError);
    await s.tracing.flush();
    expect(s.double.server.requests.length).toBe(requests);

    // A misspelt option is refused (the creator would otherwise be dropped without a word), nothing sent.
    const slip = call.feedback("acme.quality", { stars: 1 }, { creater: "qa-bot" } as object);
    await expect(slip).rejects.toThrow(ValidationError);
    await expect(slip).rejects.toThrow(/unknown option creater \(did you mean creator\?\)/);
    await s.tracing.flush();
    expect(s.double.server.requests.length).toBe(requests);

    const { bodies } = await arrivals(() =>
      call.feedback("acme.quality", { stars: 4, tags: ["concise"], at: new Date(0) }, { creator: "qa-bot" }),
    );
    expect(bodies).toEqual([
      {
        project_id: "acme/demo",
        weave_ref: ref,
        feedback_type: "acme.quality",
        payload: { stars: 4, tags: ["concise"], at: "1970-01-01T00:00:00.000Z" },
        creator: "qa-bot",
      },
    ]);
  });

  it("annotate(name, value) sends wandb.annotation.<name> {value} with annotation_ref", async () => {
    const annotationRef = "weave:///acme/demo/object/correctness:latest";
    const { bodies } = await arrivals(() => call.annotate("correctness", "yes", { annotationRef }));
    expect(bodies).toEqual([
      {
        project_id: "acme/demo",
        weave_ref: ref,
        feedback_type: "wandb.annotation.correctness",
        payload: { value: "yes" },
        annotation_ref: annotationRef,
      },
    ]);
  });

  it("score(name, value) sends runnable feedback {output} with the default or a given runnable_ref", async () => {
    const scorerCall = "weave:///acme/demo/call/00000000000000aa";
    const { bodies } = await arrivals(async () => {
      await call.score("relevance", 0.87);
      await call.score(
        "toxicity",
        { flagged: false },
        { runnableRef: "weave:///acme/demo/op/toxicity:abc123", callRef: scorerCall },
      );
      await call.score("brevity", 1, { callRef: scorerCall });
    });
    expect(bodies).toEqual([
      {
        project_id: "acme/demo",
        weave_ref: ref,
        feedback_type: "wandb.runnable.relevance",
        payload: { output: 0.87 },
        runnable_ref: "weave:///acme/demo/object/relevance:latest",
      },
      {
        project_id: "acme/demo",
        weave_ref: ref,
        feedback_type: "wandb.runnable.toxicity",
        payload: { output: { flagged: false } },
        runnable_ref: "weave:///acme/demo/op/toxicity:abc123",
        call_ref: scorerCall,
      },
      {
        project_id: "acme/demo",
        weave_ref: ref,
        feedback_type: "wandb.runnable.brevity",
        payload: { output: 1 },
        runnable_ref: "weave:///acme/demo/op/brevity:latest",
        call_ref: scorerCall,
      },
    ]);
  });

  it("never throws synchronously: every bad argument is a rejected promise carrying a ValidationError", async () => {
    const requests = s.double.server.requests.length;
    const bad: [string, () => Promise<unknown>][] = [
      ["react('')", () => call.react("")],
      ["react(1)", () => call.react(1 as never)],
      ["react('two words')", () => call.react("two words")],
      ["note('')", () => call.note("")],
      ["note(null)", () => call.note(null as never)],
      ["feedback('', {})", () => call.feedback("", {})],
      ["feedback('x', null)", () => call.feedback("x", null as never)],
      ["feedback('x', {}, null)", () => call.feedback("x", {}, null as never)],
      [
        "feedback('wandb.runnable.x', {output: 1}, {runnableRef: 'nope'})",
        () => call.feedback("wandb.runnable.x", { output: 1 }, { runnableRef: "nope" }),
      ],
      ["annotate('', 1)", () => call.annotate("", 1)],
      ["annotate('a b', 1)", () => call.annotate("a b", 1)],
      ["score('', 1)", () => call.score("", 1)],
      ["score('a:b', 1)", () => call.score("a:b", 1)],
      ["score('x', 1, 'opts')", () => call.score("x", 1, "opts" as never)],
      ["setDisplayName(9)", () => call.setDisplayName(9 as never)],
    ];
    for (const [what, run] of bad) {
      let promise: Promise<unknown> | undefined;
      expect(() => {
        promise = run();
      }, what).not.toThrow();
      await expect(promise, what).rejects.toBeInstanceOf(ValidationError);
    }
    await s.tracing.flush();
    expect(s.double.server.requests.length).toBe(requests);
  });

  it("setDisplayName(name) sends /call/update {project_id, call_id, display_name}", async () => {
    const before = s.double.updates.length;
    await expect(call.setDisplayName("Life, the universe")).resolves.toBeUndefined();
    await s.tracing.flush();
    expect(s.double.updates.slice(before)).toEqual([
      { project_id: "acme/demo", call_id: call.id, display_name: "Life, the universe" },
    ]);
    await expect(call.setDisplayName("")).rejects.toThrow(ValidationError);
  });

  it("callById(id) addresses a call recorded elsewhere", async () => {
    const foreign = callById("0123456789abcdef");
    expect(foreign.id).toBe("0123456789abcdef");
    expect(foreign.ref).toBe("weave:///acme/demo/call/0123456789abcdef");
    const { bodies } = await arrivals(() => foreign.react("🎉"));
    expect(bodies).toEqual([
      {
        project_id: "acme/demo",
        weave_ref: "weave:///acme/demo/call/0123456789abcdef",
        feedback_type: "wandb.reaction.1",
        payload: { emoji: "🎉" },
      },
    ]);
    // Never a synchronous throw: a malformed id makes a handle whose requests reject.
    await expect(callById("").react("🎉")).rejects.toThrow(ValidationError);
  });
});

describe("feedback waits for the call's start", () => {
  // A long schedule delay: the call's start is still queued when the feedback is created.
  const s = setupSession({ scheduledDelayMillis: 60_000 });

  it("sends feedback and renames created inside the op only after the call's start", async () => {
    const pending: Promise<unknown>[] = [];
    const judged = op(function judgedInside() {
      const call = getCurrentCall()!;
      pending.push(call.react("🔥"), call.note("created while the start was queued"), call.score("speed", 1));
      pending.push(call.setDisplayName("Renamed early"));
      return "ok";
    });
    expect(judged()).toBe("ok");
    // Nothing has gone out yet: the start is still waiting in the queue.
    expect(s.double.server.requests).toHaveLength(0);

    await s.tracing.flush();
    await Promise.all(pending);
    const call = await s.only("judgedInside");
    expect(s.double.feedback).toHaveLength(3);
    for (const fb of s.double.feedback) {
      expect(fb._callStartedBefore).toBe(true);
      expect(fb._seq as number).toBeGreaterThan(call.startSeq!);
      expect(fb.weave_ref).toBe(`weave:///acme/demo/call/${call.start.id}`);
    }
    expect(s.double.feedback.map((f) => f.feedback_type)).toEqual([
      "wandb.reaction.1",
      "wandb.note.1",
      "wandb.runnable.speed",
    ]);
    expect(s.double.updates).toEqual([
      { project_id: "acme/demo", call_id: call.start.id, display_name: "Renamed early" },
    ]);
    expect(s.double.updateArrivals[0]).toMatchObject({ callStartedBefore: true });
    expect(s.double.updateArrivals[0]!.seq).toBeGreaterThan(call.startSeq!);
  });
});
