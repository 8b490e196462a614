/**
 * An export that times out is logged with the setting that would give it longer, as init() and
 * the processor spell it (docs/configuration.md) — not the service clients' `timeoutMs`, which init() refuses.
 */
import { trace } from "@opentelemetry/api";
import { afterEach, beforeEach, expect, it } from "vitest";
import { init, op } from "../../src/index.js";
import { recordingLogger } from "../otel/helpers.js";
import { TracingDouble } from "../support/tracing-double.js";

let double: TracingDouble;
beforeEach(async () => {
  double = await TracingDouble.start();
});
afterEach(async () => {
  double.releaseHung();
  await double.close();
});

it("an OTLP request that times out names otlpTimeoutMillis and OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", async () => {
  double.down(["/otel/v1/traces"], "hang");
  const { lines, logger } = recordingLogger();
  const tracing = init({
    baseUrl: double.url,
    project: "acme/demo",
    scheduledDelayMillis: 10,
    exportTimeoutMillis: 1000,
    logger,
    env: { OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "200" },
  });
  trace.getTracer("lib").startSpan("work").end();
  await tracing.flush();
  await tracing.shutdown();
  const timedOut = lines.warn.filter((l) => l.includes("timed out"));
  expect(timedOut.length).toBeGreaterThan(0);
  expect(timedOut[0]).toContain("otlpTimeoutMillis");
  expect(timedOut[0]).toContain("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT");
  expect(timedOut[0]).not.toContain("timeoutMs");
});

it("a calls export past its deadline names exportTimeoutMillis and OTEL_BSP_EXPORT_TIMEOUT", async () => {
  double.down(["/call/upsert_batch"], "hang");
  const { lines, logger } = recordingLogger();
  const tracing = init({
    baseUrl: double.url,
    project: "acme/demo",
    scheduledDelayMillis: 10,
    logger,
    env: { OTEL_BSP_EXPORT_TIMEOUT: "300" },
  });
  await op(async function work() {})();
  await tracing.flush();
  await tracing.shutdown();
  const failed = lines.warn.filter((l) => l.includes("Sending calls failed"));
  expect(failed.length).toBeGreaterThan(0);
  expect(failed[0]).toContain("exportTimeoutMillis (env OTEL_BSP_EXPORT_TIMEOUT)");
  expect(failed[0]).toContain("300 ms");
});
