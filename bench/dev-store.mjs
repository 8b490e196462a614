/**
 * `tracewire dev` at 10k, 100k and 1M stored calls (#27): the built service (SQLite) in its own process
 * (bench/dev-server.mjs), filled through `/call/upsert_batch` with traces of 10 calls (~450 bytes of inputs each),
 * then at each size: insert throughput through the route (the last 10,000 calls, 500 per request, start and end items),
 * how long the background text index takes to catch up, the queries the viewer and the SDKs make (p50 of 15 runs
 * each, and the ratio to the 10k row), and the database size per call.
 *
 * Sizes: `--sizes=10000,100000,1000000` (default). Seeding the larger sizes goes through the same route, in
 * requests of 2,500 calls, without being timed. `--keep` leaves the database behind.
 */
import { fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { arg, fmt, median, report, table } from "./lib.mjs";

const SIZES = arg("sizes", "10000,100000,1000000").split(",").map(Number);
/** `--keep`: leave the database behind (its folder is printed) to try query plans on it. */
const KEEP = process.argv.includes("--keep");
const CALLS_PER_TRACE = 10;
const INSERTED = 10_000;
const INSERT_BATCH = 500;
const SEED_BATCH = 2_500;
const RUNS = 15;
const P = "acme/bench";
const T0 = Date.UTC(2026, 0, 1);
const TARGET_MS = 100;
const TARGET_RATIO = 3;
const TARGET_INSERT = 5_000;

// ---- the workload ----
let seed = 7;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const VOCAB = Array.from({ length: 2_000 }, () => {
  let w = "";
  for (let i = 0, n = 3 + Math.floor(rnd() * 7); i < n; i++) w += String.fromCharCode(97 + Math.floor(rnd() * 26));
  return w;
});
const sentence = (n) => {
  const words = [];
  for (let i = 0; i < n; i++) words.push(VOCAB[Math.floor(rnd() ** 2 * VOCAB.length)]);
  return words.join(" ");
};
const pad = (n) => String(n).padStart(7, "0");
const callId = (t, i) => `${pad(t)}-${i}`;
const at = (t, i) => new Date(T0 + t * 1_000 + i * 50).toISOString();

/** The start and end items of trace `t`: a root, 6 LLM calls and 3 tool calls (every 50th trace's first tool fails). */
function traceItems(t) {
  const items = [];
  for (let i = 0; i < CALLS_PER_TRACE; i++) {
    const root = i === 0;
    const tool = i >= 7;
    const fails = tool && i === 7 && t % 50 === 0;
    items.push({
      mode: "start",
      req: {
        start: {
          project_id: P,
          id: callId(t, i),
          trace_id: `trace-${pad(t)}`,
          ...(root ? {} : { parent_id: callId(t, tool ? 1 : 0) }),
          op_name: root ? `weave:///${P}/op/agent_run:v1` : tool ? "search_tool" : "openai.chat.completions.create",
          ...(root ? { thread_id: `thread-${Math.floor(t / 20)}`, turn_id: callId(t, 0) } : {}),
          started_at: at(t, i),
          attributes: { model: "gpt-4o-mini" },
          inputs: {
            messages: [
              { role: "system", content: sentence(10) },
              { role: "user", content: `ticket T-${pad(t)}-${i}: ${sentence(40)}` },
            ],
            temperature: 0.7,
          },
        },
      },
    });
    items.push({
      mode: "end",
      req: {
        end: {
          project_id: P,
          id: callId(t, i),
          ended_at: at(t, i + 1),
          output: fails ? null : { role: "assistant", content: sentence(20) },
          summary: root ? {} : { usage: { "gpt-4o-mini": { prompt_tokens: 120, completion_tokens: 30 } } },
          ...(fails ? { exception: `TimeoutError: search for T-${pad(t)} timed out` } : {}),
        },
      },
    });
  }
  return items;
}

// ---- the service ----
const root = fileURLToPath(new URL("..", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "tracewire-bench-dev-"));
const child = fork(join(root, "bench", "dev-server.mjs"), [dataDir], {
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
const { url } = await new Promise((resolve, reject) => {
  child.once("message", resolve);
  child.once("exit", (code) => reject(new Error(`bench/dev-server.mjs exited with ${code}`)));
});
const dbFile = join(dataDir, "traces.db");

/** Posts JSON (a value, or its text); a connection the server closed as idle just as it was reused is retried (every request here is idempotent). */
async function post(path, body) {
  const json = typeof body === "string" ? body : JSON.stringify(body);
  for (let attempt = 1; ; attempt++) {
    let res;
    try {
      res = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: json,
      });
    } catch (err) {
      if (attempt < 3) continue;
      throw err;
    }
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
    return text;
  }
}

/** Server CPU seconds so far (user + system), from /proc. */
function serverCpu() {
  const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The request bodies (JSON) of traces `from`..`to`, `callsPerRequest` calls each. */
function insertBodies(from, to, callsPerRequest) {
  const per = callsPerRequest / CALLS_PER_TRACE;
  const bodies = [];
  for (let t = from; t < to; t += per) {
    const batch = [];
    for (let u = t; u < Math.min(to, t + per); u++) batch.push(...traceItems(u));
    bodies.push(JSON.stringify({ batch }));
  }
  return bodies;
}

async function insertTraces(from, to, callsPerRequest) {
  for (const body of insertBodies(from, to, callsPerRequest)) await post("/call/upsert_batch", body);
}

/** Waits for the background text index; returns how long it took. */
async function indexCaughtUp() {
  const started = performance.now();
  const db = new Database(dbFile, { readonly: true });
  try {
    const pending = db.prepare("SELECT COUNT(*) AS n FROM text_pending");
    while (pending.get().n > 0) await new Promise((r) => setTimeout(r, 200));
  } finally {
    db.close();
  }
  return performance.now() - started;
}

function sizes() {
  const file = statSync(dbFile).size;
  let wal = 0;
  try {
    wal = statSync(`${dbFile}-wal`).size;
  } catch {}
  const db = new Database(dbFile, { readonly: true });
  try {
    const parts = db.prepare("SELECT name, pgsize FROM dbstat WHERE aggregate = TRUE").all();
    const sum = (test) => parts.filter((p) => test(p.name)).reduce((s, p) => s + p.pgsize, 0);
    return {
      file,
      wal,
      calls: sum((n) => n === "calls"),
      indexes: sum((n) => n.startsWith("calls_by") || n === "sqlite_autoindex_calls_1"),
      text: sum((n) => n.startsWith("calls_text")),
    };
  } finally {
    db.close();
  }
}

// ---- the queries ----
const contains = (field, substr) => ({
  $contains: { input: { $getField: field }, substr: { $literal: substr }, case_insensitive: true },
});
const newest = [{ field: "started_at", direction: "desc" }];
/** A trace that exists at every size, and a time window of fixed width inside the 10k traces. */
const T = 500;
const QUERIES = [
  ["trace roots, newest 50", "/calls/stream_query", { filter: { trace_roots_only: true }, sort_by: newest, limit: 50 }],
  [
    "viewer op filter (name contains, roots, newest 50)",
    "/calls/stream_query",
    {
      filter: { trace_roots_only: true },
      query: { $expr: contains("summary.weave.trace_name", "agent") },
      sort_by: newest,
      limit: 50,
    },
  ],
  [
    "op_names filter, newest 50",
    "/calls/stream_query",
    { filter: { op_names: ["search_tool"] }, sort_by: newest, limit: 50 },
  ],
  [
    "status error, newest 50",
    "/calls/stream_query",
    {
      query: { $expr: { $eq: [{ $getField: "summary.weave.status" }, { $literal: "error" }] } },
      sort_by: newest,
      limit: 50,
    },
  ],
  [
    "viewer status filter (descendant_error roots, newest 50)",
    "/calls/stream_query",
    {
      filter: { trace_roots_only: true },
      query: { $expr: { $eq: [{ $getField: "summary.weave.status" }, { $literal: "descendant_error" }] } },
      sort_by: newest,
      limit: 50,
    },
  ],
  ["thread", "/calls/stream_query", { filter: { thread_ids: [`thread-${T / 20}`] } }],
  ["one trace's calls", "/calls/stream_query", { filter: { trace_ids: [`trace-${pad(T)}`] } }],
  [
    "50 traces' calls (viewer list)",
    "/calls/stream_query",
    {
      filter: { trace_ids: Array.from({ length: 50 }, (_, i) => `trace-${pad(T + i)}`) },
      columns: ["parent_id", "summary", "exception", "ended_at", "attributes"],
    },
  ],
  ["children of a call", "/calls/stream_query", { filter: { parent_ids: [callId(T, 0)] } }],
  [
    "time range (10 minutes), newest 50",
    "/calls/stream_query",
    {
      query: {
        $expr: {
          $and: [
            { $gte: [{ $getField: "started_at" }, { $literal: at(T, 0) }] },
            { $lt: [{ $getField: "started_at" }, { $literal: at(T + 600, 0) }] },
          ],
        },
      },
      sort_by: newest,
      limit: 50,
    },
  ],
  [
    "text in inputs ($contains, any case)",
    "/calls/stream_query",
    { query: { $expr: contains("inputs", `ticket t-${pad(T)}-3:`) } },
  ],
  [
    "viewer text filter (5 fields, trace ids)",
    "/calls/stream_query",
    {
      columns: ["trace_id"],
      query: {
        $expr: {
          $or: ["op_name", "display_name", "inputs", "output", "exception"].map((f) => contains(f, `T-${pad(T)}-3:`)),
        },
      },
    },
  ],
  [
    "text in exceptions",
    "/calls/stream_query",
    { query: { $expr: contains("exception", `search for t-${pad(T)} timed`) } },
  ],
  ["call read", "/call/read", { id: callId(T, 3) }],
  [
    "feedback of a call",
    "/feedback/query",
    { query: { $expr: { $eq: [{ $getField: "weave_ref" }, { $literal: `weave:///${P}/call/${callId(T, 0)}` }] } } },
  ],
  ["query_stats, whole project", "/calls/query_stats", {}],
  ["query_stats, one trace", "/calls/query_stats", { filter: { trace_ids: [`trace-${pad(T)}`] } }],
  ["query_stats, roots (limit 1000)", "/calls/query_stats", { filter: { trace_roots_only: true }, limit: 1000 }],
];

async function timeQuery([, path, body]) {
  const req = { project_id: P, ...body };
  for (let i = 0; i < 2; i++) await post(path, req);
  const times = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    bytes = (await post(path, req)).length;
    times.push(performance.now() - started);
  }
  return { p50: median(times), bytes };
}

// ---- run ----
const rows = [];
let traces = 0;
try {
  for (const size of SIZES) {
    const target = size / CALLS_PER_TRACE;
    const insertTraces0 = target - INSERTED / CALLS_PER_TRACE;
    const seeding = performance.now();
    if (insertTraces0 > traces) await insertTraces(traces, insertTraces0, SEED_BATCH);
    await indexCaughtUp();
    console.error(
      `dev-store: seeded ${fmt.int(insertTraces0 * CALLS_PER_TRACE)} calls in ${((performance.now() - seeding) / 1000).toFixed(0)} s`,
    );
    // The timed requests are built first: the wall time is the service's, not this process's JSON generation.
    const bodies = insertBodies(insertTraces0, target, INSERT_BATCH);
    const cpu0 = serverCpu();
    const wall0 = performance.now();
    for (const body of bodies) await post("/call/upsert_batch", body);
    const insertWall = (performance.now() - wall0) / 1000;
    const insertCpu = serverCpu() - cpu0;
    const catchUp = (await indexCaughtUp()) / 1000;
    const catchUpCpu = serverCpu() - cpu0 - insertCpu;
    traces = target;
    await post("/feedback/create", {
      project_id: P,
      weave_ref: `weave:///${P}/call/${callId(T, 0)}`,
      feedback_type: "wandb.note.1",
      payload: { note: `at ${size}` },
    });
    const times = [];
    for (const q of QUERIES) times.push(await timeQuery(q));
    rows.push({
      size,
      insertPerSec: INSERTED / insertWall,
      insertPerCpuSec: INSERTED / insertCpu,
      sustainedPerCpuSec: INSERTED / (insertCpu + catchUpCpu),
      catchUp,
      times,
      sizes: sizes(),
    });
    console.error(`dev-store: ${fmt.int(size)} calls measured`);
  }
} finally {
  child.send({ cmd: "exit" });
  await new Promise((resolve) => child.once("exit", resolve));
  if (KEEP) console.error(`dev-store: the database is kept in ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}

// ---- report ----
const first = rows[0];
const last = rows[rows.length - 1];
const queryTable = table(
  ["query", ...rows.map((r) => `${fmt.int(r.size)} calls p50`), ...rows.slice(1).map(() => `÷ ${fmt.int(first.size)}`)],
  QUERIES.map(([name], q) => [
    name,
    ...rows.map((r) => `${fmt.num(r.times[q].p50, 1)} ms`),
    ...rows.slice(1).map((r) => fmt.ratio(r.times[q].p50 / first.times[q].p50)),
  ]),
);
const sizeTable = table(
  [
    "stored calls",
    "insert calls/s (wall)",
    "insert calls/s of server CPU",
    "with text indexing, calls/s of server CPU",
    "text index catch-up",
    "file + WAL",
    "bytes per call",
    "rows / indexes / text index per call",
  ],
  rows.map((r) => [
    fmt.int(r.size),
    fmt.int(r.insertPerSec),
    fmt.int(r.insertPerCpuSec),
    fmt.int(r.sustainedPerCpuSec),
    `${fmt.num(r.catchUp, 1)} s`,
    fmt.mb(r.sizes.file + r.sizes.wal),
    fmt.int(r.sizes.file / r.size),
    `${fmt.int(r.sizes.calls / r.size)} / ${fmt.int(r.sizes.indexes / r.size)} / ${fmt.int(r.sizes.text / r.size)}`,
  ]),
);
const slowest = (r) => Math.max(...r.times.map((t) => t.p50));
const worstRatio = Math.max(...QUERIES.map((_, q) => last.times[q].p50 / first.times[q].p50));
const checks = [
  {
    name: `tracewire dev: every viewer/SDK query at ${fmt.int(last.size)} calls < ${TARGET_MS} ms p50`,
    pass: slowest(last) < TARGET_MS,
    detail: `slowest ${fmt.num(slowest(last), 1)} ms (${QUERIES[last.times.findIndex((t) => t.p50 === slowest(last))][0]})`,
  },
  {
    name: `tracewire dev: every query at ${fmt.int(last.size)} calls < ${TARGET_RATIO}× its time at ${fmt.int(first.size)}`,
    pass: worstRatio < TARGET_RATIO,
    detail: `worst ${fmt.ratio(worstRatio)} (${QUERIES[QUERIES.findIndex((_, q) => last.times[q].p50 / first.times[q].p50 === worstRatio)][0]})`,
  },
  {
    name: `tracewire dev: /call/upsert_batch keeps up with ${fmt.int(TARGET_INSERT)} calls/s at ${fmt.int(last.size)} calls`,
    pass: last.insertPerSec >= TARGET_INSERT,
    detail: `${fmt.int(last.insertPerSec)} calls/s wall (${fmt.int(last.insertPerCpuSec)} per server CPU second; ${fmt.int(last.sustainedPerCpuSec)} counting the background text indexing)`,
  },
];
const markdown = `### tracewire dev at scale (#27)

The built local service (SQLite via ${process.versions.node.split(".")[0] >= 22 ? "node:sqlite or better-sqlite3" : "better-sqlite3"}) in its own process, filled through \`/call/upsert_batch\` with traces of
${CALLS_PER_TRACE} calls (a root, 6 LLM calls, 3 tools; ~450 bytes of inputs each; every 50th trace has a failed tool). At each size:
${fmt.int(INSERTED)} more calls through the route (${INSERT_BATCH} per request, start and end items; wall time, and the server's CPU from
/proc), the time the background text index needs to catch up, then each query ${RUNS} times after 2 warm-ups (p50 of the
wall time of the HTTP request, the response read whole). Seeding up to each size goes through the same route in requests of
${fmt.int(SEED_BATCH)} calls and is not timed.

${queryTable}

${sizeTable}

Bytes per call is the database file over the stored calls; the split counts the calls table, its indexes and the trigram
text index (dbstat).`;

report({ title: "tracewire dev at scale", markdown, checks });
