/**
 * Both stores give the answers of the query language itself. Calls with awkward values (no end yet, string and
 * object outputs, unicode that lower-cases in odd ways, failures deep in a trace, renames) go into the memory store
 * and into SQLite — queried before the background text index has run and after it has — and every query of a list
 * (equality, lists, ranges, text search in every field, negations, parts SQLite cannot compile, sorts and pages,
 * counts) must answer exactly what `matches()` from src/server/query-dsl.ts answers over every call.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { callRef } from "../../src/api/refs.js";
import type { CallsQueryReq } from "../../src/api/types/calls.js";
import type { Query } from "../../src/api/types/common.js";
import { countCalls, queryCalls, toCallSchema } from "../../src/server/call-query.js";
import { compareBy, matches } from "../../src/server/query-dsl.js";
import { MemoryStore } from "../../src/server/store/memory-store.js";
import { findSqliteDriver } from "../../src/server/store/sqlite-driver.js";
import { SqliteStore } from "../../src/server/store/sqlite-store.js";
import type { CallWrite, Store } from "../../src/server/store/types.js";
import { availableDrivers, tempDir } from "./helpers.js";

const P = "acme/demo";
const id = (n: number) => `c${String(n).padStart(3, "0")}`;
const at = (n: number) => new Date(Date.UTC(2026, 0, 5, 10, 0, 0, n * 1000)).toISOString();

/** Texts that lower-case in ways SQLite alone does not: the Kelvin sign, dotted capital I, final sigma, ß. */
const TEXTS = [
  "Paris weather",
  "KELVIN 300\u212A",
  "İstanbul trip",
  "ΟΔΥΣΣΕΥΣ returns",
  "Straße and STRASSE",
  "emoji 🎉 party",
  'quote " and \\ backslash',
  "null hypothesis",
  "plain",
];

/** 40 calls in 8 traces of 5: a root, two children, two grandchildren; some fail, some never end. */
function writes(): CallWrite[] {
  const out: CallWrite[] = [];
  for (let n = 0; n < 40; n++) {
    const inTrace = n % 5;
    const root = n - inTrace;
    const parent = inTrace === 0 ? undefined : inTrace <= 2 ? id(root) : id(root + inTrace - 2);
    out.push({
      kind: "start",
      start: {
        project_id: P,
        id: id(n),
        trace_id: `trace-${root}`,
        ...(parent ? { parent_id: parent } : {}),
        op_name: inTrace === 0 ? `weave:///${P}/op/agent_run:abc` : n % 3 ? "llm" : "Tool.Search",
        ...(n % 7 === 1 ? { display_name: TEXTS[n % TEXTS.length]! } : {}),
        ...(n % 4 === 2 ? { thread_id: `thread-${n % 3}`, turn_id: id(n) } : {}),
        started_at: at(n),
        attributes: { env: n % 2 ? "prod" : "dev" },
        inputs: { prompt: TEXTS[n % TEXTS.length]!, n, ...(n % 6 === 0 ? { nested: { deep: [1, null, "x"] } } : {}) },
        ...(n % 5 === 3 ? { wb_run_id: "run-1", wb_run_step: n } : {}),
      },
    });
    if (n % 9 === 4) continue; // still running
    out.push({
      kind: "end",
      end: {
        project_id: P,
        id: id(n),
        ended_at: at(n + 2),
        output:
          n % 3 === 0 ? TEXTS[(n + 4) % TEXTS.length]! : n % 3 === 1 ? { answer: `${n} answers`, ok: true } : null,
        summary: n === 20 ? { status_counts: { error: 1 } } : {},
        ...(n % 11 === 3 ? { exception: `ValueError: ${TEXTS[n % TEXTS.length]}` } : {}),
      },
    });
  }
  return out;
}

const contains = (field: string, substr: string, caseless = false) => ({
  $contains: { input: { $getField: field }, substr: { $literal: substr }, case_insensitive: caseless },
});
const eq = (field: string, value: unknown) => ({ $eq: [{ $getField: field }, { $literal: value }] });
const FIELDS = ["inputs", "output", "exception", "op_name", "display_name", "summary.weave.trace_name", "attributes"];
const NEEDLES = [
  "paris",
  "Paris",
  "kelvin",
  "300k",
  "istanbul",
  "i\u0307stanbul",
  "οδυσσευς",
  "ΥΣΣ",
  "straße",
  "🎉",
  '" and \\',
  "nul",
  "null",
  "",
  "an",
  "answers",
  'weather"',
];

