/**
 * Retention (`tracewire dev --keep 7d --max-calls N`, or `keep` / `maxCalls` of `startDevServer`): the oldest traces
 * are deleted whole — a trace whose root is old goes with its newer calls — together with the feedback on their
 * calls, while objects, tables and files stay; with each store, and through the bin (its help states the defaults,
 * a bad value is refused naming the flag, and an SQLite database is pruned when the service starts on it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callRef } from "../../src/api/refs.js";
import { startDevServer } from "../../src/server/index.js";
import { DEFAULT_KEEP, DEFAULT_MAX_CALLS } from "../../src/server/retention.js";
import { buildCli, removeBuilt, runCli } from "./cli-process.js";
import { ndjson, PROJECT, send, startService, tempDir } from "./helpers.js";

const DAY = 86_400_000;
const ago = (days: number, plusMs = 0) => new Date(Date.now() - days * DAY + plusMs).toISOString();

/** A trace of `size` calls: a root started `days` ago and children after it (the last one `lastDays` ago). */
function trace(name: string, days: number, size = 3, lastDays = days) {
  const batch: unknown[] = [];
  for (let i = 0; i < size; i++) {
    const startedAt = i === size - 1 ? ago(lastDays, i) : ago(days, i);
    batch.push({
      mode: "start",
      req: {
        start: {
          project_id: PROJECT,
          id: `${name}-${i}`,
          trace_id: name,
          ...(i > 0 ? { parent_id: `${name}-0` } : {}),
          op_name: "step",
          started_at: startedAt,
          attributes: {},
          inputs: { i },
        },
      },
    });
  }
  return batch;
}

/** Calls deleted, as the service's retention passes logged them. */
const deletedInLogs = (logs: string[]) =>
  logs.reduce((sum, line) => sum + Number(/retention: deleted (\d+) calls/.exec(line)?.[1] ?? 0), 0);

const ids = async (url: string) =>
  ndjson((await send(url, "/calls/stream_query", { project_id: PROJECT, columns: ["id"] })).text).map((c) => c.id);
const feedbackOn = (url: string, id: string) =>
  send(url, "/feedback/create", {
    project_id: PROJECT,
    weave_ref: callRef(PROJECT, id),
    feedback_type: "wandb.note.1",
    payload: { note: id },
  });

describe.each(["sqlite", "memory"] as const)("%s store", (storage) => {
  it("deletes traces older than keep whole, with their feedback; objects and files stay", async () => {
    const service = await startService({ storage, keep: "7d" });
    try {
      const batch = [...trace("old", 10), ...trace("spans", 8, 3, 1), ...trace("new", 2)];
      expect((await send(service.url, "/call/upsert_batch", { batch })).status).toBe(200);
      for (const id of ["old-1", "new-1"]) expect((await feedbackOn(service.url, id)).status).toBe(200);
      const obj = await send(service.url, "/obj/create", {
        obj: { project_id: PROJECT, object_id: "kept", val: { a: 1 } },
      });
      const form = new FormData();
      form.set("project_id", PROJECT);
      form.set("file", new Blob(["kept bytes"]), "f.txt");
      const file = (await (await fetch(`${service.url}/file/create`, { method: "POST", body: form })).json()) as {
        digest: string;
      };

      await service.server.prune();
      // The pass started here or the timer's: either way six calls went, and said so once per pass.
      expect(deletedInLogs(service.logs)).toBe(6);
      expect(await ids(service.url)).toEqual(["new-0", "new-1", "new-2"]);
      const feedback = await send(service.url, "/feedback/query", { project_id: PROJECT, fields: ["payload"] });
      expect(feedback.json).toEqual({ result: [{ payload: { note: "new-1" } }], total_count: 1 });
      const digest = (obj.json as { digest: string }).digest;
      expect((await send(service.url, "/obj/read", { project_id: PROJECT, object_id: "kept", digest })).status).toBe(
        200,
      );
      expect((await send(service.url, "/file/content", { project_id: PROJECT, digest: file.digest })).text).toBe(
        "kept bytes",
      );
      expect((await send(service.url, "/calls/query_stats", { project_id: PROJECT })).json).toEqual({ count: 3 });
      expect(await service.server.prune()).toBe(0);
      expect(deletedInLogs(service.logs)).toBe(6);
    } finally {
      await service.close();
    }
  });

  it("keeps at most maxCalls, deleting the oldest traces first", async () => {
    const service = await startService({ storage, maxCalls: 7 });
    try {
      const batch = [...trace("t1", 5), ...trace("t2", 4), ...trace("t3", 3), ...trace("t4", 2)];
      expect((await send(service.url, "/call/upsert_batch", { batch })).status).toBe(200);
      await service.server.prune();
      expect(deletedInLogs(service.logs)).toBe(6);
      expect(await ids(service.url)).toEqual(["t3-0", "t3-1", "t3-2", "t4-0", "t4-1", "t4-2"]);
      expect((await send(service.url, "/local/projects")).json).toMatchObject({ projects: [{ calls: 6 }] });
    } finally {
      await service.close();
    }
  });
});

