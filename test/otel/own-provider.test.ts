/**
 * An app that owns its OpenTelemetry setup (a `BasicTracerProvider` registered globally, an AsyncLocalStorage
 * context manager) adds `TracewireSpanProcessor` to it and never calls `init()`: `op()` spans still parent under
 * the app's active span, go natively as calls, and the app's own spans go by OTLP — one trace.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { TracewireSpanProcessor } from "../../src/otel/index.js";
import { TracingDouble } from "../support/tracing-double.js";
import { expectDeliveredOnce, PROJECT, scopeOfSpan } from "./helpers.js";

let double: TracingDouble;
let provider: BasicTracerProvider;
let processor: TracewireSpanProcessor;

beforeEach(async () => {
  double = await TracingDouble.start();
  processor = new TracewireSpanProcessor({ baseUrl: double.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
  provider = new BasicTracerProvider({ spanProcessors: [processor] });
  // Workers are reused across files: start from empty OTel globals whatever ran before.
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

it("op() spans parent under the app's active span and reach the service; the app's spans go by OTLP", async () => {
  const retrieve = op(async function retrieve(query: string) {
    return [`doc about ${query}`];
  });
  const answer = op(async function answer(question: string) {
    const docs = await retrieve(question);
    return `${docs.length} doc(s)`;
  });

  const app = trace.getTracer("app-http", "4.0.0");
  let request = { traceId: "", spanId: "" };
  const result = await app.startActiveSpan("POST /ask", async (span) => {
    request = span.spanContext();
    try {
      return await answer("otel");
    } finally {
      span.end();
    }
  });
  expect(result).toBe("1 doc(s)");
  await processor.forceFlush();

  const [answerCall] = double.callsNamed("answer");
  const [retrieveCall] = double.callsNamed("retrieve");
  expect(answerCall?.start).toMatchObject({
    trace_id: request.traceId,
    parent_id: request.spanId,
    inputs: { arg0: "otel" },
  });
  expect(answerCall?.end).toMatchObject({ output: "1 doc(s)" });
  expect(retrieveCall?.start).toMatchObject({ trace_id: request.traceId, parent_id: answerCall!.start!.id });
  for (const call of [answerCall!, retrieveCall!]) expectDeliveredOnce(double, call.start!.id as string);

  expect(double.spans).toHaveLength(1);
  expect(double.spans[0]).toMatchObject({
    name: "POST /ask",
    traceId: request.traceId,
    spanId: request.spanId,
    parentSpanId: "",
  });
  expect(scopeOfSpan(double, request.spanId)).toBe("app-http");
  expect(processor.stats()).toMatchObject({ calls: { sent: 4 }, otlp: { sent: 1 }, internalErrors: 0 });
});
