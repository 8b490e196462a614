/**
 * `POST /calls/stats` on the local service, through tracewire's own `TracingClient` (`client.calls.stats()`): usage
 * per time bucket and model, call metrics per time bucket, as the hosted service computes them — every bucket of the
 * range present (sums and counts 0, minimums, maximums and percentiles null where nothing fell), prompt and input
 * tokens counted together, buckets aligned in the asked time zone — with each store, and the request checked.
 */
import { describe, expect, it } from "vitest";
import type { CallStart } from "../../src/api/types/calls.js";
import { ApiError } from "../../src/errors.js";
import { atSecond, callId, PROJECT, send, setupSeededService } from "./helpers.js";

const TRACE = "dddddddddddddddddddddddddddddddd";

const start = (n: number, second: number): CallStart => ({
  project_id: PROJECT,
  id: callId(n),
  trace_id: TRACE,
  op_name: `op${n}`,
  started_at: atSecond(second),
  attributes: {},
  inputs: {},
});
const end = (n: number, second: number, usage: Record<string, Record<string, number>>, exception?: string) => ({
  project_id: PROJECT,
  id: callId(n),
  ended_at: atSecond(second),
  summary: { usage },
  ...(exception ? { exception } : {}),
});

/** Bucket starts as the service writes them: the wall time in the request's time zone, with its offset. */
const minute = (m: number): string => `2026-01-05T10:0${m}:00+00:00`;

/** Minimum, maximum and percentiles of an empty bucket are null; sums, averages and counts are 0. */
const emptyCalls = (m: number) => ({
  timestamp: minute(m),
  sum_call_count: 0,
  sum_error_count: 0,
  avg_latency_ms: 0,
  min_latency_ms: null,
  max_latency_ms: null,
  p50_latency_ms: null,
  count: 0,
});
const emptyUsage = (m: number, model: string) => ({
  timestamp: minute(m),
  model,
  sum_input_tokens: 0,
  max_input_tokens: null,
  sum_output_tokens: 0,
  sum_total_tokens: 0,
  count_total_tokens: 0,
  count: 0,
});

