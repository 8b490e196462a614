/**
 * Durability of the SQLite store: data survives a restart (with every driver this Node can load), an acknowledged
 * write survives `kill -9` of the server process, a batch whose process dies mid-transaction is not stored at all, and
 * concurrent writers — many clients, and a second server process on the same data folder — leave a sound database
 * with every row.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { callOf, init, op } from "../../src/index.js";
import { DB_FILE } from "../../src/server/store/open.js";
import { findSqliteDriver } from "../../src/server/store/sqlite-driver.js";
import { buildCli, removeBuilt, runCli } from "./cli-process.js";
import { availableDrivers, collect, PROJECT, send, startService, tempDir } from "./helpers.js";

const drivers = await availableDrivers();
let cli: string;
let crashServer: string;
beforeAll(() => {
  cli = buildCli();
  crashServer = buildCli(fileURLToPath(new URL("./fixtures/crash-server.ts", import.meta.url)));
});
const dirs: string[] = [];
/** A data folder removed after the file's tests. */
const scratch = () => {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  removeBuilt(cli);
  removeBuilt(crashServer);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const TRACE = "cccccccccccccccccccccccccccccccc";
const batch = (prefix: string, n: number) => ({
  batch: Array.from({ length: n }, (_, i) => ({
    mode: "start",
    req: {
      start: {
        project_id: PROJECT,
        id: `${prefix}${i.toString(16).padStart(16 - prefix.length, "0")}`,
        trace_id: TRACE,
        op_name: `op-${prefix}`,
        started_at: new Date().toISOString(),
        attributes: {},
        inputs: { i, pad: "p".repeat(200) },
      },
    },
  })),
});
const count = async (url: string, op: string) =>
  (
    (await send(url, "/calls/query_stats", { project_id: PROJECT, filter: { op_names: [op] } })).json as {
      count: number;
    }
  ).count;

async function integrity(dataDir: string): Promise<string> {
  const { driver } = await findSqliteDriver();
  const db = driver!.open(join(dataDir, DB_FILE));
  try {
    return String(db.prepare("PRAGMA integrity_check").get()?.integrity_check);
  } finally {
    db.close();
  }
}

describe.skipIf(drivers.length === 0)("SQLite storage", () => {
  it.each(drivers)("keeps calls and feedback across a restart (%s)", async (driver) => {
    const dataDir = scratch();
    let service = await startService({ dataDir, sqliteDriver: driver });
    expect(service.server.description).toContain(`SQLite via ${driver}`);
    const tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
    const child = op(async function child() {
      return "inner";
    });
    const parent = op(async function parent() {
      return { out: await child() };
    });
    const result = await parent();
    await callOf(result)!.react("🚀");
    await tracing.flush();
    await tracing.shutdown();
    await service.close(true);

    service = await startService({ dataDir, sqliteDriver: driver });
    const client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
    const calls = await collect(client.calls.streamQuery({ include_feedback: true }));
    expect(calls.map((c) => [c.op_name, c.output])).toEqual([
      ["parent", { out: "inner" }],
      ["child", "inner"],
    ]);
    expect(calls[1]!.parent_id).toBe(calls[0]!.id);
    expect(calls[0]!.summary).toMatchObject({ weave: { feedback: [{ payload: { emoji: "🚀" } }] } });
    await client.close();
    await service.close();
  });

  it("loses no acknowledged write when the bin is killed with SIGKILL", async () => {
    const dataDir = scratch();
    const first = runCli(cli, ["dev", "--port", "0", "--data", dataDir]);
    const url = await first.url;
    expect(first.output()).toContain("SQLite via");
    expect((await send(url, "/call/upsert_batch", batch("a", 200))).status).toBe(200);
    const fb = await send(url, "/feedback/create", {
      project_id: PROJECT,
      weave_ref: `weave:///${PROJECT}/call/a${"0".repeat(15)}`,
      feedback_type: "wandb.reaction.1",
      payload: { emoji: "👍" },
    });
    expect(fb.status).toBe(200);
    first.child.kill("SIGKILL");
    expect(await first.exited).toMatchObject({ signal: "SIGKILL" });

    const second = runCli(cli, ["dev", "--port", "0", "--data", dataDir]);
    const again = await second.url;
    expect(await count(again, "op-a")).toBe(200);
    const feedback = await send(again, "/feedback/query", { project_id: PROJECT, fields: ["payload.emoji"] });
    expect(feedback.json).toMatchObject({ result: [{ "payload.emoji": "👍" }] });
    second.child.kill("SIGTERM");
    expect(await second.exited).toMatchObject({ code: 0 });
    expect(await integrity(dataDir)).toBe("ok");
  });

  it("stores none of a batch whose process dies in the middle of writing it", async () => {
    const dataDir = scratch();
    const crashing = runCli(crashServer, [dataDir]);
    const url = await crashing.url;
    expect((await send(url, "/call/upsert_batch", batch("a", 200))).status).toBe(200);
    // Half of this batch is inside the open transaction when the process dies.
    await expect(send(url, "/call/upsert_batch", batch("b", 4000))).rejects.toThrow();
    expect(await crashing.exited).toMatchObject({ signal: "SIGKILL" });

    const after = runCli(cli, ["dev", "--port", "0", "--data", dataDir]);
    const again = await after.url;
    expect(await count(again, "op-a")).toBe(200);
    expect(await count(again, "op-b")).toBe(0);
    after.child.kill("SIGTERM");
    await after.exited;
    expect(await integrity(dataDir)).toBe("ok");
  });

  it("stays sound under concurrent writers, in one process and across two", async () => {
    const dataDir = scratch();
    const local = await startService({ dataDir });
    const other = runCli(cli, ["dev", "--port", "0", "--data", dataDir]);
    const otherUrl = await other.url;
    const writes = Array.from({ length: 16 }, (_, i) =>
      send(i % 2 ? otherUrl : local.url, "/call/upsert_batch", batch(`${(i + 10).toString(16)}`, 50)),
    );
    const statuses = (await Promise.all(writes)).map((r) => r.status);
    expect(statuses).toEqual(Array(16).fill(200));
    const total = ((await send(local.url, "/calls/query_stats", { project_id: PROJECT })).json as { count: number })
      .count;
    expect(total).toBe(16 * 50);
    other.child.kill("SIGTERM");
    await other.exited;
    await local.close(true);
    expect(await integrity(dataDir)).toBe("ok");
  });
});

const missing = (["node:sqlite", "better-sqlite3"] as const).find((name) => !drivers.includes(name));
it.skipIf(missing === undefined)("falls back to memory, with a warning, when no SQLite driver loads", async () => {
  const service = await startService({ sqliteDriver: missing! });
  expect(service.server.storage).toBe("memory");
  expect(service.logs.join("\n")).toContain("No SQLite driver could be loaded");
  expect(service.logs.join("\n")).toContain("they are lost when the server stops");
  expect((await send(service.url, "/call/upsert_batch", batch("f", 3))).status).toBe(200);
  expect(await count(service.url, "op-f")).toBe(3);
  await service.close();
});
