/**
 * Paging and follow-mode arguments of the training client, against a loopback server: a cursor that comes back
 * must end the iteration (not loop forever), and bad or unknown arguments are refused when called, before sending.
 */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { TrainingClient } from "../../src/api/training/client.js";
import { ProtocolError, ValidationError } from "../../src/errors.js";
import { setupTestServer, type TestServer } from "../support/server.js";

let server: TestServer;
let client: TrainingClient;

setupTestServer((started) => {
  server = started;
  client = new TrainingClient({ baseUrl: server.url, apiKey: "tw-training-key-0002", env: {} });
  return () => client.close();
});

function jsonReply(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Collects at most `max` items, so that a loop that never ends fails the test instead of hanging it. */
async function collect<T extends { id: string }>(items: AsyncIterable<T>, max = 50): Promise<string[]> {
  const ids: string[] = [];
  for await (const item of items) {
    ids.push(item.id);
    if (ids.length >= max) throw new Error(`still iterating after ${max} items: ${ids.slice(0, 6).join(",")}…`);
  }
  return ids;
}

describe("training paging", () => {
  it("a server whose cursors cycle (a → b → a, has_more always true) ends with a ProtocolError, not a loop", async () => {
    server.on("GET", "/v1/preview/models/m-1/checkpoints", (req, res) => {
      const id = req.query.get("after") === "a" ? "b" : "a";
      jsonReply(res, { object: "list", data: [{ id, step: 1, metrics: {} }], has_more: true, last_id: id });
    });
    const error = await collect(client.models.checkpoints("m-1")).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(String(error)).toMatch(/cursor "a" again/);
    expect(server.requests.length).toBeLessThanOrEqual(3);
  });

  it("events: a follow-mode poll interval a timer cannot hold, or a non-boolean follow, is refused when called", () => {
    for (const pollIntervalMs of [1e10, Number.NaN, Number.POSITIVE_INFINITY, -1, "1000"]) {
      const call = () => client.jobs.events("job-1", { follow: true, pollIntervalMs } as never);
      expect(call).toThrow(ValidationError);
      expect(call).toThrow(/pollIntervalMs must be a number of ms from 0 to 2147483647/);
    }
    expect(() => client.jobs.events("job-1", { follow: "no" } as never)).toThrow(/follow must be true or false/);
    expect(() => client.jobs.events("job-1", { signal: "stop" } as never)).toThrow(/signal must be an AbortSignal/);
    expect(server.requests).toHaveLength(0);
  });

  it("unknown parameters of events and checkpoints are refused with the known ones named", () => {
    expect(() => client.jobs.events("job-1", { pollInterval: 5000 } as never)).toThrow(
      /jobs\.events: unknown parameter pollInterval \(did you mean pollIntervalMs\?\)/,
    );
    // The events endpoint has no order parameter: sending it would be ignored, and the caller would not know.
    expect(() => client.jobs.events("job-1", { order: "desc" } as never)).toThrow(/unknown parameter order/);
    expect(() => client.models.checkpoints("m-1", { ordr: "desc" } as never)).toThrow(
      /models\.checkpoints: unknown parameter ordr \(did you mean order\?\)/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("bad call options of events and checkpoints throw when called, like their parameters, not at the first page", () => {
    expect(() => client.jobs.events("job-1", {}, { timeout: 5000 } as never)).toThrow(/unknown option timeout/);
    expect(() => client.jobs.events("job-1", {}, { timeoutMs: -1 })).toThrow(ValidationError);
    expect(() => client.models.checkpoints("m-1", {}, { signal: "stop" } as never)).toThrow(
      /signal must be an AbortSignal/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe("ids in paths", () => {
  it('"." or ".." as an id is refused before sending: it would address another endpoint (DELETE /v1/preview)', async () => {
    server.on("DELETE", /.*/, { status: 200, json: {} });
    server.on("GET", /.*/, { status: 200, json: {} });
    const attempts: (() => Promise<unknown>)[] = [
      () => client.models.delete(".."),
      () => client.models.deleteCheckpoints("..", { steps: [1] }),
      () => client.jobs.retrieve("."),
    ];
    for (const attempt of attempts) {
      const err = await Promise.resolve()
        .then(attempt)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(String(err)).toMatch(/cannot be "\.{1,2}"/);
    }
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });
});
