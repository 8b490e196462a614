/**
 * op() and the thenables a function returns that are not native promises: the `openai` package's APIPromise (a lazy
 * Promise subclass that parses the body only when `then` is called), query builders that run their work on each
 * `then`, and Promise subclasses. op() must not call their `then` itself: the caller's own `then` (or `await`) is
 * observed instead, and a result nobody awaits is ended as abandoned once it is garbage-collected.
 */
import { describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { makeClient, setupOpenAIServer, VERSIONS } from "../instrument/support.js";
import { gc } from "../support/gc.js";
import { MODEL_SUFFIX, TEXT } from "../support/openai-server.js";
import { setupSession } from "../support/tracing-session.js";

const s = setupSession();
const llm = setupOpenAIServer();

/** Collects garbage until the call named `opName` has ended (finalizers run on a later turn), then returns it. */
async function collectUntilEnded(opName: string) {
  for (let i = 0; i < 50; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
    await s.tracing.flush();
    if (s.double.callsNamed(opName)[0]?.ends) break;
  }
  return s.only(opName);
}

/** A query-builder-style thenable: its work runs on every `then` (as Knex and Mongoose queries do). */
function lazyQuery(outcome: () => Promise<string>, onRun?: () => void) {
  const query = {
    runs: 0,
    // biome-ignore lint/suspicious/noThenProperty: a thenable is what this test is about.
    then(onFulfilled?: (v: string) => unknown, onRejected?: (e: unknown) => unknown) {
      query.runs++;
      onRun?.();
      return outcome().then(onFulfilled, onRejected);
    },
  };
  return query;
}

describe.each(VERSIONS.map((v) => [v.name, v] as const))("an APIPromise returned by a non-async op (%s)", (_, v) => {
  const MESSAGES = [{ role: "user" as const, content: "Say hello." }];
  /** One op name per SDK version, so each version's test reads back its own call. */
  const named = (name: string) => ({ name: `${name} ${v.name}` });

  it("leaves the body to the caller: asResponse().json() reads it", async () => {
    const client = makeClient(v, llm.server);
    const ask = op(function askRaw() {
      return client.chat.completions.create({ model: "gpt-4o-mini", messages: MESSAGES });
    });
    const returned = ask();
    expect(returned).toBeInstanceOf(v.APIPromise);
    const response = await returned.asResponse();
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe(TEXT);
  });

  it("records the completion the caller awaited, from one request", async () => {
    const client = makeClient(v, llm.server);
    const before = llm.server.chatBodies().length;
    const ask = op(function askAwaited() {
      return client.chat.completions.create({ model: "gpt-4o-mini", messages: MESSAGES });
    }, named("askAwaited"));
    const completion = await ask();
    expect(completion.choices[0]?.message.content).toBe(TEXT);
    const call = await s.only(`askAwaited ${v.name}`);
    expect(call.end?.output).toMatchObject({ model: `gpt-4o-mini${MODEL_SUFFIX}`, choices: [{ index: 0 }] });
    expect(llm.server.chatBodies().length).toBe(before + 1);
  });

  it("records the API error a `.catch` received, and the caller gets the same error", async () => {
    const client = makeClient(v, llm.server);
    const ask = op(function askFails() {
      return client.chat.completions.create({ model: "m-status-400", messages: MESSAGES });
    }, named("askFails"));
    const caught = await ask().catch((err: unknown) => err);
    expect(caught).toBeInstanceOf(v.OpenAI.BadRequestError);
    expect((await s.only(`askFails ${v.name}`)).end?.exception).toContain("Stand-in error 400");
  });
});

describe("a thenable nobody awaits", () => {
  it.skipIf(!gc)("an APIPromise read raw ends as cancelled (abandoned) once collected", async () => {
    const client = makeClient(VERSIONS[0]!, llm.server);
    const ask = op(function askNeverAwaited() {
      return client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] });
    });
    await (async () => {
      await (await ask().asResponse()).text();
    })();
    const call = await collectUntilEnded("askNeverAwaited");
    expect(call.end?.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "abandoned" } });
    expect(call.end?.output ?? null).toBeNull(); // tracewire never read the body
  });

  it.skipIf(!gc)("a lazy query never awaited never runs, and its call ends once it is collected", async () => {
    let runs = 0;
    const find = op(function findNeverRun() {
      return lazyQuery(
        async () => "rows",
        () => runs++,
      );
    });
    find();
    const call = await collectUntilEnded("findNeverRun");
    expect(runs).toBe(0);
    expect(call.end?.summary).toMatchObject({ tracewire: { status: "cancelled", cancel_reason: "abandoned" } });
  });
});

describe("lazy thenables", () => {
  it("runs a query-builder thenable once, when the caller awaits it, and records what the caller got", async () => {
    let made: ReturnType<typeof lazyQuery> | undefined;
    const find = op(function findRows() {
      made = lazyQuery(async () => "rows");
      return made;
    });
    const query = find();
    expect(query).toBe(made);
    expect(Object.keys(query)).toEqual(["runs", "then"]); // its own `then` stays where and how it was
    await new Promise((r) => setTimeout(r, 20));
    expect(query.runs).toBe(0);
    expect(await query).toBe("rows");
    expect(query.runs).toBe(1);
    const call = await s.only("findRows");
    expect(call.end?.output).toBe("rows");
  });

  it("records a lazy thenable's rejection, and the caller gets the same error", async () => {
    const boom = new Error("query failed");
    const find = op(function findFails() {
      return lazyQuery(() => Promise.reject(boom));
    });
    await expect(Promise.resolve(find())).rejects.toBe(boom);
    expect((await s.only("findFails")).end?.exception).toContain("query failed");
  });

  it("does not construct a Promise subclass's instances on its own (no `then` of its own)", async () => {
    let constructed = 0;
    class Counted<T> extends Promise<T> {
      constructor(executor: ConstructorParameters<typeof Promise<T>>[0]) {
        super(executor);
        constructed++;
      }
    }
    const load = op(function loadCounted() {
      return new Counted<string>((resolve) => setTimeout(() => resolve("loaded"), 5));
    });
    const pending = load();
    expect(constructed).toBe(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(constructed).toBe(1);
    expect(await pending).toBe("loaded");
    expect((await s.only("loadCounted")).end?.output).toBe("loaded");
  });

  it("ends a frozen thenable's call at once (it cannot be observed) and leaves it working", async () => {
    const frozen = Object.freeze({
      // biome-ignore lint/suspicious/noThenProperty: a thenable is what this test is about.
      then(onFulfilled: (v: number) => unknown) {
        return Promise.resolve(7).then(onFulfilled);
      },
    });
    const get = op(function frozenThenable() {
      return frozen;
    });
    expect(await get()).toBe(7);
    const call = await s.only("frozenThenable");
    expect(call.end?.output).toBe("[Thenable]");
  });
});
