/**
 * `POST /calls/stats`: usage and call metrics per time bucket, computed as the hosted service's query builders do.
 * Calls count in the bucket where they started, from `start` (inclusive) to `end` (exclusive, now by default). Every
 * bucket of the range is answered, for call metrics and for each model seen in the range: sums, averages and counts
 * of an empty bucket are 0, its minimum, maximum and percentiles null (0 would read as a measured value). A value
 * that is missing (the latency of a running call, a usage without `total_tokens`) is left out of its aggregations.
 * Usage is per model, with prompt and input tokens counted together (completion and output tokens too); the local
 * service keeps no prices, so costs are 0. Buckets start at whole multiples of the granularity in the request's
 * time zone, at its offset from UTC at `start`, and are written in that offset, as the service writes them.
 */
import type {
  CallSchema,
  CallStatsBucket,
  CallStatsMetric,
  CallStatsReq,
  CallStatsRes,
} from "../../api/types/calls.js";
import { queryCalls } from "../call-query.js";
import { HttpError } from "../http.js";
import { pythonFloat } from "../python-json.js";
import type { Router } from "../router.js";
import { CALL_STATS_REQ } from "../schemas.js";
import { validateBody } from "../validate.js";
import { checkProject } from "./calls.js";

/** The service answers at most this many buckets: a finer granularity is widened to fit. */
const MAX_BUCKETS = 10_000;
/** The service's granularity for a range of up to so many seconds (`auto_select_granularity_seconds`). */
const AUTO_GRANULARITY: [upTo: number, granularity: number][] = [
  [2 * 3600, 300],
  [12 * 3600, 3600],
  [3 * 86400, 6 * 3600],
  [14 * 86400, 12 * 3600],
];
const DAY = 86400;

type Value = number | null;
type Read<T> = (row: T) => Value;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): Value => (typeof v === "number" && Number.isFinite(v) ? v : null);
const count = (u: Record<string, unknown>, key: string): number => num(u[key]) ?? 0;

/** A model's usage as a metric reads it: both providers' names summed, missing counts 0 (a missing total stays null). */
const USAGE: Record<string, Read<Record<string, unknown>>> = {
  input_tokens: (u) =>
    "gross_input_tokens" in u ? count(u, "gross_input_tokens") : count(u, "prompt_tokens") + count(u, "input_tokens"),
  output_tokens: (u) => count(u, "completion_tokens") + count(u, "output_tokens"),
  total_tokens: (u) => num(u.total_tokens),
  cache_read_input_tokens: (u) => count(u, "cache_read_input_tokens"),
  cache_creation_input_tokens: (u) => count(u, "cache_creation_input_tokens"),
  input_cost: () => 0,
  output_cost: () => 0,
  total_cost: () => 0,
};
const CALL: Record<string, Read<CallSchema>> = {
  latency_ms: (c) => (c.ended_at ? Date.parse(c.ended_at) - Date.parse(c.started_at) : null),
  call_count: () => 1,
  error_count: (c) => (c.exception !== null && c.exception !== undefined ? 1 : 0),
};

/** Linear interpolation between the closest ranks, as the service's `quantile` does; null for no values. */
function percentile(sorted: number[], p: number): Value {
  if (!sorted.length) return null;
  const pos = (Math.round((p / 100) * 1e6) / 1e6) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

function aggregate(values: Value[], aggregation: string): Value {
  const present = values.filter((v): v is number => v !== null);
  const sum = present.reduce((a, b) => a + b, 0);
  switch (aggregation) {
    case "sum":
      return present.length ? sum : 0;
    case "avg":
      return present.length ? sum / present.length : 0;
    // reduce, not Math.min(...present): a bucket can hold more calls than a call can take arguments.
    case "min":
      return present.length ? present.reduce((a, b) => (b < a ? b : a)) : null;
    case "max":
      return present.length ? present.reduce((a, b) => (b > a ? b : a)) : null;
    case "count":
      return present.length;
    case "count_true":
      return present.filter((v) => v === 1).length;
    default: // count_false: the schema lets no other through
      return present.filter((v) => v === 0).length;
  }
}

/** A bucket's columns for `specs`: `{aggregation}_{metric}` and `p{percentile}_{metric}` (`p99.5_latency_ms`). */
function columns<T>(rows: T[], specs: CallStatsMetric[], read: Record<string, Read<T>>): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const spec of specs) {
    const values = rows.map(read[spec.metric]!);
    const percentiles = spec.percentiles ?? [];
    const aggregations = spec.aggregations?.length || percentiles.length ? (spec.aggregations ?? []) : ["sum"];
    for (const a of aggregations) out[`${a}_${spec.metric}`] = aggregate(values, a);
    if (!percentiles.length) continue;
    const sorted = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
    for (const p of percentiles) {
      out[`p${Number.isInteger(p) ? String(p) : pythonFloat(p)}_${spec.metric}`] = percentile(sorted, p);
    }
  }
  return out;
}

