/**
 * The client mirrors the service's feedback rules: each bad request is rejected by `Call` with a `ValidationError`
 * naming the rule, before anything is queued (nothing reaches the service, nothing is counted), and the same body
 * posted raw to the local service is refused with 400 and the same words. Good requests pass both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Call, init, op, type TracewireHandle, ValidationError } from "../../src/index.js";
import { PROJECT, send, startService, type TestService } from "../server/helpers.js";

let service: TestService;
let tracing: TracewireHandle;
let call: Call;
const ref = (kind: string, rest: string) => `weave:///${PROJECT}/${kind}/${rest}`;
const SCORER_CALL = ref("call", "00000000000000aa");

beforeAll(async () => {
  service = await startService({ storage: "memory" });
  tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
  const [, c] = op(function judged() {
    return "ok";
  }).invoke();
  call = c!;
  await tracing.flush();
});
afterAll(async () => {
  await tracing.shutdown();
  await service.close();
});

async function feedbackCount(): Promise<number> {
  const res = await send(service.url, "/feedback/query", { project_id: PROJECT });
  return (res.json as { result: unknown[] }).result.length;
}

interface RuleCase {
  rule: string;
  /** The request through the client. */
  run: (c: Call) => Promise<unknown>;
  /** The same record as the client would send it (defaults filled in), posted raw. */
  body: Record<string, unknown>;
  /** The rule's words, in both the client's error and the service's 400. */
  says: RegExp;
  param: string;
}

const CASES: RuleCase[] = [
  {
    rule: "reserved wandb.* type",
    run: (c) => c.feedback("wandb.thumbs.1", { up: true }),
    body: { feedback_type: "wandb.thumbs.1", payload: { up: true } },
    says: /reserved wandb\. namespace/,
    param: "feedback_type",
  },
  {
    rule: "annotation type without a name",
    run: (c) => c.feedback("wandb.annotation.", { value: 1 }),
    body: { feedback_type: "wandb.annotation.", payload: { value: 1 } },
    says: /reserved wandb\. namespace/,
    param: "feedback_type",
  },
  {
    rule: "one emoji: text",
    run: (c) => c.react("nice"),
    body: { feedback_type: "wandb.reaction.1", payload: { emoji: "nice" } },
    says: /exactly one emoji/,
    param: "payload.emoji",
  },
  {
    rule: "one emoji: two of them",
    run: (c) => c.react("👍👍"),
    body: { feedback_type: "wandb.reaction.1", payload: { emoji: "👍👍" } },
    says: /exactly one emoji/,
    param: "payload.emoji",
  },
  {
    rule: "note length",
    run: (c) => c.feedback("wandb.note.1", { note: "n".repeat(1025) }),
    body: { feedback_type: "wandb.note.1", payload: { note: "n".repeat(1025) } },
    says: /\{note\} of 1 to 1024 characters/,
    param: "payload.note",
  },
  {
    rule: "annotation_ref must be an object ref",
    run: (c) => c.annotate("tone", "friendly", { annotationRef: ref("op", "tone:latest") }),
    body: {
      feedback_type: "wandb.annotation.tone",
      payload: { value: "friendly" },
      annotation_ref: ref("op", "tone:latest"),
    },
    says: /annotation_ref must be an object ref/,
    param: "annotation_ref",
  },
  {
    rule: "annotation_ref names the annotation",
    run: (c) => c.annotate("tone", "friendly", { annotationRef: ref("object", "mood:latest") }),
    body: {
      feedback_type: "wandb.annotation.tone",
      payload: { value: "friendly" },
      annotation_ref: ref("object", "mood:latest"),
    },
    says: /annotation_ref must point to an object named tone/,
    param: "annotation_ref",
  },
  {
    rule: "annotation_ref in the same project",
    run: (c) => c.annotate("tone", "friendly", { annotationRef: "weave:///other/place/object/tone:latest" }),
    body: {
      feedback_type: "wandb.annotation.tone",
      payload: { value: "friendly" },
      annotation_ref: "weave:///other/place/object/tone:latest",
    },
    says: /annotation_ref .* is not in project acme\/demo/,
    param: "annotation_ref",
  },
  {
    rule: "annotation payload {value}",
    run: (c) => c.feedback("wandb.annotation.tone", { label: "friendly" }),
    body: {
      feedback_type: "wandb.annotation.tone",
      payload: { label: "friendly" },
      annotation_ref: ref("object", "tone:latest"),
    },
    says: /needs payload \{value\}/,
    param: "payload.value",
  },
  {
    rule: "annotation_ref only on annotations",
    run: (c) => c.feedback("acme.quality", { stars: 4 }, { annotationRef: ref("object", "quality:latest") }),
    body: { feedback_type: "acme.quality", payload: { stars: 4 }, annotation_ref: ref("object", "quality:latest") },
    says: /annotation_ref is only allowed for annotation feedback/,
    param: "annotation_ref",
  },
  {
    rule: "call_ref for a scorer op",
    run: (c) => c.score("correctness", 0.9, { runnableRef: ref("op", "correctness:latest") }),
    body: {
      feedback_type: "wandb.runnable.correctness",
      payload: { output: 0.9 },
      runnable_ref: ref("op", "correctness:latest"),
    },
    says: /call_ref is required for runnable feedback on ops/,
    param: "call_ref",
  },
  {
    rule: "runnable_ref names the scorer",
    run: (c) => c.score("correctness", 0.9, { runnableRef: ref("object", "relevance:latest") }),
    body: {
      feedback_type: "wandb.runnable.correctness",
      payload: { output: 0.9 },
      runnable_ref: ref("object", "relevance:latest"),
    },
    says: /runnable_ref must point to an op or object named correctness/,
    param: "runnable_ref",
  },
  {
    rule: "runnable_ref is an op or object ref",
    run: (c) => c.score("correctness", 0.9, { runnableRef: SCORER_CALL }),
    body: { feedback_type: "wandb.runnable.correctness", payload: { output: 0.9 }, runnable_ref: SCORER_CALL },
    says: /runnable_ref must be an op or object ref/,
    param: "runnable_ref",
  },
  {
    rule: "runnable payload {output}",
    run: (c) => c.feedback("wandb.runnable.correctness", { value: 0.9 }),
    body: {
      feedback_type: "wandb.runnable.correctness",
      payload: { value: 0.9 },
      runnable_ref: ref("object", "correctness:latest"),
    },
    says: /needs payload \{output\}/,
    param: "payload.output",
  },
  {
    rule: "call_ref is a call ref",
    run: (c) => c.score("correctness", 0.9, { callRef: ref("object", "x:1") }),
    body: {
      feedback_type: "wandb.runnable.correctness",
      payload: { output: 0.9 },
      runnable_ref: ref("op", "correctness:latest"),
      call_ref: ref("object", "x:1"),
    },
    says: /call_ref must be a call ref/,
    param: "call_ref",
  },
  {
    rule: "call_ref only on runnable feedback",
    run: (c) => c.feedback("acme.quality", { stars: 4 }, { callRef: SCORER_CALL }),
    body: { feedback_type: "acme.quality", payload: { stars: 4 }, call_ref: SCORER_CALL },
    says: /call_ref is only allowed for runnable feedback/,
    param: "call_ref",
  },
];

