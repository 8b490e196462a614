/**
 * The trace list's Tokens and Model columns, in headless Chromium (issue #22): they come from the root's
 * `summary.usage`, which holds the usage of the whole trace (tracewire and the vendor's SDKs roll usage up the call
 * tree), never a sum over every call of the trace (that would count each request once per ancestor). A root without
 * usage (another instrumentation's span) shows what its topmost calls with usage add up to. Traces are written as
 * the calls route writes them, and one is traced by the library end to end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init, op, type TracewireHandle } from "../../src/index.js";
import { type Browser, chromiumWanted, launchChromium } from "./browser.js";
import { closeAll, llm, PROJECT, send, startService, type TestService } from "./helpers.js";

type Usage = Record<string, Record<string, number>>;

const usage = (prompt: number, completion: number, requests = 1) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  requests,
});

/** One call, start and end, as `/call/upsert_batch` items. */
function call(traceId: string, id: string, parent: string | null, opName: string, at: number, summary?: Usage) {
  const time = (s: number) => new Date(Date.UTC(2026, 0, 5, 10, 0, at + s)).toISOString();
  return [
    {
      mode: "start",
      req: {
        start: {
          project_id: PROJECT,
          id,
          trace_id: traceId,
          parent_id: parent,
          op_name: opName,
          started_at: time(0),
          attributes: {},
          inputs: {},
        },
      },
    },
    {
      mode: "end",
      req: { end: { project_id: PROJECT, id, ended_at: time(1), summary: summary ? { usage: summary } : {} } },
    },
  ];
}

const planner = op(async function planner(question: string) {
  await llm(question);
  return llm(`again: ${question}`);
});

describe.skipIf(!chromiumWanted("viewer-usage.test"))("viewer: a trace's tokens and models", () => {
  let service: TestService;
  let tracing: TracewireHandle;
  let browser: Browser;

  beforeAll(async () => {
    service = await startService({ storage: "memory" });
    const rolledUp = {
      "gpt-4o-mini": usage(20, 10, 2),
      "claude-haiku-4-5": usage(5, 2),
    };
    const batch = [
      // A root holding the rolled-up usage of its three model calls.
      ...call("t-rolled", "r1", null, "agent", 0, rolledUp),
      ...call("t-rolled", "r1-a", "r1", "openai.chat.completions.create", 1, { "gpt-4o-mini": usage(10, 5) }),
      ...call("t-rolled", "r1-b", "r1", "openai.chat.completions.create", 2, { "gpt-4o-mini": usage(10, 5) }),
      ...call("t-rolled", "r1-c", "r1", "anthropic.messages.create", 3, { "claude-haiku-4-5": usage(5, 2) }),
      // A foreign root (a server span, no usage) over two ops: one rolled up over its model call, one direct.
      ...call("t-foreign", "f1", null, "GET /chat", 10),
      ...call("t-foreign", "f1-a", "f1", "agent", 11, { "gpt-4o-mini": usage(30, 3) }),
      ...call("t-foreign", "f1-a-1", "f1-a", "openai.chat.completions.create", 12, { "gpt-4o-mini": usage(30, 3) }),
      ...call("t-foreign", "f1-b", "f1", "summarize", 13, { "gpt-4.1": usage(8, 4) }),
    ];
    expect((await send(service.url, "/call/upsert_batch", { batch })).status).toBe(200);
    tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
    await planner("What is up?");
    await tracing.flush();
    browser = await launchChromium();
  }, 60_000);

  afterAll(() => closeAll(browser, tracing, service));

  it("Tokens and Model: the root's usage, or its topmost calls' when the root has none", async () => {
    const { page } = browser;
    await page.goto(`${service.url}/?project=${encodeURIComponent(PROJECT)}`);
    const rows = page.locator("#trace-list tbody tr");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
    // Started, Op, Status, Latency, Tokens, Model, Calls
    const row = async (op: string) => {
      const cells = await rows
        .filter({ has: page.locator("td.op", { hasText: op }) })
        .locator("td")
        .allTextContents();
      return { tokens: cells[4], model: cells[5], calls: cells[6] };
    };
    expect(await row("agent")).toEqual({ tokens: "37", model: "gpt-4o-mini, claude-haiku-4-5", calls: "4" });
    expect(await row("GET /chat")).toEqual({ tokens: "45", model: "gpt-4o-mini, gpt-4.1", calls: "4" });
    // Traced by the library: the planner's two model calls (12 in, 5 out each), rolled up into the root.
    expect(await row("planner")).toEqual({ tokens: "34", model: "gpt-4o-mini", calls: "3" });
  });
});
