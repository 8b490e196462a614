/**
 * Bad settings fail at construction with a `ConfigError` that names the setting — in the processor's constructor
 * and in `init()` — and leave nothing behind (no live processor, no exit hooks, no handle).
 */
import { afterEach, describe, expect, it } from "vitest";
import { type InitOptions, init } from "../../src/index.js";
import { OtlpTraceExporter, type TracewireProcessorOptions, TracewireSpanProcessor } from "../../src/otel/index.js";
import { globalState } from "../../src/otel/state.js";
import { configError } from "../support/errors.js";
import { PROJECT } from "./helpers.js";

const BASE = { baseUrl: "http://127.0.0.1:9", project: PROJECT };

afterEach(() => {
  // Nothing may be left registered by a constructor that threw.
  expect(globalState().live.size).toBe(0);
  expect(globalState().handle).toBeUndefined();
});

const cases: { title: string; options: TracewireProcessorOptions; setting: string; value?: string }[] = [
  {
    title: "OTEL_BSP_MAX_QUEUE_SIZE not a number",
    options: { ...BASE, env: { OTEL_BSP_MAX_QUEUE_SIZE: "lots" } },
    setting: "maxQueueSize (env OTEL_BSP_MAX_QUEUE_SIZE)",
    value: '"lots"',
  },
  {
    title: "OTEL_BSP_MAX_QUEUE_SIZE zero",
    options: { ...BASE, env: { OTEL_BSP_MAX_QUEUE_SIZE: "0" } },
    setting: "maxQueueSize (env OTEL_BSP_MAX_QUEUE_SIZE)",
  },
  {
    title: "OTEL_BSP_MAX_EXPORT_BATCH_SIZE fractional",
    options: { ...BASE, env: { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "1.5" } },
    setting: "maxExportBatchSize (env OTEL_BSP_MAX_EXPORT_BATCH_SIZE)",
  },
  {
    title: "OTEL_BSP_SCHEDULE_DELAY negative",
    options: { ...BASE, env: { OTEL_BSP_SCHEDULE_DELAY: "-5" } },
    setting: "scheduledDelayMillis (env OTEL_BSP_SCHEDULE_DELAY)",
  },
  {
    title: "OTEL_BSP_EXPORT_TIMEOUT with a unit",
    options: { ...BASE, env: { OTEL_BSP_EXPORT_TIMEOUT: "30s" } },
    setting: "exportTimeoutMillis (env OTEL_BSP_EXPORT_TIMEOUT)",
  },
  {
    title: "otlpProtocol grpc (option)",
    options: { ...BASE, otlpProtocol: "grpc" as never },
    setting: "otlpProtocol (env OTEL_EXPORTER_OTLP_TRACES_PROTOCOL)",
    value: '"grpc"',
  },
  {
    title: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL grpc (env)",
    options: { ...BASE, env: { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" } },
    setting: "otlpProtocol (env OTEL_EXPORTER_OTLP_TRACES_PROTOCOL)",
  },
  {
    title: "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION unknown",
    options: { ...BASE, env: { OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "brotli" } },
    setting: "otlpCompression (env OTEL_EXPORTER_OTLP_TRACES_COMPRESSION)",
  },
  {
    title: "OTEL_EXPORTER_OTLP_TRACES_HEADERS malformed",
    options: { ...BASE, env: { OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-tenant=blue,novalue" } },
    setting: "env OTEL_EXPORTER_OTLP_TRACES_HEADERS",
  },
  {
    title: "missing project",
    options: { baseUrl: BASE.baseUrl, env: {} },
    setting: "project (env TRACEWIRE_PROJECT)",
  },
  {
    title: "project without an entity",
    options: { baseUrl: BASE.baseUrl, env: { TRACEWIRE_PROJECT: "demo" } },
    setting: "project (env TRACEWIRE_PROJECT)",
  },
];

describe("ConfigError names the setting", () => {
  it.each(cases)("new TracewireSpanProcessor(): $title", ({ options, setting, value }) => {
    const err = configError(() => new TracewireSpanProcessor({ env: {}, ...options }));
    expect(err.setting).toBe(setting);
    expect(err.message).toContain(setting);
    if (value !== undefined) expect(err.value).toBe(value);
    expect(err.expected.length).toBeGreaterThan(0);
  });

  it.each(cases)("init(): $title", ({ options, setting }) => {
    const err = configError(() => init({ env: {}, ...(options as InitOptions) }));
    expect(err.setting).toBe(setting);
  });

  it.each([
    ["an entry without =, the token alone", "x-tenant=blue,sk-SECRET-0123456789"],
    ["a header whose = was dropped", "Authorization Bearer sk-SECRET-0123456789"],
    ["an entry with an empty name", "x-tenant=blue,=sk-SECRET-0123456789"],
  ])("OTEL_EXPORTER_OTLP_TRACES_HEADERS with %s: the error shows none of it", (_name, headers) => {
    const err = configError(
      () => new TracewireSpanProcessor({ ...BASE, env: { OTEL_EXPORTER_OTLP_TRACES_HEADERS: headers } }),
    );
    expect(err.setting).toBe("env OTEL_EXPORTER_OTLP_TRACES_HEADERS");
    expect(`${err.message} ${err.value}`).not.toContain("SECRET");
  });

  it.each([
    ["a password holding #", "https://u:sk-SECRET#1@collector.example.com/v1/traces"],
    ["a key in the query of a non-http URL", "ftp://collector.example.com/v1/traces?api_key=sk-SECRET-1"],
  ])("OtlpTraceExporter with a bad url (%s): the error shows no credential", (_name, url) => {
    const config = { url, project: PROJECT, protocol: "http/protobuf", compression: "gzip", timeoutMs: 1000 };
    const err = configError(() => new OtlpTraceExporter({ ...config, headers: {} } as never));
    expect(err.setting).toContain("url");
    expect(`${err.message} ${err.value}`).not.toContain("SECRET");
  });

  it("a good configuration after a bad one works (nothing half-registered)", async () => {
    configError(() => init({ ...BASE, env: { OTEL_BSP_MAX_QUEUE_SIZE: "lots" } }));
    const tracing = init({ ...BASE, env: { OTEL_BSP_MAX_QUEUE_SIZE: "16" }, exitHooks: false });
    expect(tracing.enabled).toBe(true);
    expect(globalState().live.size).toBe(1);
    await tracing.shutdown();
  });
});

describe("init()'s own options given to the processor (the app's own provider)", () => {
  it.each([
    ["serviceName", { serviceName: "checkout" }, "resource"],
    ["disabled", { disabled: true }, "leave the processor out"],
  ] as const)("%s is a ConfigError saying where it belongs, not ignored", (setting, extra, hint) => {
    const err = configError(() => new TracewireSpanProcessor({ ...BASE, env: {}, ...(extra as object) }));
    expect(err.setting).toBe(setting);
    expect(err.expected).toContain(hint);
  });

  it("init() still takes both", async () => {
    const tracing = init({ ...BASE, env: {}, exitHooks: false, serviceName: "checkout", disabled: false });
    expect(tracing.enabled).toBe(true);
    await tracing.shutdown();
  });
});

describe("span limits of the provider init() registers", () => {
  it.each([
    ["OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "-1"],
    ["OTEL_ATTRIBUTE_COUNT_LIMIT", "lots"],
    ["OTEL_SPAN_EVENT_COUNT_LIMIT", "1.5"],
    ["OTEL_SPAN_LINK_COUNT_LIMIT", "ten"],
    ["OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT", "-2"],
    ["OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT", "1e3"],
  ])("%s=%s is a ConfigError naming it", (name, value) => {
    const err = configError(() => init({ ...BASE, exitHooks: false, env: { [name]: value } }));
    expect(err.setting).toBe(`env ${name}`);
    expect(err.value).toBe(JSON.stringify(value));
  });
});
