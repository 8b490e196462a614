/**
 * Odd values in a LangChain run's inputs and outputs: the run returns what it returned, and its call is recorded
 * with the odd part marked, without costing the process more than the value itself. A node output that refers back to
 * itself through several keys (a graph state holding links to itself) used to be copied once per path, 6 keys deep
 * ran the worker out of memory; a throwing getter in a run's input lost the run's call and every call under it.
 */
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { one, recorded } from "./support.js";

const session = setupSessionPerTest();

describe("LangChain: odd values in a run's inputs and outputs", () => {
  it("an output that refers back to itself through several keys: recorded once, the cycle marked", async () => {
    const state: Record<string, unknown> = { step: 1 };
    for (const key of ["parent", "root", "self"]) state[key] = state;
    const node = RunnableLambda.from(async (_input: unknown) => state).withConfig({ runName: "cyclic" });
    const started = performance.now();
    const out = await node.invoke({ q: "hi" }, { callbacks: [new TracewireCallbackHandler()] });
    const elapsed = performance.now() - started;
    expect(out).toBe(state);
    const call = one(await recorded(session), "cyclic");
    expect(call.end.output).toEqual({ step: 1, parent: "[Circular]", root: "[Circular]", self: "[Circular]" });
    // Copying the value once per path took seconds at 3 keys (3^13 copies), and memory without bound past that.
    expect(elapsed).toBeLessThan(1000);
  }, 30_000);

  it("a getter that throws in a run's input: the run and the run inside it are recorded, the getter marked", async () => {
    const input = {
      ok: 1,
      get broken(): unknown {
        throw new Error("getter boom");
      },
    };
    const inner = RunnableLambda.from(async (_x: unknown) => "inner answer").withConfig({ runName: "inner" });
    const outer = RunnableLambda.from(async (x: unknown) => inner.invoke(x)).withConfig({ runName: "outer" });
    const out = await outer.invoke(input, { callbacks: [new TracewireCallbackHandler()] });
    expect(out).toBe("inner answer");
    const calls = await recorded(session);
    const outerCall = one(calls, "outer");
    const innerCall = one(calls, "inner", outerCall);
    for (const call of [outerCall, innerCall])
      expect(call.start.inputs).toEqual({ ok: 1, broken: "[Unserializable: getter boom]" });
    expect(innerCall.end.output).toEqual({ output: "inner answer" });
    expect(session.tracing.stats().internalErrors).toBe(0);
  });
});
