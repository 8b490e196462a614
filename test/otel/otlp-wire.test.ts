/**
 * What the OTLP route puts on the wire, decoded field by field with the independent decoder in
 * test/support/otlp.ts (protobufjs for binary bodies): ids, parentage, name, kind, timestamps against the span's
 * own times, attributes of every type, events, status, flags, resource and scope; protobuf and JSON, gzip and
 * plain; the headers; and `partial_success` (counted, logged once, never retried).
 */
import { type Attributes, type HrTime, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { type InitOptions, op } from "../../src/index.js";
import { allSpans, type DecodedTraceRequest, decodeTraceRequest } from "../support/otlp.js";
import { type RecordedRequest, TestServer } from "../support/server.js";
import { nanos, PACKAGE_VERSION, PROJECT, recordingLogger, setupTracedDouble } from "./helpers.js";

// Batches go out only on flush(), so "one request" never depends on how the timer races the test under load.
const ctx = setupTracedDouble({ scheduledDelayMillis: 60_000 });

const API_KEY = "tw_test_key_0123456789";
const START: HrTime = [1_767_225_600, 123_456_789];
const RETRY_AT: HrTime = [1_767_225_600, 500_000_001];
const FAILED_AT: HrTime = [1_767_225_601, 7];
const END: HrTime = [1_767_225_602, 999_999_999];
/** Every attribute value type the SDK admits; the long string also makes the body large enough to be gzipped. */
const ATTRIBUTES = {
  "http.request.method": "POST",
  "feature.on": true,
  "feature.off": false,
  "http.response.status_code": 503,
  "retry.delta": -2,
  "big.int": 2 ** 53 - 1,
  "sampling.ratio": 0.375,
  "labels.list": ["a", "b", "ç"],
  "ports.list": [80, 443],
  "weights.list": [0.5, 1.25],
  "flags.list": [true, false],
  "payload.preview": `${"é".repeat(700)}${"x".repeat(700)}`,
} satisfies Attributes;

interface Emitted {
  traceId: string;
  opId: string;
  rich: ReadableSpan;
  plain: ReadableSpan;
}

/** Inside an op, a foreign tracer makes a span with fixed times and rich content, and one with its own times. */
async function emitSpans(): Promise<Emitted> {
  const out = {} as Emitted;
  await op(async function checkout() {
    const active = trace.getActiveSpan()!.spanContext();
    out.traceId = active.traceId;
    out.opId = active.spanId;
    const tracer = trace.getTracer("wire-lib", "2.3.4");
    const rich = tracer.startSpan("POST /v1/embeddings", {
      kind: SpanKind.CLIENT,
      startTime: START,
      attributes: ATTRIBUTES,
    });
    rich.addEvent("retry", { attempt: 2, "retry.reason": "timeout" }, RETRY_AT);
    rich.recordException(new TypeError("boom"), FAILED_AT);
    rich.setStatus({ code: SpanStatusCode.ERROR, message: "upstream failed" });
    rich.end(END);
    const plain = tracer.startSpan("cache.lookup");
    await new Promise((resolve) => setTimeout(resolve, 2));
    plain.end();
    // The SDK's span object is also its ReadableSpan: its own recorded times.
    out.rich = rich as unknown as ReadableSpan;
    out.plain = plain as unknown as ReadableSpan;
  })();
  return out;
}

/** The one OTLP request of a test, decoded. */
function onlyOtlpRequest(): { request: RecordedRequest; decoded: DecodedTraceRequest } {
  expect(ctx.double.otlpRequests).toHaveLength(1);
  const request = ctx.double.otlpRequests[0]!;
  return { request, decoded: decodeTraceRequest(request.body, request.headers["content-type"] ?? "") };
}

/** Checks every field of the decoded request against the spans that were made. */
function expectSpansOnWire(decoded: DecodedTraceRequest, emitted: Emitted, serviceName: string): void {
  expect(decoded.resourceSpans).toHaveLength(1);
  const [rs] = decoded.resourceSpans;
  expect(rs!.resource.attributes).toMatchObject({
    "service.name": serviceName,
    "telemetry.distro.name": "tracewire",
    "telemetry.distro.version": PACKAGE_VERSION,
    "telemetry.sdk.name": "opentelemetry",
    "telemetry.sdk.language": "nodejs",
  });
  expect(rs!.scopeSpans).toHaveLength(1);
  const [ss] = rs!.scopeSpans;
  expect(ss!.scope).toEqual({ name: "wire-lib", version: "2.3.4", attributes: {} });
  expect(ss!.spans.map((s) => s.name)).toEqual(["POST /v1/embeddings", "cache.lookup"]);
  const [rich, plain] = ss!.spans;

  expect(rich).toEqual({
    traceId: emitted.traceId,
    spanId: emitted.rich.spanContext().spanId,
    parentSpanId: emitted.opId,
    traceState: "",
    name: "POST /v1/embeddings",
    kind: 3, // SPAN_KIND_CLIENT
    startTimeUnixNano: nanos(START),
    endTimeUnixNano: nanos(END),
    attributes: ATTRIBUTES,
    droppedAttributesCount: 0,
    events: [
      {
        name: "retry",
        timeUnixNano: nanos(RETRY_AT),
        attributes: { attempt: 2, "retry.reason": "timeout" },
        droppedAttributesCount: 0,
      },
      {
        name: "exception",
        timeUnixNano: nanos(FAILED_AT),
        attributes: {
          "exception.type": "TypeError",
          "exception.message": "boom",
          "exception.stacktrace": expect.stringContaining("TypeError: boom"),
        },
        droppedAttributesCount: 0,
      },
    ],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { code: 2, message: "upstream failed" }, // STATUS_CODE_ERROR
    flags: 0x101, // sampled | SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE (the parent is local)
  });
  expect(plain).toMatchObject({
    traceId: emitted.traceId,
    spanId: emitted.plain.spanContext().spanId,
    parentSpanId: emitted.opId,
    kind: 1, // SPAN_KIND_INTERNAL
    startTimeUnixNano: nanos(emitted.plain.startTime),
    endTimeUnixNano: nanos(emitted.plain.endTime),
    attributes: {},
    events: [],
    status: { code: 0, message: "" },
  });
  expect(BigInt(plain!.endTimeUnixNano)).toBeGreaterThan(BigInt(plain!.startTimeUnixNano));
}

describe("OTLP body, field by field", () => {
  const cases: { title: string; options: InitOptions; contentType: string; gzip: boolean }[] = [
    { title: "default: protobuf, gzip", options: {}, contentType: "application/x-protobuf", gzip: true },
    {
      title: 'otlpCompression: "none": protobuf, plain',
      options: { otlpCompression: "none" },
      contentType: "application/x-protobuf",
      gzip: false,
    },
    {
      title: 'otlpProtocol: "http/json"',
      options: { otlpProtocol: "http/json" },
      contentType: "application/json",
      gzip: true,
    },
    {
      title: "env OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json",
      options: { env: { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" } },
      contentType: "application/json",
      gzip: true,
    },
  ];

  it.each(cases)("$title", async ({ options, contentType, gzip }) => {
    const tracing = ctx.start({ apiKey: API_KEY, serviceName: "checkout", ...options });
    const emitted = await emitSpans();
    await tracing.flush();

    const { request, decoded } = onlyOtlpRequest();
    expect(request.path).toBe("/otel/v1/traces");
    expect(request.headers["content-type"]).toBe(contentType);
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.headers.project_id).toBe(PROJECT);
    if (gzip) {
      expect(request.headers["content-encoding"]).toBe("gzip");
      expect([...request.rawBody.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      expect(request.rawBody.length).toBeLessThan(request.body.length);
    } else {
      expect(request.headers["content-encoding"]).toBeUndefined();
      expect(request.rawBody.equals(request.body)).toBe(true);
    }
    expectSpansOnWire(decoded, emitted, "checkout");

    if (contentType === "application/json") {
      // OTLP/JSON spells ids as lower-case hex (not base64) and enums as integers.
      const raw = JSON.parse(request.body.toString("utf8"));
      const span = raw.resourceSpans[0].scopeSpans[0].spans[0];
      expect(span).toMatchObject({
        traceId: emitted.traceId,
        spanId: emitted.rich.spanContext().spanId,
        parentSpanId: emitted.opId,
        kind: 3,
      });
    }
    // The op itself went natively, with the same trace and the foreign spans' parent as its id.
    expect(ctx.double.call(emitted.opId).start).toMatchObject({ trace_id: emitted.traceId, op_name: "checkout" });
    expect(tracing.stats().otlp).toMatchObject({ sent: 2, rejected: 0, dropped: 0 });
  });
});

describe("resource and headers", () => {
  const serviceNameOf = () => allResources()[0]?.["service.name"];
  const allResources = () =>
    ctx.double.otlpRequests.flatMap((r) =>
      decodeTraceRequest(r.body, r.headers["content-type"] ?? "").resourceSpans.map((rs) => rs.resource.attributes),
    );
  const foreignSpan = () => trace.getTracer("lib").startSpan("work").end();

  it("service.name comes from env OTEL_SERVICE_NAME", async () => {
    const tracing = ctx.start({ env: { OTEL_SERVICE_NAME: "from-env" } });
    foreignSpan();
    await tracing.flush();
    expect(serviceNameOf()).toBe("from-env");
  });

  it("a blank OTEL_SERVICE_NAME counts as unset, as every blank setting does: the default name, not a blank one", async () => {
    const tracing = ctx.start({ env: { OTEL_SERVICE_NAME: "   " } });
    foreignSpan();
    await tracing.flush();
    expect(serviceNameOf()).toBe(`unknown_service:${process.argv0}`);
  });

  it("the serviceName option wins over OTEL_SERVICE_NAME", async () => {
    const tracing = ctx.start({ serviceName: "from-option", env: { OTEL_SERVICE_NAME: "from-env" } });
    foreignSpan();
    await tracing.flush();
    expect(serviceNameOf()).toBe("from-option");
    expect(allResources()[0]).toMatchObject({ "telemetry.distro.name": "tracewire" });
  });

  it("gzip (the default) applies to bodies of 1 KiB or more: a smaller body goes plain, as the README says", async () => {
    const tracing = ctx.start();
    foreignSpan();
    await tracing.flush();
    const [small] = ctx.double.otlpRequests;
    expect(small!.body.length).toBeLessThan(1024);
    expect(small!.headers["content-encoding"]).toBeUndefined();
    trace
      .getTracer("lib")
      .startSpan("work", { attributes: { note: "x".repeat(2000) } })
      .end();
    await tracing.flush();
    const large = ctx.double.otlpRequests[1]!;
    expect(large.body.length).toBeGreaterThanOrEqual(1024);
    expect(large.headers["content-encoding"]).toBe("gzip");
  });

  it("OTEL_EXPORTER_OTLP_TRACES_HEADERS (percent-decoded) go on OTLP requests only", async () => {
    const tracing = ctx.start({
      apiKey: API_KEY,
      env: { OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-tenant=blue, X-Source=ci%20run%2C%20nightly" },
    });
    await op(async function withChild() {
      foreignSpan();
    })();
    await tracing.flush();

    const otlp = onlyOtlpRequest().request;
    expect(otlp.headers).toMatchObject({
      "x-tenant": "blue",
      "x-source": "ci run, nightly",
      project_id: PROJECT,
      authorization: `Bearer ${API_KEY}`,
    });
    const calls = ctx.double.server.received("POST", "/call/upsert_batch");
    expect(calls.length).toBeGreaterThan(0);
    for (const r of calls) {
      expect(r.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(r.headers["x-tenant"]).toBeUndefined();
    }
  });
});

describe("the OTLP settings read from the environment", () => {
  it("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is: spans go there, calls still to the base URL", async () => {
    const collector = await TestServer.start();
    try {
      collector.on("POST", "/custom/v1/traces", { status: 200, body: "" } as never);
      const tracing = ctx.start({ env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/custom/v1/traces` } });
      await op(async function routed() {
        trace.getTracer("lib").startSpan("work").end();
      })();
      await tracing.flush();
      expect(collector.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /custom/v1/traces"]);
      expect(collector.requests[0]!.headers.project_id).toBe(PROJECT);
      expect(ctx.double.otlpRequests).toHaveLength(0);
      expect(ctx.double.callsNamed("routed")).toHaveLength(1);
    } finally {
      await collector.close();
    }
  });

  it("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT cuts string values, in arrays too", async () => {
    const tracing = ctx.start({ env: { OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: "5" } });
    trace
      .getTracer("lib")
      .startSpan("work", { attributes: { long: "abcdefghij", list: ["abcdefgh", "xy"], n: 123456789 } })
      .end();
    await tracing.flush();
    const [span] = allSpans(onlyOtlpRequest().decoded);
    expect(span!.attributes).toEqual({ long: "abcde", list: ["abcde", "xy"], n: 123456789 });
  });
});

describe("span limits (OTEL_SPAN_*_LIMIT) of the provider init() registers", () => {
  it("are honoured: what is over a limit is left out and counted in the dropped counts", async () => {
    const tracing = ctx.start({
      env: {
        OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: "2",
        OTEL_SPAN_EVENT_COUNT_LIMIT: "1",
        OTEL_SPAN_LINK_COUNT_LIMIT: "1",
        OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT: "1",
        OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT: "0",
      },
    });
    const link = { traceId: "1".repeat(32), spanId: "2".repeat(16), traceFlags: 1 };
    const span = trace.getTracer("lib").startSpan("work", {
      attributes: { a: 1, b: 2, c: 3 },
      links: [{ context: link, attributes: { why: "batch" } }],
    });
    span.addEvent("first");
    span.addEvent("second", { x: 1, y: 2 });
    span.end();
    await tracing.flush();
    const [wire] = allSpans(onlyOtlpRequest().decoded);
    expect(wire).toMatchObject({
      attributes: { a: 1, b: 2 },
      droppedAttributesCount: 1,
      events: [{ name: "second", attributes: { x: 1 }, droppedAttributesCount: 1 }],
      droppedEventsCount: 1,
      links: [{ traceId: link.traceId, spanId: link.spanId, attributes: {}, droppedAttributesCount: 1 }],
      droppedLinksCount: 0,
    });
  });
});

describe("partial_success", () => {
  it.each(["http/protobuf", "http/json"] as const)(
    "%s: counted in stats().otlp.rejected, logged once, never retried",
    async (otlpProtocol) => {
      const { lines, logger } = recordingLogger();
      const tracing = ctx.start({ otlpProtocol, logger });
      ctx.double.partialSuccess = { rejectedSpans: 2, errorMessage: "attribute value too long" };
      const tracer = trace.getTracer("lib");
      for (const name of ["a", "b", "c"]) tracer.startSpan(name).end();
      await tracing.flush();

      expect(ctx.double.server.received("POST", "/otel/v1/traces")).toHaveLength(1);
      expect(allSpans(decodeTraceRequest(ctx.double.otlpRequests[0]!.body, otlpProtocol.slice(5))).length).toBe(3);
      expect(tracing.stats().otlp).toMatchObject({ sent: 1, rejected: 2, retries: 0, dropped: 0, queued: 0 });
      const logged = lines.warn.filter((l) => l.includes("attribute value too long"));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain("2 span(s) rejected");

      // A second partial success is counted too, and does not flood the log.
      ctx.double.partialSuccess = { rejectedSpans: 1, errorMessage: "attribute value too long" };
      tracer.startSpan("d").end();
      await tracing.flush();
      expect(ctx.double.server.received("POST", "/otel/v1/traces")).toHaveLength(2);
      expect(tracing.stats().otlp).toMatchObject({ sent: 1, rejected: 3, retries: 0 });
      expect(lines.warn.filter((l) => l.includes("attribute value too long"))).toHaveLength(1);
    },
  );
});
