/**
 * Which route each span takes (DESIGN §3): `auto` sends tracewire's own spans as calls and foreign spans by OTLP,
 * `export: "otlp"` / `"calls"` send everything one way, `route()` overrides, `filter()` drops. Both routes share
 * ids, so one request is one tree. Hooks that throw never reach user code.
 */
import { context, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { expectDeliveredOnce, recordingLogger, scopeOfSpan, setupTracedDouble } from "./helpers.js";

const ctx = setupTracedDouble();

interface Ids {
  trace: string;
  op: string;
  /** Foreign spans opened inside the op, by name. */
  foreign: Record<string, string>;
}

/** Runs op `handle`, which opens one foreign span per name (made with the plain OTel API) inside its body. */
async function runOp(foreignNames: string[] = ["http GET"]): Promise<Ids> {
  const ids: Ids = { trace: "", op: "", foreign: {} };
  const handle = op(async function handle(x: number) {
    const own = trace.getActiveSpan()!.spanContext();
    ids.trace = own.traceId;
    ids.op = own.spanId;
    for (const name of foreignNames) {
      trace.getTracer("foreign-lib", "1.0.0").startActiveSpan(name, (span) => {
        ids.foreign[name] = span.spanContext().spanId;
        span.end();
      });
    }
    return x + 1;
  });
  expect(await handle(1)).toBe(2);
  return ids;
}

const otlpSpan = (spanId: string) => ctx.double.spans.filter((s) => s.spanId === spanId);
const otlpPosts = () => ctx.double.server.received("POST", "/otel/v1/traces").length;
const callPosts = () => ctx.double.server.requests.filter((r) => r.path.startsWith("/call/")).length;

describe("routes", () => {
  it("auto (default): tracewire's own span goes as a call, a foreign span inside it by OTLP, one tree", async () => {
    const tracing = ctx.start();
    const ids = await runOp();
    await tracing.flush();

    expectDeliveredOnce(ctx.double, ids.op);
    const call = ctx.double.call(ids.op);
    expect(call.start).toMatchObject({ op_name: "handle", trace_id: ids.trace, inputs: { arg0: 1 } });
    expect(call.start).not.toHaveProperty("parent_id");
    expect(call.end).toMatchObject({ output: 2 });
    expect(otlpSpan(ids.op)).toHaveLength(0);

    const foreignId = ids.foreign["http GET"]!;
    expect(ctx.double.calls.has(foreignId)).toBe(false);
    const [span, ...more] = otlpSpan(foreignId);
    expect(more).toHaveLength(0);
    expect(span).toMatchObject({ name: "http GET", traceId: ids.trace, parentSpanId: ids.op });
    expect(scopeOfSpan(ctx.double, foreignId)).toBe("foreign-lib");
    expect(tracing.stats()).toMatchObject({ calls: { sent: 2, dropped: 0 }, otlp: { sent: 1, dropped: 0 } });
  });

  it("auto: an op inside a foreign span parents under it, across routes", async () => {
    const tracing = ctx.start();
    const inner = op(function inner() {
      return trace.getActiveSpan()!.spanContext().spanId;
    });
    let foreignId = "";
    let innerId = "";
    let traceId = "";
    await op(async function outer() {
      traceId = trace.getActiveSpan()!.spanContext().traceId;
      trace.getTracer("db").startActiveSpan("SELECT", (span) => {
        foreignId = span.spanContext().spanId;
        innerId = inner();
        span.end();
      });
    })();
    await tracing.flush();

    expect(ctx.double.call(innerId).start).toMatchObject({ op_name: "inner", parent_id: foreignId, trace_id: traceId });
    expect(otlpSpan(foreignId)[0]).toMatchObject({ traceId });
  });

  it('export: "otlp" sends every span by OTLP and no calls', async () => {
    const tracing = ctx.start({ export: "otlp" });
    const ids = await runOp();
    await tracing.flush();

    expect(ctx.double.calls.size).toBe(0);
    expect(callPosts()).toBe(0);
    const own = otlpSpan(ids.op);
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({ name: "handle", traceId: ids.trace, parentSpanId: "" });
    // Portable mode still carries what the calls route would send as fields, under the keys the service maps.
    expect(own[0]!.attributes).toEqual({
      "input.value": '{"arg0":1}',
      "input.mime_type": "application/json",
      "output.value": "2",
      "output.mime_type": "application/json",
    });
    expect(scopeOfSpan(ctx.double, ids.op)).toBe("tracewire");
    expect(otlpSpan(ids.foreign["http GET"]!)[0]).toMatchObject({ parentSpanId: ids.op, traceId: ids.trace });
    expect(tracing.stats()).toMatchObject({ calls: { sent: 0 }, otlp: { sent: 2 } });
  });

  it('export: "calls" sends every span as a call and nothing by OTLP', async () => {
    const tracing = ctx.start({ export: "calls" });
    const ids = await runOp();
    await tracing.flush();

    expect(otlpPosts()).toBe(0);
    expectDeliveredOnce(ctx.double, ids.op);
    const foreignId = ids.foreign["http GET"]!;
    expectDeliveredOnce(ctx.double, foreignId);
    expect(ctx.double.call(foreignId).start).toMatchObject({
      op_name: "http GET",
      parent_id: ids.op,
      trace_id: ids.trace,
    });
    expect(tracing.stats()).toMatchObject({ calls: { sent: 4 }, otlp: { sent: 0 } });
  });

  it('export: "calls": a foreign span\'s attributes set after its start reach the service, with its usage', async () => {
    const tracing = ctx.start({ export: "calls" });
    const tracer = trace.getTracer("foreign-lib", "1.0.0");
    const ids: Record<string, string> = {};
    await tracer.startActiveSpan("chat m-1", async (span) => {
      ids.chat = span.spanContext().spanId;
      span.setAttributes({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "m-1" });
      await new Promise((resolve) => setTimeout(resolve, 5));
      // What an instrumentation learns from the answer, after the start.
      span.setAttributes({
        "http.response.status_code": 200,
        "gen_ai.response.model": "m-1-2026",
        "gen_ai.usage.input_tokens": 7,
        "gen_ai.usage.output_tokens": 3,
        "app.api_key": "sk-late-0123456789",
      });
      span.end();
    });
    await tracing.flush();

    expectDeliveredOnce(ctx.double, ids.chat!);
    const call = ctx.double.call(ids.chat!);
    expect(call.start?.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "m-1",
      "http.response.status_code": 200,
      "gen_ai.response.model": "m-1-2026",
      "gen_ai.usage.input_tokens": 7,
      "gen_ai.usage.output_tokens": 3,
      "app.api_key": "REDACTED",
    });
    expect(call.end?.summary).toMatchObject({
      usage: { "m-1-2026": { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, requests: 1 } },
    });
    expect(tracing.stats()).toMatchObject({ calls: { sent: 2, dropped: 0 }, otlp: { sent: 0 } });
  });

  it('export: "calls": a foreign span still running at shutdown is sent as cancelled, with its child; once', async () => {
    const tracing = ctx.start({ export: "calls" });
    const tracer = trace.getTracer("foreign-lib", "1.0.0");
    const ids: Record<string, string> = {};
    const span = tracer.startSpan("http POST /chat");
    span.setAttribute("http.request.method", "POST");
    ids.root = span.spanContext().spanId;
    await context.with(trace.setSpan(context.active(), span), () =>
      op(function child() {
        ids.child = trace.getActiveSpan()!.spanContext().spanId;
      })(),
    );
    await tracing.shutdown(); // the request (another library's server span) still runs

    expectDeliveredOnce(ctx.double, ids.child!);
    expect(ctx.double.call(ids.child!).start).toMatchObject({ parent_id: ids.root });
    expectDeliveredOnce(ctx.double, ids.root!);
    const root = ctx.double.call(ids.root!);
    expect(root.start).toMatchObject({ op_name: "http POST /chat", attributes: { "http.request.method": "POST" } });
    expect(root.end?.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "shutdown" } });
    span.end(); // its owner ends it later: nothing more is sent, nothing counted as dropped
    expect(ctx.double.call(ids.root!).ends).toBe(1);
    const { calls } = tracing.stats();
    expect(calls).toMatchObject({ sent: 4, dropped: 0, rejected: 0, queued: 0 });
  });

  it("route() overrides the default per span; undefined keeps it", async () => {
    const seen: string[] = [];
    const tracing = ctx.start({
      route: (span) => {
        seen.push(`${span.instrumentationScope.name}:${(span as unknown as { name: string }).name}`);
        if ((span as unknown as { name: string }).name === "vector.search") return "calls";
        if (span.instrumentationScope.name === "tracewire") return "otlp";
        return undefined;
      },
    });
    const ids = await runOp(["vector.search", "http GET"]);
    await tracing.flush();

    expect(seen).toEqual(["tracewire:handle", "foreign-lib:vector.search", "foreign-lib:http GET"]);
    // The op went by OTLP, the foreign "vector.search" as a call, "http GET" kept its default (OTLP).
    expect(ctx.double.calls.has(ids.op)).toBe(false);
    expect(otlpSpan(ids.op)).toHaveLength(1);
    const vector = ids.foreign["vector.search"]!;
    expectDeliveredOnce(ctx.double, vector);
    expect(ctx.double.call(vector).start).toMatchObject({ parent_id: ids.op, trace_id: ids.trace });
    expect(otlpSpan(vector)).toHaveLength(0);
    expect(otlpSpan(ids.foreign["http GET"]!)).toHaveLength(1);
  });

  it("filter() drops spans: neither sent nor counted as dropped", async () => {
    const tracing = ctx.start({ filter: (span) => (span as unknown as { name: string }).name !== "health-check" });
    const ids = await runOp(["health-check", "http GET"]);
    await tracing.flush();

    expectDeliveredOnce(ctx.double, ids.op);
    expect(otlpSpan(ids.foreign["http GET"]!)).toHaveLength(1);
    const dropped = ids.foreign["health-check"]!;
    expect(ctx.double.calls.has(dropped)).toBe(false);
    expect(otlpSpan(dropped)).toHaveLength(0);
    expect(ctx.double.spans).toHaveLength(1);
    expect(tracing.stats()).toMatchObject({ calls: { dropped: 0 }, otlp: { dropped: 0, sent: 1 } });
  });
});

