/**
 * The viewer draws LLM calls as a conversation, in headless Chromium, for every dialect tracewire records: the real
 * `openai` (chat completions with a tool round and a streamed answer; the Responses API), `@anthropic-ai/sdk`
 * (system, tools, a tool_use answer) and the AI SDK (`ai` 6 model calls), each against a loopback stand-in and
 * recorded by `tracewire dev`. Each shows its messages by role, the tool calls and results, the answer, and a line
 * with model, tokens and (streamed) time to first chunk; a plain op keeps its JSON tree.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { trace } from "@opentelemetry/api";
import { generateText, jsonSchema, stepCountIs, tool } from "ai6";
import { createOpenAICompatible } from "ai6-openai-compatible";
import OpenAI from "openai";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init, op, type TracewireHandle } from "../../src/index.js";
import { wrapAnthropic } from "../../src/instrument/anthropic.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { TOOLS } from "../instrument/support.js";
import { AnthropicServer, TOOL_TEXT, TOOL_USES } from "../support/anthropic-server.js";
import { RESPONSE_TEXT } from "../support/openai-responses-server.js";
import { OpenAIServer, TEXT, TOOL_CALLS } from "../support/openai-server.js";
import { type Browser, chromiumWanted, launchChromium } from "./browser.js";
import { openConversation } from "./conversation-page.js";
import { closeAll, PROJECT, startService, type TestService } from "./helpers.js";

const MODEL = "gpt-4o-mini";

describe.skipIf(!chromiumWanted("viewer-conversation.test"))("viewer: LLM calls as a conversation", () => {
  let service: TestService;
  let tracing: TracewireHandle;
  let openaiServer: OpenAIServer;
  let anthropicServer: AnthropicServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    service = await startService({ storage: "memory" });
    tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
    openaiServer = await OpenAIServer.start();
    anthropicServer = await AnthropicServer.start();
    const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: openaiServer.baseURL, maxRetries: 0 }));
    const anthropic = wrapAnthropic(
      new Anthropic({ apiKey: "sk-ant-test", baseURL: anthropicServer.baseURL, maxRetries: 0 }),
    );

    await op(
      async function chat_agent(question: string) {
        const messages: OpenAI.ChatCompletionMessageParam[] = [
          { role: "system", content: "Answer briefly." },
          { role: "user", content: question },
        ];
        const first = await openai.chat.completions.create({ model: MODEL, messages, tools: TOOLS });
        const message = first.choices[0]!.message;
        messages.push(message);
        for (const call of message.tool_calls ?? []) {
          if (call.type === "function") {
            messages.push({ role: "tool", tool_call_id: call.id, content: `result of ${call.function.name}` });
          }
        }
        const stream = await openai.chat.completions.create({ model: MODEL, messages, stream: true });
        for await (const _chunk of stream);
        return "done";
      },
      { parameterNames: ["question"] },
    )("Weather in Paris?");

    await op(async function responses_agent() {
      const stream = await openai.responses.create({
        model: MODEL,
        instructions: "Be brief.",
        input: "Weather in Lyon?",
        stream: true,
      });
      for await (const _event of stream);
    })();

    await op(async function anthropic_agent() {
      await anthropic.messages.create({
        model: "claude-haiku-4-5",
        max_tokens: 100,
        system: "You answer weather questions.",
        tools: [{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
        messages: [{ role: "user", content: "Weather in Rome?" }],
      });
    })();

    // A foreign GenAI span (OTLP route) with the semantic conventions' message attributes.
    await op(async function otel_agent() {
      trace.getTracer("foreign-genai").startActiveSpan("chat gpt-4o", (span) => {
        span.setAttributes({
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": "gpt-4o",
          "gen_ai.input.messages": JSON.stringify([
            { role: "user", parts: [{ type: "text", content: "Weather in Kyiv?" }] },
            {
              role: "assistant",
              parts: [{ type: "tool_call", id: "c1", name: "get_weather", arguments: { city: "Kyiv" } }],
            },
            { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: "cold" }] },
          ]),
          "gen_ai.output.messages": JSON.stringify([
            { role: "assistant", parts: [{ type: "text", content: "It is cold." }], finish_reason: "stop" },
          ]),
        });
        span.end();
      });
    })();

    const provider = createOpenAICompatible({
      name: "standin",
      baseURL: openaiServer.baseURL,
      apiKey: "sk-test",
      includeUsage: true,
    });
    await op(async function ai_agent() {
      await generateText({
        model: provider(MODEL),
        system: "Be brief.",
        prompt: "Weather in Oslo?",
        maxRetries: 0,
        tools: {
          get_weather: tool({
            description: "The weather in a city",
            inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } } }),
            execute: async ({ city }) => ({ city, celsius: 3 }),
          }),
          get_time: tool({
            description: "The time in a zone",
            inputSchema: jsonSchema<{ tz: string }>({ type: "object", properties: { tz: { type: "string" } } }),
            execute: async () => "12:00",
          }),
        },
        stopWhen: stepCountIs(3),
        experimental_telemetry: { isEnabled: true, functionId: "weather-agent" },
      });
    })();
    await tracing.flush();
    browser = await launchChromium();
    page = browser.page;
  }, 60_000);

  afterAll(() => closeAll(browser, tracing, service, openaiServer, anthropicServer));

  /** Opens the trace of `root` and selects its `index`-th call named `opName`; returns the detail pane's facts. */
  const openCall = (root: string, opName: string, index = 0) =>
    openConversation(page, service.url, root, opName, index);

  it("chat completions: system, user, the assistant's tool calls, tool results, and the streamed answer", async ({
    annotate,
  }) => {
    const first = await openCall("chat_agent", "openai.chat.completions.create", 0);
    expect(first.roles).toEqual(["system", "user"]);
    expect(first.texts).toEqual(["Answer briefly.", "Weather in Paris?"]);
    const calls = await first.detail
      .locator(".answer .tool-call")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-tool")));
    expect(calls).toEqual(TOOL_CALLS.map((c) => c.name));
    expect(first.answer).toContain('"city": "Paris"'); // arguments parsed and shown as JSON
    expect(first.meta).toMatch(new RegExp(`^${MODEL}-\\d{4}-\\d{2}-\\d{2}`));
    expect(first.meta).toContain("29 tokens (19 in, 10 out)");
    expect(first.meta).not.toContain("first chunk"); // not streamed

    const second = await openCall("chat_agent", "openai.chat.completions.create", 1);
    expect(second.roles).toEqual(["system", "user", "assistant", "tool", "tool"]);
    expect(second.texts[3]).toContain("result of get_weather");
    expect(second.texts[3]).toContain(`tool result get_weather ${TOOL_CALLS[0]!.id}`); // named by its call's id
    expect(second.answer).toContain(TEXT);
    expect(second.meta).toMatch(/first chunk \d+ ms/);
    expect(second.meta).toContain("finish: stop");
    // The raw record stays one click away, and the call is in the URL.
    expect(await second.detail.locator("details.raw").count()).toBe(1);
    expect(await second.hash()).toMatch(/trace=[0-9a-f-]+&call=/);
    const shot = join(mkdtempSync(join(tmpdir(), "tracewire-viewer-")), "conversation.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`[viewer-conversation.test] screenshot: ${shot}`);
    await annotate(`screenshot: ${shot}`, "screenshot");
  }, 30_000);

  it("the Responses API: instructions as system, input as user, the output text as the answer", async () => {
    const call = await openCall("responses_agent", "openai.responses.create");
    expect(call.roles).toEqual(["system", "user"]);
    expect(call.texts).toEqual(["Be brief.", "Weather in Lyon?"]);
    expect(call.answer).toContain(RESPONSE_TEXT);
    expect(call.meta).toContain("35 tokens (23 in, 12 out)");
    expect(call.meta).toMatch(/first chunk \d+ ms/);
  }, 30_000);

  it("Anthropic messages: system, user, and an answer with text and tool_use blocks", async () => {
    const call = await openCall("anthropic_agent", "anthropic.messages.create");
    expect(call.roles).toEqual(["system", "user"]);
    expect(call.texts).toEqual(["You answer weather questions.", "Weather in Rome?"]);
    expect(call.answer).toContain(TOOL_TEXT);
    const tools = await call.detail
      .locator(".answer .tool-call")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-tool")));
    expect(tools).toEqual(TOOL_USES.map((t) => t.name));
    expect(call.meta).toContain("claude-haiku-4-5");
    expect(call.meta).toContain("finish: tool_use");
    expect(await call.detail.locator(".tools").textContent()).toBe("tools offered: get_weather");
  }, 30_000);

  it("AI SDK model calls: the prompt messages with tool calls and results, and the model's answer", async () => {
    const second = await openCall("ai_agent", "ai.generateText.doGenerate", 1);
    expect(second.roles).toEqual(["system", "user", "assistant", "tool"]);
    expect(second.texts[1]).toBe("Weather in Oslo?");
    expect(await second.detail.locator(".conversation .msg[data-role=assistant] .tool-call").count()).toBe(2);
    expect(second.texts[3]).toContain('"celsius": 3');
    expect(second.answer).toContain(TEXT);
  }, 30_000);

  it("a foreign span's GenAI messages (OTLP): parts, tool calls and responses, the output messages", async () => {
    const call = await openCall("otel_agent", "chat gpt-4o");
    expect(call.roles).toEqual(["user", "assistant", "tool"]);
    expect(call.texts[0]).toBe("Weather in Kyiv?");
    expect(call.texts[1]).toContain("tool call get_weather c1");
    expect(call.texts[2]).toBe("tool result get_weather c1cold");
    expect(call.answer).toContain("It is cold.");
    expect(call.meta).toContain("gpt-4o");
  }, 30_000);

  it("a plain op keeps its JSON tree", async () => {
    await page.goto(`${service.url}/?project=${encodeURIComponent(PROJECT)}`);
    await page.locator("#trace-list tbody tr").filter({ hasText: "chat_agent" }).click();
    const detail = page.locator("#detail");
    await expect.poll(() => detail.locator("h2").textContent()).toBe("chat_agent");
    expect(await detail.locator(".conversation").count()).toBe(0);
    expect(await detail.textContent()).toContain('"question": "Weather in Paris?"');
    expect(browser.errors).toEqual([]);
  }, 30_000);
});
