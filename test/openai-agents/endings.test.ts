/**
 * How an Agents SDK run's calls end: a model error fails the model call and every call above it with `error.type`
 * (the HTTP status); a tool that throws fails its tool call only (the SDK goes on); a streamed run aborted through its
 * signal, or left by a consumer who stopped reading, ends every call once, as cancelled; traces that never end are
 * bounded (the oldest end as abandoned); replacing tracewire's processor ends what it still has open.
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/index.js";
import { tracewireTraceProcessor } from "../../src/instrument/openai-agents.js";
import { HAS_AGENTS, named, one, recorded, setupAgents, summaryOf } from "./support.js";

const t = setupAgents();

function genAi(call: { end: Record<string, unknown> }): Record<string, unknown> {
  return (summaryOf(call as never).gen_ai ?? {}) as Record<string, unknown>;
}

function cancelled(call: { end: Record<string, unknown> }): unknown {
  return (summaryOf(call as never).tracewire as Record<string, unknown> | undefined)?.status;
}

function cancelReason(call: { end?: Record<string, unknown> | undefined }): unknown {
  const summary = (call.end?.summary ?? {}) as { tracewire?: { cancel_reason?: string } };
  return summary.tracewire?.cancel_reason;
}

/** Flushes tracing, then reads `value`. */
async function flushed<T>(value: () => T): Promise<T> {
  await t.session.tracing.flush();
  return value();
}