describe("hooks that throw never reach user code", () => {
  it("a throwing route(): the traced function returns its value, each span counts once and keeps its default route", async () => {
    const { lines, logger } = recordingLogger();
    const tracing = ctx.start({
      logger,
      route: () => {
        throw new Error("route hook broke");
      },
    });
    const ids = await runOp();
    const sync = op(function sync(a: number, b: number) {
      return a * b;
    });
    expect(sync(6, 7)).toBe(42);
    await tracing.flush();

    // Three spans (handle, its foreign child, sync): one internal error each, no more.
    expect(tracing.stats().internalErrors).toBe(3);
    expect(lines.error.some((l) => l.includes("route hook broke"))).toBe(true);
    expectDeliveredOnce(ctx.double, ids.op);
    expect(otlpSpan(ids.foreign["http GET"]!)).toHaveLength(1);
    expect(ctx.double.callsNamed("sync")).toHaveLength(1);
  });

  it("a throwing filter(): the traced function returns its value, each span counts once and is dropped", async () => {
    const { lines, logger } = recordingLogger();
    const tracing = ctx.start({
      logger,
      filter: () => {
        throw new Error("filter hook broke");
      },
    });
    const ids = await runOp();
    await expect(
      op(async function failing() {
        throw new RangeError("user error");
      })(),
    ).rejects.toThrow(RangeError);
    await tracing.flush();

    expect(ids.op).not.toBe("");
    expect(tracing.stats().internalErrors).toBe(3);
    expect(lines.error.some((l) => l.includes("filter hook broke"))).toBe(true);
    // Fails closed: a filter that cannot decide sends nothing.
    expect(ctx.double.calls.size).toBe(0);
    expect(ctx.double.spans).toHaveLength(0);
    expect(ctx.double.server.requests).toHaveLength(0);
  });
});

