/**
 * `instrumentLangChain()` traces runs of both copies of `@langchain/core` an app can load — the ESM one (`import`)
 * and the CommonJS one (`require`) — with no per-call config, each run once: a run of either copy, a run of one copy
 * nested in a run of the other (the config travels through LangChain's shared storage), and a run that also got the
 * handler in its own callbacks.
 */
import { createRequire } from "node:module";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { instrumentLangChain, TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { one, recorded } from "./support.js";

const session = setupSessionPerTest();
const cjs = createRequire(import.meta.url)("@langchain/core/runnables") as typeof import("@langchain/core/runnables");

describe("instrumentLangChain(): both copies of @langchain/core, no duplicate runs", () => {
  it("the two copies are different classes (the test would prove nothing otherwise)", () => {
    expect(cjs.RunnableLambda).not.toBe(RunnableLambda);
  });

  it("a run of the ESM copy and a run of the CommonJS copy: one call each", async () => {
    await instrumentLangChain();
    const esmLambda = RunnableLambda.from(async (x: number) => x + 1).withConfig({ runName: "esm_step" });
    const cjsLambda = cjs.RunnableLambda.from(async (x: number) => x * 2).withConfig({ runName: "cjs_step" });
    expect(await esmLambda.invoke(1)).toBe(2);
    expect(await cjsLambda.invoke(2)).toBe(4);
    const calls = await recorded(session);
    expect(calls.map((c) => c.start.op_name).sort()).toEqual(["cjs_step", "esm_step"]);
    expect(one(calls, "cjs_step").end.output).toEqual({ output: 4 });
  });

  it("a CommonJS run inside an ESM run: nested, each once", async () => {
    await instrumentLangChain();
    const inner = cjs.RunnableLambda.from(async (x: number) => x * 2).withConfig({ runName: "inner" });
    const outer = RunnableLambda.from(async (x: number) => (await inner.invoke(x)) + 1).withConfig({
      runName: "outer",
    });
    expect(await outer.invoke(3)).toBe(7);
    const calls = await recorded(session);
    expect(calls).toHaveLength(2);
    expect(one(calls, "inner").start.parent_id).toBe(one(calls, "outer").start.id);
  });

  it("a run that also has the handler in its callbacks: once", async () => {
    await instrumentLangChain();
    const lambda = RunnableLambda.from(async (x: number) => x).withConfig({ runName: "both" });
    await lambda.invoke(1, { callbacks: [new TracewireCallbackHandler()] });
    const calls = await recorded(session);
    expect(calls.map((c) => c.start.op_name)).toEqual(["both"]);
  });

  it("refuses an option it does not read, naming it (a misspelt modules left that copy unhooked)", () => {
    expect(() => instrumentLangChain({ module: [] } as never)).toThrow(
      /^Invalid instrumentLangChain option module \(got an option it does not know\): expected modules/,
    );
  });
});
