/**
 * A web `ReadableStream` returned by an op (what route handlers return, what `fetch` bodies are) is the very same
 * object after tracing, and its call ends exactly once: when it is read to its end through `getReader()`, through
 * `new Response(stream)` (whose body is read with a reader), by `for await`, `pipeTo` or `pipeThrough`; when it is
 * cancelled; and when it errors (the error recorded).
 */
import { describe, expect, it } from "vitest";
import { op } from "../../src/index.js";
import { setupSession } from "../support/tracing-session.js";

const s = setupSession();

/** A stream of `chunks`, one per pull, then closed (or errored with `fail` after them). */
function chunks(list: string[], fail?: Error): ReadableStream<string> {
  let i = 0;
  return new ReadableStream<string>({
    async pull(controller) {
      await new Promise((r) => setTimeout(r, 1));
      if (i < list.length) controller.enqueue(list[i++]!);
      else if (fail) controller.error(fail);
      else controller.close();
    },
  });
}
const bytes = (list: string[], fail?: Error) =>
  chunks(list, fail).pipeThrough(new TextEncoderStream()) as ReadableStream<Uint8Array>;

/** The call named `opName` after a flush, ended or not. */
async function callNamed(opName: string) {
  await s.tracing.flush();
  const calls = s.double.callsNamed(opName);
  expect(calls, opName).toHaveLength(1);
  return calls[0]!;
}

describe("web ReadableStream returned by an op", () => {
  it("is the same object, and its call ends when read to the end with getReader()", async () => {
    let made: ReadableStream<string> | undefined;
    const produce = op(function webReader() {
      made = chunks(["a", "b", "c"]);
      return made;
    });
    const stream = produce();
    expect(stream).toBe(made);
    expect(stream).toBeInstanceOf(ReadableStream);
    expect((await callNamed("webReader")).ends).toBe(0);
    const reader = stream.getReader();
    const seen: string[] = [];
    for (let step = await reader.read(); !step.done; step = await reader.read()) seen.push(step.value);
    expect(seen).toEqual(["a", "b", "c"]);
    const call = await callNamed("webReader");
    expect(call.ends).toBe(1);
    expect(call.end?.output).toEqual(["a", "b", "c"]);
    expect(call.end).not.toHaveProperty("exception");
  });

  it("ends when handed to new Response(stream) and the response body is consumed", async () => {
    const route = op(async function webResponse() {
      return bytes(["Hel", "lo"]);
    });
    const response = new Response(await route());
    expect((await callNamed("webResponse")).ends).toBe(0);
    expect(await response.text()).toBe("Hello");
    const call = await callNamed("webResponse");
    expect(call.ends).toBe(1);
    expect(call.end).not.toHaveProperty("exception");
  });

  it("ends when a Response's body is read with its own reader (response.body is the stream)", async () => {
    const route = op(function webResponseReader() {
      return bytes(["x", "y"]);
    });
    const response = new Response(route());
    const reader = response.body!.getReader();
    while (!(await reader.read()).done) {}
    expect((await callNamed("webResponseReader")).ends).toBe(1);
  });

  it("ends when cancelled: stream.cancel(), reader.cancel(), or a Response body cancelled", async () => {
    const direct = op(function webCancelled() {
      return chunks(["a", "b"]);
    });
    await direct().cancel("not needed");
    expect((await callNamed("webCancelled")).ends).toBe(1);

    const viaReader = op(function webReaderCancelled() {
      return chunks(["a", "b", "c"]);
    });
    const reader = viaReader().getReader();
    expect((await reader.read()).value).toBe("a");
    await reader.cancel();
    const call = await callNamed("webReaderCancelled");
    expect(call.ends).toBe(1);
    expect(call.end?.output).toEqual(["a"]);

    const viaResponse = op(function webResponseCancelled() {
      return bytes(["a", "b"]);
    });
    await new Response(viaResponse()).body!.cancel();
    expect((await callNamed("webResponseCancelled")).ends).toBe(1);
  });

  it("ends with the error recorded when the stream errors, read directly or through a Response", async () => {
    const direct = op(function webErrors() {
      return chunks(["a"], new Error("upstream broke"));
    });
    const reader = direct().getReader();
    expect((await reader.read()).value).toBe("a");
    await expect(reader.read()).rejects.toThrow("upstream broke");
    const call = await callNamed("webErrors");
    expect(call.ends).toBe(1);
    expect(call.end?.exception).toContain("upstream broke");

    const viaResponse = op(function webResponseErrors() {
      return bytes(["a"], new Error("body broke"));
    });
    await expect(new Response(viaResponse()).text()).rejects.toThrow();
    const failed = await callNamed("webResponseErrors");
    expect(failed.ends).toBe(1);
    expect(failed.end?.exception).toContain("body broke");
  });

  it("ends when iterated with for await or values(), and when piped with pipeTo or pipeThrough", async () => {
    const iterated = op(function webIterated() {
      return chunks(["i1", "i2"]);
    });
    const seen: string[] = [];
    for await (const c of iterated()) seen.push(c);
    expect(seen).toEqual(["i1", "i2"]);
    expect((await callNamed("webIterated")).end?.output).toEqual(["i1", "i2"]);

    const valued = op(function webValues() {
      return chunks(["v1"]);
    });
    for await (const _ of valued().values()) {
    }
    expect((await callNamed("webValues")).ends).toBe(1);

    const piped = op(function webPipeTo() {
      return chunks(["p1", "p2"]);
    });
    const written: string[] = [];
    await piped().pipeTo(new WritableStream({ write: (c) => void written.push(c) }));
    expect(written).toEqual(["p1", "p2"]);
    expect((await callNamed("webPipeTo")).ends).toBe(1);

    const through = op(function webPipeThrough() {
      return chunks(["t1", "t2"]);
    });
    const text = await new Response(through().pipeThrough(new TextEncoderStream())).text();
    expect(text).toBe("t1t2");
    expect((await callNamed("webPipeThrough")).ends).toBe(1);
  });

  it("a locked stream refuses a second reader as before, and the call still ends once", async () => {
    const locked = op(function webLocked() {
      return chunks(["l"]);
    });
    const stream = locked();
    const reader = stream.getReader();
    expect(() => stream.getReader()).toThrow(TypeError);
    await expect(stream.cancel()).rejects.toThrow(TypeError);
    expect((await callNamed("webLocked")).ends).toBe(0); // a refused cancel() does not end it
    while (!(await reader.read()).done) {}
    expect((await callNamed("webLocked")).ends).toBe(1);
  });
});
