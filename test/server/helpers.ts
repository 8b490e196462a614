/**
 * Helpers for the local tracing service's tests: start it on a free port with a recording logger and a fresh
 * data folder, send raw requests, drain async iterables, and a traced LLM step for the scenarios they trace.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { trace } from "@opentelemetry/api";
import { afterAll, beforeAll } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { op } from "../../src/index.js";
import { type DevServer, type DevServerOptions, startDevServer } from "../../src/server/index.js";
import { findSqliteDriver, type SqliteDriverName } from "../../src/server/store/sqlite-driver.js";

export const PROJECT = "acme/demo";

/** The id of test call `n` (16 hex digits). */
export const callId = (n: number): string => n.toString(16).padStart(16, "0");
/** An ISO time `s` seconds after 2026-01-05 10:00 UTC: fixed dates, in call order. */
export const atSecond = (s: number): string => new Date(Date.UTC(2026, 0, 5, 10, 0, s)).toISOString();

/**
 * A service with `storage` and a `TracingClient` on it for the tests of one `describe`: started in `beforeAll`, where
 * `seed` then writes the calls the tests read; both closed in `afterAll`. Read `service` and `client` inside tests.
 */
export function setupSeededService(
  storage: "sqlite" | "memory",
  seed: (service: TestService, client: TracingClient) => Promise<void>,
): { readonly service: TestService; readonly client: TracingClient } {
  let started: { service: TestService; client: TracingClient } | undefined;
  beforeAll(async () => {
    const service = await startService({ storage });
    const client = new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });
    started = { service, client };
    await seed(service, client);
  });
  afterAll(async () => {
    await started?.client.close();
    await started?.service.close();
    started = undefined;
  });
  const get = () => {
    if (!started) throw new Error("setupSeededService: the service starts in beforeAll");
    return started;
  };
  return {
    get service() {
      return get().service;
    },
    get client() {
      return get().client;
    },
  };
}

/** An op standing in for an LLM call: a GenAI chat span with model and usage (12 in, 5 out), answering `prompt`. */
export const llm = op(async function llm(prompt: string) {
  trace.getActiveSpan()!.setAttributes({
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.response.model": "gpt-4o-mini",
    "gen_ai.usage.input_tokens": 12,
    "gen_ai.usage.output_tokens": 5,
  });
  return `answer to ${prompt}`;
});

export interface TestService {
  server: DevServer;
  url: string;
  dataDir: string;
  logs: string[];
  /** Closes the server; the data folder is removed unless `keepData`. */
  close(keepData?: boolean): Promise<void>;
}

export function tempDir(prefix = "tracewire-dev-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Starts the service on a free port; `dataDir` defaults to a new temp folder. Retention is off unless asked for:
 * test data carries fixed dates, which the default (30 days) would soon delete.
 */
export async function startService(options: DevServerOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? tempDir();
  const logs: string[] = [];
  const server = await startDevServer({
    port: 0,
    dataDir,
    keep: 0,
    maxCalls: 0,
    logger: { warn: (m) => logs.push(m), error: (m) => logs.push(m) },
    ...options,
  });
  return {
    server,
    url: server.url,
    dataDir,
    logs,
    async close(keepData = false) {
      await server.close();
      if (!keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The SQLite drivers that load in this Node (node:sqlite on ≥ 22.13, better-sqlite3 when built for it). */
export async function availableDrivers(): Promise<SqliteDriverName[]> {
  const names: SqliteDriverName[] = [];
  for (const name of ["node:sqlite", "better-sqlite3"] as const) {
    if ((await findSqliteDriver(name)).driver) names.push(name);
  }
  return names;
}

/** A raw JSON request with fetch (status and body as sent by the service, no client-side checks). */
export async function send(
  url: string,
  path: string,
  body?: unknown,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: unknown; text: string; headers: Headers }> {
  const res = await fetch(`${url}${path}`, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", ...init.headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

/** Parses an NDJSON answer. */
export const ndjson = (text: string): Record<string, unknown>[] =>
  text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

export { collect } from "../support/collect.js";

/**
 * Runs an app written against the vendor's TypeScript SDK (npm `weave`) in a child process against the local
 * service, offline: `WF_TRACE_SERVER_URL` points it at the service, any API key passes, an `entity/project` name
 * spares it the hosted default-entity lookup, and a home of its own keeps the user's ~/.netrc out. Resolves with the
 * last line it printed.
 */
export async function runWeaveApp(app: string, serviceUrl: string, project: string): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), "weave-home-"));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [app], {
      cwd: home,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        WF_TRACE_SERVER_URL: serviceUrl,
        WANDB_API_KEY: "local-key",
        WANDB_BASE_URL: "http://127.0.0.1:9",
        WEAVE_PROJECT: project,
        NODE_PATH: join(import.meta.dirname, "..", "..", "node_modules"),
      },
    });
    return stdout.trim().split("\n").pop()!;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Closes (or, for tracing, shuts down) each of `things` in order, skipping what a failed setup left undefined. */
export async function closeAll(
  ...things: ({ close(): Promise<unknown> } | { shutdown(): Promise<unknown> } | undefined)[]
): Promise<void> {
  for (const thing of things) {
    if (!thing) continue;
    if ("shutdown" in thing) await thing.shutdown();
    else await thing.close();
  }
}
