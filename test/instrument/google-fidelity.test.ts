/**
 * wrapGoogleGenAI changes nothing the caller can observe (`@google/genai` 3, Node ≥ 22). The async generator a
 * stream resolves with is driven through the same script — `for await`, `break`, direct `next()` calls (also several
 * in flight at once), `return(value)`, reads after the end, after an error and after an abort — on a wrapped and an
 * unwrapped client against the same loopback server, and every step's outcome (value and `done`, or the error's
 * class, message and own fields) is compared; so are the objects themselves (class, own keys, the iterator being
 * itself), promises, chats' history, and a client whose tracing is off. Tracing is on throughout, so the wrapper
 * really runs.
 */
import { describe, expect, it } from "vitest";
import { wrapGoogleGenAI } from "../../src/instrument/google.js";
import { setupSessionPerTest } from "../support/tracing-session.js";
import {
  type Client,
  collect,
  errorOf,
  genai,
  HAS_GOOGLE,
  MODEL,
  makeGoogle,
  plain,
  recorded,
  setupGeminiServer,
  TEXT_REQUEST,
} from "./google-support.js";
import { summaryOf } from "./support.js";

type Gen = AsyncGenerator<unknown, unknown, unknown>;
type Step = (gen: Gen) => Promise<unknown> | unknown;

/** What a caller sees of an error: its class, message and own fields. */
function errorShape(err: unknown) {
  const e = err as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(e)) fields[key] = e[key];
  return { proto: Object.getPrototypeOf(err), name: (err as Error).name, message: (err as Error).message, fields };
}

/** What a caller sees of an iterator result: `done` and the value (a response without its headers). */
function resultShape(result: unknown) {
  const r = result as IteratorResult<unknown>;
  const value = r.value && typeof r.value === "object" ? recorded(r.value) : r.value;
  return { done: r.done, value, keys: Object.keys(r) };
}

/** Runs `steps` on a fresh stream of `params`, recording each step's outcome. */
async function drive(client: Client, params: object, steps: Step[]): Promise<unknown[]> {
  const gen = (await client.models.generateContentStream(params as never)) as unknown as Gen;
  const outcomes: unknown[] = [];
  for (const step of steps) {
    try {
      const result = await step(gen);
      outcomes.push(Array.isArray(result) ? result : result === undefined ? "ok" : resultShape(result));
    } catch (err) {
      outcomes.push({ error: errorShape(err) });
    }
  }
  return outcomes;
}

const next: Step = (gen) => gen.next();
const settle = (promises: Promise<IteratorResult<unknown>>[]) =>
  Promise.allSettled(promises).then((all) =>
    all.map((s) => (s.status === "fulfilled" ? resultShape(s.value) : { error: errorShape(s.reason) })),
  );

const ctx = setupGeminiServer();

