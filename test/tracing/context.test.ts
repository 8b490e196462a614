/**
 * Where calls sit: parent ids and trace ids across nesting and Promise.all, call attributes from withAttributes,
 * threads and turns from withThread, and the Call handles (getCurrentCall, invoke, callOf).
 */
import { trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { type Call, callOf, getCurrentCall, op, withAttributes, withThread } from "../../src/index.js";
import { setupSession } from "../support/tracing-session.js";

const s = setupSession();

const tick = (ms = 1) => new Promise((r) => setTimeout(r, ms));

describe("nesting", () => {
  it("builds a three-level tree with parallel children: every parent_id right, one trace id", async () => {
    const seen = new Map<string, Call>();
    const leaf = op(async function treeLeaf(path: string) {
      // Finish in reverse order of start, so a context mix-up between siblings would show.
      await tick(path.endsWith("0") ? 8 : 1);
      seen.set(path, getCurrentCall()!);
      return path;
    });
    const middle = op(async function treeMiddle(path: string) {
      seen.set(path, getCurrentCall()!);
      return Promise.all([leaf(`${path}.0`), leaf(`${path}.1`)]);
    });
    const root = op(async function treeRoot() {
      seen.set("root", getCurrentCall()!);
      return Promise.all([middle("m0"), middle("m1")]);
    });
    expect(await root()).toEqual([
      ["m0.0", "m0.1"],
      ["m1.0", "m1.1"],
    ]);
    await s.tracing.flush();

    const byPath = (path: string) => s.double.call(seen.get(path)!.id);
    const rootCall = byPath("root");
    expect(rootCall.start?.op_name).toBe("treeRoot");
    expect(rootCall.start).not.toHaveProperty("parent_id");
    const traceId = rootCall.start?.trace_id;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    for (const m of ["m0", "m1"]) {
      expect(byPath(m).start).toMatchObject({
        op_name: "treeMiddle",
        parent_id: rootCall.start?.id,
        trace_id: traceId,
      });
      expect(byPath(m).start?.inputs).toEqual({ arg0: m });
      for (const l of [`${m}.0`, `${m}.1`]) {
        expect(byPath(l).start).toMatchObject({
          op_name: "treeLeaf",
          parent_id: byPath(m).start?.id,
          trace_id: traceId,
          inputs: { arg0: l },
        });
        expect(byPath(l).end?.output).toBe(l);
      }
    }
    expect(s.double.callsNamed("treeLeaf")).toHaveLength(4);
    // Two separate top-level invocations are two traces.
    const other = op(function otherRoot() {
      return 1;
    });
    other();
    expect((await s.only("otherRoot")).start.trace_id).not.toBe(traceId);
  });
});

describe("other instrumentation inside an op", () => {
  it("a foreign span started inside an op is its child, sent over OTLP in the same trace", async () => {
    const withHttp = op(async function callsHttp() {
      await tick();
      trace.getTracer("http-instrumentation").startActiveSpan("GET /weather", (span) => span.end());
      return getCurrentCall()?.id;
    });
    const id = await withHttp();
    const call = await s.only("callsHttp");
    expect(call.start.id).toBe(id);
    const spans = s.double.spans.filter((sp) => sp.name === "GET /weather");
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ parentSpanId: call.start.id, traceId: call.start.trace_id });
    expect(s.double.calls.has(spans[0]!.spanId)).toBe(false);
  });
});

