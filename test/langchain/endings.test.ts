/**
 * How LangChain / LangGraph runs end: a model error fails the model call and the runs above it, with `error.type`
 * (the HTTP status); an aborted graph ends every open call once, as cancelled; a tool that throws fails its tool
 * call; a LangGraph interrupt ends its node as cancelled (`interrupt`), not failed; a streamed graph whose consumer
 * stops reading ends its calls once.
 */
import { tool } from "@langchain/core/tools";
import { END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { agentGraph, named, one, recorded, setupStandInModels, summaryOf, weatherTools } from "./support.js";

const session = setupSessionPerTest();

function genAi(call: Awaited<ReturnType<typeof recorded>>[number]): Record<string, unknown> {
  return (summaryOf(call).gen_ai ?? {}) as Record<string, unknown>;
}
function tracewireSummary(call: Awaited<ReturnType<typeof recorded>>[number]): Record<string, unknown> | undefined {
  return summaryOf(call).tracewire as Record<string, unknown> | undefined;
}

describe("LangChain: errors, aborts and interrupts end the runs they affect", () => {
  const model = setupStandInModels();

  it("a model error fails the model call, its node and the graph, with error.type", async () => {
    const graph = agentGraph(model("m-status-500"));
    await expect(
      graph.invoke({ messages: [{ role: "user", content: "hi" }] }, { callbacks: [new TracewireCallbackHandler()] }),
    ).rejects.toThrow(/500/);
    const calls = await recorded(session);
    const chat = one(calls, "StandInChatModel");
    expect(chat.end.exception).toMatch(/500/);
    expect(genAi(chat).error_type).toBe("500");
    for (const op of ["agent", "LangGraph"]) {
      expect(one(calls, op).end.exception, op).toMatch(/500/);
      expect(genAi(one(calls, op)).error_type, op).toBe("500");
    }
  });

  it("an aborted graph ends every open call once, as cancelled", async () => {
    const graph = agentGraph(model("m-hang"));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(
      graph.invoke(
        { messages: [{ role: "user", content: "hi" }] },
        { callbacks: [new TracewireCallbackHandler()], signal: controller.signal },
      ),
    ).rejects.toThrow();
    await expect
      .poll(() => session.tracing.flush().then(() => [...session.double.calls.values()].every((c) => c.ends === 1)))
      .toBe(true);
    const calls = await recorded(session);
    expect(calls.map((c) => c.start.op_name).sort()).toEqual(["LangGraph", "StandInChatModel", "agent"]);
    for (const call of calls) {
      expect(tracewireSummary(call), String(call.start.op_name)).toEqual({
        status: "cancelled",
        cancel_reason: "abort",
      });
      expect(call.end.exception).toBeUndefined();
    }
  });

  it("a tool that throws fails its tool call; the graph goes on", async () => {
    const broken = tool(
      async () => {
        throw new Error("weather service down");
      },
      { name: "get_weather", description: "The weather in a city", schema: z.object({ city: z.string() }) },
    );
    const [, time] = weatherTools();
    const graph = agentGraph(model("gpt-4o-mini"), [broken, time!]);
    await graph.invoke(
      { messages: [{ role: "user", content: "Weather in Paris?" }] },
      { callbacks: [new TracewireCallbackHandler()] },
    );
    const calls = await recorded(session);
    const weather = one(calls, "get_weather");
    expect(weather.end.exception).toMatch(/weather service down/);
    expect(genAi(weather).error_type).toBe("_OTHER");
    expect(one(calls, "LangGraph").end.exception).toBeUndefined();
  });

  it("a LangGraph interrupt ends its node as cancelled (interrupt), the graph as usual", async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("approve", async () => {
        const answer = interrupt("Send the refund?");
        return { messages: [{ role: "assistant", content: String(answer) }] };
      })
      .addEdge(START, "approve")
      .addEdge("approve", END)
      .compile({ checkpointer: new MemorySaver() });
    const result = await graph.invoke(
      { messages: [{ role: "user", content: "refund" }] },
      { callbacks: [new TracewireCallbackHandler()], configurable: { thread_id: "refund-1" } },
    );
    expect((result as { __interrupt__?: unknown }).__interrupt__).toBeDefined();
    const calls = await recorded(session);
    const node = one(calls, "approve");
    expect(tracewireSummary(node)).toEqual({ status: "cancelled", cancel_reason: "interrupt" });
    expect(node.end.exception).toBeUndefined();
    const graphCall = one(calls, "LangGraph");
    expect(graphCall.end.exception).toBeUndefined();
    expect(graphCall.start.thread_id).toBe("refund-1");
  });

  it("a streamed graph whose consumer stops reading ends its calls once", async () => {
    const graph = agentGraph(model("gpt-4o-mini"));
    const stream = await graph.stream(
      { messages: [{ role: "user", content: "Weather in Paris?" }] },
      { callbacks: [new TracewireCallbackHandler()], streamMode: "updates" },
    );
    for await (const _update of stream) break;
    await expect
      .poll(() => session.tracing.flush().then(() => [...session.double.calls.values()].every((c) => c.ends === 1)))
      .toBe(true);
    const calls = await recorded(session);
    expect(named(calls, "LangGraph")).toHaveLength(1);
  });
});
