/**
 * How the SQLite store answers a `$contains` search once its text index holds the calls (#27): a needle few calls
 * hold is answered from the index's candidates, read by `seq` and sorted (never by walking the project's calls and
 * testing each against the candidate list, which took 170 ms at a million calls); a needle most calls hold is read in
 * order, where a page of matches comes first. The statements the store runs are recorded from the SQLite driver and
 * their plans read with EXPLAIN QUERY PLAN; the answers are checked too (test/server/store-queries.test.ts checks
 * every kind of search against the query language itself).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSqliteDriver, type SqlDatabase, type SqlValue } from "../../src/server/store/sqlite-driver.js";
import { SqliteStore } from "../../src/server/store/sqlite-store.js";
import type { CallSearch, CallWrite } from "../../src/server/store/types.js";
import { availableDrivers, tempDir } from "./helpers.js";

const P = "acme/plans";
const CALLS = 3_000;
const id = (n: number) => `c${String(n).padStart(5, "0")}`;
const at = (n: number) => new Date(Date.UTC(2026, 0, 5) + n * 1_000).toISOString();
/** Every call says "hay"; one in 500 also names a rare needle. */
const rare = (n: number) => n % 500 === 42;

function writes(): CallWrite[] {
  return Array.from({ length: CALLS }, (_, n): CallWrite[] => [
    {
      kind: "start",
      start: {
        project_id: P,
        id: id(n),
        trace_id: `t${n % 300}`,
        op_name: "llm",
        started_at: at(n),
        attributes: {},
        inputs: { prompt: `hay bale ${n}${rare(n) ? " Zephyrine quokka" : ""}` },
      },
    },
    { kind: "end", end: { project_id: P, id: id(n), ended_at: at(n + 1), output: `answer ${n}`, summary: {} } },
  ]).flat();
}

const search = (needle: string, limit?: number): CallSearch => ({
  project: P,
  query: {
    $expr: { $contains: { input: { $getField: "inputs" }, substr: { $literal: needle }, case_insensitive: true } },
  },
  sortBy: [{ field: "started_at", direction: "desc" }],
  ...(limit === undefined ? {} : { limit }),
});

const drivers = await availableDrivers();

describe.each(drivers)("SQLite (%s) text search plans", (driver) => {
  let sqlite: SqliteStore;
  let raw: SqlDatabase;
  /** The calls-table SELECTs the store prepared, in order. */
  const selects: string[] = [];

  beforeAll(async () => {
    raw = (await findSqliteDriver(driver)).driver!.open(join(tempDir(), "traces.db"));
    // Records each statement the store prepares; the driver's own objects do the work.
    const recording: SqlDatabase = new Proxy(raw, {
      get(target, key) {
        if (key !== "prepare") {
          // node:sqlite's methods check their receiver: call them on the database itself.
          const value = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        }
        return (sql: string) => {
          if (/^SELECT (\*|seq) FROM calls WHERE/.test(sql)) selects.push(sql);
          return target.prepare(sql);
        };
      },
    });
    sqlite = new SqliteStore(recording, driver, { indexInBackground: false });
    sqlite.writeCalls(writes());
    sqlite.flushTextIndex();
  });
  afterAll(() => sqlite?.close());

  /** The rows, the statement that found them, and its plan (parameters are not needed to plan it). */
  function run(s: CallSearch) {
    const before = selects.length;
    const found = sqlite.findCalls(s);
    expect(found.exact).toBe(true);
    const ids = [...found.rows].map((c) => c.id);
    const sql = selects.slice(before).at(-1) ?? selects.at(-1)!;
    const params = (sql.match(/\?/g) ?? []).map((): SqlValue => null);
    const plan = raw
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((r) => String(r.detail));
    return { ids, sql, plan };
  }

  it("reads a rare needle's candidates by seq, then sorts them", () => {
    const s = search("zephyrine QUOKKA", 50);
    const { ids, sql, plan } = run(s);
    expect(ids).toEqual(
      Array.from({ length: CALLS }, (_, n) => n)
        .filter(rare)
        .reverse()
        .map(id),
    );
    expect(sql).toContain("MATCH ?");
    expect(
      plan.some((d) => /SEARCH calls USING INTEGER PRIMARY KEY/.test(d)),
      plan.join("\n"),
    ).toBe(true);
    expect(
      plan.some((d) => /calls_by_start/.test(d)),
      plan.join("\n"),
    ).toBe(false);
  });

  it("reads a needle nearly every call holds in order, without the index", () => {
    const s = search("HAY BALE", 20);
    const { ids, sql, plan } = run(s);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => id(CALLS - 1 - i)));
    expect(sql).not.toContain("MATCH");
    expect(
      plan.some((d) => /calls_by_start/.test(d)),
      plan.join("\n"),
    ).toBe(true);
    expect(
      plan.some((d) => /TEMP B-TREE FOR ORDER BY/.test(d)),
      plan.join("\n"),
    ).toBe(false);
  });

  it("finds a needle whose trigrams are each common but rare together", () => {
    // "bale 1234" — every trigram of it is in hundreds of calls; together they are in one.
    const s = search("bale 1234");
    const { ids, sql } = run(s);
    expect(ids).toEqual([id(1234)]);
    expect(sql).toContain("MATCH ?");
  });
});
