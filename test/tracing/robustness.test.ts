/**
 * Nothing tracewire does throws into user code: hostile inputs and outputs (throwing getters, Proxies whose every
 * trap throws, a throwing toJSON), a throwing displayName function and a throwing redact hook leave the op's own
 * behaviour untouched, and the call is still recorded and ended where possible.
 */
import { describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { throwingProxy } from "../support/hostile.js";
import { setupSession } from "../support/tracing-session.js";

/** A Proxy on which every trap throws. */
const hostileProxy = () => throwingProxy("trap says no");

function throwingGetter(): Record<string, unknown> {
  return Object.defineProperty({ visible: 1 }, "secretive", {
    enumerable: true,
    get() {
      throw new Error("getter exploded");
    },
  });
}

describe("hostile values", () => {
  const s = setupSession();

  it("a throwing getter in the inputs: the op returns its value, the property is marked", async () => {
    const input = throwingGetter();
    const f = op(function getterInput(x: unknown) {
      return x === input ? "same" : "different";
    });
    expect(f(input)).toBe("same");
    const call = await s.only("getterInput");
    expect(call.start.inputs).toEqual({ arg0: { visible: 1, secretive: "[Unserializable: getter exploded]" } });
    expect(call.end?.output).toBe("same");
  });

  it("a Proxy whose traps all throw, as input: the op returns its value", async () => {
    const proxy = hostileProxy();
    const f = op(function proxyInput(_p: unknown) {
      return 7;
    });
    expect(f(proxy)).toBe(7);
    const call = await s.only("proxyInput");
    expect(JSON.stringify(call.start.inputs)).toContain("trap says no");
    expect(call.end?.output).toBe(7);
  });

  it("a Proxy whose traps all throw, as the sync result: returned as is, and the call still ends", async () => {
    const proxy = hostileProxy();
    const f = op(function proxyOutput() {
      return proxy;
    });
    expect(f()).toBe(proxy);
    const call = await s.only("proxyOutput");
    expect(call.ends).toBe(1);
    expect(JSON.stringify(call.end?.output)).toContain("trap says no");
    expect(s.tracing.stats().calls.rejected).toBe(0);
  });

  it("a Proxy whose traps all throw, as an async result: resolves to it, and the call still ends", async () => {
    const proxy = hostileProxy();
    const f = op(async function proxyAsyncOutput() {
      return { wrapper: proxy };
    });
    const result = await f();
    expect(result.wrapper).toBe(proxy);
    const call = await s.only("proxyAsyncOutput");
    expect(call.ends).toBe(1);
    expect(JSON.stringify(call.end?.output)).toContain("trap says no");
  });

  it("a throwing toJSON in the output: the op returns its value, the call ends with a marker", async () => {
    const value = {
      toJSON() {
        throw new Error("toJSON refused");
      },
    };
    const f = op(function toJsonOutput() {
      return value;
    });
    expect(f()).toBe(value);
    const call = await s.only("toJsonOutput");
    expect(call.end?.output).toBe("[Unserializable: toJSON refused]");
  });

  it("a displayName function that throws: the op still runs and returns its value", async () => {
    let ran = 0;
    const f = op(
      function badDisplayName(x: number) {
        ran++;
        return x * 2;
      },
      {
        displayName: () => {
          throw new Error("display name failed");
        },
      },
    );
    expect(f(21)).toBe(42);
    expect(ran).toBe(1);
    expect(s.logs.some((l) => l.message.includes("display name failed"))).toBe(true);
    // The name is lost, not the call.
    const stored = await s.only("badDisplayName");
    expect(stored.start.display_name).toBeUndefined();
    expect(stored.end?.output).toBe(42);
  });

  it("attributes that JSON cannot encode (BigInt) do not poison the queue", async () => {
    const f = op(
      function bigIntAttribute() {
        return "ok";
      },
      { attributes: { budget: 10n, nested: { when: new Date(0) } } },
    );
    expect(f()).toBe("ok");
    const call = await s.only("bigIntAttribute");
    expect(call.start.attributes).toEqual({ budget: "10", nested: { when: "1970-01-01T00:00:00.000Z" } });
  });
});

describe("a throwing redact hook", () => {
  const s = setupSession({
    redact: (_payload, { kind }) => {
      throw new Error(`cannot redact ${kind}`);
    },
  });

  it("never reaches user code: sync, async and streaming ops return their values", async () => {
    const value = { v: 1 };
    expect(op(() => value, { name: "redactSync" })()).toBe(value);
    expect(await op(async () => value, { name: "redactAsync" })()).toBe(value);
    const items: number[] = [];
    for await (const x of op(async function* redactStream() {
      yield 1;
      yield 2;
    })())
      items.push(x);
    expect(items).toEqual([1, 2]);
    for (const name of ["redactSync", "redactAsync", "redactStream"]) {
      const call = await s.only(name);
      expect(call.ends).toBe(1);
      expect(call.end).not.toHaveProperty("exception");
    }
  });
});
