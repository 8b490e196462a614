/**
 * docs/configuration.md's tables against the code: every option a table names is one the code reads (and every one
 * the code reads is in a table), each environment variable is read under that name, and each default is the one the
 * code uses. A row that drifts from the code fails here.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/markdown.mjs";
import { TracingClient } from "../../src/api/index.js";
import { DEFAULTS } from "../../src/config.js";
import { ConfigError } from "../../src/errors.js";
import { DEFAULT_RETRY } from "../../src/http/retry.js";
import { instrumentLangChain } from "../../src/instrument/langchain.js";
import { tracewireTraceProcessor } from "../../src/instrument/openai-agents.js";
import { withTracing } from "../../src/next/index.js";
import { KNOWN_OPTIONS } from "../../src/otel/known-options.js";
import { resolveProcessorOptions } from "../../src/otel/options.js";
import { configError } from "../support/errors.js";

/** The rows of the table under `heading` in docs/configuration.md, as cells (the header and rule rows left out). */
function tableUnder(heading: string): string[][] {
  const lines = readFileSync(join(ROOT, "docs/configuration.md"), "utf8").split("\n");
  const start = lines.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|")) {
      if (rows.length) break;
      continue;
    }
    rows.push(
      line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
  }
  return rows.slice(2);
}

/** The `code` spans of a cell. */
const codes = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

const BASE = { baseUrl: "http://127.0.0.1:9", project: "acme/demo" };