describe('export: "otlp" carries call fields as attributes', () => {
  it("display name, thread, turn and call attributes", async () => {
    const { withAttributes, withThread } = await import("../../src/index.js");
    const tracing = ctx.start({ export: "otlp" });
    const answer = op((q: string) => q.toUpperCase(), { name: "answer", displayName: "Answer", parameterNames: ["q"] });
    withAttributes({ tenant: "acme", limits: { rpm: 5 } }, () => withThread("thread-9", () => answer("hi")));
    await tracing.flush();
    expect(ctx.double.spans).toHaveLength(1);
    expect(ctx.double.spans[0]!.attributes).toEqual({
      "input.value": '{"q":"hi"}',
      "input.mime_type": "application/json",
      "output.value": '"HI"',
      "output.mime_type": "application/json",
      "wandb.display_name": "Answer",
      "wandb.thread_id": "thread-9",
      "wandb.is_turn": true,
      "wandb.attributes.tenant": "acme",
      "wandb.attributes.limits": '{"rpm":5}',
    });
  });

  it.each(["http/protobuf", "http/json"] as const)(
    "JSON text in attributes is well-formed: a lone surrogate arrives as U+FFFD, never as a \\ud800 escape (%s)",
    async (otlpProtocol) => {
      const { withAttributes } = await import("../../src/index.js");
      const tracing = ctx.start({ export: "otlp", otlpProtocol });
      const echo = op((text: string) => ({ text, pair: "\u{1f600}" }), { name: "echo", parameterNames: ["text"] });
      withAttributes({ label: { v: "x\udc00" }, plain: "y\ud800" }, () => echo("a\ud800b"));
      await tracing.flush();
      expect(ctx.double.spans).toHaveLength(1);
      const attributes = ctx.double.spans[0]!.attributes;
      // Decoded from the request body as the service reads it: the JSON texts parse to well-formed strings.
      expect(attributes["input.value"]).toBe('{"text":"a\ufffdb"}');
      expect(attributes["output.value"]).toBe('{"text":"a\ufffdb","pair":"\u{1f600}"}');
      expect(attributes["wandb.attributes.label"]).toBe('{"v":"x\ufffd"}');
      expect(attributes["wandb.attributes.plain"]).toBe("y\ufffd");
      for (const value of Object.values(attributes))
        if (typeof value === "string") expect(JSON.stringify(value)).not.toMatch(/\\ud[89a-f]/);
    },
  );

  it("a display name set while the op runs travels on its span, not as a /call/update for a call the service does not know yet", async () => {
    const { getCurrentCall } = await import("../../src/index.js");
    const tracing = ctx.start({ export: "otlp" });
    const answer = op(
      async (q: string) => {
        await getCurrentCall()?.setDisplayName(`answer: ${q}`);
        return q;
      },
      { name: "answer" },
    );
    await answer("hi");
    await tracing.flush();
    expect(ctx.double.spans).toHaveLength(1);
    expect(ctx.double.spans[0]!.attributes["wandb.display_name"]).toBe("answer: hi");
    expect(ctx.double.updates).toEqual([]);
  });

  it("calls under a turn carry the thread and wandb.is_turn: false, so they never count as turns of their own", async () => {
    const { withThread } = await import("../../src/index.js");
    const tracing = ctx.start({ export: "otlp" });
    const inner = op(async () => 1, { name: "inner" });
    const turn = op(async () => inner(), { name: "turn" });
    await withThread("thread-3", () => turn());
    await tracing.flush();
    const byName = new Map(ctx.double.spans.map((s) => [s.name, s.attributes]));
    expect(byName.get("turn")).toMatchObject({ "wandb.thread_id": "thread-3", "wandb.is_turn": true });
    expect(byName.get("inner")).toMatchObject({ "wandb.thread_id": "thread-3", "wandb.is_turn": false });
  });
});
