import {
  type Attributes,
  context,
  type HrTime,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import { TraceState } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanLimits,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { encodeTraceRequestJson, encodeTraceRequestProto } from "../../src/wire/otlp-batch.js";
import { decodeExportResponse } from "../../src/wire/otlp-encode.js";
import {
  allSpans,
  type DecodedSpan,
  type DecodedTraceRequest,
  decodeTraceRequest,
  encodeExportResponse,
} from "../support/otlp.js";

const PROTO = "application/x-protobuf";
const JSON_TYPE = "application/json";

function makeProvider(attributes: Attributes, spanLimits?: SpanLimits, schemaUrl?: string) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(attributes, schemaUrl ? { schemaUrl } : undefined),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    ...(spanLimits ? { spanLimits } : {}),
  });
  return { provider, spans: () => exporter.getFinishedSpans() as ReadableSpan[] };
}

/** Exact nanoseconds of an HrTime, computed independently with BigInt. */
const nanos = (t: HrTime): string => (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString();

const LONG = "x".repeat(300) + "é".repeat(50); // > 43 UTF-16 units and > 127 bytes: multi-byte length varint
const REMOTE_PARENT: SpanContext = {
  traceId: "0AF7651916CD43DD8448EB211C80319C".toLowerCase(),
  spanId: "b7ad6b7169203331",
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
  traceState: new TraceState("vendor=value,other=1"),
};
const LINK_CTX: SpanContext = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceFlags: TraceFlags.NONE,
  isRemote: true,
  traceState: new TraceState("l=1"),
};
const LOCAL_LINK_CTX: SpanContext = { ...LINK_CTX, spanId: "1111111111111111", isRemote: false, traceState: undefined };

const ATTRS: Attributes = {
  "str.plain": "hello",
  "str.empty": "",
  "str.unicode": "héllo ✓ 🎉 日本",
  "str.long": LONG,
  "bool.true": true,
  "bool.false": false,
  "int.pos": 42,
  "int.zero": 0,
  "int.neg": -7,
  "int.big": 2 ** 40 + 3,
  "int.negbig": -(2 ** 45) - 1,
  "int.maxsafe": Number.MAX_SAFE_INTEGER,
  "int.huge": 2 ** 60,
  "int.min": -(2 ** 63),
  "int.from.float": 1.0,
  "double.pos": 3.25,
  "double.neg": -0.001,
  "double.huge": 1e300,
  "double.beyond.int64": 2 ** 64,
  "double.nan": Number.NaN,
  "arr.str": ["a", "", "ü"],
  "arr.num": [1, 2.5, -3],
  "arr.bool": [true, false],
  "arr.empty": [],
  "arr.holes": ["a", null, "b"],
};

/** Builds a fixed scene: two resources, three scopes, parent/child, remote parent, links, events, statuses. */
function buildScene() {
  const a = makeProvider(
    { "service.name": "svc-a", "deployment.environment": "test", "svc.shard": 3 },
    undefined,
    "https://opentelemetry.io/schemas/1.30.0",
  );
  const b = makeProvider(
    { "service.name": "svc-b" },
    { attributeCountLimit: 2, eventCountLimit: 1, linkCountLimit: 1 },
  );
  const t1 = a.provider.getTracer("scope-one", "1.2.3");
  const t2 = a.provider.getTracer("scope-two", undefined, { schemaUrl: "https://example.com/schema" });
  const tb = b.provider.getTracer("scope-b", "0.0.1");

  const parent = t1.startSpan(
    "parent",
    {
      kind: SpanKind.SERVER,
      attributes: ATTRS,
      startTime: [1767225600, 123456789],
      links: [{ context: LINK_CTX, attributes: { "link.attr": "x", "link.n": 5 } }, { context: LOCAL_LINK_CTX }],
    },
    ROOT_CONTEXT,
  );
  parent.addEvent("evt.one", { "evt.str": "v", "evt.int": 1, "evt.arr": [1.5, 2] }, [1767225600, 500000000]);
  parent.addEvent("evt.two", undefined, [1767225601, 7]);
  parent.setStatus({ code: SpanStatusCode.ERROR, message: "boom" });

  const child = t1.startSpan("child", { kind: SpanKind.CLIENT }, trace.setSpan(context.active(), parent));
  child.setStatus({ code: SpanStatusCode.OK });
  child.end();
  parent.end([1767225602, 999999999]);

  const remoteChild = t2.startSpan(
    "remote-child",
    { kind: SpanKind.CONSUMER },
    trace.setSpanContext(ROOT_CONTEXT, REMOTE_PARENT),
  );
  remoteChild.end();

  const limited = tb.startSpan(
    "limited",
    { kind: SpanKind.PRODUCER, links: [{ context: LINK_CTX }, { context: LOCAL_LINK_CTX }] },
    ROOT_CONTEXT,
  );
  limited.setAttributes({ a: 1, b: 2, c: 3, d: 4 });
  limited.addEvent("e1");
  limited.addEvent("e2");
  limited.end();

  const byName = (name: string) => [...a.spans(), ...b.spans()].find((s) => s.name === name)!;
  return {
    spans: [...a.spans(), ...b.spans()],
    parent: byName("parent"),
    child: byName("child"),
    remoteChild: byName("remote-child"),
    limited: byName("limited"),
  };
}