describe("the client refuses what the service refuses, naming the rule, before queueing anything", () => {
  it.each(CASES.map((c) => ({ ...c, title: c.rule })))("$title", async (c) => {
    const before = tracing.stats().calls;
    const stored = await feedbackCount();
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = c.run(call);
    }, "never throws synchronously").not.toThrow();
    const err = await promise!.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).message).toMatch(c.says);
    expect((err as ValidationError).param).toBe(c.param);
    // Nothing was queued: no item offered on either route.
    const after = tracing.stats().calls;
    expect(after.queued + after.sent + after.dropped + after.rejected).toBe(
      before.queued + before.sent + before.dropped + before.rejected,
    );
    await tracing.flush();
    expect(await feedbackCount()).toBe(stored);

    // The local service, given the same record raw, refuses it in the same words.
    const res = await send(service.url, "/feedback/create", { project_id: PROJECT, weave_ref: call.ref, ...c.body });
    expect(res.status).toBe(400);
    expect((res.json as { reason: string }).reason).toBe((err as Error).message);
  });

  it("good requests pass both, each settling with the service's answer", async () => {
    const results = await Promise.all([
      call.react("👍🏽"),
      call.react("🏳️‍🌈"),
      call.react("❤"),
      call.note("x"),
      call.feedback("wandb.annotation.tone", { value: "friendly" }),
      call.annotate("tone", "calm", { annotationRef: ref("object", "tone:v2") }),
      call.score("correctness", 0.9),
      call.score("correctness", 1, { callRef: SCORER_CALL }),
      call.feedback("acme.quality", { stars: 4 }),
    ]);
    for (const r of results) expect(r).toMatchObject({ id: expect.any(String), wb_user_id: "local-user" });
    expect(tracing.stats().calls.rejected).toBe(0);
  });
});
