/**
 * An app that owns its OpenTelemetry setup and adds `TracewireSpanProcessor` (from `tracewire/otel`) to its own
 * provider, without `init()`: the AI SDK 6's spans still become calls (the processor installs the mapping itself),
 * and `ai` is never loaded by tracewire for it.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { generateText as generateText6 } from "ai6";
import { createOpenAICompatible } from "ai6-openai-compatible";
import { afterEach, beforeEach, expect, it } from "vitest";
import { globalState } from "../../src/otel/state.js";
import { TracewireSpanProcessor } from "../../src/otel-entry.js";
import { setupOpenAIServer, summaryOf } from "../instrument/support.js";
import { MODEL_SUFFIX, TEXT } from "../support/openai-server.js";
import { TracingDouble } from "../support/tracing-double.js";
import { MODEL, usageOf } from "./support.js";

const ctx = setupOpenAIServer();
let double: TracingDouble;
let provider: BasicTracerProvider;
let processor: TracewireSpanProcessor;

beforeEach(async () => {
  // Workers are reused across files: no mapping left installed by an earlier init(), and empty OTel globals.
  delete globalState().adapters;
  double = await TracingDouble.start();
  processor = new TracewireSpanProcessor({
    baseUrl: double.url,
    project: "acme/own",
    env: {},
    scheduledDelayMillis: 10,
  });
  provider = new BasicTracerProvider({ spanProcessors: [processor] });
  trace.disable();
  context.disable();
  expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  expect(context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())).toBe(true);
});
afterEach(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
  await double.close();
});

it("the ai 6 spans become calls with only the processor in the app's own provider", async () => {
  const standin = createOpenAICompatible({
    name: "standin",
    baseURL: ctx.server.baseURL,
    apiKey: "sk-test",
    includeUsage: true,
  });
  const result = await generateText6({
    model: standin(MODEL),
    prompt: "Hello?",
    maxRetries: 0,
    experimental_telemetry: { isEnabled: true, functionId: "answer" },
  });
  expect(result.text).toBe(TEXT);
  await processor.forceFlush();

  const [operation] = double.callsNamed("answer");
  const [model] = double.callsNamed("ai.generateText.doGenerate");
  expect(operation?.start).toMatchObject({ inputs: { prompt: "Hello?" } });
  expect(operation?.end?.output).toMatchObject({ text: TEXT, finishReason: "stop" });
  expect(model?.start).toMatchObject({
    parent_id: operation!.start!.id,
    attributes: { operation: "chat", provider: "standin", model: MODEL },
  });
  expect(summaryOf(model!).usage).toEqual(usageOf(`${MODEL}${MODEL_SUFFIX}`));
  // Nothing of the AI SDK went by OTLP.
  expect(double.spans).toHaveLength(0);
  expect(processor.stats()).toMatchObject({ otlp: { sent: 0 }, internalErrors: 0 });
});
