/**
 * Size on the OTLP route: one oversized span is refused alone and does not shrink every later request for the life
 * of the process; a foreign span carrying a huge attribute value is cut to the attribute value limit before it
 * becomes a request.
 */
import { trace } from "@opentelemetry/api";
import { expect, it } from "vitest";
import { setupSessionPerTest } from "../support/tracing-session.js";
import { PATHS } from "./support.js";

const session = setupSessionPerTest({ scheduledDelayMillis: 10, otlpCompression: "none" });

/** Ends `n` small foreign spans, all in the same tick (one batch); returns their ids. */
function smallSpans(n: number, prefix: string): string[] {
  const tracer = trace.getTracer("app-db");
  return Array.from({ length: n }, (_, i) => {
    const span = tracer.startSpan(`${prefix} ${i}`);
    span.setAttribute("db.statement", `SELECT ${i}`);
    span.end();
    return span.spanContext().spanId;
  });
}

it("one oversized span is refused alone; afterwards 200 small spans go in one request again", async () => {
  const { double, tracing, logs } = session;
  double.maxOtlpBytes = 100_000;
  const tracer = trace.getTracer("app-http");
  const big = tracer.startSpan("upload");
  big.setAttribute("http.request.body", "x".repeat(150_000)); // under the value limit, over the body limit
  big.end();
  const first = smallSpans(10, "first");
  await tracing.flush();
  expect(tracing.stats().otlp).toMatchObject({ sent: 10, rejected: 1, dropped: 0, queued: 0 });
  expect(double.spans.map((s) => s.spanId).sort()).toEqual([...first].sort());
  expect(logs.some((l) => l.message.includes("refused 1 span(s)"))).toBe(true);

  const requestsBefore = double.server.received("POST", PATHS.otlp).length;
  const later = smallSpans(200, "later");
  await tracing.flush();
  const requests = double.server.received("POST", PATHS.otlp).length - requestsBefore;
  // Before: the 413 had cut requests to one span each for good (200 requests).
  expect(requests).toBeLessThanOrEqual(2);
  expect(double.spans).toHaveLength(210);
  expect(new Set(double.spans.map((s) => s.spanId))).toEqual(new Set([...first, ...later]));
  expect(tracing.stats().otlp).toMatchObject({ sent: 210, rejected: 1, dropped: 0, queued: 0 });
});

it("a 10 MiB attribute value is cut to the default limit (256 Ki) before it is encoded", async () => {
  const { double, tracing } = session;
  const span = trace.getTracer("app-http").startSpan("huge");
  // A surrogate pair straddles the limit: the cut must not split it.
  const value = `${"a".repeat(256 * 1024 - 1)}😀${"b".repeat(10 * 1024 * 1024)}`;
  span.setAttribute("http.response.body", value);
  span.setAttribute("small", "kept");
  span.end();
  await tracing.flush();
  const [stored] = double.spans;
  expect(stored!.attributes.small).toBe("kept");
  expect(stored!.attributes["http.response.body"]).toBe("a".repeat(256 * 1024 - 1));
  const [request] = double.otlpRequests;
  expect(request!.body.length).toBeLessThan(300_000);
});

it("otlpAttributeValueLengthLimit sets the limit, also for event attributes and string arrays", async () => {
  await session.restart({ scheduledDelayMillis: 10, otlpAttributeValueLengthLimit: 8, otlpProtocol: "http/json" });
  const { double, tracing } = session;
  const span = trace.getTracer("app").startSpan("limited");
  span.setAttribute("long", "0123456789abcdef");
  span.setAttribute("list", ["0123456789", "short"]);
  span.addEvent("evt", { detail: "0123456789" });
  span.end();
  await tracing.flush();
  const [stored] = double.spans;
  expect(stored!.attributes.long).toBe("01234567");
  expect(stored!.attributes.list).toEqual(["01234567", "short"]);
  expect(stored!.events[0]!.attributes.detail).toBe("01234567");
});