const encoders = [
  { label: "protobuf", contentType: PROTO, encode: encodeTraceRequestProto },
  { label: "JSON", contentType: JSON_TYPE, encode: encodeTraceRequestJson },
] as const;

describe.each(encoders)("encodeTraceRequest ($label)", ({ contentType, encode }) => {
  const scene = buildScene();
  const decoded: DecodedTraceRequest = decodeTraceRequest(encode(scene.spans), contentType);
  const find = (name: string): DecodedSpan => allSpans(decoded).find((s) => s.name === name)!;

  it("groups spans by resource, then by scope", () => {
    expect(decoded.resourceSpans).toHaveLength(2);
    const [ra, rb] = decoded.resourceSpans;
    expect(ra!.resource.attributes).toEqual({
      "service.name": "svc-a",
      "deployment.environment": "test",
      "svc.shard": 3,
    });
    expect(ra!.schemaUrl).toBe("https://opentelemetry.io/schemas/1.30.0");
    expect(ra!.scopeSpans.map((s) => s.scope)).toEqual([
      { name: "scope-one", version: "1.2.3", attributes: {} },
      { name: "scope-two", version: "", attributes: {} },
    ]);
    expect(ra!.scopeSpans.map((s) => s.schemaUrl)).toEqual(["", "https://example.com/schema"]);
    expect(ra!.scopeSpans[0]!.spans.map((s) => s.name).sort()).toEqual(["child", "parent"]);
    expect(ra!.scopeSpans[1]!.spans.map((s) => s.name)).toEqual(["remote-child"]);
    expect(rb!.resource.attributes).toEqual({ "service.name": "svc-b" });
    expect(rb!.schemaUrl).toBe("");
    expect(rb!.scopeSpans).toHaveLength(1);
    expect(rb!.scopeSpans[0]!.scope).toEqual({ name: "scope-b", version: "0.0.1", attributes: {} });
    expect(rb!.scopeSpans[0]!.spans.map((s) => s.name)).toEqual(["limited"]);
  });

  it("encodes ids, kind, exact timestamps, status and flags", () => {
    const p = find("parent");
    const ctx = scene.parent.spanContext();
    expect(p.traceId).toBe(ctx.traceId);
    expect(p.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(p.spanId).toBe(ctx.spanId);
    expect(p.parentSpanId).toBe("");
    expect(p.traceState).toBe("");
    expect(p.kind).toBe(2); // SERVER
    expect(p.startTimeUnixNano).toBe("1767225600123456789");
    expect(p.endTimeUnixNano).toBe("1767225602999999999");
    expect(p.status).toEqual({ code: 2, message: "boom" });
    expect(p.flags).toBe(0x101); // sampled + has-is-remote, local root
    expect(p.droppedAttributesCount).toBe(0);

    const c = find("child");
    expect(c.traceId).toBe(ctx.traceId);
    expect(c.spanId).toBe(scene.child.spanContext().spanId);
    expect(c.parentSpanId).toBe(ctx.spanId);
    expect(c.kind).toBe(3); // CLIENT
    expect(c.startTimeUnixNano).toBe(nanos(scene.child.startTime));
    expect(c.endTimeUnixNano).toBe(nanos(scene.child.endTime));
    expect(c.status).toEqual({ code: 1, message: "" });
    expect(c.flags).toBe(0x101);
    expect(c.attributes).toEqual({});
    expect(c.events).toEqual([]);
    expect(c.links).toEqual([]);

    const r = find("remote-child");
    expect(r.traceId).toBe(REMOTE_PARENT.traceId);
    expect(r.parentSpanId).toBe(REMOTE_PARENT.spanId);
    expect(r.traceState).toBe("vendor=value,other=1");
    expect(r.kind).toBe(5); // CONSUMER
    expect(r.flags).toBe(0x301); // sampled + has-is-remote + is-remote
    expect(r.status).toEqual({ code: 0, message: "" });
    expect(r.startTimeUnixNano).toBe(nanos(scene.remoteChild.startTime));

    expect(find("limited").kind).toBe(4); // PRODUCER
  });

  it("encodes every attribute type", () => {
    expect(find("parent").attributes).toEqual(ATTRS);
    expect(Object.keys(find("parent").attributes)).toEqual(Object.keys(ATTRS));
  });

  it("encodes events and links with their attributes", () => {
    const p = find("parent");
    expect(p.events).toEqual([
      {
        timeUnixNano: "1767225600500000000",
        name: "evt.one",
        attributes: { "evt.str": "v", "evt.int": 1, "evt.arr": [1.5, 2] },
        droppedAttributesCount: 0,
      },
      { timeUnixNano: "1767225601000000007", name: "evt.two", attributes: {}, droppedAttributesCount: 0 },
    ]);
    expect(p.links).toEqual([
      {
        traceId: LINK_CTX.traceId,
        spanId: LINK_CTX.spanId,
        traceState: "l=1",
        attributes: { "link.attr": "x", "link.n": 5 },
        droppedAttributesCount: 0,
        flags: 0x300,
      },
      {
        traceId: LOCAL_LINK_CTX.traceId,
        spanId: LOCAL_LINK_CTX.spanId,
        traceState: "",
        attributes: {},
        droppedAttributesCount: 0,
        flags: 0x100,
      },
    ]);
  });

  it("carries dropped counts", () => {
    const l = find("limited");
    expect(l.attributes).toEqual({ a: 1, b: 2 });
    expect(l.droppedAttributesCount).toBe(scene.limited.droppedAttributesCount);
    expect(l.droppedAttributesCount).toBeGreaterThan(0);
    expect(l.events.map((e) => e.name)).toHaveLength(1);
    expect(l.droppedEventsCount).toBe(scene.limited.droppedEventsCount);
    expect(l.droppedEventsCount).toBeGreaterThan(0);
    expect(l.links).toHaveLength(1);
    expect(l.droppedLinksCount).toBe(scene.limited.droppedLinksCount);
    expect(l.droppedLinksCount).toBeGreaterThan(0);
  });

  it("encodes timestamps exactly at the edges of the double range", () => {
    const times: HrTime[] = [
      [0, 0],
      [0, 1],
      [1, 0],
      [4102444800, 999999999], // 2100-01-01, far above 2^53 ns
      [4294967295, 999999999], // largest uint32 second
    ];
    const spans = times.map((t) =>
      Object.create(scene.child, { startTime: { value: t }, endTime: { value: t } }),
    ) as ReadableSpan[];
    const out = allSpans(decodeTraceRequest(encode(spans), contentType));
    expect(out.map((s) => s.startTimeUnixNano)).toEqual(times.map(nanos));
    expect(out.map((s) => s.endTimeUnixNano)).toEqual(times.map(nanos));
  });

  it("merges equal scopes held in distinct objects and encodes scope attributes", () => {
    const scoped = (span: ReadableSpan, scope: object) =>
      Object.create(span, { instrumentationScope: { value: scope } }) as ReadableSpan;
    const spans = [
      scoped(scene.child, { name: "s", version: "1", attributes: { "scope.attr": "x", n: 2 } }),
      scoped(scene.parent, { name: "s", version: "1", attributes: { "scope.attr": "x", n: 2 } }),
      scoped(scene.parent, { name: "s", version: "2" }),
    ];
    const [rs] = decodeTraceRequest(encode(spans), contentType).resourceSpans;
    expect(rs!.scopeSpans.map((ss) => [ss.scope, ss.spans.map((s) => s.name)])).toEqual([
      [{ name: "s", version: "1", attributes: { "scope.attr": "x", n: 2 } }, ["child", "parent"]],
      [{ name: "s", version: "2", attributes: {} }, ["parent"]],
    ]);
  });

  it("round-trips a large batch", () => {
    const { provider, spans } = makeProvider({ "service.name": "bulk" });
    const tracer = provider.getTracer("bulk");
    for (let i = 0; i < 2000; i++) {
      const span = tracer.startSpan(
        `op-${i}`,
        { attributes: { i, "gen_ai.system": "openai", text: LONG.slice(0, i % 400) } },
        ROOT_CONTEXT,
      );
      span.end();
    }
    const all = spans();
    const out = allSpans(decodeTraceRequest(encode(all), contentType));
    expect(out).toHaveLength(2000);
    expect(out.map((s) => s.spanId)).toEqual(all.map((s) => s.spanContext().spanId));
    expect(out[1234]!.attributes).toEqual({ i: 1234, "gen_ai.system": "openai", text: LONG.slice(0, 1234 % 400) });
  });

  it("keeps each span whole when spans of two scopes interleave and one outgrows the shared buffer", () => {
    // Protobuf encodes spans as they end into shared 64 KiB buffers; this crosses several of them, interleaves two
    // scopes (so runs of adjacent spans break) and puts a 200 KB span in the middle (its buffer must grow).
    const { provider, spans } = makeProvider({ "service.name": "arena" });
    const tracers = [provider.getTracer("one"), provider.getTracer("two")];
    const big = "b".repeat(200_000);
    for (let i = 0; i < 600; i++) {
      const text = i === 301 ? big : LONG.slice(0, (i * 7) % 350);
      tracers[i % 2]!.startSpan(`op-${i}`, { attributes: { i, text } }, ROOT_CONTEXT).end();
    }
    const [rs] = decodeTraceRequest(encode(spans()), contentType).resourceSpans;
    expect(rs!.scopeSpans.map((ss) => ss.scope.name)).toEqual(["one", "two"]);
    for (const [parity, ss] of rs!.scopeSpans.entries()) {
      const expected = Array.from({ length: 300 }, (_, k) => 2 * k + parity);
      expect(ss.spans.map((s) => s.attributes.i)).toEqual(expected);
      for (const s of ss.spans) {
        const i = s.attributes.i as number;
        expect(s.name).toBe(`op-${i}`);
        expect(s.attributes.text).toBe(i === 301 ? big : LONG.slice(0, (i * 7) % 350));
      }
    }
  });

  it("keeps values apart when a key repeats with the same, alternating and differently typed values", () => {
    // The protobuf encoder caches a key's last value and, once it repeats, the whole encoded pair.
    const values: unknown[] = ["chat", "chat", "chat", 0, -0, 0, 1, "1", true, 1, 1.5, 1.5, "chat", "embed", "chat"];
    const { provider, spans } = makeProvider({ "gen_ai.operation.name": "resource-level" });
    const tracer = provider.getTracer("repeat");
    values.forEach((value, i) => {
      const span = tracer.startSpan(`s-${i}`, { attributes: { "gen_ai.operation.name": value as string, i } });
      span.addEvent("e", { "gen_ai.operation.name": value as string });
      span.end();
    });
    const [rs] = decodeTraceRequest(encode(spans()), contentType).resourceSpans;
    expect(rs!.resource.attributes).toEqual({ "gen_ai.operation.name": "resource-level" });
    const out = rs!.scopeSpans[0]!.spans;
    expect(out.map((s) => s.attributes["gen_ai.operation.name"])).toEqual(
      values.map((v) => (Object.is(v, -0) ? 0 : v)),
    );
    expect(out.map((s) => s.events[0]!.attributes["gen_ai.operation.name"])).toEqual(
      values.map((v) => (Object.is(v, -0) ? 0 : v)),
    );
    expect(out.map((s) => s.attributes.i)).toEqual(values.map((_, i) => i));
  });

  it("encodes an empty batch", () => {
    expect(decodeTraceRequest(encode([]), contentType)).toEqual({ resourceSpans: [] });
  });
});

describe("encodeTraceRequestJson with span fields of the wrong type", () => {
  it("still writes valid JSON: bad numbers become null, bad times 0, and the other spans are intact", () => {
    const { provider, spans } = makeProvider({ "service.name": "typos" });
    const tracer = provider.getTracer("typos");
    tracer.startSpan("before").end();
    const badStatus = tracer.startSpan("bad-status");
    badStatus.setStatus({ code: undefined as never });
    badStatus.end();
    tracer.startSpan("bad-kind", { kind: "x" as never }).end();
    tracer.startSpan("bad-end").end(new Date("not a date"));
    tracer.startSpan("before-1970", { startTime: [-5, 0] }).end([-4, 0]);
    tracer.startSpan("after").end();
    const text = Buffer.from(encodeTraceRequestJson(spans())).toString("utf8");
    const raw = JSON.parse(text); // throws if the writer ever produced invalid JSON
    const byName = new Map<string, Record<string, unknown>>(
      raw.resourceSpans[0].scopeSpans[0].spans.map((s: { name: string }) => [s.name, s]),
    );
    expect([...byName.keys()]).toEqual(["before", "bad-status", "bad-kind", "bad-end", "before-1970", "after"]);
    expect(byName.get("bad-status")!.status).toEqual({ code: null });
    expect(byName.get("bad-kind")!.kind).toBeNull();
    expect(byName.get("bad-end")!.endTimeUnixNano).toBe("0");
    expect(byName.get("before-1970")!.startTimeUnixNano).toBe("0");
    expect(byName.get("after")!.status).toEqual({ code: 0 });
    expect(raw.resourceSpans[0].resource.droppedAttributesCount).toBe(0);
  });
});

describe("encodeTraceRequestJson wire form", () => {
  const scene = buildScene();
  const raw = JSON.parse(Buffer.from(encodeTraceRequestJson(scene.spans)).toString("utf8"));
  const span = raw.resourceSpans[0].scopeSpans[0].spans.find((s: { name: string }) => s.name === "parent");

  it("uses lowerCamelCase keys, hex ids, integer enums and string int64s", () => {
    const keys = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object")
        for (const [k, child] of Object.entries(v)) {
          keys.add(k);
          walk(child);
        }
    };
    walk(raw);
    for (const k of keys) expect(k).toMatch(/^[a-z][A-Za-z]*$/);
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.kind).toBe(2);
    expect(span.status.code).toBe(2);
    expect(span.startTimeUnixNano).toBe("1767225600123456789");
    expect(span.events[0].timeUnixNano).toBe("1767225600500000000");
    const attr = (key: string) => span.attributes.find((kv: { key: string }) => kv.key === key).value;
    expect(attr("int.pos")).toEqual({ intValue: "42" });
    expect(attr("int.from.float")).toEqual({ intValue: "1" });
    expect(attr("double.pos")).toEqual({ doubleValue: 3.25 });
    expect(attr("double.nan")).toEqual({ doubleValue: "NaN" });
    expect(attr("arr.holes")).toEqual({ arrayValue: { values: [{ stringValue: "a" }, {}, { stringValue: "b" }] } });
    expect(span.parentSpanId).toBeUndefined();
  });

  it("accepts upper-case hex ids and numeric int64s on decode (test decoder sanity)", () => {
    const body = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: "5B8EFFF798038103D269B633813FC60C",
                  spanId: "EEE19B7EC3C1B174",
                  startTimeUnixNano: 1544712660000000000,
                  attributes: [{ key: "n", value: { intValue: 12 } }],
                },
              ],
            },
          ],
        },
      ],
    });
    const [s] = allSpans(decodeTraceRequest(Buffer.from(body), JSON_TYPE));
    expect(s!.traceId).toBe("5b8efff798038103d269b633813fc60c");
    expect(s!.startTimeUnixNano).toBe("1544712660000000000");
    expect(s!.attributes).toEqual({ n: 12 });
  });
});