describe.skipIf(!HAS_GOOGLE)("@google/genai 3", () => {
  const session = setupSessionPerTest();
  const wrapped = () => wrapGoogleGenAI(makeGoogle(ctx.server));
  const bare = () => makeGoogle(ctx.server);
  const same = async (params: object, steps: Step[]) => {
    const got = await drive(wrapped(), params, steps);
    const expected = await drive(bare(), params, steps);
    expect(got).toEqual(expected);
    return got;
  };

  it("the stream is the SDK's own generator object, its own iterator, with the same keys and prototype", async () => {
    const gen = await wrapped().models.generateContentStream(TEXT_REQUEST);
    const reference = await bare().models.generateContentStream(TEXT_REQUEST);
    expect(Object.getPrototypeOf(gen)).toBe(Object.getPrototypeOf(reference));
    // The SDK builds it with tslib's __asyncGenerator: a plain object whose prototype is AsyncIterator's.
    expect(Object.prototype.toString.call(gen)).toBe(Object.prototype.toString.call(reference));
    expect(gen[Symbol.asyncIterator]()).toBe(gen);
    expect(Object.keys(gen)).toEqual(Object.keys(reference));
    await collect(gen);
    await collect(reference);
  });

  it("next() step by step, past the end, and return(value) afterwards: the same results", async () => {
    const got = await same(TEXT_REQUEST, [next, next, next, next, next, next, next, next, (g) => g.return("bye")]);
    expect(got.slice(6)).toEqual([
      { done: true, value: undefined, keys: ["value", "done"] },
      { done: true, value: undefined, keys: ["value", "done"] },
      { done: true, value: "bye", keys: ["value", "done"] },
    ]);
    const call = await session.only("google.models.generateContentStream");
    expect(call.ends).toBe(1);
    expect(summaryOf(call).tracewire).toBeUndefined();
  });

  it("throw(error) between reads: the same rejection, then done; the call ends with that error", async () => {
    const stop = new Error("consumer stopped");
    const got = await same({ ...TEXT_REQUEST, model: "m-slow" }, [next, (g) => g.throw(stop), next]);
    expect(got[1]).toEqual({ error: errorShape(stop) });
    await session.tracing.flush();
    const calls = session.double.callsNamed("google.models.generateContentStream");
    expect(calls.map((c) => [c.ends, c.end?.exception])).toEqual([[1, "Error: consumer stopped"]]);
  });

  it("three next() calls in flight at once, then return(): the same results, in order", async () => {
    await same({ ...TEXT_REQUEST, model: "m-slow" }, [
      (g) => settle([g.next(), g.next(), g.next()]),
      (g) => g.return(undefined),
      next,
    ]);
  });

  it("break out of for await, then next(): the same chunks, then done", async () => {
    const breakAt =
      (n: number): Step =>
      async (g) => {
        const seen: unknown[] = [];
        for await (const chunk of g) {
          seen.push(recorded(chunk));
          if (seen.length === n) break;
        }
        return seen;
      };
    await same({ ...TEXT_REQUEST, model: "m-slow" }, [breakAt(2), next]);
    await same(TEXT_REQUEST, [breakAt(6), next]);
  });

  it("an error event in the stream, then next(): the same chunks, the same error, then done", async () => {
    const got = await same({ ...TEXT_REQUEST, model: "m-error-stream" }, [next, next, next, next]);
    expect(got[2]).toMatchObject({ error: { proto: genai.ApiError.prototype } });
  });

  it("a connection cut mid-stream: the same chunks and the same error", async () => {
    await same({ ...TEXT_REQUEST, model: "m-drop" }, [next, next, next, next]);
  });

  it("an abort between reads: the same error at the same read, then done", async () => {
    const run = (client: Client) => {
      const controller = new AbortController();
      const params = { ...TEXT_REQUEST, model: "m-slow", config: { abortSignal: controller.signal } };
      const abort: Step = () => {
        controller.abort();
      };
      return drive(client, params, [next, next, abort, next, next]);
    };
    const got = await run(wrapped());
    expect(got).toEqual(await run(bare()));
    expect(got[3]).toMatchObject({ error: { name: "AbortError" } });
  });

  it("generateContent: a native promise of the SDK's response; failures reject with the SDK's error", async () => {
    const promise = wrapped().models.generateContent(TEXT_REQUEST);
    expect(promise).toBeInstanceOf(Promise);
    expect(Object.keys(await promise)).toEqual(Object.keys(await bare().models.generateContent(TEXT_REQUEST)));
    for (const model of ["m-status-400", "m-status-429", "m-status-500"]) {
      const got = await errorOf(wrapped().models.generateContent({ ...TEXT_REQUEST, model }));
      const expected = await errorOf(bare().models.generateContent({ ...TEXT_REQUEST, model }));
      expect(errorShape(got)).toEqual(errorShape(expected));
    }
    // An argument the SDK rejects is rejected the same way.
    const bad = await errorOf(wrapped().models.generateContent({ model: MODEL, contents: [] }));
    expect(errorShape(bad)).toEqual(
      errorShape(await errorOf(bare().models.generateContent({ model: MODEL, contents: [] }))),
    );
  });

  it("a chat stream broken out of keeps the chat's history as unwrapped, and the next message works", async () => {
    const run = async (client: Client) => {
      const chat = client.chats.create({ model: MODEL });
      for await (const _chunk of await chat.sendMessageStream({ message: "Hi!" })) break;
      const answer = await chat.sendMessage({ message: "Again?" });
      return { history: plain(chat.getHistory()), text: answer.text };
    };
    expect(await run(wrapped())).toEqual(await run(bare()));
    await session.tracing.flush();
    const broken = session.double.callsNamed("google.chats.sendMessageStream");
    expect(broken.map((c) => summaryOf(c).tracewire)).toEqual([{ status: "cancelled", cancel_reason: "break" }]);
  });
});

describe.skipIf(!HAS_GOOGLE)("@google/genai 3, tracing off", () => {
  it("without init(), a wrapped client answers as unwrapped and records nothing", async () => {
    const client = wrapGoogleGenAI(makeGoogle(ctx.server));
    const response = await client.models.generateContent(TEXT_REQUEST);
    expect(recorded(response)).toEqual(recorded(await makeGoogle(ctx.server).models.generateContent(TEXT_REQUEST)));
    const chunks = await collect(await client.models.generateContentStream(TEXT_REQUEST));
    expect(chunks.map(recorded)).toEqual(
      (await collect(await makeGoogle(ctx.server).models.generateContentStream(TEXT_REQUEST))).map(recorded),
    );
  });
});
