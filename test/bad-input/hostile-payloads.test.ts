/**
 * Hostile payloads end to end: values nested 10,000 levels deep, 50 MB strings, Proxies whose every trap throws and
 * objects whose getters throw, passed through op() in every position a payload takes — argument, async result,
 * streamed item, thrown value, call attributes, feedback payload — on both routes (native calls, and OTLP in portable
 * mode) to the strict double. Nothing throws into the app, every value comes back unchanged, every call is recorded
 * and ended, and the work and the bytes on the wire stay bounded. (The serializer's own unit tests are in
 * test/tracing/serialize.test.ts; test/tracing/robustness.test.ts covers throwing getters, Proxies and toJSON as
 * inputs and results on the calls route.)
 */
import { beforeEach, describe, expect, it } from "vitest";
import { getCurrentCall, op, withAttributes } from "../../src/index.js";
import { throwingProxy } from "../support/hostile.js";
import { type HookedSession, setupSession } from "../support/tracing-session.js";

const DEPTH = 10_000;
const FIFTY_MB = 50 * 1024 * 1024;

function deepObject(): Record<string, unknown> {
  let v: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < DEPTH; i++) v = { child: v };
  return v;
}
function deepArray(): unknown[] {
  let v: unknown[] = ["leaf"];
  for (let i = 0; i < DEPTH; i++) v = [v];
  return v;
}
/** An object (and an Error) whose getters throw. */
function throwingGetters(): Record<string, unknown> {
  const boom = () => {
    throw new Error("getter refused");
  };
  return Object.defineProperties({ fine: 1 }, { a: { enumerable: true, get: boom }, toJSON: { get: boom } });
}
/** An Error whose `name` and `message` getters throw (so does reading its stack, which formats both). */
class HostileError extends Error {
  override get name(): string {
    throw new Error("name getter refused");
  }
  override get message(): string {
    throw new Error("message getter refused");
  }
}

interface Hostile {
  name: string;
  make(): unknown;
  /** What the recorded payload must show (a marker), as a substring of its JSON. */
  marker: string;
}

const HOSTILE: Hostile[] = [
  { name: "an object nested 10,000 levels deep", make: deepObject, marker: "[MaxDepth]" },
  { name: "an array nested 10,000 levels deep", make: deepArray, marker: "[MaxDepth]" },
  { name: "a 50 MB string", make: () => "x".repeat(FIFTY_MB), marker: "…[truncated" },
  { name: "a Proxy whose every trap throws", make: () => throwingProxy("trap refused"), marker: "trap refused" },
  { name: "an object whose getters throw", make: throwingGetters, marker: "getter refused" },
];

/** No request body to the double may be larger than this: a payload is capped at 1 MiB by default. */
const MAX_BODY = 2.5 * 1024 * 1024;

/** What calling a function produced: its value, or what it threw (or rejected with). */
type Outcome = { value: unknown } | { error: unknown };

/** Same outcome: the very same value, or errors with the same message (a Proxy's trap makes a fresh one each time). */
function expectSameOutcome(traced: Outcome, plain: Outcome): void {
  if ("value" in plain) {
    expect(traced).toHaveProperty("value");
    expect((traced as { value: unknown }).value).toBe(plain.value);
  } else {
    expect(traced, "the traced call should have failed like the plain one").toHaveProperty("error");
    const message = (e: unknown) => (e instanceof Error ? e.message : e);
    const a = (traced as { error: unknown }).error;
    const b = plain.error;
    if (a === b) return;
    expect(message(a)).toBe(message(b));
  }
}

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error };
  }
}

/**
 * Every position a payload takes. `run` calls the function of that position, traced with op() or plain, and returns
 * what the app saw. The traced outcome must equal the plain one: e.g. an async function that returns a Proxy whose
 * `then` trap throws rejects with that error even untraced (JS looks for `then` when resolving), and so must it traced.
 */
const POSITIONS: {
  name: string;
  opName: string;
  run(value: unknown, wrap: <F extends (...args: never[]) => unknown>(f: F) => F, s: HookedSession): Promise<unknown>;
}[] = [
  {
    name: "argument",
    opName: "takesHostile",
    async run(value, wrap) {
      const f = wrap(function takesHostile(x: unknown) {
        return x;
      });
      return f(value as never);
    },
  },
  {
    name: "async result",
    opName: "returnsHostile",
    async run(value, wrap) {
      const f = wrap(async function returnsHostile() {
        await new Promise((resolve) => setImmediate(resolve));
        return value;
      });
      return f();
    },
  },
  {
    name: "streamed item",
    opName: "streamsHostile",
    async run(value, wrap) {
      const f = wrap(async function* streamsHostile() {
        yield value;
        yield "after";
      });
      const items: unknown[] = [];
      for await (const item of f()) items.push(item);
      expect(items[1]).toBe("after");
      return items[0];
    },
  },
  {
    name: "thrown value",
    opName: "throwsHostile",
    async run(value, wrap) {
      const f = wrap(function throwsHostile(): never {
        throw value;
      });
      return f();
    },
  },
  {
    name: "call attributes (withAttributes)",
    opName: "withHostileAttributes",
    async run(value, wrap) {
      const f = wrap(function withHostileAttributes() {
        return value;
      });
      return withAttributes({ hostile: value }, () => f());
    },
  },
  {
    name: "feedback payload",
    opName: "getsHostileFeedback",
    async run(value, wrap, s) {
      const f = wrap(function getsHostileFeedback() {
        return getCurrentCall();
      });
      const call = f();
      if (!call) return value; // untraced: no call to give feedback on
      const res = await call.feedback("custom.hostile", { value });
      expect(res).toMatchObject({ id: expect.any(String) });
      expect(s.double.feedback.at(-1)?.feedback_type).toBe("custom.hostile");
      return value;
    },
  },
];

