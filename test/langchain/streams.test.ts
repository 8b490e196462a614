/**
 * A LangChain stream whose consumer stops reading: `runnable.stream()` reports its run's end only when the stream
 * runs to its end or throws, so a consumer that breaks out of it (or cancels it) used to leave the run's call, and the
 * model call inside it, open forever. They now end once, as cancelled (`break`); a stream read to its end, and the
 * value it streamed, are unchanged.
 * The steps of a streamed chain record what they were given: LangChain reports a placeholder (`{input: ""}`) when such
 * a step starts and its real inputs only at its end, and the placeholder used to be recorded as the step's inputs.
 * The first test creates its handler inside the call's options, after `stream` was looked up: importing
 * `tracewire/langchain` is what hooks `stream()` (a hook made by the handler's constructor missed that first stream).
 */
import { StringOutputParser } from "@langchain/core/output_parsers";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { TEXT } from "../support/openai-server.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { named, one, recorded, setupStandInModels, summaryOf } from "./support.js";

const session = setupSessionPerTest();

describe("LangChain: a stream whose consumer stops reading", () => {
  const model = setupStandInModels();
  const cancelled = (call: Awaited<ReturnType<typeof recorded>>[number]) => summaryOf(call).tracewire;

  /** Stops `stream` the way `stop` says: after two chunks with `break`, or `cancel()` before reading any. */
  async function stopEarly(stream: AsyncIterable<unknown> & { cancel(): Promise<void> }, stop: "break" | "cancel") {
    let chunks = 0;
    if (stop === "cancel") await stream.cancel();
    else for await (const _chunk of stream) if (++chunks === 2) break;
    return chunks;
  }

  it("the process's first stream, its handler created in the call's options: ends once, as cancelled", async () => {
    const stream = await model("m-slow").stream("hi", { callbacks: [new TracewireCallbackHandler()] });
    expect(await stopEarly(stream, "break")).toBe(2);
    const chat = one(await recorded(session), "StandInChatModel");
    expect(cancelled(chat)).toEqual({ status: "cancelled", cancel_reason: "break" });
  });

  for (const stop of ["break", "cancel"] as const)
    it(`model.stream(), stopped by ${stop}: the model call ends once, as cancelled`, async () => {
      const handler = new TracewireCallbackHandler();
      const stream = await model("m-slow").stream("hi", { callbacks: [handler] });
      expect(await stopEarly(stream, stop)).toBe(stop === "break" ? 2 : 0);
      const chat = one(await recorded(session), "StandInChatModel");
      expect(cancelled(chat)).toEqual({ status: "cancelled", cancel_reason: "break" });
      expect(chat.end.exception).toBeUndefined();
    });

  it("a chain's stream broken out of: the chain and its model call end once, as cancelled", async () => {
    const handler = new TracewireCallbackHandler();
    const chain = RunnableLambda.from((x: string) => x)
      .pipe(model("m-slow"))
      .withConfig({ runName: "answer" });
    const stream = await chain.stream("hi", { callbacks: [handler] });
    expect(await stopEarly(stream, "break")).toBe(2);
    const calls = await recorded(session);
    expect(calls).toHaveLength(3);
    const answer = one(calls, "answer");
    expect(cancelled(answer)).toEqual({ status: "cancelled", cancel_reason: "break" });
    expect(cancelled(one(calls, "StandInChatModel", answer))).toEqual({ status: "cancelled", cancel_reason: "break" });
    // The step that had finished keeps its own end.
    expect(cancelled(one(calls, "RunnableLambda", answer))).toBeUndefined();
  });

  it("a stream read to its end: what it streamed is unchanged, and its calls end as usual", async () => {
    const handler = new TracewireCallbackHandler();
    const stream = await model("gpt-4o-mini").stream("hi", { callbacks: [handler] });
    let text = "";
    for await (const chunk of stream) text += String(chunk.content);
    expect(text).toBe(TEXT);
    const calls = await recorded(session);
    expect(named(calls, "StandInChatModel")).toHaveLength(1);
    for (const call of calls) expect(cancelled(call)).toBeUndefined();
  });

  it("a streamed chain: each step records the inputs it was given, not LangChain's placeholder", async () => {
    const handler = new TracewireCallbackHandler();
    const chain = RunnableLambda.from((x: string) => `${x}?`)
      .pipe(RunnableLambda.from((x: string) => `${x}!`).withConfig({ runName: "shout" }))
      .pipe(new StringOutputParser())
      .withConfig({ runName: "punctuate" });
    let text = "";
    for await (const chunk of await chain.stream("hi", { callbacks: [handler] })) text += chunk;
    expect(text).toBe("hi?!");
    const calls = await recorded(session);
    const root = one(calls, "punctuate");
    expect(root.start.inputs).toEqual({ input: "hi" });
    expect(one(calls, "RunnableLambda", root).start.inputs).toEqual({ input: "hi" });
    const shout = one(calls, "shout", root);
    expect(shout.start.inputs).toEqual({ input: "hi?" });
    expect(shout.end.output).toBe("hi?!");
    expect(one(calls, "StrOutputParser", root).start.inputs).toEqual({ input: "hi?!" });
    // Started when it ended, each call keeps the time its step started: before the steps after it.
    expect(String(shout.start.started_at) <= String(shout.end.ended_at)).toBe(true);
    expect(String(root.start.started_at) <= String(shout.start.started_at)).toBe(true);
  });

  it("a cancel() that fails (another reader holds the stream) ends nothing: the stream goes on to its end", async () => {
    const handler = new TracewireCallbackHandler();
    const stream = await model("gpt-4o-mini").stream("hi", { callbacks: [handler] });
    const reader = stream[Symbol.asyncIterator]();
    let text = String(((await reader.next()).value as { content: unknown }).content);
    await expect(stream.cancel()).rejects.toThrow(TypeError);
    for (let step = await reader.next(); !step.done; step = await reader.next())
      text += String((step.value as { content: unknown }).content);
    expect(text).toBe(TEXT);
    const chat = one(await recorded(session), "StandInChatModel");
    expect(cancelled(chat)).toBeUndefined();
    expect(chat.end.output).toEqual([expect.objectContaining({ role: "assistant", content: TEXT })]);
  });
});
