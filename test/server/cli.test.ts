/**
 * The `tracewire` bin: help and argument errors, the startup banner, `--memory` and `--api-key`, and a graceful
 * stop on SIGINT / SIGTERM that lets a request in flight finish.
 */
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSqliteDriver } from "../../src/server/store/sqlite-driver.js";
import { buildCli, removeBuilt, runCli } from "./cli-process.js";
import { PROJECT, send, tempDir } from "./helpers.js";

let cli: string;
beforeAll(() => {
  cli = buildCli();
});
afterAll(() => removeBuilt(cli));

const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 10_000 });

describe("tracewire bin", () => {
  it("prints help, and refuses unknown commands and bad options with exit code 2", () => {
    for (const args of [["--help"], ["dev", "--help"]]) {
      const help = run(...args);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain("Usage: tracewire dev [--port 4319] [--data .tracewire] [--api-key KEY]");
    }
    const unknown = run("serve");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown command "serve"');
    expect(run().stderr).toContain("missing command");
    expect(run("dev", "--port", "http").stderr).toContain("--port must be an integer");
    expect(run("dev", "--bogus").status).toBe(2);
  });

  it("refuses a port that is not written as a whole number, instead of listening elsewhere", () => {
    for (const port of ["", "0x10", "1e3", " 80", "+80"]) {
      const res = run("dev", `--port=${port}`, "--memory");
      expect(res.status).toBe(2);
      expect(res.stderr).toContain(`--port must be an integer from 0 to 65535, got "${port}"`);
    }
  });

  it("says in one line which --data folder it cannot use, without a stack trace", () => {
    const dir = tempDir();
    try {
      const file = join(dir, "a-file");
      writeFileSync(file, "not a folder");
      const notDir = run("dev", "--port", "0", "--data", file);
      expect(notDir.status).toBe(2);
      expect(notDir.stderr).toContain(`tracewire: --data must be a folder where tracewire dev can keep traces.db`);
      expect(notDir.stderr).toContain(JSON.stringify(file));
      expect(notDir.stderr).not.toMatch(/\n\s+at /);
      writeFileSync(join(dir, "traces.db"), "not a database");
      const corrupt = run("dev", "--port", "0", "--data", dir);
      expect(corrupt.status).toBe(2);
      expect(corrupt.stderr).toContain("--data must be a folder where tracewire dev can keep traces.db");
      expect(corrupt.stderr).toContain("file is not a database");
      expect(corrupt.stderr).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps serving when indexing text in the background fails, and says so", async () => {
    const dataDir = tempDir();
    const server = runCli(cli, ["dev", "--port", "0", "--data", dataDir]);
    try {
      const url = await server.url;
      // A fault the service cannot fix (as a full disk or a lock held too long would be): the text index is gone.
      const db = (await findSqliteDriver()).driver!.open(join(dataDir, "traces.db"));
      db.exec("DROP TABLE calls_text_in");
      db.close();
      const started = { project_id: PROJECT, trace_id: "t", op_name: "op", started_at: new Date().toISOString() };
      const write = (id: string) =>
        send(url, "/call/start", { start: { ...started, id, attributes: {}, inputs: { text: "hello" } } });
      expect((await write("a")).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 400)); // past the pause after which indexing runs
      expect(server.child.exitCode).toBe(null);
      expect((await write("b")).status).toBe(200);
      expect((await send(url, "/calls/query_stats", { project_id: PROJECT })).json).toEqual({ count: 2 });
      expect(server.output()).toContain("[tracewire dev] text index: could not index");
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("serves in memory with an API key, and stops gracefully on SIGINT", async () => {
    const server = runCli(cli, ["dev", "--port", "0", "--memory", "--api-key", "k1"]);
    const url = await server.url;
    expect(server.output()).toContain("in memory");
    expect(server.output()).toContain("required (Authorization: Bearer <key>)");
    expect(server.output()).not.toContain("k1");
    expect((await send(url, "/calls/query_stats", { project_id: PROJECT })).status).toBe(401);
    const ok = await send(
      url,
      "/calls/query_stats",
      { project_id: PROJECT },
      { headers: { authorization: "Bearer k1" } },
    );
    expect(ok.json).toEqual({ count: 0 });
    server.child.kill("SIGINT");
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain("SIGINT: stopping");
  });

  it("finishes a request in flight on SIGTERM before exiting", async () => {
    const dataDir = tempDir();
    const server = runCli(cli, ["dev", "--port", "0", "--data", dataDir]);
    const url = await server.url;
    // A slow upload: the request is in flight when the signal arrives, and still answered.
    const body = JSON.stringify({ project_id: PROJECT });
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const parts = [body.slice(0, 5), body.slice(5)];
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (pulls++ === 1) {
          await sleep(150); // the server has the headers: the request is in flight
          server.child.kill("SIGTERM");
          await sleep(300);
        }
        const part = parts.shift();
        if (part === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(part));
      },
    });
    const res = await fetch(`${url}/calls/query_stats`, {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ count: 0 });
    expect(await server.exited).toEqual({ code: 0, signal: null });
    rmSync(dataDir, { recursive: true, force: true });
  });
});
