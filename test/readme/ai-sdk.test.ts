/**
 * The "Tracing the Vercel AI SDK" snippet of docs/ai-sdk.md, run verbatim with `ai` 7 (Node ≥ 22) and the example's kind of
 * model (`@ai-sdk/openai-compatible` at the loopback stand-in) and tools: the `generateText` it makes is the tree the
 * section describes — the operation named by `functionId`, its step, the step's model call with usage, a tool call
 * per tool.
 */
import { afterAll, expect, it } from "vitest";
import * as tracewireAi from "../../src/instrument/ai.js";
import { named, recorded, TIME, TIME_SCHEMA, usageOf, WEATHER, WEATHER_SCHEMA } from "../ai/support.js";
import { setupOpenAIServer, summaryOf } from "../instrument/support.js";
import { MODEL_SUFFIX } from "../support/openai-server.js";
import { setupSession } from "../support/tracing-session.js";
import { docBlock, runBlock } from "./snippets.js";

const HAS_AI7 = Number(process.versions.node.split(".")[0]) >= 22;
const ctx = setupOpenAIServer();
const session = setupSession();
afterAll(() => {
  globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = undefined;
});

it.skipIf(!HAS_AI7)("the snippet registers the integration and traces generateText as the section says", async () => {
  const ai = await import("ai");
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  const provider = createOpenAICompatible({ name: "standin", baseURL: ctx.server.baseURL, apiKey: "sk-test" });
  const tools = {
    get_weather: ai.tool({ inputSchema: ai.jsonSchema(WEATHER_SCHEMA), execute: async () => WEATHER }),
    get_time: ai.tool({ inputSchema: ai.jsonSchema(TIME_SCHEMA), execute: async () => TIME }),
  };
  // The stand-in asks for both tools; generateText's default is one step, so the operation ends after running them.
  const scope = { model: provider("gpt-4o-mini"), prompt: "Weather in Paris?", tools };
  await runBlock(docBlock("docs/ai-sdk.md", "# Tracing the Vercel AI SDK (`tracewire/ai`)"), scope, {
    ai,
    "tracewire/ai": tracewireAi,
  });
  await session.tracing.flush();

  const calls = recorded(session.double);
  const [operation] = named(calls, "weather-answer");
  expect(operation!.start.inputs).toMatchObject({ messages: [{ role: "user", content: "Weather in Paris?" }] });
  expect(operation!.end.output).toMatchObject({ text: "", finishReason: "tool-calls", steps: 1 });
  const [step] = named(calls, "ai.generateText.step", operation);
  expect(step!.start.display_name).toBe("step 1");
  const [model] = named(calls, "ai.generateText.doGenerate", step);
  expect(summaryOf(model!).usage).toEqual(usageOf(`gpt-4o-mini${MODEL_SUFFIX}`));
  const toolCalls = named(calls, "ai.toolCall", step);
  expect(toolCalls.map((t) => [t.start.display_name, t.end.output])).toEqual(
    expect.arrayContaining([
      ["get_weather", WEATHER],
      ["get_time", TIME],
    ]),
  );
  expect(calls).toHaveLength(1 + 1 + 1 + 2);
});
