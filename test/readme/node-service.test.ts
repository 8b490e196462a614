/**
 * README "Trace your own app" and the context helpers of docs/concepts.md. The README block runs verbatim with its
 * settings from the environment (as its comment says), against a stand-in tracing service: `answer` is recorded with
 * its display name and output, and `retrieve` nested under it; `tracing.shutdown()` has sent everything. The context
 * helpers block runs with that `answer` and puts the attributes on one call and the thread, as a turn, on the other.
 */
import { afterAll, expect, it } from "vitest";
import { init } from "../../src/index.js";
import { TracingDouble } from "../support/tracing-double.js";
import { docBlock, readmeBlock, runBlock, withEnv } from "./snippets.js";

/** The block's settings, from the environment: the stand-in's URL and a project; no API key (none is needed). */
const tracingEnv = (url: string) => ({
  TRACEWIRE_BASE_URL: url,
  TRACEWIRE_PROJECT: "acme/readme",
  TRACEWIRE_API_KEY: undefined,
});

let double: TracingDouble | undefined;
afterAll(() => double?.close());

it("the first block traces answer and the retrieve nested in it, and shutdown sends them", async () => {
  double = await TracingDouble.start();
  const declared = await withEnv(tracingEnv(double.url), () => runBlock(readmeBlock("## Trace your own app")));
  // No flush here: the block's own `await tracing.shutdown()` must have delivered everything.
  const [answer] = double.callsNamed("answer");
  const [retrieve] = double.callsNamed("retrieve");
  expect(answer?.start).toMatchObject({ project_id: "acme/readme", inputs: { question: "What is tracewire?" } });
  expect(answer?.end?.output).toBe("Based on 2 documents…");
  const renamed = [answer?.start?.display_name, ...double.updates.map((u) => u.display_name)];
  expect(renamed).toContain("answer: What is tracewire?");
  expect(retrieve?.start).toMatchObject({ parent_id: answer?.start?.id, trace_id: answer?.start?.trace_id });
  expect(retrieve?.end?.output).toEqual(["doc-1", "doc-2"]);
  expect(Object.keys(declared).sort()).toEqual(["answer", "retrieve", "tracing"]);
  expect((declared.tracing as { enabled: boolean }).enabled).toBe(true);
});

it("the context helpers block puts its attributes on one call and its thread, as a turn, on the other", async () => {
  const { answer } = await withEnv(tracingEnv(double!.url), () => runBlock(readmeBlock("## Trace your own app")));
  const tracing = init({ baseUrl: double!.url, project: "acme/context", env: {}, scheduledDelayMillis: 10 });
  try {
    await runBlock(docBlock("docs/concepts.md", "## Threads, turns and call attributes"), { answer });
    await tracing.flush();
  } finally {
    await tracing.shutdown();
  }
  const calls = double!.callsNamed("answer").filter((c) => c.start?.project_id === "acme/context");
  expect(calls).toHaveLength(2);
  const [withAttributes, withThread] = calls;
  expect(withAttributes!.start).toMatchObject({ attributes: { tenant: "acme", release: "2026.11" } });
  expect(withAttributes!.start).not.toHaveProperty("thread_id");
  expect(withThread!.start).toMatchObject({ thread_id: "conversation-42", turn_id: withThread!.start!.id });
  expect(withThread!.start!.attributes).not.toHaveProperty("tenant");
});
