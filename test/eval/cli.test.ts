/**
 * `tracewire eval` from the outside: the bin, bundled with the entries a user's files import (support.ts
 * `packageForCli`), in a child process, on evaluation files that import tracewire by name, against the local
 * service and the OpenAI stand-in. Exit codes,
 * the report, `--fail-under`, `--json`, `--baseline` with the rows that got worse, Ctrl-C (130, the open calls
 * cancelled) then `--resume`, and the errors that say what to fix.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { childrenOf, opName, packageForCli, setupEval } from "./support.js";

const setup = setupEval("acme/cli");
// Each case runs the bin once or more (a child process that loads the bundle and runs an evaluation).
vi.setConfig({ testTimeout: 90_000 });
let BIN: string;
let FIXTURES: string;
let packaged: string;

beforeAll(() => {
  const built = packageForCli(fileURLToPath(new URL("./fixtures/cli/", import.meta.url)));
  BIN = built.bin;
  FIXTURES = built.dir;
  packaged = built.root;
}, 60_000);
afterAll(() => rmSync(packaged, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  output: () => { stdout: string; stderr: string };
  exit: Promise<number | null>;
}

function start(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [BIN, "eval", ...args], {
    cwd: FIXTURES,
    env: {
      PATH: process.env.PATH,
      TRACEWIRE_BASE_URL: setup.service.url,
      TRACEWIRE_PROJECT: setup.project,
      STANDIN_URL: setup.standIn.baseURL,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr!.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { child, output: () => ({ stdout, stderr }), exit };
}

async function run(args: string[], env: Record<string, string> = {}) {
  const r = start(args, env);
  const code = await r.exit;
  return { code, ...r.output() };
}

describe("tracewire eval", () => {
  it("runs a file's evaluation, prints the summary and the viewer link, and exits 0 when the checks pass", async () => {
    const { code, stdout, stderr } = await run(["quality.mjs", "--fail-under", "exact_match=0.5"]);
    expect(stderr).toMatch(/quality: 6 row×trial\(s\) to run/);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/quality \(done\): 6\/6 scored/);
    expect(stdout).toMatch(/exact_match\s+true fraction\s+100\.0%/);
    expect(stdout).toMatch(/pass {2}mentions 1\.0000 \(at least 0\.5\)/);
    expect(stdout).toMatch(/pass {2}exact_match 1\.0000 \(at least 0\.5\)/);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/#project=acme%2Fcli&view=evals&eval=([0-9a-f]{16}))/.exec(stdout);
    expect(url).not.toBeNull();
    const root = (await setup.client.calls.read({ id: url![2]! })).call!;
    expect(opName(root)).toBe("Evaluation.evaluate");
    const calls = await setup.trace(root.trace_id);
    // The file's wrapped OpenAI client (another copy of tracewire, from dist/) nests its calls under the model's.
    const models = calls.filter((c) => opName(c) === "answer.predict");
    expect(models).toHaveLength(6);
    for (const model of models)
      expect(childrenOf(calls, model).map((c) => c.op_name)).toEqual(["openai.chat.completions.create"]);
  });

  it("exits 1 when a threshold fails, and --json prints the results for machines", async () => {
    const { code, stdout, stderr } = await run(["quality.mjs", "--fail-under", "exact_match=0.9", "--json"], {
      BROKEN: "1",
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/FAIL {2}exact_match 0\.6667 \(at least 0\.9\)/);
    const json = JSON.parse(stdout);
    expect(json).toMatchObject({
      passed: false,
      interrupted: false,
      evaluations: [
        {
          file: "quality.mjs",
          name: "quality",
          passed: false,
          summary: { exact_match: { true_count: 4, true_fraction: 4 / 6 }, mentions: { true_count: 6 } },
          counts: { total: 6, ok: 6 },
          thresholds: [
            { key: "mentions", min: 0.5, value: 1, passed: true },
            { key: "exact_match", min: 0.9, value: 4 / 6, passed: false },
          ],
        },
      ],
    });
    expect(json.evaluations[0].callId).toMatch(/^[0-9a-f]{16}$/);
  });

  it("--json writes a scorer's own summary even when it holds a BigInt or a cycle", async () => {
    const { code, stdout, stderr } = await run(["quality.mjs", "--json"], { ODD_SUMMARY: "1" });
    expect(code, stderr).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.passed).toBe(true);
    expect(json.evaluations[0].summary.odd).toEqual({ rows: "6", self: "[Circular]" });
    expect(json.evaluations[0].summary.exact_match).toEqual({ true_count: 6, true_fraction: 1 });
  });

  it("--baseline compares with an earlier run: per-score deltas, the rows that got worse, exit 1 on a drop", async () => {
    const good = await run(["quality.mjs", "--json"]);
    expect(good.code).toBe(0);
    const baselineId = JSON.parse(good.stdout).evaluations[0].callId;
    const { code, stdout, stderr } = await run(["quality.mjs", "--baseline", baselineId, "--json"], { BROKEN: "1" });
    expect(code).toBe(1);
    const { baseline } = JSON.parse(stdout).evaluations[0];
    expect(baseline).toMatchObject({ callId: baselineId, sharedRows: 6, regressed: true });
    expect(baseline.deltas).toContainEqual({
      key: "exact_match",
      baseline: 1,
      current: 4 / 6,
      delta: 4 / 6 - 1,
      regressed: true,
    });
    expect(baseline.worseRows.map((r: { index: number; key: string }) => [r.index, r.key]).sort()).toEqual([
      [1, "exact_match"],
      [3, "exact_match"],
    ]);
    expect(stderr).toMatch(/WORSE exact_match 1\.0000 → 0\.6667 \(-0\.3333\)/);
    expect(stderr).toMatch(/rows that got worse \(2\):/);
    // By name: the latest finished run of "quality" other than this one; within tolerance it passes.
    const byName = await run(["quality.mjs", "--baseline", "quality", "--tolerance", "0.5"], { BROKEN: "1" });
    expect(byName.code, byName.stderr).toBe(0);
  });

  it("Ctrl-C ends the open calls as cancelled and exits 130; --resume scores the rest into the same evaluation", async () => {
    const slow = start(["quality.mjs"], { SLOW_MS: "700" });
    await expect.poll(() => slow.output().stderr, { timeout: 20_000 }).toMatch(/[1-4]\/6 rows/);
    slow.child.kill("SIGINT");
    expect(await slow.exit).toBe(130);
    const interrupted = slow.output();
    expect(interrupted.stderr).toMatch(/interrupted: ending the open calls as cancelled/);
    expect(`${interrupted.stdout}${interrupted.stderr}`).toMatch(/run again with --resume/);
    const rootId = /eval=([0-9a-f]{16})/.exec(interrupted.stdout)![1]!;
    const root = (await setup.client.calls.read({ id: rootId })).call!;
    expect(root.summary!.tracewire).toEqual({ status: "cancelled", cancel_reason: "abort" });

    const resumed = await run(["quality.mjs", "--resume"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`eval=${rootId}`);
    expect(resumed.stdout).toMatch(/6\/6 scored, [1-5] from the earlier run/);
    const calls = await setup.trace(root.trace_id);
    const rows = childrenOf(calls, calls.find((c) => c.id === rootId)!).filter(
      (c) => opName(c) === "Evaluation.predict_and_score",
    );
    expect(rows).toHaveLength(6);
    expect(calls.filter((c) => !c.ended_at)).toEqual([]);
  });

  it("says what is wrong: usage (exit 2), a file that is not an evaluation (2), no service (3)", async () => {
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/which file\?/);
    expect(none.stderr).toMatch(/Usage: tracewire eval/);
    const flag = await run(["quality.mjs", "--fail-under", "exact"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--fail-under takes scorer=number/);
    const bad = await run(["not-an-eval.mjs"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/default export of not-an-eval\.mjs .* expected the options of an evaluate\(\) call/);
    const missing = await run(["nowhere.mjs"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot load nowhere\.mjs/);
    const down = await run(["quality.mjs"], {
      TRACEWIRE_BASE_URL: "http://127.0.0.1:9",
      TRACEWIRE_MAX_ATTEMPTS: "1",
      TRACEWIRE_TIMEOUT_MS: "2000",
    });
    expect(down.code).toBe(3);
    expect(down.stdout).toMatch(/quality: .*127\.0\.0\.1:9/);
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Node 20 cannot: compile to \.mjs first/);
  });

  it("runs a .ts file where Node strips types, and says which Node can where it does not", async () => {
    const { code, stdout, stderr } = await run(["typed.ts"]);
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    if (major > 22 || (major === 22 && minor >= 18)) {
      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/typed \(done\): 2\/2 scored/);
    } else {
      expect(code).toBe(2);
      expect(stderr).toMatch(/a TypeScript file on Node \d+.* Node 22\.18\+ \/ 24/);
    }
  });
});
