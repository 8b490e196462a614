import { describe, expect, it } from "vitest";
import { ApiError, BadRequestError, ProtocolError } from "../../src/errors.js";
import { readNdjson } from "../../src/http/ndjson.js";
import { readChatStream, readSse } from "../../src/http/sse.js";
import { collect } from "../support/collect.js";
import { TestServer } from "../support/server.js";
import { plainTransport } from "../support/transport.js";

/** Feeds raw byte chunks, exactly as split here, to a reader. */
async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === "string" ? new TextEncoder().encode(part) : part;
}

const request = { method: "POST", path: "/v1/chat/completions" };

describe("readNdjson", () => {
  it("joins lines split across chunks, including a multi-byte character split mid-sequence", async () => {
    const euro = new TextEncoder().encode('{"s":"€"}\n');
    const items = await collect(
      readNdjson(chunks('{"a":', "1}\n{", '"b":2}\r\n\n', euro.slice(0, 6), euro.slice(6), '{"last":true}')),
    );
    expect(items).toEqual([{ a: 1 }, { b: 2 }, { s: "€" }, { last: true }]);
  });

  it("names the line number of a malformed line, counting blank lines", async () => {
    const err = await collect(readNdjson(chunks('{"a":1}\n\n{"b":\n'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).line).toBe(3);
  });

  it("yields the first object before the server has sent the rest (never buffers the whole body)", async () => {
    const server = await TestServer.start();
    let releaseRest: () => void = () => {};
    const restSent = new Promise<void>((resolve) => {
      releaseRest = resolve;
    });
    let serverFinished = false;
    server.on("POST", "/stream", async (_req, res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      res.write('{"n":0}\n');
      await restSent; // the client must see line 0 before line 1 exists
      res.end('{"n":1}\n');
      serverFinished = true;
    });
    const transport = plainTransport(server.url);
    const response = await transport.stream({ method: "POST", path: "/stream", json: {} });
    const seen: unknown[] = [];
    for await (const item of readNdjson(response.body)) {
      seen.push(item);
      if (seen.length === 1) {
        expect(serverFinished).toBe(false);
        releaseRest();
      }
    }
    expect(seen).toEqual([{ n: 0 }, { n: 1 }]);
    await transport.close();
    await server.close();
  });
});

describe("readSse", () => {
  it("handles comments, multi-line data, event names, ids and CRLF/CR line ends", async () => {
    const events = await collect(
      readSse(
        chunks(
          ": keep-alive\r\n",
          "event: message\r\nid: 7\r\ndata: one\r\ndata: two\r",
          "\n\r\n",
          "data: x\r\rdata: tail",
        ),
      ),
    );
    expect(events).toEqual([
      { event: "message", data: "one\ntwo", id: "7" },
      { event: undefined, data: "x", id: "7" },
      { event: undefined, data: "tail", id: "7" },
    ]);
  });
});

describe("readSse limits", () => {
  /** `count` chunks of `text`: a body that never ends a line (or never ends an event). */
  async function* repeat(first: string, text: string, count: number): AsyncGenerator<Uint8Array> {
    const encoder = new TextEncoder();
    yield encoder.encode(first);
    for (let i = 0; i < count; i++) yield encoder.encode(text);
  }

  it("refuses an event that grows past the limit (one endless line, or data lines never dispatched)", async () => {
    const line = await collect(readSse(repeat("data: ", "x".repeat(1000), 100), 10_000)).catch((e: unknown) => e);
    expect(line).toBeInstanceOf(ProtocolError);
    expect(String(line)).toMatch(/event exceeds 10000 characters/);
    const lines = await collect(readSse(repeat("", "data: xxxxxxxx\n", 5000), 10_000)).catch((e: unknown) => e);
    expect(lines).toBeInstanceOf(ProtocolError);
    // Events under the limit pass.
    expect(await collect(readSse(repeat("", "data: xxxxxxxx\n\n", 5000), 10_000))).toHaveLength(5000);
  });
});

describe("readChatStream", () => {
  it("yields JSON chunks and stops at [DONE]", async () => {
    const items = await collect(
      readChatStream(
        chunks('data: {"id":"a"}\n\n', 'data: {"id":"b"}\n\ndata: [DONE]\n\ndata: {"id":"ignored"}\n\n'),
        request,
      ),
    );
    expect(items).toEqual([{ id: "a" }, { id: "b" }]);
  });

  it("turns an error event inside a 200 stream into the typed ApiError for its code", async () => {
    const body = chunks(
      'data: {"id":"a"}\n\n',
      'data: {"error":{"message":"Got priority 5 but Priority scheduling is not enabled.","type":"BadRequestError","param":null,"code":400}}\n\n',
      "data: [DONE]\n\n",
    );
    const seen: unknown[] = [];
    const err = await (async () => {
      for await (const chunk of readChatStream(body, request)) seen.push(chunk);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ id: "a" }]);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toContain("Priority scheduling is not enabled");
  });

  it("handles an error without a numeric code and a malformed frame", async () => {
    const noCode = await collect(readChatStream(chunks('data: {"error":{"message":"boom"}}\n\n'), request)).catch(
      (e: unknown) => e,
    );
    expect(noCode).toBeInstanceOf(ApiError);
    expect((noCode as ApiError).status).toBeUndefined();
    expect((noCode as ApiError).message).toContain("boom");

    const malformed = await collect(readChatStream(chunks("data: {nope\n\n"), request)).catch((e: unknown) => e);
    expect(malformed).toBeInstanceOf(ProtocolError);
  });
});
