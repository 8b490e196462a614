/**
 * Generators, async generators and returned streams: the call ends when iteration finishes, throws or is broken out
 * of, its output is the collected items, and work started inside the producer's body nests under the producer's op.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { setupSession } from "../support/tracing-session.js";

const s = setupSession();

const tick = () => new Promise((r) => setTimeout(r, 1));

/** The call named `opName` after a flush, without requiring it to have ended. */
async function started(opName: string) {
  await s.tracing.flush();
  const calls = s.double.callsNamed(opName);
  expect(calls).toHaveLength(1);
  return calls[0]!;
}

describe("async generators", () => {
  it("returns the generator itself and ends the call when iteration finishes, with the items as output", async () => {
    let inner: AsyncGenerator<number> | undefined;
    const count = op(function countTo(n: number) {
      inner = (async function* () {
        for (let i = 1; i <= n; i++) {
          await tick();
          yield i;
        }
      })();
      return inner;
    });
    const gen = count(3);
    expect(gen).toBe(inner);

    const before = await started("countTo");
    expect(before.start?.inputs).toEqual({ arg0: 3 });
    expect(before.ends).toBe(0); // still open: nothing consumed yet

    const seen: number[] = [];
    for await (const x of gen) seen.push(x);
    expect(seen).toEqual([1, 2, 3]);
    const after = await s.only("countTo");
    expect(after.end?.output).toEqual([1, 2, 3]);
    expect(after.ends).toBe(1);
  });

  it("records an error thrown mid-stream and the consumer gets the same error", async () => {
    const boom = new Error("stream broke");
    const failing = op(async function* failsMidStream() {
      yield "a";
      await tick();
      throw boom;
    });
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const x of failing()) seen.push(x);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBe(boom);
    expect(seen).toEqual(["a"]);
    const call = await s.only("failsMidStream");
    expect(call.end?.exception).toContain("stream broke");
    expect(call.end).not.toHaveProperty("output");
  });

  it("ends the call when the consumer breaks out early, with the items taken so far", async () => {
    let cleanedUp = false;
    const endless = op(async function* endlessStream() {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        cleanedUp = true;
      }
    });
    for await (const x of endless()) if (x === 2) break;
    expect(cleanedUp).toBe(true);
    const call = await s.only("endlessStream");
    expect(call.end?.output).toEqual([0, 1, 2]);
    expect(call.end).not.toHaveProperty("exception");
  });

  it("nests work started inside the generator body under the generator's op, not under the consumer", async () => {
    const fetchPage = op(async function fetchPage(page: number) {
      await tick();
      return `page ${page}`;
    });
    const pages = op(async function* pagedProducer() {
      yield await fetchPage(1);
      yield await fetchPage(2);
    });
    const consumer = op(async function pageConsumer() {
      const out: string[] = [];
      for await (const p of pages()) out.push(p);
      return out;
    });
    expect(await consumer()).toEqual(["page 1", "page 2"]);
    await s.tracing.flush();
    const producer = await s.only("pagedProducer");
    const outer = await s.only("pageConsumer");
    const fetches = s.double.callsNamed("fetchPage");
    expect(fetches).toHaveLength(2);
    expect(producer.start.parent_id).toBe(outer.start.id);
    for (const f of fetches) {
      expect(f.start?.parent_id).toBe(producer.start.id);
      expect(f.start?.trace_id).toBe(outer.start.trace_id);
    }
    expect(producer.end?.output).toEqual(["page 1", "page 2"]);
  });

  it("watches a generator that an async op resolves to", async () => {
    const later = op(async function resolvesToStream() {
      await tick();
      return (async function* () {
        yield "x";
        yield "y";
      })();
    });
    const seen: string[] = [];
    for await (const v of await later()) seen.push(v);
    expect(seen).toEqual(["x", "y"]);
    expect((await s.only("resolvesToStream")).end?.output).toEqual(["x", "y"]);
  });
});