describe("retention settings", () => {
  it("take a keep longer than any date reaches: nothing is old enough, and no pass fails", async () => {
    const service = await startService({ storage: "memory", keep: "99999999999d" });
    try {
      expect((await send(service.url, "/call/upsert_batch", { batch: trace("t", 10_000) })).status).toBe(200);
      expect(await service.server.prune()).toBe(0);
      expect(service.logs.filter((line) => line.includes("retention failed"))).toEqual([]);
      expect(await ids(service.url)).toEqual(["t-0", "t-1", "t-2"]);
    } finally {
      await service.close();
    }
  });

  it("are checked when the service starts, naming the setting", async () => {
    await expect(startDevServer({ port: 0, storage: "memory", keep: "7 days" })).rejects.toThrow(
      /Invalid keep \(got "7 days"\): expected a duration like 7d/,
    );
    await expect(startDevServer({ port: 0, storage: "memory", maxCalls: -1 })).rejects.toThrow(
      /Invalid maxCalls \(got -1\): expected a whole number of calls, or 0 for no limit/,
    );
  });
});

describe("the bin", () => {
  let cli: string;
  beforeAll(() => {
    cli = buildCli();
  });
  afterAll(() => removeBuilt(cli));

  it("states the defaults in its help and refuses a bad value naming the flag", async () => {
    const help = runCli(cli, ["dev", "--help"]);
    expect((await help.exited).code).toBe(0);
    expect(help.output()).toContain(`--keep AGE`);
    expect(help.output()).toContain(`default ${DEFAULT_KEEP}`);
    expect(help.output()).toContain(`default ${DEFAULT_MAX_CALLS}`);
    const bad = runCli(cli, ["dev", "--port", "0", "--keep", "soon"]);
    expect((await bad.exited).code).toBe(2);
    expect(bad.output()).toContain(
      '--keep must be a duration like 7d, 12h, 30m or 2w, or 0 to keep traces forever, got "soon"',
    );
  });

  it("prunes an SQLite database when it starts on it with --keep and --max-calls", async () => {
    const dataDir = tempDir();
    const first = await startService({ dataDir, storage: "sqlite" });
    const batch = [...trace("ancient", 40), ...trace("week", 6), ...trace("today", 0)];
    expect((await send(first.url, "/call/upsert_batch", { batch })).status).toBe(200);
    await first.close(true);

    const run = runCli(cli, ["dev", "--port", "0", "--data", dataDir, "--keep", "30d", "--max-calls", "3"]);
    try {
      const url = await run.url;
      expect(run.output()).toContain("keeps     traces of the last 30d, at most 3 calls");
      const deadline = Date.now() + 10_000;
      while ((await ids(url)).length > 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await ids(url)).toEqual(["today-0", "today-1", "today-2"]);
    } finally {
      run.child.kill("SIGTERM");
      await run.exited;
    }
  });
});
