/**
 * Library → local service → query, over both routes: `export: "auto"` (tracewire's calls natively through
 * `/call/upsert_batch`, the foreign span by OTLP protobuf) and `export: "otlp"` (everything as OTLP, portable
 * attributes), on SQLite and in memory. What comes back through `TracingClient.calls.streamQuery` must be one tree
 * with the same ids, inputs, outputs, usage, thread, attributes and feedback.
 */
import { trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import type { CallSchema } from "../../src/api/types/calls.js";
import { callOf, getCurrentCall, init, op, type TracewireHandle, withAttributes, withThread } from "../../src/index.js";
import { availableDrivers, collect, llm, PROJECT, startService, type TestService } from "./helpers.js";

let service: TestService | undefined;
let tracing: TracewireHandle | undefined;
let client: TracingClient | undefined;

afterEach(async () => {
  await tracing?.shutdown();
  await client?.close();
  await service?.close();
  tracing = undefined;
  client = undefined;
  service = undefined;
});

const agent = op(
  async function agent(question: string) {
    const answer = await llm(question);
    trace.getTracer("foreign-lib", "1.0.0").startActiveSpan("http GET", (span) => {
      span.setAttribute("http.request.method", "GET");
      span.end();
    });
    getCurrentCall()?.setDisplayName(`agent: ${question}`);
    return { answer, long: "x".repeat(2000) };
  },
  { parameterNames: ["question"] },
);

const failing = op(async function failing() {
  throw new Error("boom");
});

const storages = (await availableDrivers()).length ? (["sqlite", "memory"] as const) : (["memory"] as const);
const cases = (["auto", "otlp"] as const).flatMap((route) => storages.map((storage) => ({ route, storage })));

describe.each(cases)("route $route, storage $storage", ({ route, storage }) => {
  it("builds one tree with inputs, outputs, usage, thread, attributes and feedback", async () => {
    service = await startService({ storage });
    expect(service.server.storage).toBe(storage);
    tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10, export: route });
    const result = await withAttributes({ tenant: "t1" }, () => withThread("conv-1", () => agent("hi")));
    const call = callOf(result)!;
    await Promise.all([call.react("👍"), call.note("helpful")]);
    await expect(failing()).rejects.toThrow("boom");
    await tracing.flush();
    const stats = tracing.stats();
    expect(stats).toMatchObject({ calls: { dropped: 0, rejected: 0 }, otlp: { dropped: 0, rejected: 0 } });
    // Which way the spans went: the foreign span alone by OTLP in auto mode, all four spans in portable mode.
    expect(stats.otlp.sent).toBe(route === "auto" ? 1 : 4);

    client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
    const calls = await collect(
      client.calls.streamQuery({ filter: { trace_ids: [call.traceId] }, include_feedback: true }),
    );
    const byOp = (name: string): CallSchema => {
      const found = calls.filter((c) => c.op_name === name);
      expect(found, `calls named ${name} in ${calls.map((c) => c.op_name).join(", ")}`).toHaveLength(1);
      return found[0]!;
    };
    expect(calls).toHaveLength(3);

    const root = byOp("agent");
    expect(root).toMatchObject({
      id: call.id,
      trace_id: call.traceId,
      parent_id: null,
      display_name: "agent: hi",
      thread_id: "conv-1",
      turn_id: call.id,
      inputs: { question: "hi" },
      output: { answer: "answer to hi", long: "x".repeat(2000) },
      exception: null,
    });
    expect(root.id).toMatch(/^[0-9a-f]{16}$/);
    expect(root.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(root.attributes).toMatchObject({ tenant: "t1" });
    expect(root.summary).toMatchObject({ weave: { status: "success", trace_name: "agent: hi" } });

    const child = byOp("llm");
    expect(child).toMatchObject({ parent_id: root.id, trace_id: root.trace_id, thread_id: "conv-1" });
    expect(child.inputs).toEqual({ arg0: "hi" });
    expect(child.output).toBe("answer to hi");
    const usage = (child.summary as { usage: Record<string, Record<string, number>> }).usage;
    expect(Object.keys(usage)).toEqual(["gpt-4o-mini"]);
    expect(usage["gpt-4o-mini"]).toMatchObject({ total_tokens: 17, requests: 1 });
    // The native route sends prompt/completion tokens; OTLP ingestion maps the GenAI input/output counts.
    const counts = usage["gpt-4o-mini"]!;
    expect([counts.prompt_tokens ?? counts.input_tokens, counts.completion_tokens ?? counts.output_tokens]).toEqual([
      12, 5,
    ]);

    const foreign = byOp("http GET");
    expect(foreign).toMatchObject({ parent_id: root.id, trace_id: root.trace_id });
    expect(foreign.attributes).toMatchObject({ http: { request: { method: "GET" } } });

    const feedback = (root.summary as { weave: { feedback: { feedback_type: string; payload: unknown }[] } }).weave
      .feedback;
    expect(feedback.map((f) => [f.feedback_type, f.payload]).sort()).toEqual([
      ["wandb.note.1", { note: "helpful" }],
      ["wandb.reaction.1", { emoji: "👍", alias: ":thumbs_up:", detoned: "👍", detoned_alias: ":thumbs_up:" }],
    ]);

    const [failed] = await collect(client.calls.streamQuery({ filter: { op_names: ["failing"] } }));
    expect(failed?.exception).toContain("boom");
    expect(failed?.summary).toMatchObject({ weave: { status: "error" } });
    expect(await client.calls.queryStats({ filter: { trace_roots_only: true } })).toEqual({ count: 2 });
    const read = await client.calls.read({ id: child.id });
    expect(read.call).toMatchObject({ id: child.id, op_name: "llm", output: "answer to hi" });
  });
});