describe("docs/configuration.md: init() and TracewireSpanProcessor", () => {
  const rows = tableUnder("## `init()` and `TracewireSpanProcessor`");

  it("names exactly the options init() reads", () => {
    const named = rows.flatMap(([option]) => codes(option!));
    expect(new Set(named)).toEqual(new Set(Object.keys(KNOWN_OPTIONS)));
  });

  /** Where each numeric option lands in the resolved options, for the defaults the table gives. */
  const resolved: Record<string, (r: ReturnType<typeof resolveProcessorOptions>) => number> = {
    maxQueueSize: (r) => r.maxQueueSize,
    maxExportBatchSize: (r) => r.maxExportBatchSize,
    scheduledDelayMillis: (r) => r.scheduledDelayMillis,
    exportTimeoutMillis: (r) => r.exportTimeoutMillis,
    otlpTimeoutMillis: (r) => r.otlp.timeoutMs,
    otlpAttributeValueLengthLimit: (r) => r.otlp.attributeValueLengthLimit ?? Number.NaN,
    exitFlushMillis: (r) => r.exitFlushMillis,
  };

  it("gives each numeric option the default the code uses, and reads it from the variable the table names", () => {
    const defaults = resolveProcessorOptions({ ...BASE, env: {} });
    const checked: string[] = [];
    for (const [option, env, fallback] of rows) {
      const [name] = codes(option!);
      const get = resolved[name!];
      if (!get) continue;
      checked.push(name!);
      expect(String(get(defaults)), `${name} default`).toBe(fallback);
      for (const variable of codes(env!)) {
        const error = configError(() => resolveProcessorOptions({ ...BASE, env: { [variable]: "-5" } }));
        expect(error.setting, `${name} from ${variable}`).toBe(`${name} (env ${variable})`);
      }
    }
    expect(checked.sort()).toEqual(Object.keys(resolved).sort());
  });

  it("reads the other variables it names under those names", () => {
    const bad = (variable: string, value = "not-a-valid-value") =>
      configError(() => resolveProcessorOptions({ ...BASE, env: { [variable]: value } })).setting;
    expect(bad("TRACEWIRE_CAPTURE_CONTENT")).toBe("captureContent (env TRACEWIRE_CAPTURE_CONTENT)");
    expect(bad("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")).toMatch(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/);
    expect(bad("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION")).toMatch(/OTEL_EXPORTER_OTLP_TRACES_COMPRESSION/);
    expect(bad("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")).toMatch(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
    expect(bad("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "novalue")).toMatch(/OTEL_EXPORTER_OTLP_TRACES_HEADERS/);
    expect(bad("TRACEWIRE_ALLOW_INSECURE_HTTP")).toMatch(/TRACEWIRE_ALLOW_INSECURE_HTTP/);
    const resolvedDefaults = resolveProcessorOptions({ ...BASE, env: {} });
    expect(resolvedDefaults.maxBatchBytes).toBe(4 * 1024 * 1024); // "4 MiB"
    expect(resolvedDefaults.otlp.protocol).toBe("http/protobuf");
    expect(resolvedDefaults.otlp.compression).toBe("gzip");
    expect(resolvedDefaults.otlp.url).toBe(`${BASE.baseUrl}/otel/v1/traces`);
    expect(resolvedDefaults.exportMode).toBe("auto");
    expect(resolvedDefaults.exitHooks).toBe(true);
    expect(resolvedDefaults.payload.captureContent).toBe(true);
  });
  it("reads only the OTEL_EXPORTER_OTLP_TRACES_* variables, not the generic OTEL_EXPORTER_OTLP_* ones", () => {
    const generic = resolveProcessorOptions({
      ...BASE,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector=1",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_COMPRESSION: "none",
        OTEL_EXPORTER_OTLP_TIMEOUT: "5",
      },
    }).otlp;
    expect(generic).toMatchObject({
      url: `${BASE.baseUrl}/otel/v1/traces`,
      protocol: "http/protobuf",
      compression: "gzip",
      timeoutMs: 10000,
    });
    expect(generic.headers).not.toHaveProperty("x-collector");
  });
});

describe("docs/configuration.md: service clients", () => {
  const rows = tableUnder("## Service clients");
  const client = (options: object) => new TracingClient({ baseUrl: "http://127.0.0.1:9", env: {}, ...options });
  /** A value of the right type for each option the table names. */
  const sample: Record<string, unknown> = {
    apiKey: "sk-test-1234",
    baseUrl: "http://127.0.0.1:9",
    timeoutMs: 1000,
    connectTimeoutMs: 1000,
    bodyTimeoutMs: 1000,
    "retry.maxAttempts": 2,
    "retry.baseDelayMs": 10,
    "retry.maxDelayMs": 100,
    "retry.maxElapsedMs": 1000,
    "retry.maxRetryAfterMs": 1000,
    "retry.nonIdempotent": "refused",
    "retry.retryableStatuses": [503],
    headers: { "x-team": "a" },
    gzip: true,
    maxConnections: 4,
    allowInsecureHttp: false,
    env: {},
    trace: false,
  };

  it("takes every option the table names", () => {
    const named = rows.flatMap(([option]) => codes(option!));
    expect(named.sort()).toEqual(Object.keys(sample).sort());
    for (const name of named) {
      const [head, sub] = name.split(".") as [string, string?];
      expect(() => client(sub ? { [head]: { [sub]: sample[name] } } : { [head]: sample[name] }), name).not.toThrow();
    }
  });

  it("refuses an option that is not in the table, retry's included, naming it", () => {
    expect(configError(() => client({ timeout: 5 })).setting).toBe("TracingClient option timeout");
    // A misspelt retry setting did nothing: retries ran with the defaults.
    const error = configError(() => client({ retry: { maxAttemps: 1 } }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.setting).toBe("TracingClient option retry.maxAttemps");
    expect(error.message).toMatch(/retry\.maxAttempts/);
  });

  it("gives the defaults the code uses", () => {
    const byName = new Map(rows.flatMap((row) => codes(row[0]!).map((name) => [name, row[2]!] as const)));
    expect(byName.get("timeoutMs")).toBe(`${DEFAULTS.timeoutMs} (tracing), 600000 (inference, training)`);
    expect(byName.get("connectTimeoutMs")).toBe(String(DEFAULTS.connectTimeoutMs));
    expect(byName.get("bodyTimeoutMs")).toBe(String(DEFAULTS.bodyTimeoutMs));
    expect(byName.get("maxConnections")).toBe(String(DEFAULTS.maxConnections));
    expect(byName.get("retry.maxAttempts")).toBe(String(DEFAULT_RETRY.maxAttempts));
    expect(byName.get("retry.baseDelayMs")).toBe(`${DEFAULT_RETRY.baseDelayMs} / ${DEFAULT_RETRY.maxDelayMs}`);
    expect(byName.get("retry.maxElapsedMs")).toBe(String(DEFAULT_RETRY.maxElapsedMs));
    expect(byName.get("retry.maxRetryAfterMs")).toBe(String(DEFAULT_RETRY.maxRetryAfterMs));
    expect(byName.get("retry.retryableStatuses")).toBe(DEFAULT_RETRY.retryableStatuses.join(", "));
  });
});

describe("docs/configuration.md: elsewhere", () => {
  const named = new Set(tableUnder("## Elsewhere").flatMap(([setting]) => codes(setting!)));

  it("names the options of withTracing(), tracewireTraceProcessor() and instrumentLangChain(), the ones they read", () => {
    const withTracingError = configError(() => withTracing(async () => 1, { nme: "x" } as never));
    expect(withTracingError.message).toMatch(/one of name, route, attributes\.$/);
    const agentsError = configError(() => tracewireTraceProcessor({ maxRun: 1 } as never));
    expect(agentsError.message).toMatch(/expected maxRuns, its only option\.$/);
    const langchainError = configError(() => instrumentLangChain({ module: [] } as never));
    expect(langchainError.message).toMatch(/expected modules, its only option\.$/);
    for (const option of ["name", "route", "attributes", "maxRuns", "modules"]) expect(named).toContain(option);
  });
});