describe("sync generators", () => {
  it("ends on completion with the items, and nests body work under the op", async () => {
    const double = op(function doubleIt(x: number) {
      return x * 2;
    });
    const gen = op(function* syncProducer(xs: number[]) {
      for (const x of xs) yield double(x);
    });
    expect([...gen([1, 2, 3])]).toEqual([2, 4, 6]);
    const call = await s.only("syncProducer");
    expect(call.start.inputs).toEqual({ arg0: [1, 2, 3] });
    expect(call.end?.output).toEqual([2, 4, 6]);
    const children = s.double.callsNamed("doubleIt");
    expect(children).toHaveLength(3);
    for (const c of children) expect(c.start?.parent_id).toBe(call.start.id);
  });

  it("records a throw and rethrows the same error", () => {
    const boom = new RangeError("sync generator broke");
    const gen = op(function* syncFails() {
      yield 1;
      throw boom;
    });
    expect(() => [...gen()]).toThrow(boom);
    let caught: unknown;
    try {
      for (const _ of gen()) {
        // consume
      }
    } catch (err) {
      caught = err;
    }
    expect(caught).toBe(boom);
    return s.tracing.flush().then(() => {
      const calls = s.double.callsNamed("syncFails");
      expect(calls).toHaveLength(2);
      for (const c of calls) expect(c.end?.exception).toContain("sync generator broke");
    });
  });

  it("ends when broken out of early", async () => {
    const naturals = op(function* naturals() {
      for (let i = 0; ; i++) yield i;
    });
    for (const n of naturals()) if (n === 1) break;
    expect((await s.only("naturals")).end?.output).toEqual([0, 1]);
  });
});

describe("returned streams", () => {
  /** An SDK-style stream: async iterable, not itself an iterator. */
  class ChunkStream {
    readonly kind = "chunks";
    constructor(private readonly chunks: string[]) {}
    async *[Symbol.asyncIterator]() {
      for (const c of this.chunks) {
        await tick();
        yield c;
      }
    }
  }

  it("returns an async iterable unchanged and ends with its items once iterated", async () => {
    let made: ChunkStream | undefined;
    const chat = op(async function streamingChat(_prompt: string) {
      made = new ChunkStream(["Hel", "lo"]);
      return made;
    });
    const stream = await chat("hi");
    expect(stream).toBe(made);
    expect(stream).toBeInstanceOf(ChunkStream);
    expect((await started("streamingChat")).ends).toBe(0);
    let text = "";
    for await (const c of stream) text += c;
    expect(text).toBe("Hello");
    expect((await s.only("streamingChat")).end?.output).toEqual(["Hel", "lo"]);
  });

  it("ends an async iterable broken out of early", async () => {
    const chat = op(function earlyExitStream() {
      return new ChunkStream(["a", "b", "c", "d"]);
    });
    for await (const c of chat()) if (c === "b") break;
    expect((await s.only("earlyExitStream")).end?.output).toEqual(["a", "b"]);
  });

  it("ends a Node Readable iterated with for await, with its chunks", async () => {
    let made: Readable | undefined;
    const read = op(function readableForAwait() {
      made = Readable.from(["r1", "r2", "r3"]);
      return made;
    });
    const stream = read();
    expect(stream).toBe(made);
    const seen: string[] = [];
    for await (const chunk of stream) seen.push(chunk as string);
    expect(seen).toEqual(["r1", "r2", "r3"]);
    expect((await s.only("readableForAwait")).end?.output).toEqual(["r1", "r2", "r3"]);
  });

  it("ends a Node Readable consumed with 'data' events (never iterated)", async () => {
    const read = op(function readableEvents() {
      return Readable.from(["e1", "e2"]);
    });
    const stream = read();
    const seen: string[] = [];
    stream.on("data", (c: string) => seen.push(c));
    await new Promise((r) => stream.once("end", r));
    expect(seen).toEqual(["e1", "e2"]);
    await s.tracing.flush();
    const call = await s.only("readableEvents");
    expect(call.ends).toBe(1);
    expect(call.end?.output).toBe("[Readable]"); // chunks read through events are not collected
    expect(call.end).not.toHaveProperty("exception");
  });

  it("records a Readable's error as the exception", async () => {
    const boom = new Error("readable failed");
    const read = op(function readableFails() {
      return new Readable({
        read() {
          this.destroy(boom);
        },
      });
    });
    const stream = read();
    const failure = new Promise((r) => stream.once("error", r));
    const closed = new Promise((r) => stream.once("close", r));
    stream.resume();
    expect(await failure).toBe(boom);
    await closed;
    expect((await s.only("readableFails")).end?.exception).toContain("readable failed");
  });
});