describe("withAttributes", () => {
  it("merges nested attributes (inner wins) into every call inside, across await, plus the op's own", async () => {
    const inner = op(async function attributed() {
      await tick();
      return getCurrentCall()?.id;
    });
    const tagged = op(function taggedOp() {}, { attributes: { component: "retriever", env: "op-level" } });
    await withAttributes({ env: "prod", user: { id: 7 }, tier: "free" }, async () => {
      await tick();
      await withAttributes({ tier: "pro", region: "eu" }, async () => {
        await inner();
        tagged();
      });
    });
    expect((await s.only("attributed")).start.attributes).toEqual({
      env: "prod",
      user: { id: 7 },
      tier: "pro",
      region: "eu",
    });
    expect((await s.only("taggedOp")).start.attributes).toEqual({
      env: "op-level",
      user: { id: 7 },
      tier: "pro",
      region: "eu",
      component: "retriever",
    });
    const outside = op(function outsideAttributes() {});
    outside();
    expect((await s.only("outsideAttributes")).start.attributes).toEqual({});
  });

  it("returns what the function returns, and stores attributes as JSON", async () => {
    const result = { ok: true };
    const big = op(function bigAttribute() {});
    expect(
      withAttributes({ count: 10n, when: new Date(0) }, () => {
        big();
        return result;
      }),
    ).toBe(result);
    expect((await s.only("bigAttribute")).start.attributes).toEqual({
      count: "10",
      when: "1970-01-01T00:00:00.000Z",
    });
  });
});

describe("withThread", () => {
  it("makes the outermost op a turn; nested ops share its turn_id and thread_id", async () => {
    const tool = op(async function threadTool() {
      await tick();
      return "tool";
    });
    const agent = op(async function threadAgent(q: string) {
      return [q, await tool(), await tool()];
    });
    await withThread("thread-1", async () => {
      await agent("first");
      await agent("second");
    });
    await s.tracing.flush();
    const turns = s.double.callsNamed("threadAgent");
    expect(turns).toHaveLength(2);
    const tools = s.double.callsNamed("threadTool");
    expect(tools).toHaveLength(4);
    for (const turn of turns) {
      expect(turn.start).toMatchObject({ thread_id: "thread-1", turn_id: turn.start?.id });
      const children = tools.filter((t) => t.start?.parent_id === turn.start?.id);
      expect(children).toHaveLength(2);
      for (const c of children) expect(c.start).toMatchObject({ thread_id: "thread-1", turn_id: turn.start?.id });
    }
    expect(turns[0]!.start?.turn_id).not.toBe(turns[1]!.start?.turn_id);
  });

  it("an op with turn: false is in the thread but is not the turn; the op below it becomes the turn", async () => {
    const step = op(function turnStep() {});
    const handler = op(function turnHandler() {
      step();
    });
    const session = op(
      function sessionWrapper() {
        handler();
      },
      { turn: false },
    );
    withThread("thread-2", () => session());
    const wrapper = await s.only("sessionWrapper");
    const turn = await s.only("turnHandler");
    const below = await s.only("turnStep");
    expect(wrapper.start.thread_id).toBe("thread-2");
    expect(wrapper.start).not.toHaveProperty("turn_id");
    expect(turn.start).toMatchObject({ thread_id: "thread-2", turn_id: turn.start.id, parent_id: wrapper.start.id });
    expect(below.start).toMatchObject({ thread_id: "thread-2", turn_id: turn.start.id });
  });

  it("leaves calls outside a thread without thread or turn ids", async () => {
    const free = op(function noThread() {});
    free();
    const call = await s.only("noThread");
    expect(call.start).not.toHaveProperty("thread_id");
    expect(call.start).not.toHaveProperty("turn_id");
  });
});

