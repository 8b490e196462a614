/**
 * The processor's record of the calls still running (src/otel/open-calls.ts), on real SDK spans: bounded (a span
 * nobody ends must not be held forever), and what shutdown does with each kind of running span.
 */

import type { Span } from "@opentelemetry/sdk-trace-base";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { Diagnostics } from "../../src/otel/diagnostics.js";
import { MAX_OPEN_CALLS, OpenCalls } from "../../src/otel/open-calls.js";
import { setSpanRoute, spanRoute } from "../../src/otel/span-data.js";

const tracer = new BasicTracerProvider().getTracer("test");
const started = (name: string) => tracer.startSpan(name) as unknown as Span;

function tracked() {
  const warnings: string[] = [];
  const open = new OpenCalls(new Diagnostics({ warn: (m) => warnings.push(m), error: (m) => warnings.push(m) }));
  const sent: { name: string; route: string; attributes: Record<string, unknown>; ended: boolean }[] = [];
  const close = () =>
    open.closeAll(
      "shutdown",
      (_span, ended, route) => sent.push({ name: ended.name, route, attributes: ended.attributes, ended: ended.ended }),
      (err) => {
        throw err;
      },
      true,
    );
  return { open, warnings, sent, close };
}

describe("OpenCalls", () => {
  it(`keeps at most ${MAX_OPEN_CALLS} running calls: past that the oldest is let go, with one warning`, () => {
    const { open, warnings, sent, close } = tracked();
    const spans: Span[] = [];
    for (let i = 0; i <= MAX_OPEN_CALLS + 5; i++) {
      const span = started(`call-${i}`);
      setSpanRoute(span, "calls");
      spans.push(span);
      open.add(span);
    }
    expect(open.size).toBe(MAX_OPEN_CALLS);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(String(MAX_OPEN_CALLS));
    close();
    expect(sent).toHaveLength(MAX_OPEN_CALLS);
    // Newest first; the six oldest were let go.
    expect(sent[0]?.name).toBe(`call-${MAX_OPEN_CALLS + 5}`);
    expect(sent.at(-1)?.name).toBe("call-6");
    for (const span of spans) span.end();
  });

  it("shutdown sends a view ended as cancelled, marks the span closed, and leaves the span itself running", () => {
    const { open, sent, close } = tracked();
    const span = started("running");
    span.setAttribute("own", 1);
    setSpanRoute(span, "otlp");
    open.add(span);
    const ended = started("ended");
    setSpanRoute(ended, "calls");
    open.add(ended);
    ended.end();
    close();
    expect(sent).toEqual([
      {
        name: "running",
        route: "otlp",
        attributes: { own: 1, "tracewire.cancelled": true, "tracewire.cancel.reason": "shutdown" },
        ended: true,
      },
    ]);
    expect(span.ended).toBe(false);
    expect(span.attributes).toEqual({ own: 1 });
    expect(spanRoute(span)).toBe("closed");
    // Calls that start after shutdown are not tracked.
    open.add(started("late"));
    expect(open.size).toBe(0);
    span.end();
  });

  it("ended on the way out (stop false): calls that start afterwards are still tracked", () => {
    const open = new OpenCalls(new Diagnostics({ warn: () => {}, error: () => {} }));
    const first = started("first");
    setSpanRoute(first, "calls");
    open.add(first);
    const sent: string[] = [];
    open.closeAll(
      "shutdown",
      (_span, ended) => sent.push(ended.name),
      () => {},
      false,
    );
    const later = started("later");
    setSpanRoute(later, "calls");
    open.add(later);
    expect(open.size).toBe(1);
    open.closeAll(
      "shutdown",
      (_span, ended) => sent.push(ended.name),
      () => {},
      true,
    );
    expect(sent).toEqual(["first", "later"]);
    first.end();
    later.end();
  });
});