/** Milliseconds `timeZone`'s wall clock is ahead of UTC at `at`; a 400 naming the zone when it is not one. */
function utcOffset(timeZone: string, at: number): number {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    }).formatToParts(at);
  } catch {
    throw new HttpError(
      400,
      `Invalid timezone ${JSON.stringify(timeZone)}: expected an IANA time zone name such as "America/New_York".`,
    );
  }
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second"));
  return wall - Math.floor(at / 1000) * 1000;
}

/** `2026-01-05T15:00:00+05:30`: Python's `isoformat()` of the bucket start in the request's zone. */
function wallTime(at: number, offset: number): string {
  const minutes = Math.round(Math.abs(offset) / 60_000);
  const zone = `${offset < 0 ? "-" : "+"}${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
  return `${new Date(at + offset).toISOString().slice(0, 19)}${zone}`;
}

/** The range, bucket size and bucket starts of a request, after the service's rules; 400s name the bad field. */
function resolveBuckets(body: CallStatsReq) {
  const start = Date.parse(body.start);
  const end = body.end ? Date.parse(body.end) : Date.now();
  if (end < start) throw new HttpError(400, "CallStatsReq end must be after start");
  if (body.granularity !== undefined && body.granularity !== null && body.granularity <= 0) {
    throw new HttpError(400, `granularity must be a positive number of seconds, got ${body.granularity}.`);
  }
  for (const field of ["usage_metrics", "call_metrics"] as const) {
    for (const [i, spec] of (body[field] ?? []).entries()) {
      const bad = spec.percentiles?.find((p) => !(p >= 0 && p <= 100));
      if (bad !== undefined) throw new HttpError(400, `${field}[${i}].percentiles: ${bad} is outside 0–100.`);
    }
  }
  const range = (end - start) / 1000;
  let granularity = body.granularity ?? AUTO_GRANULARITY.find(([upTo]) => range <= upTo)?.[1] ?? DAY;
  if (range / granularity > MAX_BUCKETS) granularity = Math.max(granularity, Math.floor(range / MAX_BUCKETS) + 1);
  const timezone = body.timezone ?? "UTC";
  const offset = utcOffset(timezone, start);
  const size = granularity * 1000;
  const bucketOf = (at: number) => Math.floor((at + offset) / size) * size - offset;
  const starts: number[] = [];
  for (let b = bucketOf(start); b < end; b += size) starts.push(b);
  return { start, end, granularity, timezone, offset, starts, bucketOf };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The answer to a checked request over the calls it selects. */
function callStats(body: CallStatsReq, select: (from: string, to: string) => CallSchema[]): CallStatsRes {
  const r = resolveBuckets(body);
  const calls = select(new Date(r.start).toISOString(), new Date(r.end).toISOString());
  const stamp = (b: number) => wallTime(b, r.offset);
  const usageSpecs = body.usage_metrics ?? [];
  const callSpecs = body.call_metrics ?? [];

  const usageRows = new Map<string, Record<string, unknown>[]>(); // by `${bucket} ${model}`
  const callRows = new Map<number, CallSchema[]>();
  const models = new Set<string>();
  for (const call of calls) {
    const bucket = r.bucketOf(Date.parse(call.started_at));
    if (callSpecs.length) push(callRows, bucket, call);
    const usage = call.summary?.usage;
    if (!usageSpecs.length || !isObject(usage)) continue;
    for (const [model, u] of Object.entries(usage)) {
      if (!isObject(u)) continue;
      models.add(model);
      push(usageRows, `${bucket} ${model}`, u);
    }
  }
  const sortedModels = [...models].sort();
  const usage_buckets: CallStatsBucket[] = [];
  const call_buckets: CallStatsBucket[] = [];
  for (const b of r.starts) {
    for (const model of sortedModels) {
      const rows = usageRows.get(`${b} ${model}`) ?? [];
      usage_buckets.push({ timestamp: stamp(b), model, ...columns(rows, usageSpecs, USAGE), count: rows.length });
    }
    if (!callSpecs.length) continue;
    const rows = callRows.get(b) ?? [];
    call_buckets.push({ timestamp: stamp(b), ...columns(rows, callSpecs, CALL), count: rows.length });
  }
  return {
    start: new Date(r.start).toISOString(),
    end: new Date(r.end).toISOString(),
    granularity: r.granularity,
    timezone: r.timezone,
    usage_buckets,
    call_buckets,
  };
}

/** Adds `POST /calls/stats`. */
export function callStatsRoutes(router: Router): void {
  router.on("POST", "/calls/stats", async (req, { store }) => {
    const body = validateBody<CallStatsReq>(await req.json(), CALL_STATS_REQ);
    const project = checkProject(body.project_id);
    const json = callStats(body, (from, to) =>
      // The range is a query on started_at, which the SQLite store answers from its index.
      queryCalls(store, {
        project_id: project,
        ...(body.filter ? { filter: body.filter } : {}),
        query: {
          $expr: {
            $and: [
              { $gte: [{ $getField: "started_at" }, { $literal: from }] },
              { $lt: [{ $getField: "started_at" }, { $literal: to }] },
            ],
          },
        },
      }),
    );
    return { json };
  });
}
