/**
 * Upgrading keeps what an older service stored: fixtures/traces-v2.db was written by the service before #27
 * (schema version 2; fixtures/make-v2-db.mjs made it through that version's HTTP routes). Opened by this version —
 * with every SQLite driver this Node loads — it is upgraded in place: every call, status (descendant_error
 * included), feedback, object, table and file reads back, text search and counts work, and opening it again
 * changes nothing.
 */
import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DB_FILE } from "../../src/server/store/open.js";
import { findSqliteDriver } from "../../src/server/store/sqlite-driver.js";
import { availableDrivers, ndjson, send, startService, tempDir } from "./helpers.js";

const FIXTURE = new URL("./fixtures/traces-v2.db", import.meta.url);
const made = JSON.parse(readFileSync(new URL("./fixtures/traces-v2.json", import.meta.url), "utf8")) as {
  project: string;
  feedback_id: string;
  object_digest: string;
  table_digest: string;
  file_digest: string;
};
const P = made.project;
const drivers = await availableDrivers();
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function userVersion(dataDir: string): Promise<number> {
  const db = (await findSqliteDriver())!.driver!.open(join(dataDir, DB_FILE));
  try {
    return Number(db.prepare("PRAGMA user_version").get()?.user_version);
  } finally {
    db.close();
  }
}

describe.skipIf(drivers.length === 0).each(drivers)("a version 2 database opened with %s", (driver) => {
  it("is upgraded in place and keeps every call, status, feedback, object, table and file", async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    copyFileSync(FIXTURE, join(dataDir, DB_FILE));
    expect(await userVersion(dataDir)).toBe(2);

    for (const round of ["upgrade", "reopen"]) {
      const service = await startService({ dataDir, sqliteDriver: driver });
      try {
        const calls = ndjson(
          (
            await send(service.url, "/calls/stream_query", {
              project_id: P,
              sort_by: [{ field: "started_at", direction: "asc" }],
            })
          ).text,
        );
        const view = calls.map((c) => {
          const weave = (c.summary as { weave: { status: string; trace_name: string } }).weave;
          return [c.id, c.parent_id, weave.status, weave.trace_name];
        });
        expect(view, round).toEqual([
          ["a-root", null, "descendant_error", "agent"],
          ["a-step", "a-root", "descendant_error", "llm"],
          ["a-tool", "a-step", "error", "Search.Tool"],
          ["b-root", null, "descendant_error", "Nightly pipeline"],
          ["b-run", "b-root", "running", "llm"],
          ["c-root", null, "success", "Renamed trip"],
        ]);
        expect(calls[2]).toMatchObject({
          inputs: { query: "Kelvin 300K weather in Paris" },
          exception: "TimeoutError: search took too long",
          output: null,
          attributes: { env: "legacy" },
        });
        expect(calls[1]).toMatchObject({ output: { text: "partial", tokens: 12 }, thread_id: "thread-1" });

        // Indexed queries on the upgraded data: status, text in inputs / outputs / exceptions, counts.
        const query = async (expr: unknown, extra: Record<string, unknown> = {}) =>
          ndjson(
            (await send(service.url, "/calls/stream_query", { project_id: P, query: { $expr: expr }, ...extra })).text,
          ).map((c) => c.id);
        const text = (field: string, substr: string) => ({
          $contains: { input: { $getField: field }, substr: { $literal: substr }, case_insensitive: true },
        });
        expect(await query({ $eq: [{ $getField: "summary.weave.status" }, { $literal: "error" }] })).toEqual([
          "a-tool",
        ]);
        expect(await query(text("inputs", "PARIS"))).toEqual(["a-tool"]);
        expect(await query(text("inputs", "straße nach i"))).toEqual(["c-root"]);
        expect(await query(text("output", "gute reise"))).toEqual(["c-root"]);
        expect(await query(text("exception", "too long"))).toEqual(["a-tool"]);
        expect(
          await query(
            { $eq: [{ $getField: "summary.weave.status" }, { $literal: "descendant_error" }] },
            { filter: { trace_roots_only: true } },
          ),
        ).toEqual(["a-root", "b-root"]);
        expect((await send(service.url, "/calls/query_stats", { project_id: P })).json).toEqual({ count: 6 });
        expect((await send(service.url, "/local/projects")).json).toMatchObject({
          projects: [{ project_id: P, calls: 6 }],
        });

        const feedback = await send(service.url, "/feedback/query", { project_id: P });
        expect(feedback.json).toMatchObject({
          result: [{ id: made.feedback_id, payload: { note: "look at the tool" } }],
          total_count: 1,
        });
        const obj = await send(service.url, "/obj/read", {
          project_id: P,
          object_id: "prompt",
          digest: made.object_digest,
        });
        expect(obj.json).toMatchObject({ obj: { val: { text: "Be brief." } } });
        const table = await send(service.url, "/table/query", { project_id: P, digest: made.table_digest });
        expect((table.json as { rows: { val: unknown }[] }).rows.map((r) => r.val)).toEqual([
          { q: "1+1" },
          { q: "2+2" },
        ]);
        const file = await fetch(`${service.url}/file/content`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ project_id: P, digest: made.file_digest }),
        });
        expect(await file.text()).toBe("file bytes");
      } finally {
        await service.close(true);
      }
      expect(await userVersion(dataDir), round).toBe(3);
    }
  });
});