describe("decodeExportResponse", () => {
  const partial = { rejectedSpans: 3, errorMessage: "3 spans had no name" };

  it("reads partial_success from protobuf", () => {
    expect(decodeExportResponse(encodeExportResponse(partial, PROTO), PROTO)).toEqual(partial);
    const big = { rejectedSpans: 2 ** 40, errorMessage: "" };
    expect(decodeExportResponse(encodeExportResponse(big, PROTO), PROTO)).toEqual(big);
  });

  it("reads partialSuccess and partial_success from JSON", () => {
    expect(decodeExportResponse(encodeExportResponse(partial, JSON_TYPE), JSON_TYPE)).toEqual(partial);
    expect(decodeExportResponse(encodeExportResponse(partial, JSON_TYPE), "application/json; charset=utf-8")).toEqual(
      partial,
    );
    const snake = encodeExportResponse(partial, JSON_TYPE, { snakeCase: true });
    expect(Buffer.from(snake).toString()).toContain("partial_success");
    expect(decodeExportResponse(snake, JSON_TYPE)).toEqual(partial);
    const numeric = Buffer.from(JSON.stringify({ partialSuccess: { rejectedSpans: 7 } }));
    expect(decodeExportResponse(numeric, JSON_TYPE)).toEqual({ rejectedSpans: 7, errorMessage: "" });
  });

  it("keeps warnings (rejected 0 with a message)", () => {
    const warning = { rejectedSpans: 0, errorMessage: "attribute truncated" };
    expect(decodeExportResponse(encodeExportResponse(warning, PROTO), PROTO)).toEqual(warning);
    expect(decodeExportResponse(encodeExportResponse(warning, JSON_TYPE), JSON_TYPE)).toEqual(warning);
  });

  it("treats empty bodies and empty partial_success as full success", () => {
    for (const type of [PROTO, JSON_TYPE, "", undefined]) {
      expect(decodeExportResponse(new Uint8Array(0), type)).toBeUndefined();
      expect(decodeExportResponse(undefined, type)).toBeUndefined();
    }
    const empty = { rejectedSpans: 0, errorMessage: "" };
    expect(decodeExportResponse(encodeExportResponse(empty, PROTO), PROTO)).toBeUndefined();
    expect(decodeExportResponse(encodeExportResponse(empty, JSON_TYPE), JSON_TYPE)).toBeUndefined();
    expect(decodeExportResponse(Buffer.from("{}"), JSON_TYPE)).toBeUndefined();
    expect(decodeExportResponse(Buffer.from("  \n"), JSON_TYPE)).toBeUndefined();
  });

  it("sniffs JSON when the content type says neither, and never throws on garbage", () => {
    expect(decodeExportResponse(encodeExportResponse(partial, JSON_TYPE), "text/plain")).toEqual(partial);
    expect(decodeExportResponse(encodeExportResponse(partial, PROTO), undefined)).toEqual(partial);
    expect(decodeExportResponse(Buffer.from("{not json"), JSON_TYPE)).toBeUndefined();
    expect(decodeExportResponse(new Uint8Array([0x0a, 0x05, 0x08]), PROTO)).toBeUndefined();
    expect(decodeExportResponse(new Uint8Array([0xff, 0xff, 0xff]), PROTO)).toBeUndefined();
  });
});