const TEXT_QUERIES = FIELDS.length * NEEDLES.length * 2;
const QUERIES: [string, unknown][] = [
  ...FIELDS.flatMap((f) =>
    NEEDLES.flatMap((needle): [string, unknown][] => [
      [`${f} contains ${needle}`, contains(f, needle)],
      [`${f} contains ${needle} (any case)`, contains(f, needle, true)],
    ]),
  ),
  [
    "viewer text filter",
    { $or: ["op_name", "display_name", "inputs", "output", "exception"].map((f) => contains(f, "PARIS", true)) },
  ],
  // Branches SQLite decides only in part (non-ASCII, any case) beside exact ones, over both trigram tables.
  [
    "text filter with inexact branches",
    {
      $or: [
        contains("inputs", "İSTANBUL", true),
        contains("output", "STRASSE", true),
        contains("exception", "ΟΔΥΣΣΕΥΣ", true),
        contains("inputs", "weather"),
      ],
    },
  ],
  ...["success", "error", "running", "descendant_error"].map((s): [string, unknown] => [
    `status ${s}`,
    eq("summary.weave.status", s),
  ]),
  ["status in", { $in: [{ $getField: "summary.weave.status" }, [{ $literal: "error" }, { $literal: "running" }]] }],
  ["op name", eq("op_name", "llm")],
  ["trace name", eq("summary.weave.trace_name", "agent_run")],
  ["no parent", eq("parent_id", null)],
  ["display name missing", eq("display_name", null)],
  ["thread in with null", { $in: [{ $getField: "thread_id" }, [{ $literal: "thread-1" }, { $literal: null }]] }],
  ["started after", { $gt: [{ $getField: "started_at" }, { $literal: at(17) }] }],
  ["started at or before (reversed)", { $gte: [{ $literal: at(9) }, { $getField: "started_at" }] }],
  ["ended before", { $lt: [{ $getField: "ended_at" }, { $literal: at(20) }] }],
  ["not ended before", { $not: [{ $lt: [{ $getField: "ended_at" }, { $literal: at(20) }] }] }],
  [
    "run step range",
    {
      $and: [
        { $gte: [{ $getField: "wb_run_step" }, { $literal: 8 }] },
        { $lt: [{ $getField: "wb_run_step" }, { $literal: 30 }] },
      ],
    },
  ],
  ["string against number", { $gt: [{ $getField: "started_at" }, { $literal: 3 }] }],
  ["wb_user_id null", eq("wb_user_id", null)],
  ["not status error", { $not: [eq("summary.weave.status", "error")] }],
  ["not a text search", { $not: [contains("inputs", "PARIS", true)] }],
  ["case-sensitive not", { $not: [contains("inputs", "Paris")] }],
  [
    "and with uncompiled part",
    {
      $and: [
        eq("op_name", "llm"),
        { $gt: [{ $convert: { input: { $getField: "inputs.n" }, to: "double" } }, { $literal: 20 }] },
      ],
    },
  ],
  [
    "or with uncompiled part",
    { $or: [eq("op_name", "llm"), { $eq: [{ $getField: "attributes.env" }, { $literal: "dev" }] }] },
  ],
  ["dotted equality", eq("inputs.prompt", "plain")],
  ["literal true", { $literal: true }],
  ["literal false", { $literal: 0 }],
];

const SORTS: Pick<CallsQueryReq, "sort_by" | "limit" | "offset">[] = [
  {},
  { sort_by: [{ field: "started_at", direction: "desc" }], limit: 5, offset: 2 },
  {
    sort_by: [
      { field: "op_name", direction: "asc" },
      { field: "started_at", direction: "desc" },
    ],
    limit: 7,
  },
  { sort_by: [{ field: "inputs.n", direction: "desc" }], limit: 4, offset: 1 },
];

const drivers = await availableDrivers();
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function sqlite(driver: (typeof drivers)[number]): Promise<SqliteStore> {
  const dir = tempDir();
  dirs.push(dir);
  const db = (await findSqliteDriver(driver)).driver!.open(join(dir, "traces.db"));
  return new SqliteStore(db, driver, { indexInBackground: false });
}

