/**
 * An app that adds `TracewireSpanProcessor` to its own `BasicTracerProvider` but registers no context manager (OTel JS
 * 2.x providers no longer register one): nothing can nest, so every op is a trace of its own. tracewire says so once,
 * naming the fix, instead of recording a broken tree without a word; with a context manager it says nothing.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { TracewireSpanProcessor } from "../../src/otel/index.js";
import { globalState } from "../../src/otel/state.js";
import { TracingDouble } from "../support/tracing-double.js";
import { PROJECT, recordingLogger } from "./helpers.js";

let double: TracingDouble;
let provider: BasicTracerProvider;
let processor: TracewireSpanProcessor;
let log: ReturnType<typeof recordingLogger>;

beforeEach(async () => {
  double = await TracingDouble.start();
  log = recordingLogger();
  processor = new TracewireSpanProcessor({
    baseUrl: double.url,
    project: PROJECT,
    env: {},
    scheduledDelayMillis: 10,
    logger: log.logger,
  });
  provider = new BasicTracerProvider({ spanProcessors: [processor] });
  trace.disable();
  context.disable();
  trace.setGlobalTracerProvider(provider);
  globalState().warned.delete("no-context-manager");
});
afterEach(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
  await double.close();
});

const nested = () => {
  const inner = op(async function inner() {
    return 1;
  });
  return op(async function outer() {
    return inner();
  })();
};

it("without a context manager: one warning naming the fix, however many ops run", async () => {
  await nested();
  await nested();
  const lines = log.lines.warn.filter((l) => l.includes("context manager"));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain("AsyncLocalStorageContextManager");
});

it("with a context manager: no warning, and the ops nest", async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  await nested();
  expect(log.lines.warn.filter((l) => l.includes("context manager"))).toEqual([]);
  await processor.forceFlush();
  const [outer] = double.callsNamed("outer");
  expect(double.callsNamed("inner")[0]?.start?.parent_id).toBe(outer?.start?.id);
});