const cases = POSITIONS.flatMap((position) => HOSTILE.map((hostile) => ({ position, hostile })));

describe.each([
  { route: "calls route", options: {} },
  { route: "OTLP route (portable mode)", options: { export: "otlp" as const } },
])("$route", ({ options }) => {
  const s = setupSession(options);
  beforeEach(() => {
    s.double.calls.clear();
    s.double.spans.length = 0;
  });

  it.each(cases.map((c) => ({ ...c, title: `${c.hostile.name} as ${c.position.name}` })))(
    "$title: the same outcome as untraced, recorded and ended, bounded",
    async ({ position, hostile }) => {
      const value = hostile.make();
      const requestsBefore = s.double.server.requests.length;
      const plain = await outcome(() => position.run(value, (f) => f, s));
      const traced = await outcome(() => position.run(value, (f) => op(f), s));
      expectSameOutcome(traced, plain);
      await s.tracing.flush();

      // Recorded and ended, once.
      let recorded: string;
      if (options.export === "otlp") {
        const spans = s.double.spans.filter((span) => span.name === position.opName);
        expect(spans).toHaveLength(1);
        recorded = JSON.stringify(spans[0]);
      } else {
        const calls = s.double.callsNamed(position.opName);
        expect(calls).toHaveLength(1);
        expect(calls[0]).toMatchObject({ starts: 1, ends: 1 });
        recorded = JSON.stringify(calls[0]);
      }
      if (position.name === "feedback payload") recorded = JSON.stringify(s.double.feedback.at(-1));
      // The marker shows where the value was recorded (a thrown value is recorded as its error text instead).
      if (position.name !== "thrown value" && "value" in plain) expect(recorded).toContain(hostile.marker);

      // Bounded: nothing close to 50 MB, or 10,000 levels, went over the wire.
      for (const req of s.double.server.requests.slice(requestsBefore)) expect(req.body.length).toBeLessThan(MAX_BODY);
      expect(s.tracing.stats()).toMatchObject({
        calls: { dropped: 0, rejected: 0 },
        otlp: { dropped: 0, rejected: 0 },
        internalErrors: 0,
      });
    },
  );

  it("an Error whose name and message getters throw, thrown by an op: rethrown unchanged, call ended", async () => {
    const err = new HostileError();
    const f = op(function throwsBadError() {
      throw err;
    });
    let caught: unknown;
    try {
      f();
    } catch (e) {
      caught = e;
    }
    expect(caught).toBe(err);
    const g = op(async function rejectsBadError() {
      throw err;
    });
    await expect(g()).rejects.toBe(err);
    await s.tracing.flush();
    if (options.export === "otlp") {
      expect(s.double.spans.filter((span) => span.name === "throwsBadError")).toHaveLength(1);
      expect(s.double.spans.filter((span) => span.name === "rejectsBadError")).toHaveLength(1);
      for (const span of s.double.spans) expect(span.status.code).toBe(2);
    } else {
      for (const call of [...s.double.callsNamed("throwsBadError"), ...s.double.callsNamed("rejectsBadError")]) {
        expect(call).toMatchObject({ starts: 1, ends: 1 });
        expect(typeof call.end?.exception).toBe("string");
      }
    }
    expect(s.tracing.stats().internalErrors).toBe(0);
  });

  it("bounded work: serializing a 10,000-deep chain of Proxies reads about maxDepth levels, not 10,000", async () => {
    let reads = 0;
    let v: object = { leaf: true };
    for (let i = 0; i < DEPTH; i++) {
      v = new Proxy(
        { child: v },
        {
          get(target, key, receiver) {
            reads++;
            return Reflect.get(target, key, receiver);
          },
        },
      );
    }
    const f = op(function deepProxies(_x: unknown) {
      return reads;
    });
    f(v);
    // Default maxDepth is 64; a few reads per level (toJSON lookup, the property itself).
    expect(reads).toBeLessThan(64 * 4);
    let wide = 0;
    const big = new Proxy(
      Array.from({ length: 1_000_000 }, (_, i) => i),
      {
        get(target, key, receiver) {
          wide++;
          return Reflect.get(target, key, receiver);
        },
      },
    );
    f(big);
    // Default maxItems is 1000: the other 999,000 elements are never read.
    expect(wide).toBeLessThan(1000 + 10);
    await s.tracing.flush();
  });
});
