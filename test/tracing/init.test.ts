/**
 * init(): tracing off (not configured, or disabled) is one warning and untraced ops that still return their own
 * results; a second init() reuses the running handle; a bad setting is a ConfigError from init() itself.
 */
import { beforeEach, describe, expect, it } from "vitest";
import {
  type Call,
  ConfigError,
  callOf,
  getCurrentCall,
  type InitOptions,
  init,
  op,
  withAttributes,
  withThread,
} from "../../src/index.js";
import { globalState } from "../../src/otel/state.js";
import { TracingDouble } from "../support/tracing-double.js";
import { recordingLogger } from "../support/tracing-session.js";

beforeEach(() => {
  // "Once per process" warnings: start each test as a fresh process would (workers are reused across files).
  globalState().warned.clear();
});

/** Runs a few ops with tracing off and checks that they behave exactly as untraced code. */
async function expectUntraced(): Promise<void> {
  const value = { v: 1 };
  let inside: Call | undefined | null = null;
  const sync = op(function offSync(x: number) {
    inside = getCurrentCall();
    return x === 1 ? value : null;
  });
  expect(sync(1)).toBe(value);
  expect(inside).toBeUndefined();
  expect(callOf(value)).toBeUndefined();
  const [result, call] = sync.invoke(1);
  expect(result).toBe(value);
  expect(call).toBeUndefined();

  const promise = Promise.resolve(value);
  expect(op(() => promise)()).toBe(promise);
  const asyncOp = op(async () => value);
  expect(await withThread("t", () => withAttributes({ a: 1 }, () => asyncOp()))).toBe(value);

  const boom = new Error("still thrown");
  await expect(
    op(async () => {
      throw boom;
    })(),
  ).rejects.toBe(boom);

  const gen = op(function* offGen() {
    yield 1;
    yield 2;
  });
  expect([...gen()]).toEqual([1, 2]);
}

describe("tracing off", () => {
  it("not configured: enabled false, exactly one warning, ops run untraced", async () => {
    const { logger, lines } = recordingLogger();
    const handle = init({ env: {}, logger });
    expect(handle.enabled).toBe(false);
    expect(handle.processor).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "warn" });
    expect(lines[0]!.message).toMatch(/no API key and no base URL/);

    const again = init({ env: {}, logger });
    expect(again.enabled).toBe(false);
    expect(lines).toHaveLength(1);

    await expectUntraced();
    await handle.flush();
    await handle.shutdown();
    expect(handle.stats().calls.sent).toBe(0);
    expect(lines).toHaveLength(1);
  });

  it("when a key is needed: a base URL alone traces (the local service takes none); a key alone is a ConfigError", async () => {
    const double = await TracingDouble.start();
    try {
      const { logger, lines } = recordingLogger();
      const handle = init({ baseUrl: double.url, project: "acme/demo", env: {}, logger, scheduledDelayMillis: 10 });
      expect(handle.enabled).toBe(true);
      const keyless = op(function keyless() {
        return 1;
      });
      expect(keyless()).toBe(1);
      await handle.flush();
      expect(double.callsNamed("keyless")).toHaveLength(1);
      expect(double.server.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
      expect(lines).toEqual([]);
      await handle.shutdown();
    } finally {
      await double.close();
    }
    expect(() => init({ apiKey: "tw-key-1234", project: "acme/demo", env: {} })).toThrow(ConfigError);
    expect(() => init({ apiKey: "tw-key-1234", project: "acme/demo", env: {} })).toThrow(/baseUrl/);
  });

  it("a bad option is the same ConfigError while tracing is off (not configured, or disabled) as when it is on", () => {
    const bad: [string, Partial<InitOptions>][] = [
      ["maxQueueSize", { maxQueueSize: -5 }],
      ["export", { export: "bogus" as "calls" }],
      ["redactKeys", { redactKeys: "nope" as unknown as string[] }],
      ["serviceName", { serviceName: "" }],
      ["project", { project: "no-slash" }],
    ];
    for (const [setting, options] of bad) {
      const { logger, lines } = recordingLogger();
      for (const off of [{ env: {} }, { env: {}, disabled: true }, { env: { OTEL_SDK_DISABLED: "true" } }]) {
        expect(() => init({ ...off, logger, ...options }), setting).toThrow(ConfigError);
        expect(() => init({ ...off, logger, ...options }), setting).toThrow(setting);
      }
      // The environment is production's: while tracing is off it is not judged.
      const handle = init({ env: { TRACEWIRE_MAX_QUEUE_SIZE: "-5", OTEL_BSP_MAX_QUEUE_SIZE: "x" }, logger });
      expect(handle.enabled).toBe(false);
      expect(lines.length).toBeLessThanOrEqual(1);
    }
  });

  it("an option tracewire does not read is a ConfigError naming it and the one it probably meant, not ignored", () => {
    const cases: [Record<string, unknown>, string, RegExp | undefined][] = [
      // A misspelt privacy option would otherwise record content without a word.
      [{ captureContnet: false }, "captureContnet", undefined],
      [{ capture_content: false }, "capture_content", /did you mean captureContent\?/],
      [{ RedactKeys: ["ssn"] }, "RedactKeys", /did you mean redactKeys\?/],
      [{ endpoint: "http://127.0.0.1:1" }, "endpoint", /did you mean baseUrl\?/],
      [{ sampleRate: 0.5 }, "sampleRate", undefined],
    ];
    for (const [options, key, hint] of cases) {
      for (const off of [{ env: {} }, { env: {}, disabled: true }, { baseUrl: "http://127.0.0.1:1", env: {} }]) {
        let error: unknown;
        try {
          init({ ...off, ...options } as InitOptions);
        } catch (err) {
          error = err;
        }
        expect(error, key).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).setting).toBe(key);
        expect((error as ConfigError).message).toMatch(/the options are apiKey, baseUrl, project,/);
        if (hint) expect((error as ConfigError).message).toMatch(hint);
      }
    }
    // The value is never echoed: a misspelt `apikey` holds the key itself.
    let error: unknown;
    try {
      init({ env: {}, apikey: "tw-live-0123456789abcdef" } as InitOptions);
    } catch (err) {
      error = err;
    }
    expect((error as ConfigError).message).toMatch(/^Invalid apikey \(got string\): .*did you mean apiKey\?/);
    expect(JSON.stringify(error) + String(error)).not.toContain("0123456789abcdef");
    // A key set to undefined sets nothing, and is let through (an options object spread from a config).
    const handle = init({ env: {}, logger: recordingLogger().logger, sampleRate: undefined } as InitOptions);
    expect(handle.enabled).toBe(false);
  });

  it("disabled: false in code wins over OTEL_SDK_DISABLED and TRACEWIRE_DISABLED", async () => {
    const double = await TracingDouble.start();
    try {
      const env = { OTEL_SDK_DISABLED: "true", TRACEWIRE_DISABLED: "true" };
      const handle = init({ baseUrl: double.url, project: "acme/demo", env, disabled: false });
      expect(handle.enabled).toBe(true);
      await handle.shutdown();
    } finally {
      await double.close();
    }
  });

  const disabledCases: [string, Partial<InitOptions>][] = [
    ["env TRACEWIRE_DISABLED=true", { env: { TRACEWIRE_DISABLED: "true" } }],
    ["env OTEL_SDK_DISABLED=true", { env: { OTEL_SDK_DISABLED: "true" } }],
    ["option disabled: true", { disabled: true, env: {} }],
  ];
  for (const [how, options] of disabledCases) {
    it(`disabled by ${how}: one warning, nothing reaches the service, ops run untraced`, async () => {
      const double = await TracingDouble.start();
      try {
        const { logger, lines } = recordingLogger();
        const settings: InitOptions = { baseUrl: double.url, project: "acme/demo", logger, ...options };
        const handle = init(settings);
        expect(handle.enabled).toBe(false);
        expect(init(settings).enabled).toBe(false);
        expect(lines).toHaveLength(1);
        expect(lines[0]!.message).toMatch(/disabled/i);

        await expectUntraced();
        await handle.flush();
        await handle.shutdown();
        expect(double.server.requests).toHaveLength(0);
        expect(lines).toHaveLength(1);
      } finally {
        await double.close();
      }
    });
  }
});