describe.each(["sqlite", "memory"] as const)("%s store", (storage) => {
  // 10:00:00 call 1 (2 s; gpt 10 + 5, total 15)   10:00:30 call 2 (1 s, failed; gpt 7 in + 3 out, claude total 9)
  // 10:01:10 call 3 (4 s; gpt 100 + 20, total 120) 10:03:20 call 4 (still running)   10:04:00 call 5 (past the end)
  const ctx = setupSeededService(storage, async (service) => {
    const batch = [
      ...[start(1, 0), start(2, 30), start(3, 70), start(4, 200), start(5, 240)].map((s) => ({
        mode: "start",
        req: { start: s },
      })),
      ...[
        end(1, 2, { gpt: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, requests: 1 } }),
        end(
          2,
          31,
          { gpt: { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 2 }, claude: { total_tokens: 9 } },
          "boom",
        ),
        end(3, 74, { gpt: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } }),
        end(5, 250, { gpt: { prompt_tokens: 1000 } }),
      ].map((e) => ({ mode: "end", req: { end: e } })),
    ];
    expect((await send(service.url, "/call/upsert_batch", { batch })).status).toBe(200);
  });

  it("answers every minute of the range with usage per model and call metrics, through client.calls.stats()", async () => {
    const res = await ctx.client.calls.stats({
      start: atSecond(0),
      end: atSecond(240),
      granularity: 60,
      usage_metrics: [
        { metric: "input_tokens", aggregations: ["sum", "max"] },
        { metric: "output_tokens" },
        { metric: "total_tokens", aggregations: ["sum", "count"] },
      ],
      call_metrics: [
        { metric: "call_count" },
        { metric: "error_count", aggregations: ["sum"] },
        { metric: "latency_ms", aggregations: ["avg", "min", "max"], percentiles: [50] },
      ],
    });
    expect(res).toEqual({
      start: "2026-01-05T10:00:00.000Z",
      end: "2026-01-05T10:04:00.000Z",
      granularity: 60,
      timezone: "UTC",
      usage_buckets: [
        // claude's one call reports a total only: no input or output tokens.
        { ...emptyUsage(0, "claude"), max_input_tokens: 0, sum_total_tokens: 9, count_total_tokens: 1, count: 1 },
        // Call 2 sends no total_tokens: it is left out of the total's sum and count, not counted as 0.
        {
          ...emptyUsage(0, "gpt"),
          sum_input_tokens: 17,
          max_input_tokens: 10,
          sum_output_tokens: 8,
          sum_total_tokens: 15,
          count_total_tokens: 1,
          count: 2,
        },
        emptyUsage(1, "claude"),
        {
          ...emptyUsage(1, "gpt"),
          sum_input_tokens: 100,
          max_input_tokens: 100,
          sum_output_tokens: 20,
          sum_total_tokens: 120,
          count_total_tokens: 1,
          count: 1,
        },
        emptyUsage(2, "claude"),
        emptyUsage(2, "gpt"),
        emptyUsage(3, "claude"),
        emptyUsage(3, "gpt"),
      ],
      call_buckets: [
        {
          timestamp: minute(0),
          sum_call_count: 2,
          sum_error_count: 1,
          avg_latency_ms: 1500,
          min_latency_ms: 1000,
          max_latency_ms: 2000,
          p50_latency_ms: 1500,
          count: 2,
        },
        {
          timestamp: minute(1),
          sum_call_count: 1,
          sum_error_count: 0,
          avg_latency_ms: 4000,
          min_latency_ms: 4000,
          max_latency_ms: 4000,
          p50_latency_ms: 4000,
          count: 1,
        },
        emptyCalls(2),
        // A running call counts, but has no latency yet.
        { ...emptyCalls(3), sum_call_count: 1, count: 1 },
      ],
    });
  });

  it("aligns buckets in the request's time zone, picks a granularity for the range and applies the filter", async () => {
    // 10:00 UTC is 15:30 in Kolkata (UTC+5:30): the hour bucket starts at 15:00 there, 09:30 UTC.
    const kolkata = await ctx.client.calls.stats({
      start: atSecond(0),
      end: atSecond(240),
      granularity: 3600,
      timezone: "Asia/Kolkata",
      call_metrics: [{ metric: "call_count" }, { metric: "latency_ms", aggregations: ["sum"] }],
    });
    expect(kolkata.timezone).toBe("Asia/Kolkata");
    expect(kolkata.usage_buckets).toEqual([]);
    expect(kolkata.call_buckets).toEqual([
      { timestamp: "2026-01-05T15:00:00+05:30", sum_call_count: 4, sum_latency_ms: 7000, count: 4 },
    ]);

    // Four minutes: the service's choice for a range up to 2 hours is 5-minute buckets.
    const auto = await ctx.client.calls.stats({
      start: atSecond(0),
      end: atSecond(240),
      filter: { op_names: ["op2", "op3"] },
      usage_metrics: [{ metric: "input_tokens", percentiles: [25, 99.5] }],
      call_metrics: [{ metric: "error_count", aggregations: ["count_true", "count_false"] }],
    });
    expect(auto.granularity).toBe(300);
    expect(auto.call_buckets).toEqual([
      { timestamp: minute(0), count_true_error_count: 1, count_false_error_count: 1, count: 2 },
    ]);
    // A granularity that would make more than 10,000 buckets is widened to fit, as the service does.
    const wide = await ctx.client.calls.stats({
      start: "1970-01-01T00:00:00Z",
      end: atSecond(0),
      granularity: 1,
      call_metrics: [{ metric: "call_count" }],
    });
    expect(wide.granularity).toBe(176_761); // ⌊1,767,607,200 s / 10,000⌋ + 1
    expect(wide.call_buckets).toHaveLength(10_000);
    expect(wide.call_buckets.every((b) => b.count === 0)).toBe(true);

    // gpt's inputs are 7 and 100: percentiles interpolate between them.
    expect(auto.usage_buckets).toEqual([
      { timestamp: minute(0), model: "claude", p25_input_tokens: 0, "p99.5_input_tokens": 0, count: 1 },
      { timestamp: minute(0), model: "gpt", p25_input_tokens: 30.25, "p99.5_input_tokens": 99.535, count: 2 },
    ]);
  });

  it("refuses a bad request with a status and a reason that name the field", async () => {
    const stats = (body: Record<string, unknown>) =>
      ctx.client.calls.stats({ start: atSecond(0), end: atSecond(240), ...body }).then(
        () => {
          throw new Error("expected a refusal");
        },
        (err: unknown) => {
          expect(err).toBeInstanceOf(ApiError);
          return { status: (err as ApiError).status, body: JSON.stringify((err as ApiError).body) };
        },
      );
    const zero = await stats({ granularity: 0 });
    expect(zero.status).toBe(400);
    expect(zero.body).toMatch(/granularity/);
    const zone = await stats({ timezone: "Mars/Olympus_Mons" });
    expect(zone.status).toBe(400);
    expect(zone.body).toMatch(/timezone.*Mars\/Olympus_Mons/);
    const backwards = await stats({ start: atSecond(240), end: atSecond(0) });
    expect(backwards.status).toBe(400);
    expect(backwards.body).toMatch(/end must be after start/);
    const percentile = await stats({ call_metrics: [{ metric: "latency_ms", percentiles: [101] }] });
    expect(percentile.status).toBe(400);
    expect(percentile.body).toMatch(/call_metrics\[0\]\.percentiles.*101/);
    // A metric or aggregation the service does not know is a 422 that points at it, as for every field's type.
    const metric = await send(ctx.service.url, "/calls/stats", {
      project_id: PROJECT,
      start: atSecond(0),
      usage_metrics: [{ metric: "tokens", aggregations: ["median"] }],
    });
    expect(metric.status).toBe(422);
    const locs = (metric.json as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc.join("."));
    expect(locs).toEqual(["body.usage_metrics.0.metric", "body.usage_metrics.0.aggregations.0"]);
    const missing = await send(ctx.service.url, "/calls/stats", { project_id: PROJECT });
    expect(missing.status).toBe(422);
    expect(JSON.stringify(missing.json)).toMatch(/"start"/);
  });
});
