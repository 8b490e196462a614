/**
 * wrapOpenAI under an app's own OpenTelemetry SDK: without a tracewire processor the chat spans still go to the
 * app's exporters as standard GenAI spans; a sampler that drops the trace leaves the request exactly as sent
 * untraced (no usage injection, nothing recorded).
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, expect, it } from "vitest";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { TracewireSpanProcessor } from "../../src/otel/index.js";
import { USAGE } from "../support/openai-server.js";
import { TracingDouble } from "../support/tracing-double.js";
import { collect, MESSAGES, makeClient, setupOpenAIServer, VERSIONS } from "./support.js";

const ctx = setupOpenAIServer();
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

function register(provider: BasicTracerProvider): void {
  expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  cleanup = async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  };
}

it("without a tracewire processor, the app's exporter gets standard GenAI spans (no payloads)", async () => {
  const exporter = new InMemorySpanExporter();
  register(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  const client = wrapOpenAI(makeClient(VERSIONS[0]!, ctx.server));
  await collect(await client.chat.completions.create({ model: "gpt-4o-mini", messages: MESSAGES, stream: true }));
  const [span] = exporter.getFinishedSpans();
  expect(span!.name).toBe("chat gpt-4o-mini");
  expect(span!.instrumentationScope.name).toBe("tracewire");
  expect(span!.attributes).toMatchObject({
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.stream": true,
    "gen_ai.usage.input_tokens": USAGE.prompt_tokens,
  });
  expect(span!.attributes["input.value"]).toBeUndefined();
});

it("a trace the app's sampler drops is not touched: the request goes out as written", async () => {
  const double = await TracingDouble.start();
  const processor = new TracewireSpanProcessor({
    baseUrl: double.url,
    project: "acme/demo",
    env: {},
    exitHooks: false,
  });
  register(new BasicTracerProvider({ sampler: new AlwaysOffSampler(), spanProcessors: [processor] }));
  const previous = cleanup!;
  cleanup = async () => {
    await previous();
    await double.close();
  };
  const client = wrapOpenAI(makeClient(VERSIONS[1]!, ctx.server));
  const chunks = await collect(
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: MESSAGES, stream: true }),
  );
  expect(chunks.length).toBeGreaterThan(0);
  expect(ctx.server.chatBodies().at(-1)!.stream_options).toBeUndefined();
  await processor.forceFlush();
  expect(double.calls.size).toBe(0);
  expect(double.spans).toHaveLength(0);
});
