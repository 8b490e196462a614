/**
 * End to end with the vendor's own TypeScript SDK (npm `weave`, a devDependency): an app using it runs in a child
 * process against `tracewire dev`, offline — `WF_TRACE_SERVER_URL` points it at the local service, any API key
 * passes (the service has none), and an `entity/project` name spares the SDK its one call to the hosted account
 * service (the default-entity lookup). Everything it saved is read back through `TracingClient`.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import type { CallSchema } from "../../src/api/types/calls.js";
import { collect, runWeaveApp, startService, type TestService } from "./helpers.js";

const PROJECT = "local/weave-sdk";
const APP = join(import.meta.dirname, "fixtures", "weave-sdk-app.cjs");

describe("the vendor's TypeScript SDK against tracewire dev", () => {
  let service: TestService;
  let client: TracingClient;
  let printed: {
    result: unknown;
    settings: string;
    settingsBack: unknown;
    dataset: string;
    datasetRows: unknown[];
  };

  beforeAll(async () => {
    service = await startService();
    client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
    printed = JSON.parse(await runWeaveApp(APP, service.url, PROJECT));
  }, 90_000);

  afterAll(async () => {
    await client.close();
    await service.close();
  });

  it("records the ops: one trace of nested calls with inputs, outputs, the failure and op names", async () => {
    expect(printed.result).toEqual({ total: 4 });
    const calls: CallSchema[] = await collect(
      client.calls.streamQuery({ sort_by: [{ field: "started_at", direction: "asc" }] }),
    );
    const byName = (name: string) =>
      calls.filter((c) => (c.summary!.weave as { trace_name: string }).trace_name === name);
    expect(calls).toHaveLength(4);
    const [root] = byName("pipeline");
    expect(root).toMatchObject({ parent_id: null, inputs: { arg0: 1 }, output: { total: 4 } });
    expect(root!.op_name).toMatch(new RegExp(`^weave:///${PROJECT}/op/pipeline:[A-Za-z0-9]+$`));
    expect((root!.summary!.weave as { status: string }).status).toBe("descendant_error");
    const adds = byName("add");
    expect(adds.map((c) => [c.parent_id, c.trace_id, c.inputs, c.output])).toEqual([
      [root!.id, root!.trace_id, { arg0: 1, arg1: 1 }, 2],
      [root!.id, root!.trace_id, { arg0: 2, arg1: 2 }, 4],
    ]);
    const [failed] = byName("check");
    expect(failed!.exception).toContain("too big: 4");
    expect((failed!.summary!.weave as { status: string }).status).toBe("error");
  });

  it("stores the ops' source as files behind op objects", async () => {
    const { objs } = await client.objects.query({ filter: { is_op: true } });
    expect(objs.map((o) => o.object_id).sort()).toEqual(["add", "check", "pipeline"]);
    const add = objs.find((o) => o.object_id === "add")!;
    const files = (add.val as { files: Record<string, string> }).files;
    // The SDK computed this file digest client-side and put it in the op's value before uploading; the content is
    // found under it only because the service stored the upload under the same digest.
    const source = await client.files.content({ digest: files["obj.py"]! });
    expect(source.toString("utf8")).toContain("return a + b");
    expect(files["obj.py"]).toBe(
      createHash("sha256").update(source).digest("base64url").replace(/-/g, "X").replace(/_/g, "Y"),
    );
  });

  it("keeps the published object and the dataset with its table, readable by ref", async () => {
    expect(printed.settingsBack).toEqual({ model: "gpt-4o-mini", temperature: 0.2 });
    expect(printed.datasetRows).toEqual([
      { question: "2+2", answer: 4 },
      { question: "3+3", answer: 6 },
    ]);
    const { vals } = await client.refs.readBatch({ refs: [printed.settings, printed.dataset] });
    expect(vals[0]).toEqual({ model: "gpt-4o-mini", temperature: 0.2 });
    const dataset = vals[1] as { _type: string; name: string; rows: string };
    expect(dataset).toMatchObject({ _type: "Dataset", name: "arithmetic" });
    const tableDigest = dataset.rows.split("/table/")[1]!;
    const { rows } = await client.tables.query({ digest: tableDigest });
    expect(rows.map((r) => r.val)).toEqual([
      { question: "2+2", answer: 4 },
      { question: "3+3", answer: 6 },
    ]);
    // The SDK computes no table digest itself (it takes the service's answer), so its table ref must be the one the
    // hosted service would hand out for these rows: the hex sha256 of the row digests (the vendor's digest.py). The
    // constants were computed with CPython from those rules (see digest.test.ts, "the vendor SDK's dataset rows").
    expect(rows.map((r) => r.digest)).toEqual([
      "VXqPllEmktBemhFJIgzW8SF3wgAxW1Akftb46SJFX4k",
      "i9fbUUD7jcXE2WBKE7adkCyNoimIBVRsyg9C4xXNAjk",
    ]);
    expect(tableDigest).toBe("a0d4b2edd487dafe20ad07f55ca8e4b7e4bbec0a56e55d42ea5241d421656e01");
  });
});