describe("tracing on", () => {
  it("a second init() returns the running handle; after shutdown a new one starts", async () => {
    const double = await TracingDouble.start();
    const { logger, lines } = recordingLogger();
    const options: InitOptions = { baseUrl: double.url, project: "acme/demo", env: {}, logger };
    const first = init({ ...options, scheduledDelayMillis: 10 });
    try {
      expect(first.enabled).toBe(true);
      expect(init(options)).toBe(first);
      const traced = op(function tracedOnce() {
        return 1;
      });
      traced();
      await first.flush();
      expect(double.callsNamed("tracedOnce")).toHaveLength(1);
    } finally {
      await first.shutdown();
    }
    const second = init(options);
    try {
      expect(second).not.toBe(first);
      expect(second.enabled).toBe(true);
    } finally {
      await second.shutdown();
      await double.close();
    }
    expect(lines).toEqual([]);
  });

  it("a bad setting is a ConfigError from init(), naming the setting; nothing is left running", async () => {
    const base = { baseUrl: "http://127.0.0.1:9", project: "acme/demo", env: {} };
    const bad: [Partial<InitOptions>, RegExp][] = [
      [{ scheduledDelayMillis: -1 }, /scheduledDelayMillis/],
      [{ env: { TRACEWIRE_CAPTURE_CONTENT: "maybe" } }, /TRACEWIRE_CAPTURE_CONTENT/],
      [{ project: "no-slash" }, /project/],
      [{ env: { OTEL_BSP_MAX_QUEUE_SIZE: "lots" } }, /OTEL_BSP_MAX_QUEUE_SIZE/],
      [{ baseUrl: "not a url" }, /baseUrl/],
      [{ maxStringLength: 3 }, /maxStringLength/],
    ];
    for (const [override, setting] of bad) {
      let error: unknown;
      try {
        init({ ...base, ...override });
      } catch (err) {
        error = err;
      }
      expect(error, JSON.stringify(override)).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(setting);
      expect(globalState().handle).toBeUndefined();
      expect(globalState().active).toBeUndefined();
    }
  });
});
