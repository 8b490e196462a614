/**
 * op(): what the caller gets back is untouched (same value, same error, same promise), and what the service gets is
 * one call per invocation with named inputs, the output, or the exception.
 */
import { describe, expect, it } from "vitest";
import { op, ValidationError } from "../../src/index.js";
import { setupSession } from "../support/tracing-session.js";

const s = setupSession();

describe("sync and async functions", () => {
  it("records a sync call: op name, inputs arg0…n, output", async () => {
    const add = op(function add(a: number, b: number) {
      return a + b;
    });
    expect(add(2, 3)).toBe(5);
    const call = await s.only("add");
    expect(call.start).toMatchObject({ project_id: "acme/demo", op_name: "add", inputs: { arg0: 2, arg1: 3 } });
    expect(call.start.parent_id).toBeUndefined();
    expect(call.end).toMatchObject({ id: call.start.id, output: 5 });
    expect(call.end).not.toHaveProperty("exception");
    expect([call.starts, call.ends]).toEqual([1, 1]);
  });

  it("returns the very same object, and the very same promise", async () => {
    const value = { answer: 42 };
    const sync = op(function syncSame() {
      return value;
    });
    expect(sync()).toBe(value);

    const promise = Promise.resolve(value);
    const returnsPromise = op(function returnsPromise() {
      return promise;
    });
    const got = returnsPromise();
    expect(got).toBe(promise);
    expect(await got).toBe(value);

    const asyncOp = op(async function asyncSame(delayMs: number) {
      await new Promise((r) => setTimeout(r, delayMs));
      return value;
    });
    const pending = asyncOp(5);
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toBe(value);

    expect((await s.only("syncSame")).end?.output).toEqual({ answer: 42 });
    expect((await s.only("returnsPromise")).end?.output).toEqual({ answer: 42 });
    const call = await s.only("asyncSame");
    expect(call.start.inputs).toEqual({ arg0: 5 });
    expect(call.end?.output).toEqual({ answer: 42 });
  });

  it("names inputs from parameterNames, falls back to argN for the rest, and skips `this`", async () => {
    const search = op(
      function search(query: string, k: number, filter: unknown) {
        return [query, k, filter];
      },
      { parameterNames: ["query", "k"] },
    );
    search("cats", 3, { lang: "en" });
    expect((await s.only("search")).start.inputs).toEqual({ query: "cats", k: 3, arg2: { lang: "en" } });

    const agent = {
      secret: "this-must-not-be-recorded",
      greet: op(function greet(this: { secret: string }, name: string) {
        return `${name}:${this.secret.length}`;
      }),
    };
    expect(agent.greet("ada")).toBe("ada:25");
    const call = await s.only("greet");
    expect(call.start.inputs).toEqual({ arg0: "ada" });
    expect(JSON.stringify(call)).not.toContain("this-must-not-be-recorded");
  });

  it("records a callback passed as an argument as its description, not as a missing input", async () => {
    const fetchAll = op(function fetchAll(url: string, onChunk: (chunk: string) => void, tag: symbol) {
      onChunk(url);
      return tag.description;
    });
    fetchAll("https://example.com/a", function onChunk() {}, Symbol("page"));
    expect((await s.only("fetchAll")).start.inputs).toEqual({
      arg0: "https://example.com/a",
      arg1: "[Function onChunk]",
      arg2: "[Symbol(page)]",
    });
  });

  it("names the call after the function, the name option, or 'anonymous'", async () => {
    const named = op(function namedAfterFunction() {
      return 1;
    });
    const renamed = op(() => 2, { name: "explicitName" });
    const anonymous = op([() => 3][0]!);
    expect([named.opName, renamed.opName, anonymous.opName]).toEqual([
      "namedAfterFunction",
      "explicitName",
      "anonymous",
    ]);
    expect([named(), renamed(), anonymous()]).toEqual([1, 2, 3]);
    expect((await s.only("namedAfterFunction")).end?.output).toBe(1);
    expect((await s.only("explicitName")).end?.output).toBe(2);
    expect((await s.only("anonymous")).end?.output).toBe(3);
  });

  it("sets display_name, fixed or computed from the arguments", async () => {
    const fixed = op(() => "ok", { name: "withFixedDisplay", displayName: "Nightly summary" });
    const computed = op((_user: string, n: number) => n, {
      name: "withComputedDisplay",
      displayName: (user: string, n: number) => `${user} asked ${n} questions`,
    });
    fixed();
    computed("ada", 3);
    const plain = op(() => 0, { name: "withoutDisplay" });
    plain();
    expect((await s.only("withFixedDisplay")).start.display_name).toBe("Nightly summary");
    expect((await s.only("withComputedDisplay")).start.display_name).toBe("ada asked 3 questions");
    expect((await s.only("withoutDisplay")).start).not.toHaveProperty("display_name");
  });

  it("records a sync throw as the call's exception and rethrows the same object", async () => {
    const boom = new TypeError("sync boom");
    const failing = op(function failsSync(_x: number) {
      throw boom;
    });
    let caught: unknown;
    try {
      failing(1);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBe(boom);
    const call = await s.only("failsSync");
    expect(call.end?.exception).toContain("sync boom");
    expect(call.end).not.toHaveProperty("output");
  });

  it("records a rejection and rejects with the same object, Error or not", async () => {
    const boom = new Error("async boom");
    const failing = op(async function failsAsync() {
      await Promise.resolve();
      throw boom;
    });
    await expect(failing()).rejects.toBe(boom);

    const notAnError = { code: 7, reason: "plain object thrown" };
    const throwsObject = op(async function throwsObject() {
      throw notAnError;
    });
    await expect(throwsObject()).rejects.toBe(notAnError);

    expect((await s.only("failsAsync")).end?.exception).toContain("async boom");
    expect((await s.only("throwsObject")).end?.exception).toBeTruthy();
  });

  it("records what a thrown value that is not an Error says, not [object Object]", async () => {
    const circular: Record<string, unknown> = { code: "E_LOOP" };
    circular.self = circular;
    const thrown: [string, unknown][] = [
      ["throwsPlainObject", { code: 7, reason: "plain object thrown" }],
      ["throwsErrorLike", { name: "APIError", message: "quota exceeded", status: 429 }],
      ["throwsMessageOnly", { message: "no name here" }],
      ["throwsWithKey", { apiKey: "sk-thrown-0123456789abcdef", code: 1 }],
      ["throwsCircular", circular],
      ["throwsString", "just a string"],
      ["throwsNumber", 42],
      [
        "throwsClassInstance",
        new (class HttpFailure {
          status = 503;
        })(),
      ],
      ["throwsResponse", new Response("down", { status: 503 })],
      ["throwsNullPrototype", Object.assign(Object.create(null), { code: "E_NULL" })],
    ];
    for (const [name, value] of thrown) {
      const failing = op(
        async () => {
          throw value;
        },
        { name },
      );
      await expect(failing()).rejects.toBe(value);
    }
    const exception = async (name: string) => (await s.only(name)).end?.exception as string;
    expect(await exception("throwsPlainObject")).toBe('{"code":7,"reason":"plain object thrown"}');
    expect(await exception("throwsErrorLike")).toBe("APIError: quota exceeded");
    expect(await exception("throwsMessageOnly")).toBe("no name here");
    expect(await exception("throwsWithKey")).toBe('{"apiKey":"REDACTED","code":1}');
    expect(await exception("throwsCircular")).toBe('{"code":"E_LOOP","self":"[Circular]"}');
    expect(await exception("throwsString")).toBe("just a string");
    expect(await exception("throwsNumber")).toBe("42");
    expect(await exception("throwsClassInstance")).toBe('HttpFailure {"status":503}');
    expect(await exception("throwsResponse")).toBe("[object Response]");
    expect(await exception("throwsNullPrototype")).toBe('{"code":"E_NULL"}');
  });

  it("returns an op as is when it is wrapped again (one call, not two)", async () => {
    const once = op(function wrappedTwice(x: number) {
      return x + 1;
    });
    const again = op(once, { name: "ignored" });
    expect(again).toBe(once);
    expect(again(1)).toBe(2);
    await s.only("wrappedTwice");
    expect(s.double.callsNamed("ignored")).toHaveLength(0);
  });

  it("keeps the function's name and arity", () => {
    const f = op(function keepsShape(_err: unknown, _req: unknown, _res: unknown, _next: unknown) {
      return 1;
    });
    expect(f.name).toBe("keepsShape");
    expect(f.length).toBe(4);
    expect(f.opName).toBe("keepsShape");
  });

  it("rejects what is not a function, and malformed options, with ValidationError", () => {
    expect(() => op(42 as never)).toThrow(ValidationError);
    expect(() => op(() => 1, { name: " " })).toThrow(ValidationError);
    expect(() => op(() => 1, { parameterNames: [1] as never })).toThrow(ValidationError);
    expect(() => op(() => 1, { attributes: ["a"] as never })).toThrow(ValidationError);
  });

  it("rejects an option it does not read, pointing the vendor's names to ours (postprocessInputs to init's redact)", () => {
    const redactHook = () => op((x: number) => x, { postprocessInputs: (i: object) => i } as never);
    expect(redactHook).toThrow(ValidationError);
    expect(redactHook).toThrow(/op\(\) has no option postprocessInputs \(did you mean init\(\{ redact \}\): payloads/);
    expect(() => op(() => 1, { callDisplayName: "x" } as never)).toThrow(/did you mean displayName\?/);
    expect(() => op(() => 1, { nmae: "x" } as never)).toThrow(/^op\(\) has no option nmae \(did you mean name\?\);/);
    expect(() => op(() => 1, { sampled: true } as never)).toThrow(
      /^op\(\) has no option sampled; its options are name, displayName, parameterNames, attributes, kind, turn\.$/,
    );
    expect(() => op(() => 1, { name: "ok", other: undefined } as never)).not.toThrow();
  });
});