describe("context helpers never throw into the app", () => {
  it("withThread with a bad thread id logs once and runs the function outside any thread", async () => {
    const before = s.logs.length;
    const inside = op(async function badThreadInside() {
      return "ran";
    });
    for (const bad of ["", "   ", "t".repeat(1025), null, 42, undefined]) {
      expect(await withThread(bad as never, () => inside())).toBe("ran");
    }
    // Sync functions too, and what they return comes back unchanged.
    const marker = { same: true };
    expect(withThread("", () => marker)).toBe(marker);
    await s.tracing.flush();
    const calls = s.double.callsNamed("badThreadInside");
    expect(calls).toHaveLength(6);
    for (const call of calls) {
      expect(call.start).not.toHaveProperty("thread_id");
      expect(call.start).not.toHaveProperty("turn_id");
    }
    const lines = s.logs.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toMatch(/withThread: the thread id must be a non-empty string.*ran without a thread/);
  });

  it("withAttributes with attributes that are not an object logs once and runs the function without them", async () => {
    const before = s.logs.length;
    const inside = op(async function badAttributesInside() {
      return "ran";
    });
    const result = await withAttributes({ kept: "outer" }, async () => {
      const out: string[] = [];
      for (const bad of [null, 42, "tenant=acme", ["a"], undefined])
        out.push(await withAttributes(bad as never, () => inside()));
      return out;
    });
    expect(result).toEqual(["ran", "ran", "ran", "ran", "ran"]);
    await s.tracing.flush();
    const calls = s.double.callsNamed("badAttributesInside");
    expect(calls).toHaveLength(5);
    // The enclosing, valid attributes still apply; the bad ones add nothing.
    for (const call of calls) expect(call.start?.attributes).toEqual({ kept: "outer" });
    const lines = s.logs.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toMatch(/withAttributes: attributes must be an object/);
  });

  it("a missing function is still a ValidationError: there is nothing to run", () => {
    expect(() => withThread("t", 5 as never)).toThrow(/expects a function/);
    expect(() => withAttributes({}, null as never)).toThrow(/expects a function/);
  });
});

describe("Call handles", () => {
  it("getCurrentCall() is the running call inside an op and undefined outside", async () => {
    expect(getCurrentCall()).toBeUndefined();
    let inside: Call | undefined;
    const current = op(async function currentCallOp() {
      await tick();
      inside = getCurrentCall();
      return "done";
    });
    await current();
    expect(getCurrentCall()).toBeUndefined();
    const call = await s.only("currentCallOp");
    expect(inside?.id).toBe(call.start.id);
    expect(inside?.id).toMatch(/^[0-9a-f]{16}$/);
    expect(inside?.traceId).toBe(call.start.trace_id);
    expect(inside?.ref).toBe(`weave:///acme/demo/call/${call.start.id}`);
  });

  it("op.invoke() returns [result, call] with the same result object", async () => {
    const value = { v: 1 };
    let made: object | undefined;
    const sync = op(function invokedSync(x: number) {
      made = { ...value, x };
      return made;
    });
    const [result, call] = sync.invoke(3);
    expect(result).toBe(made);
    expect(result).toEqual({ v: 1, x: 3 });
    const stored = await s.only("invokedSync");
    expect(call?.id).toBe(stored.start.id);
    expect(call?.traceId).toBe(stored.start.trace_id);

    const asyncOp = op(async function invokedAsync() {
      return value;
    });
    const [promise, asyncCall] = asyncOp.invoke();
    expect(promise).toBeInstanceOf(Promise);
    expect(await promise).toBe(value);
    expect(asyncCall?.id).toBe((await s.only("invokedAsync")).start.id);
  });

  it("callOf() finds the call of an op's returned object, of an async op's resolved value, and of the promise", async () => {
    const make = op(function makesObject() {
      return { made: true };
    });
    const made = make();
    expect(callOf(made)?.id).toBe((await s.only("makesObject")).start.id);

    const fetchDoc = op(async function resolvesObject() {
      await tick();
      return { doc: 1 };
    });
    const promise = fetchDoc();
    const doc = await promise;
    const stored = await s.only("resolvesObject");
    expect(callOf(doc)?.id).toBe(stored.start.id);
    expect(callOf(promise)?.id).toBe(stored.start.id);

    expect(callOf({ made: true })).toBeUndefined();
    expect(callOf(42)).toBeUndefined();
    expect(callOf(null)).toBeUndefined();
  });

  it("callOf() finds the call of a returned generator", async () => {
    const gen = op(function* generatorResult() {
      yield 1;
    });
    const it = gen();
    const call = callOf(it);
    expect([...it]).toEqual([1]);
    expect(call?.id).toBe((await s.only("generatorResult")).start.id);
  });
});
