/**
 * `createOtlpExporter()` on its own, inside the app's own `BatchSpanProcessor` (docs/own-otel-sdk.md): the same exit
 * check of span attributes, event texts and status messages as the processor's OTLP route (docs/concepts.md, "What is
 * recorded, and what never is"), decoded field by field from what the tracing service receives; only the options it
 * reads; and a result (and a warning) that says when the service refused the spans.
 */
import { SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_REDACT_KEYS } from "../../src/index.js";
import { createOtlpExporter, type OtlpExporterOptions } from "../../src/otel-entry.js";
import { configError } from "../support/errors.js";
import { allSpans, type DecodedSpan } from "../support/otlp.js";
import { TracingDouble } from "../support/tracing-double.js";
import { decodedOtlp, PROJECT, recordingLogger } from "./helpers.js";

let double: TracingDouble;
beforeEach(async () => {
  double = await TracingDouble.start();
});
afterEach(async () => {
  await double.close();
});

/** One span made through a provider whose only processor is a BatchSpanProcessor over the standalone exporter. */
async function exportOneSpan(options: OtlpExporterOptions = {}): Promise<DecodedSpan> {
  const exporter = createOtlpExporter({ baseUrl: double.url, project: PROJECT, env: {}, ...options });
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  const span = provider.getTracer("http-lib", "1.0.0").startSpan("GET /profile", {
    attributes: {
      "http.request.header.authorization": "Bearer sk-live-0123456789abcdef",
      "url.full": "https://ada:hunter2@api.example.com/profile?api_key=k-0123456789&page=2",
      "customer.ssn": "078-05-1120",
      "http.route": "/profile",
    },
  });
  span.recordException(new Error("upstream said: Authorization: Bearer sk-live-0123456789abcdef"));
  span.setStatus({ code: SpanStatusCode.ERROR, message: "refused Bearer sk-live-0123456789abcdef" });
  span.end();
  await provider.shutdown();
  const spans = decodedOtlp(double).flatMap(allSpans);
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

describe("createOtlpExporter() in the app's own BatchSpanProcessor", () => {
  it.each(["http/protobuf", "http/json"] as const)(
    "masks credentials in attributes, exception texts and the status message (%s)",
    async (otlpProtocol) => {
      const span = await exportOneSpan({ otlpProtocol });
      expect(span.attributes).toEqual({
        "http.request.header.authorization": "REDACTED",
        "url.full": expect.not.stringMatching(/hunter2|k-0123456789/),
        "customer.ssn": "078-05-1120",
        "http.route": "/profile",
      });
      expect(span.attributes["url.full"]).toContain("api.example.com/profile");
      expect(span.attributes["url.full"]).toContain("page=2");
      const exception = span.events.find((e) => e.name === "exception")!;
      expect(exception.attributes["exception.message"]).not.toContain("sk-live-0123456789abcdef");
      expect(exception.attributes["exception.stacktrace"]).not.toContain("sk-live-0123456789abcdef");
      expect(span.status.code).toBe(2);
      expect(span.status.message).not.toContain("sk-live-0123456789abcdef");
      expect(double.wireText()).not.toContain("sk-live-0123456789abcdef");
      expect(double.wireText()).not.toContain("hunter2");
    },
  );

  it("redactKeys extends (or, as [], turns off) the key list, as for init()", async () => {
    const extended = await exportOneSpan({ redactKeys: [...DEFAULT_REDACT_KEYS, "ssn"] });
    expect(extended.attributes).toMatchObject({
      "http.request.header.authorization": "REDACTED",
      "customer.ssn": "REDACTED",
    });
    double.otlpRequests.length = 0;
    const off = await exportOneSpan({ redactKeys: [] });
    expect(off.attributes["http.request.header.authorization"]).toBe("Bearer sk-live-0123456789abcdef");
  });
});

describe("createOtlpExporter() options", () => {
  it.each([
    ["maxQueueSize", 100],
    ["exportTimeoutMillis", 5000],
    ["captureContent", false],
    ["export", "otlp"],
    ["serviceName", "checkout"],
  ])("%s (the processor's, or init()'s) is a ConfigError naming it, not ignored", (setting, value) => {
    const err = configError(() => createOtlpExporter({ baseUrl: double.url, project: PROJECT, [setting]: value }));
    expect(err.setting).toBe(setting);
    expect(err.expected).toContain("createOtlpExporter()");
  });
});

describe("createOtlpExporter() results", () => {
  /** One span exported directly, as a BatchSpanProcessor does: the result it reports back. */
  async function exportResult(options: OtlpExporterOptions = {}) {
    const exporter = createOtlpExporter({ baseUrl: double.url, project: PROJECT, env: {}, ...options });
    const provider = new BasicTracerProvider();
    const span = provider.getTracer("lib").startSpan("work");
    span.end();
    const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
      exporter.export([span as unknown as ReadableSpan], resolve),
    );
    await exporter.shutdown();
    return result;
  }

  it("a span the service accepted is SUCCESS, and nothing is logged", async () => {
    const { lines, logger } = recordingLogger();
    expect(await exportResult({ logger })).toEqual({ code: 0 });
    expect(lines.warn).toEqual([]);
  });

  it.each([
    [401, "apiKey"],
    [400, "refused 1 span(s)"],
  ])("%s: FAILED with the service's error, and one warning says what happened", async (status, said) => {
    double.fail("/otel/v1/traces", { status, body: { reason: "no" } });
    const { lines, logger } = recordingLogger();
    const result = await exportResult({ logger, apiKey: "tw_key_0123456789abcdef" });
    expect(result.code).toBe(1);
    expect(result.error).toMatchObject({ status });
    expect(lines.warn).toHaveLength(1);
    expect(lines.warn[0]).toContain(said);
    expect(lines.warn[0]).not.toContain("tw_key_0123456789abcdef");
  });

  it("a partial success is SUCCESS (the OTLP rule: never resent), and the rejection is logged", async () => {
    double.partialSuccess = { rejectedSpans: 1, errorMessage: "attribute too long" };
    const { lines, logger } = recordingLogger();
    expect(await exportResult({ logger })).toEqual({ code: 0 });
    expect(lines.warn.join("\n")).toContain("attribute too long");
  });
});
