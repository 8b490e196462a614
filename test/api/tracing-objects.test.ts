import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { type MethodCase, runCases, setupTracingServer } from "./tracing-support.js";

const ctx = setupTracingServer();

const P = "acme/demo";
const obj = {
  project_id: P,
  object_id: "prompt",
  created_at: "2026-01-05T10:00:00.000Z",
  digest: "abc",
  version_index: 0,
  is_latest: 1,
  kind: "object",
  base_object_class: null,
  val: { text: "hi" },
};

describe("TracingClient.objects", () => {
  it("every method sends its documented request and returns the answer", async () => {
    const cases: MethodCase[] = [
      {
        name: "objects.aliases",
        method: "GET",
        path: "/aliases",
        query: { project_id: [P] },
        run: () => ctx.client.objects.aliases(),
        reply: { aliases: ["production", "staging"] },
        retriesOn500: true,
      },
      {
        name: "objects.tags",
        method: "GET",
        path: "/tags",
        query: { project_id: ["other/proj"] },
        run: () => ctx.client.objects.tags({ project_id: "other/proj" }),
        reply: { tags: ["env:dev"] },
        retriesOn500: true,
      },
      {
        name: "objects.create",
        method: "POST",
        path: "/obj/create",
        run: () => ctx.client.objects.create({ obj: { object_id: "prompt", val: { text: "hi" } } }),
        json: { obj: { project_id: P, object_id: "prompt", val: { text: "hi" } } },
        reply: { digest: "abc", object_id: "prompt" },
        retriesOn500: false,
      },
      {
        name: "objects.read",
        method: "POST",
        path: "/obj/read",
        run: () => ctx.client.objects.read({ object_id: "prompt", digest: "latest", include_tags_and_aliases: true }),
        json: { project_id: P, object_id: "prompt", digest: "latest", include_tags_and_aliases: true },
        reply: { obj },
        retriesOn500: true,
      },
      {
        name: "objects.delete",
        method: "POST",
        path: "/obj/delete",
        run: () => ctx.client.objects.delete({ object_id: "prompt", digests: ["abc"] }),
        json: { project_id: P, object_id: "prompt", digests: ["abc"] },
        reply: { num_deleted: 1 },
        retriesOn500: false,
      },
      {
        name: "objects.query",
        method: "POST",
        path: "/objs/query",
        run: () => ctx.client.objects.query({ filter: { object_ids: ["prompt"], latest_only: true }, limit: 5 }),
        json: { project_id: P, filter: { object_ids: ["prompt"], latest_only: true }, limit: 5 },
        reply: { objs: [obj] },
        retriesOn500: true,
      },
      {
        name: "objects.setAliases",
        method: "PUT",
        path: "/objs/my%20prompt%2Fv/aliases",
        run: () => ctx.client.objects.setAliases("my prompt/v", { digest: "abc", aliases: ["production"] }),
        json: { project_id: P, digest: "abc", aliases: ["production"] },
        reply: {},
        retriesOn500: true,
      },
      {
        name: "objects.removeAliases",
        method: "POST",
        path: "/objs/prompt/aliases/remove",
        run: () => ctx.client.objects.removeAliases("prompt", { aliases: ["staging"] }),
        json: { project_id: P, aliases: ["staging"] },
        reply: {},
        retriesOn500: false,
      },
      {
        name: "objects.addTags",
        method: "PUT",
        path: "/objs/prompt/versions/ab%2Fc/tags",
        run: () => ctx.client.objects.addTags("prompt", "ab/c", { tags: ["env:dev", "reviewed"] }),
        json: { project_id: P, tags: ["env:dev", "reviewed"] },
        reply: {},
        retriesOn500: true,
      },
      {
        name: "objects.removeTags",
        method: "POST",
        path: "/objs/prompt/versions/abc/tags/remove",
        run: () => ctx.client.objects.removeTags("prompt", "abc", { tags: ["reviewed"] }),
        json: { project_id: P, tags: ["reviewed"] },
        reply: {},
        retriesOn500: false,
      },
    ];
    await runCases(ctx.server, cases);
  });

  it("path ids are required before anything is sent", async () => {
    ctx.server.reset();
    expect(() => ctx.client.objects.setAliases("", { digest: "abc", aliases: [] })).toThrow(ValidationError);
    expect(() => ctx.client.objects.addTags("prompt", " ", { tags: [] })).toThrow(/digest must be a non-empty string/);
    expect(ctx.server.requests).toHaveLength(0);
  });
});

describe("TracingClient.refs", () => {
  it("readBatch sends the refs (no project_id) and returns the values in order", async () => {
    const refs = ["weave:///acme/demo/object/prompt:abc", "weave:///acme/demo/table/t1"];
    await runCases(ctx.server, [
      {
        name: "refs.readBatch",
        method: "POST",
        path: "/refs/read_batch",
        run: () => ctx.client.refs.readBatch({ refs }),
        json: { refs },
        reply: { vals: [{ text: "hi" }, [{ a: 1 }]] },
        retriesOn500: true,
      },
    ]);
  });
});
