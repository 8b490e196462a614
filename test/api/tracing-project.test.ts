import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { collect } from "../support/collect.js";
import { ndjsonReply } from "../support/server.js";
import { expectRequest, type MethodCase, runCases, setupTracingServer } from "./tracing-support.js";

const ctx = setupTracingServer();

/** Entity and project with characters that must be percent-encoded in the path. */
const scope = () => ctx.client.project("acme co", "demo#1");
const BASE = "/v2/acme%20co/demo%231";
const version = { object_id: "qa", digest: "abc", version_index: 2, name: "qa" };

describe("TracingClient.project(entity, project)", () => {
  it("validates entity and project and exposes the project id", () => {
    expect(scope().projectId).toBe("acme co/demo#1");
    expect(() => ctx.client.project("", "demo")).toThrow(ValidationError);
    expect(() => ctx.client.project("acme/x", "demo")).toThrow(/entity must be a non-empty string without "\/"/);
    expect(() => ctx.client.project("acme", "a/b")).toThrow(/project must be/);
    expect(() => ctx.client.project("acme", 7 as unknown as string)).toThrow(ValidationError);
  });

  for (const collection of ["evaluations", "ops", "datasets", "scorers", "models"] as const) {
    it(`${collection}: create, delete and readVersion send their documented requests; list streams NDJSON`, async () => {
      const resource = scope()[collection];
      const path = `${BASE}/${collection}`;
      const cases: MethodCase[] = [
        {
          name: `${collection}.create`,
          method: "POST",
          path,
          run: () => resource.create({ name: "qa", description: "d", source_code: "def f(): pass" }),
          json: { name: "qa", description: "d", source_code: "def f(): pass" },
          reply: { object_id: "qa", digest: "abc", version_index: 0 },
          retriesOn500: false,
        },
        {
          name: `${collection}.delete (all versions)`,
          method: "DELETE",
          path: `${path}/qa%20v1`,
          run: () => resource.delete("qa v1"),
          reply: { num_deleted: 3 },
          retriesOn500: true,
        },
        {
          name: `${collection}.delete (some digests)`,
          method: "DELETE",
          path: `${path}/qa`,
          query: { digests: ["abc", "def"] },
          run: () => resource.delete("qa", { digests: ["abc", "def"] }),
          reply: { num_deleted: 2 },
          retriesOn500: true,
        },
        {
          name: `${collection}.readVersion`,
          method: "GET",
          path: `${path}/qa/versions/latest`,
          run: () => resource.readVersion("qa", "latest"),
          reply: version,
          retriesOn500: true,
        },
      ];
      await runCases(ctx.server, cases);

      const versions = [version, { ...version, digest: "def", version_index: 1 }];
      ctx.server.reset();
      ctx.server.on("GET", path, ndjsonReply(versions, { chunkBytes: 6 }));
      expect(await collect(resource.list({ limit: 2, offset: 1 }))).toEqual(versions);
      expectRequest(
        ctx.server.only(),
        { method: "GET", path, query: { limit: ["2"], offset: ["1"] } },
        `${collection}.list`,
      );
      expect(() => resource.readVersion("qa", "")).toThrow(/digest/);
    });
  }

  it("calls: complete records, and the eager start and end, with project_id from the scope", async () => {
    const c = scope().calls;
    const done = {
      id: "c1",
      trace_id: "t1",
      op_name: "summarize",
      started_at: "2026-11-26T12:00:00.000Z",
      ended_at: "2026-11-26T12:00:01.000Z",
      attributes: {},
      inputs: { text: "hi" },
      output: "hello",
      summary: {},
    };
    const running = {
      id: "c3",
      trace_id: "t1",
      op_name: "long",
      started_at: done.started_at,
      attributes: {},
      inputs: {},
    };
    const cases: MethodCase[] = [
      {
        name: "calls.complete",
        method: "POST",
        path: `${BASE}/calls/complete`,
        run: () => c.complete({ batch: [done, { ...done, id: "c2", project_id: "acme co/demo#1" }] }),
        json: {
          batch: [
            { ...done, project_id: "acme co/demo#1" },
            { ...done, id: "c2", project_id: "acme co/demo#1" },
          ],
        },
        reply: {},
        retriesOn500: false,
      },
      {
        name: "calls.start",
        method: "POST",
        path: `${BASE}/call/start`,
        run: () => c.start({ start: running }),
        json: { start: { ...running, project_id: "acme co/demo#1" } },
        reply: { id: "c3", trace_id: "t1" },
        retriesOn500: false,
      },
      {
        name: "calls.end",
        method: "POST",
        path: `${BASE}/call/end`,
        run: () => c.end({ end: { id: "c3", ended_at: done.ended_at, summary: {} } }),
        json: { end: { id: "c3", ended_at: done.ended_at, summary: {}, project_id: "acme co/demo#1" } },
        reply: {},
        retriesOn500: false,
      },
    ];
    await runCases(ctx.server, cases);
    ctx.server.reset();
    expect(() => c.complete({ batch: "no" as unknown as [] })).toThrow(
      /project\.calls\.complete: batch must be an array/,
    );
    expect(() => c.start(null as unknown as never)).toThrow(ValidationError);
    expect(() => c.complete({ batch: [{ ...done, project_id: "other/p" }] })).toThrow(
      /project_id "other\/p" is not this scope's project \(acme co\/demo#1\)/,
    );
    expect(ctx.server.requests).toHaveLength(0);
  });

  it("v2 create bodies must be objects", () => {
    ctx.server.reset();
    expect(() => scope().ops.create(null as unknown as { name: string })).toThrow(ValidationError);
    expect(() => scope().scores.create([] as unknown as never)).toThrow(/expects a request object/);
    expect(ctx.server.requests).toHaveLength(0);
  });
});
