/**
 * The viewer shows an OpenAI Agents SDK run (Node ≥ 22) as a readable tree, in headless Chromium: the real SDK against
 * the loopback stand-in, recorded by `tracewire dev` through `tracewireTraceProcessor()`. Workflow, task, agent,
 * turn, tool, handoff and guardrail calls carry their kind as a badge (a tripped guardrail says so); model calls carry
 * the LLM badge and open as a conversation with the instructions, the user's message, the tool round and the answer.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init, op, type TracewireHandle } from "../../src/index.js";
import { tracewireTraceProcessor } from "../../src/instrument/openai-agents.js";
import { HANDOFF_MODEL, startAgentsServer } from "../support/agents-server.js";
import { RESPONSE_TEXT } from "../support/openai-responses-server.js";
import type { OpenAIServer } from "../support/openai-server.js";
import { type Browser, chromiumWanted, launchChromium } from "./browser.js";
import { openConversation, openTrace as openTraceOf } from "./conversation-page.js";
import { closeAll, PROJECT, startService, type TestService } from "./helpers.js";

const HAS_AGENTS = Number(process.versions.node.split(".")[0]) >= 22;
const SCHEMA = (key: string) => ({
  type: "object" as const,
  properties: { [key]: { type: "string" } },
  required: [key],
  additionalProperties: false as const,
});

describe.skipIf(!HAS_AGENTS || !chromiumWanted("viewer-agents.test"))("viewer: an agent run as a tree", () => {
  let service: TestService;
  let tracing: TracewireHandle;
  let stand: OpenAIServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    service = await startService({ storage: "memory" });
    tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
    stand = await startAgentsServer();
    const agents = await import("@openai/agents");
    const OpenAI = (await import("openai7")).default;
    agents.setTracingDisabled(false);
    agents.setTraceProcessors([tracewireTraceProcessor()]);
    const client = new OpenAI({ apiKey: "sk-test", baseURL: stand.baseURL, maxRetries: 0 });
    const runner = new agents.Runner({
      modelProvider: new agents.OpenAIProvider({ openAIClient: client as never }),
      workflowName: "support-desk",
    });
    const tools = [
      agents.tool({
        name: "get_weather",
        description: "The weather in a city",
        parameters: SCHEMA("city"),
        strict: true,
        execute: async () => ({ city: "Lyon", celsius: 19 }),
      }),
      agents.tool({
        name: "get_time",
        description: "The time in a zone",
        parameters: SCHEMA("tz"),
        strict: true,
        execute: async () => "12:00",
      }),
    ];
    const passed = { name: "no_secrets", execute: async () => ({ outputInfo: {}, tripwireTriggered: false }) };
    const tripped = { name: "no_passwords", execute: async () => ({ outputInfo: {}, tripwireTriggered: true }) };
    const weather = new agents.Agent({ name: "Weather", instructions: "Be brief.", model: "gpt-4o-mini", tools });
    const triage = new agents.Agent({
      name: "Triage",
      model: HANDOFF_MODEL,
      handoffs: [weather],
      inputGuardrails: [passed],
    });
    await op(async function triage_run(question: string) {
      return (await runner.run(triage, question)).finalOutput;
    })("Weather in Lyon?");
    await op(async function weather_run() {
      return (await runner.run(weather, "Weather in Lyon?")).finalOutput;
    })();
    const guarded = new agents.Agent({ name: "Guarded", model: "gpt-4o-mini", inputGuardrails: [tripped] });
    await op(async function guarded_run() {
      await runner.run(guarded, "my password is hunter2").catch(() => undefined);
    })();
    await new Promise((resolve) => setImmediate(resolve));
    await tracing.flush();
    browser = await launchChromium();
    page = browser.page;
  }, 60_000);

  afterAll(() => closeAll(browser, tracing, service, stand));

  const openTrace = (root: string) => openTraceOf(page, service.url, root, 5);

  /** Each tree node as `label [badge…]`, indented by depth. */
  function outline(): Promise<string[]> {
    return page.locator("#tree li").evaluateAll((items) =>
      items.map((li) => {
        let depth = 0;
        for (let p = li.parentElement; p && p.id !== "tree"; p = p.parentElement) if (p.tagName === "LI") depth++;
        const node = li.querySelector(":scope > .node");
        const name = node?.querySelector(".name")?.textContent ?? "";
        const badges = [...(node?.querySelectorAll(".badge") ?? [])].map((b) => b.textContent).join(",");
        return `${"  ".repeat(depth)}${name}${badges ? ` [${badges}]` : ""}`;
      }),
    );
  }

  it("agent, guardrail, handoff, turn and tool calls labelled; model calls marked LLM", async () => {
    await openTrace("triage_run");
    const tree = await outline();
    expect(tree).toEqual([
      "triage_run",
      "  support-desk [workflow]",
      "    support-desk [task]",
      "      Triage [agent]",
      "        no_secrets [guardrail]",
      "        turn 1 [turn]",
      `          ${HANDOFF_MODEL}-2024-07-18 [LLM]`,
      "          Triage → Weather [handoff]",
      "      Weather [agent]",
      "        turn 2 [turn]",
      "          gpt-4o-mini-2024-07-18 [LLM]",
    ]);
    await openTrace("weather_run");
    const tools = await outline();
    expect(tools.filter((l) => l.trim() === "get_weather [tool]")).toHaveLength(1);
    expect(tools.filter((l) => l.trim() === "get_time [tool]")).toHaveLength(1);
    expect(browser.errors).toEqual([]);
  }, 30_000);

  it("a model call opens as a conversation: instructions, the user, the tool round, the answer", async () => {
    await openTrace("weather_run");
    expect(await page.locator('#tree li[data-op="openai_agents.response"] > .node').count()).toBe(2);
    const { detail, roles } = await openConversation(page, service.url, "weather_run", "openai_agents.response", 1);
    expect(roles[0]).toBe("system");
    expect(roles).toContain("user");
    expect(roles).toContain("tool");
    expect(await detail.locator(".answer").textContent()).toContain(RESPONSE_TEXT);
    expect(await detail.locator(".llm-meta").textContent()).toContain("35 tokens (23 in, 12 out)");
  }, 30_000);

  it("a guardrail that tripped says so", async () => {
    await openTrace("guarded_run");
    const tree = await outline();
    expect(tree).toContain("        no_passwords [guardrail · triggered]");
    expect(browser.errors).toEqual([]);
  }, 30_000);
});
