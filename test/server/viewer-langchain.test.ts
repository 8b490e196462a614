/**
 * The viewer shows a LangGraph run as a readable tree, in headless Chromium: the real `@langchain/langgraph` agent
 * graph (a real `BaseChatModel` subclass against the loopback stand-in) recorded by `tracewire dev` through
 * `TracewireCallbackHandler`. The graph, its nodes and tools carry their kind as a badge; the chat model calls carry
 * the LLM badge and open as a conversation with the user's message, the tool round and the answer; a node whose state
 * holds messages keeps its JSON view.
 */
import OpenAI from "openai";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init, op, type TracewireHandle } from "../../src/index.js";
import { TracewireCallbackHandler } from "../../src/instrument/langchain.js";
import { agentGraph, StandInChatModel } from "../langchain/support.js";
import { OpenAIServer, TEXT } from "../support/openai-server.js";
import { type Browser, chromiumWanted, launchChromium } from "./browser.js";
import { openConversation, openTrace as openTraceOf } from "./conversation-page.js";
import { closeAll, PROJECT, startService, type TestService } from "./helpers.js";

describe.skipIf(!chromiumWanted("viewer-langchain.test"))("viewer: a LangGraph run as a tree", () => {
  let service: TestService;
  let tracing: TracewireHandle;
  let stand: OpenAIServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    service = await startService({ storage: "memory" });
    tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
    stand = await OpenAIServer.start();
    const model = new StandInChatModel({
      client: new OpenAI({ apiKey: "sk-test", baseURL: stand.baseURL, maxRetries: 0 }),
      model: "gpt-4o-mini",
    });
    const graph = agentGraph(model);
    await op(async function graph_run() {
      return graph.invoke(
        { messages: [{ role: "user", content: "Weather in Paris?" }] },
        { callbacks: [new TracewireCallbackHandler()], configurable: { thread_id: "viewer-1" } },
      );
    })();
    await tracing.flush();
    browser = await launchChromium();
    page = browser.page;
  }, 60_000);

  afterAll(() => closeAll(browser, tracing, service, stand));

  const openTrace = (root: string) => openTraceOf(page, service.url, root, 5);

  it("graph, node and tool calls labelled; chat model calls marked LLM", async () => {
    await openTrace("graph_run");
    const tree = await page.locator("#tree li").evaluateAll((items) =>
      items.map((li) => {
        let depth = 0;
        for (let p = li.parentElement; p && p.id !== "tree"; p = p.parentElement) if (p.tagName === "LI") depth++;
        const node = li.querySelector(":scope > .node");
        const name = node?.querySelector(".name")?.textContent ?? "";
        const badges = [...(node?.querySelectorAll(".badge") ?? [])].map((b) => b.textContent).join(",");
        return `${"  ".repeat(depth)}${name}${badges ? ` [${badges}]` : ""}`;
      }),
    );
    expect(tree.slice(0, 4)).toEqual([
      "graph_run",
      "  LangGraph [graph]",
      "    agent [node]",
      "      gpt-4o-mini [LLM]",
    ]);
    expect(tree).toContain("    tools [node]");
    expect(tree).toContain("      get_weather [tool]");
    expect(tree).toContain("      get_time [tool]");
    expect(tree.filter((l) => l.trim() === "agent [node]")).toHaveLength(2);
    expect(tree.filter((l) => l.endsWith("[LLM]"))).toHaveLength(2);
    expect(browser.errors).toEqual([]);
  }, 30_000);

  it("a chat model call opens as a conversation; a node keeps its JSON view", async () => {
    await openTrace("graph_run");
    expect(await page.locator('#tree li[data-op="StandInChatModel"] > .node').count()).toBe(2);
    const { detail, roles } = await openConversation(page, service.url, "graph_run", "StandInChatModel", 1);
    expect(roles).toEqual(["user", "assistant", "tool", "tool"]);
    expect(await detail.locator(".conversation .msg[data-role=assistant] .tool-call").count()).toBe(2);
    expect(await detail.locator(".answer").textContent()).toContain(TEXT);
    expect(await detail.locator(".llm-meta").textContent()).toContain("29 tokens (19 in, 10 out)");

    await page.locator('#tree li[data-op="agent"] > .node').first().click();
    await expect.poll(() => detail.locator("h2").textContent()).toBe("agent");
    expect(await detail.locator(".conversation").count()).toBe(0);
    expect(await detail.textContent()).toContain('"langgraph"');
    expect(browser.errors).toEqual([]);
  }, 30_000);
});