/** The memory store, SQLite with its text index still pending, and SQLite with the index filled. */
async function stores(): Promise<[string, Store][]> {
  const list: [string, Store][] = [["memory", new MemoryStore()]];
  const indexed: SqliteStore[] = [];
  for (const driver of drivers) {
    list.push([`${driver}, text not indexed yet`, await sqlite(driver)]);
    indexed.push(await sqlite(driver));
    list.push([`${driver}, text indexed`, indexed.at(-1)!]);
  }
  for (const [, store] of list) {
    store.writeCalls(writes());
    store.renameCall(P, id(6), "Renamed PARIS step");
    store.insertFeedback(
      [1, 2, 6, 6, 30].map((n, i) => ({
        id: `f${i}`,
        project_id: P,
        weave_ref: callRef(P, id(n)),
        feedback_type: i % 2 ? "wandb.note.1" : "wandb.reaction.1",
        payload: i % 2 ? { note: `note ${i}` } : { emoji: "👍" },
        created_at: at(100 - i),
        wb_user_id: "local-user",
      })),
    );
  }
  for (const store of indexed) store.flushTextIndex();
  return list;
}

const all = await stores();
afterAll(() => {
  for (const [, store] of all) store.close();
});

/** The answer by definition: every call through `matches()`, sorted and paged as the service does. */
const everyCall = new Map<Store, ReturnType<typeof queryCalls>>();
function reference(store: Store, req: CallsQueryReq): string[] {
  if (!everyCall.has(store)) everyCall.set(store, queryCalls(store, { project_id: P }));
  const every = everyCall.get(store)!;
  const sortBy = req.sort_by?.length ? req.sort_by : [{ field: "started_at", direction: "asc" as const }];
  const order = compareBy(sortBy);
  const tieDesc = sortBy[0]!.direction === "desc" && sortBy.every((s) => !s.field.includes("."));
  const position = new Map(every.map((c, i) => [c.id, i]));
  const kept = every
    .filter((c) => matches(req.query, c))
    .sort((a, b) => order(a, b) || (position.get(a.id)! - position.get(b.id)!) * (tieDesc ? -1 : 1));
  const offset = req.offset ?? 0;
  return kept.slice(offset, req.limit === undefined ? undefined : offset + req.limit).map((c) => c.id);
}

describe.each(all)("%s", (_name, store) => {
  it("answers every query as the query language defines it", { timeout: 120_000 }, () => {
    for (const [i, [label, expr]] of QUERIES.entries()) {
      // Text searches in the default order and one page; every other query in each order and page.
      for (const sort of i < TEXT_QUERIES ? SORTS.slice(0, 2) : SORTS) {
        const req: CallsQueryReq = { project_id: P, query: { $expr: expr } as Query, ...sort };
        const got = queryCalls(store, req).map((c) => c.id);
        expect(got, `${label} ${JSON.stringify(sort)}`).toEqual(reference(store, req));
      }
      const expected = reference(store, { project_id: P, query: { $expr: expr } as Query }).length;
      expect(countCalls(store, { project_id: P, query: { $expr: expr } as Query }), label).toEqual({ count: expected });
      if (expected > 2) {
        expect(countCalls(store, { project_id: P, query: { $expr: expr } as Query, limit: 2 }), label).toEqual({
          count: 2,
          has_more: true,
        });
      }
    }
  });

  it("derives status from failures anywhere below a call, and from a summary's error count", () => {
    const status = (n: number) =>
      (toCallSchema(store.readCall(P, id(n))!).summary as { weave: { status: string } }).weave.status;
    // 14 failed (14 % 11 === 3): its parent 12 and the trace root 10 have a failed call below.
    expect([status(14), status(12), status(10), status(11)]).toEqual([
      "error",
      "descendant_error",
      "descendant_error",
      "success",
    ]);
    expect(status(20)).toBe("descendant_error"); // status_counts.error in its summary
    expect(status(4)).toBe("running");
  });

  it("finds a renamed call by its new name, and feedback by reference", () => {
    const renamed = queryCalls(store, {
      project_id: P,
      query: { $expr: contains("summary.weave.trace_name", "paris step", true) },
    });
    expect(renamed.map((c) => c.id)).toEqual([id(6)]);
    const feedback = queryCalls(store, { project_id: P, filter: { call_ids: [id(6)] }, include_feedback: true });
    expect((feedback[0]!.summary as { weave: { feedback: { id: string }[] } }).weave.feedback.map((f) => f.id)).toEqual(
      ["f2", "f3"],
    );
  });
});
