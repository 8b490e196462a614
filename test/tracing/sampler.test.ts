/**
 * `init()`'s sampler from `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` (docs/configuration.md): each documented
 * sampler decides what reaches the service, and a typo or a ratio outside 0–1 samples every trace with one warning.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { init, op, type TracewireHandle } from "../../src/index.js";
import { globalState } from "../../src/otel/state.js";
import { TracingDouble } from "../support/tracing-double.js";
import { recordingLogger } from "../support/tracing-session.js";

let double: TracingDouble;
let handle: TracewireHandle | undefined;
beforeEach(async () => {
  globalState().warned.clear();
  double = await TracingDouble.start();
});
afterEach(async () => {
  await handle?.shutdown();
  handle = undefined;
  await double.close();
});

/** Runs 20 root ops (20 traces) under `env` and returns how many reached the service, and the log lines. */
async function sampled(env: Record<string, string>): Promise<{ count: number; lines: string[] }> {
  const { logger, lines } = recordingLogger();
  handle = init({ baseUrl: double.url, project: "acme/demo", env, logger });
  const root = op(function sampledRoot() {
    return 1;
  });
  for (let i = 0; i < 20; i++) root();
  await handle.flush();
  return { count: double.callsNamed("sampledRoot").length, lines: lines.map((l) => l.message) };
}

describe("OTEL_TRACES_SAMPLER", () => {
  const cases: [Record<string, string>, number][] = [
    [{}, 20],
    [{ OTEL_TRACES_SAMPLER: "always_on" }, 20],
    [{ OTEL_TRACES_SAMPLER: "parentbased_always_on" }, 20],
    [{ OTEL_TRACES_SAMPLER: "always_off" }, 0],
    [{ OTEL_TRACES_SAMPLER: "parentbased_always_off" }, 0],
    [{ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" }, 0],
    [{ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "1" }, 20],
    [{ OTEL_TRACES_SAMPLER: " TraceIdRatio ", OTEL_TRACES_SAMPLER_ARG: "0" }, 0],
  ];
  for (const [env, expected] of cases) {
    it(`${JSON.stringify(env)} records ${expected} of 20 traces, without a warning`, async () => {
      const { count, lines } = await sampled(env);
      expect(count).toBe(expected);
      expect(lines).toEqual([]);
    });
  }

  it("an unknown sampler samples every trace and says so once, naming the valid ones", async () => {
    const { count, lines } = await sampled({ OTEL_TRACES_SAMPLER: "alwayson" });
    expect(count).toBe(20);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('OTEL_TRACES_SAMPLER="alwayson" is not a sampler tracewire knows');
    expect(lines[0]).toContain("parentbased_traceidratio");
  });

  it("a ratio outside 0–1 (or not a number) samples every trace and says so", async () => {
    let before = 0;
    for (const arg of ["2", "-0.5", "half"]) {
      globalState().warned.clear();
      const { count, lines } = await sampled({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: arg });
      await handle?.shutdown();
      handle = undefined;
      // The service double keeps what the earlier rounds sent.
      expect(count - before, arg).toBe(20);
      before = count;
      expect(lines, arg).toEqual([
        `[tracewire] OTEL_TRACES_SAMPLER_ARG=${JSON.stringify(arg)} is not a ratio from 0 to 1; sampling every trace.`,
      ]);
    }
  });
});
