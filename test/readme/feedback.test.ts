/**
 * docs/reliability.md "Feedback and scores": the block runs verbatim against the local service (`tracewire dev`, in-process),
 * on both routes, and every `await` in it settles once the service has answered — not one batch timer later (the
 * schedule delay here is 3 s; the whole block must take well under one).
 */
import { afterEach, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { getCurrentCall, init, op, type TracewireHandle } from "../../src/index.js";
import { PROJECT, startService, type TestService } from "../server/helpers.js";
import { docBlock, runBlock } from "./snippets.js";

let service: TestService | undefined;
let tracing: TracewireHandle | undefined;
let client: TracingClient | undefined;

afterEach(async () => {
  await tracing?.shutdown();
  await client?.close();
  await service?.close();
  tracing = client = service = undefined;
});

// The README's own `answer` op ("Trace your own app"), which the feedback block uses.
const retrieve = op(async function retrieve(_query: string) {
  return ["doc-1", "doc-2"];
});
const answer = op(
  async function answer(question: string) {
    const docs = await retrieve(question);
    getCurrentCall()?.setDisplayName(`answer: ${question.slice(0, 30)}`);
    return `Based on ${docs.length} documents…`;
  },
  { parameterNames: ["question"] },
);

describe.each(["auto", "otlp"] as const)("docs feedback block, export %s", (route) => {
  it("runs verbatim against the local service, each await settling without the batch timer", async () => {
    service = await startService({ storage: "memory" });
    tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 60_000, export: route });
    const block = docBlock("docs/reliability.md", "## Feedback and scores");
    expect(block).toContain('await call?.score("correctness", 0.9);');

    // The block's `call`: captured by wrapping `answer.invoke` for this run only.
    let call: { id: string; ref: string } | undefined;
    const spy = {
      invoke: (...args: [string]) => {
        const pair = answer.invoke(...args);
        call = pair[1];
        return pair;
      },
    };
    const started = performance.now();
    await runBlock(block, { answer: spy });
    const elapsed = performance.now() - started;
    expect(call).toBeDefined();
    // Five awaited requests, each one round trip (the OTLP route adds the span's export): far below one 60 s timer
    // (the bound leaves room for a loaded machine; waiting for the timer even once would exceed it).
    expect(elapsed).toBeLessThan(10_000);

    await tracing.flush();
    expect(tracing.stats()).toMatchObject({ calls: { rejected: 0, dropped: 0 }, otlp: { rejected: 0, dropped: 0 } });
    client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
    const rows = (await client.feedback.query({})).result;
    const own = rows.filter((r) => r.weave_ref === call!.ref);
    expect(own.map((r) => [r.feedback_type, r.payload])).toEqual([
      ["wandb.reaction.1", { emoji: "👍", alias: ":thumbs_up:", detoned: "👍", detoned_alias: ":thumbs_up:" }],
      ["wandb.note.1", { note: "Great answer, cite sources next time" }],
      ["wandb.runnable.correctness", { output: 0.9 }],
      ["wandb.annotation.tone", { value: "friendly" }],
    ]);
    expect(own[2]).toMatchObject({ runnable_ref: `weave:///${PROJECT}/object/correctness:latest` });
    expect(own[3]).toMatchObject({ annotation_ref: `weave:///${PROJECT}/object/tone:latest` });
    const other = rows.filter((r) => r.weave_ref === `weave:///${PROJECT}/call/018f1f2a9c2b7d3e`);
    expect(other.map((r) => [r.feedback_type, r.payload])).toEqual([
      ["wandb.reaction.1", { emoji: "👎", alias: ":thumbs_down:", detoned: "👎", detoned_alias: ":thumbs_down:" }],
    ]);
    // The call itself is there too, on either route.
    const stored = await client.calls.read({ id: call!.id });
    expect(stored.call).toMatchObject({ id: call!.id, display_name: "answer: Is it fast?" });
  });
});
