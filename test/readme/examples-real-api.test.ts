/**
 * docs/getting-started.md "Examples": given a real API key, an example talks to the real API, and a request that
 * fails there (here a loopback server refusing the key) is reported in two lines that say how to run offline, not as
 * an SDK stack trace; the example exits 1. Run as the npm scripts run them: a child process on the built package.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, beforeEach, expect, it } from "vitest";
import { setupTestServer, type TestServer } from "../support/server.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let server: TestServer;

setupTestServer((started) => {
  server = started;
});
beforeEach(() => {
  const refused = {
    status: 401,
    json: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } },
  };
  server.on("POST", /\/chat\/completions$/, refused);
  server.on("POST", /\/messages$/, refused);
});

beforeAll(async () => {
  await run(process.execPath, [join(ROOT, "scripts/build-if-stale.mjs")], { cwd: ROOT });
}, 300_000);

/** Runs an example to its end; its exit code and output. */
async function runExample(path: string, env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, "examples", path)], {
      cwd: ROOT,
      env: { ...process.env, TRACEWIRE_BASE_URL: "", TRACEWIRE_API_KEY: "", ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const { code, stdout, stderr } = err as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

it.each([
  ["openai/index.mjs", "OPENAI_API_KEY", { OPENAI_BASE_URL: "/v1" }],
  ["anthropic/index.mjs", "ANTHROPIC_API_KEY", { ANTHROPIC_BASE_URL: "" }],
])("%s with a real key the API refuses: two lines naming %s, exit 1", async (path, key, urls) => {
  const env: Record<string, string> = { [key]: "sk-not-a-real-key" };
  for (const [name, suffix] of Object.entries(urls)) env[name] = `${server.url}${suffix}`;
  const { code, stdout, stderr } = await runExample(path, env);
  expect(code).toBe(1);
  const lines = stderr
    .trim()
    .split("\n")
    .filter((line) => !line.startsWith("[tracewire]"));
  expect(lines).toEqual([
    expect.stringMatching(/^The model API request failed \(HTTP 401\): .*Incorrect API key provided/),
    `${key} is set, so this example talks to the real API: check the key, the model and the base URL, or unset ${key} to run it offline against the local stand-in.`,
  ]);
  expect(stdout).toContain("no answer");
});