describe.skipIf(!HAS_AGENTS)("OpenAI Agents SDK: errors, aborts and runs that never end", () => {
  it("a model error fails the model call and the calls above it, with error.type", async () => {
    t.use(tracewireTraceProcessor());
    const agent = new t.agents.Agent({ name: "Broken", model: "m-status-500" });
    await expect(t.runner(t.client()).run(agent, "hi")).rejects.toThrow(/500/);
    await new Promise((resolve) => setImmediate(resolve));
    const calls = await recorded(t.session);
    const model = one(calls, "openai_agents.response");
    expect(model.end.exception).toMatch(/500 Stand-in error 500/);
    expect(genAi(model).error_type).toBe("500");
    for (const op of ["openai_agents.turn", "openai_agents.agent", "openai_agents.task"]) {
      const call = one(calls, op);
      expect(call.end.exception, op).toMatch(/Error in agent run: Error: 500 Stand-in error 500/);
      expect(genAi(call).error_type, op).toBe("500");
    }
    // The SDK never ends the trace of a run that threw: the workflow ends with the run's failure.
    const workflow = one(calls, "Agent workflow");
    expect(workflow.end.exception).toMatch(/Error in agent run: Error: 500 Stand-in error 500/);
    expect(genAi(workflow).error_type).toBe("500");
  });

  it("a tool that throws fails its own call; the run goes on", async () => {
    t.use(tracewireTraceProcessor());
    const [, time] = t.tools();
    const broken = t.agents.tool({
      name: "get_weather",
      description: "The weather in a city",
      parameters: {
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
        additionalProperties: false,
      },
      strict: true,
      execute: async () => {
        throw new Error("weather service down");
      },
    });
    const agent = new t.agents.Agent({ name: "Weather", model: "gpt-4o-mini", tools: [broken, time!] });
    await t.runner(t.client()).run(agent, "Weather in Lyon?");
    const calls = await recorded(t.session);
    const weather = named(calls, "openai_agents.tool").find((c) => c.start.display_name === "get_weather")!;
    expect(weather.end.exception).toMatch(/^Error running tool/);
    expect(genAi(weather).error_type).toBe("tool_error");
    expect(weather.end.output).toBe("An error occurred while running the tool. Please try again.");
    expect(one(calls, "openai_agents.agent").end.exception).toBeUndefined();
  });

  it("a streamed run aborted through its signal ends every call once, as cancelled", async () => {
    t.use(tracewireTraceProcessor());
    const agent = new t.agents.Agent({ name: "Slow", model: "m-slow" });
    const controller = new AbortController();
    const result = await t.runner(t.client()).run(agent, "hi", { stream: true, signal: controller.signal });
    let events = 0;
    for await (const _event of result) if (++events === 5) controller.abort();
    await result.completed.catch(() => {});
    expect(result.cancelled).toBe(true);
    const calls = await recorded(t.session);
    expect(calls.map((c) => c.start.op_name).sort()).toEqual([
      "Agent workflow",
      "openai_agents.agent",
      "openai_agents.response",
      "openai_agents.task",
      "openai_agents.turn",
    ]);
    for (const call of calls) {
      expect(cancelled(call), String(call.start.op_name)).toBe("cancelled");
      expect(call.end.exception).toBeUndefined();
    }
    const model = one(calls, "openai_agents.response");
    expect(model.start.inputs).toMatchObject({ input: [{ role: "user", content: "hi" }] });
  });

  it("a streamed run that fails mid-stream ends every call once, the model call and those above it failed", async () => {
    t.use(tracewireTraceProcessor());
    const agent = new t.agents.Agent({ name: "Flaky", model: "m-error-event" });
    const result = await t.runner(t.client()).run(agent, "hi", { stream: true });
    await expect(
      (async () => {
        for await (const _event of result) {
          // read until it fails
        }
        await result.completed;
      })(),
    ).rejects.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    const calls = await recorded(t.session);
    expect(calls).toHaveLength(5);
    const model = one(calls, "openai_agents.response");
    expect(model.end.exception).toBeDefined();
    for (const op of ["openai_agents.turn", "openai_agents.agent", "openai_agents.task"])
      expect(one(calls, op).end.exception, op).toMatch(/^Error in agent run/);
    for (const call of calls) expect(cancelled(call)).toBeUndefined();
  });

  it("a consumer that stops reading a streamed run: its calls end once, as cancelled", async () => {
    t.use(tracewireTraceProcessor());
    const agent = new t.agents.Agent({ name: "Slow", model: "m-slow" });
    const result = await t.runner(t.client()).run(agent, "hi", { stream: true });
    let events = 0;
    for await (const _event of result) if (++events === 5) break;
    await result.completed.catch(() => {});
    await expect.poll(() => flushed(() => t.session.double.calls.size)).toBe(5);
    const calls = await recorded(t.session);
    for (const call of calls) expect(cancelled(call), String(call.start.op_name)).toBe("cancelled");
  });

  it("traces that never end are bounded: past maxRuns the oldest end as abandoned", async () => {
    const processor = tracewireTraceProcessor({ maxRuns: 20 });
    t.use(processor);
    const provider = t.agents.getGlobalTraceProvider();
    for (let i = 0; i < 50; i++) await provider.createTrace({ name: `never-${i}` }).start();
    const calls = await recorded(t.session).catch(() => undefined);
    expect(calls, "every trace started; the evicted ones ended").toBeUndefined();
    await t.session.tracing.flush();
    const all = [...t.session.double.calls.values()];
    expect(all).toHaveLength(50);
    const open = all.filter((c) => c.ends === 0);
    expect(open.length).toBeLessThanOrEqual(20);
    const abandoned = all.filter((c) => c.ends === 1);
    expect(abandoned.length).toBeGreaterThanOrEqual(30);
    for (const call of abandoned) expect(cancelReason(call)).toBe("abandoned");
    // The oldest went first.
    expect(abandoned.map((c) => c.start?.op_name)).toContain("never-0");
    expect(open.map((c) => c.start?.op_name)).toContain("never-49");
    // Replacing the processor ends what it still had open, as cancelled (shutdown).
    t.agents.setTraceProcessors([]);
    await expect.poll(() => flushed(() => all.filter((c) => c.ends === 0).length)).toBe(0);
    for (const call of open) expect(cancelReason(call)).toBe("shutdown");
  });

  it("a bad maxRuns is a ConfigError naming the setting", () => {
    expect(() => tracewireTraceProcessor({ maxRuns: 0 })).toThrow(ConfigError);
    expect(() => tracewireTraceProcessor({ maxRuns: 1.5 })).toThrow(/maxRuns/);
    // A misspelt option kept the default of 10 000 without a word.
    expect(() => tracewireTraceProcessor({ maxRun: 5 } as never)).toThrow(
      /^Invalid tracewireTraceProcessor option maxRun \(got an option it does not know\): expected maxRuns/,
    );
  });
});
