/**
 * The viewer draws Gemini calls (`wrapGoogleGenAI`, the real `@google/genai` 3 on Node ≥ 22, against the loopback
 * Gemini stand-in, recorded by `tracewire dev`) as a conversation, in headless Chromium: `contents` given as a
 * string or as turns, the system instruction, the model's function calls and the function responses sent back,
 * thoughts as reasoning, one answer per candidate, the functions offered, and for automatic function calling the
 * rounds the SDK ran before its answer.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init, op, type TracewireHandle } from "../../src/index.js";
import { wrapGoogleGenAI } from "../../src/instrument/google.js";
import {
  callableTool,
  FUNCTION_CALLS,
  HAS_GOOGLE,
  MODEL,
  makeGoogle,
  QUESTION,
  SYSTEM,
  TEXT_REQUEST,
  TOOL_REQUEST,
} from "../instrument/google-support.js";
import { GeminiServer, TEXT, THOUGHT, TOOL_ANSWER } from "../support/google-server.js";
import { type Browser, chromiumWanted, launchChromium } from "./browser.js";
import { openConversation } from "./conversation-page.js";
import { closeAll, PROJECT, startService, type TestService } from "./helpers.js";

describe.skipIf(!HAS_GOOGLE || !chromiumWanted("viewer-gemini.test"))("viewer: Gemini calls as a conversation", () => {
  let service: TestService;
  let tracing: TracewireHandle;
  let gemini: GeminiServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    service = await startService({ storage: "memory" });
    tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
    gemini = await GeminiServer.start();
    const client = wrapGoogleGenAI(makeGoogle(gemini));

    await op(async function gemini_agent() {
      const first = await client.models.generateContent(TOOL_REQUEST);
      const calls = first.functionCalls ?? [];
      const contents = [
        ...TOOL_REQUEST.contents,
        first.candidates![0]!.content!,
        {
          role: "user",
          parts: calls.map((c) => ({
            functionResponse: { id: c.id, name: c.name, response: { result: `${c.name} ok` } },
          })),
        },
      ];
      await client.models.generateContent({ ...TOOL_REQUEST, contents });
      for await (const _chunk of await client.models.generateContentStream({
        ...TEXT_REQUEST,
        config: { candidateCount: 2 },
      }));
    })();

    await op(async function gemini_afc() {
      await client.models.generateContent({
        ...TOOL_REQUEST,
        config: { ...TOOL_REQUEST.config, tools: [callableTool()] },
      });
    })();
    await tracing.flush();
    browser = await launchChromium();
    page = browser.page;
  }, 60_000);

  afterAll(() => closeAll(browser, tracing, service, gemini));

  /** Opens the trace of `root` and selects its `index`-th call named `opName`; returns the detail pane's facts. */
  const openCall = (root: string, opName: string, index = 0) =>
    openConversation(page, service.url, root, opName, index);

  const GENERATE = "google.models.generateContent";

  it("function declarations: system instruction, the question, the function calls as the answer, tools offered", async () => {
    const call = await openCall("gemini_agent", GENERATE, 0);
    expect(call.roles).toEqual(["system", "user"]);
    expect(call.texts).toEqual([SYSTEM, QUESTION]);
    const tools = await call.detail
      .locator(".answer .tool-call")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-tool")));
    expect(tools).toEqual(FUNCTION_CALLS.map((c) => c.name));
    expect(call.answer).toContain('"city": "Paris"');
    expect(await call.detail.locator(".tools").textContent()).toBe("tools offered: get_weather, get_time");
    expect(call.meta).toContain(`${MODEL}-001`);
    expect(call.meta).toContain("51 tokens (40 in, 11 out)");
    expect(call.meta).toContain("finish: STOP");
  }, 30_000);

  it("a turn of function responses reads as tool results, named by their call", async () => {
    const call = await openCall("gemini_agent", GENERATE, 1);
    expect(call.roles).toEqual(["system", "user", "assistant", "tool"]);
    expect(call.texts[2]).toContain(`tool call get_weather ${FUNCTION_CALLS[0]!.id}`);
    expect(call.texts[3]).toContain(`tool result get_weather ${FUNCTION_CALLS[0]!.id}`);
    expect(call.texts[3]).toContain("get_weather ok");
  }, 30_000);

  it("a streamed text answer: a string prompt as the user's turn, the thought as reasoning, one block per candidate", async () => {
    const call = await openCall("gemini_agent", "google.models.generateContentStream");
    expect(call.roles).toEqual(["user"]);
    expect(call.texts).toEqual(["Say hello."]);
    expect(await call.detail.locator(".answer .choice").count()).toBe(2);
    expect(await call.detail.locator(".answer details.reasoning").first().textContent()).toContain(THOUGHT);
    expect(call.answer).toContain(TEXT);
    expect(call.meta).toMatch(/first chunk \d+ ms/);
  }, 30_000);

  it("automatic function calling: the rounds the SDK ran, then its answer", async () => {
    const call = await openCall("gemini_afc", GENERATE);
    expect(call.roles).toEqual(["system", "user", "assistant", "tool"]);
    expect(call.texts[3]).toContain('"forecast": "sunny"');
    expect(call.answer).toContain(TOOL_ANSWER);
    expect(call.meta).toContain("102 tokens (80 in, 22 out)");
    expect(browser.errors).toEqual([]);
  }, 30_000);
});
