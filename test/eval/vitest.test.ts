/**
 * `tracewire/eval/vitest` from the outside: `vitest run` on a fixture project (in a child process) whose test file
 * is an evaluation; what it records is read back from the local service. Each test is a row (its LLM call under the
 * row's model call), scores logged inside the test, a test's pass or fail as the `passed` score, and thresholds as
 * a last test that fails when a score is below its minimum.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { evaluationRoots } from "../../src/eval/read-back.js";
import { hang, TestServer } from "../support/server.js";
import { childrenOf, opName, setupEval } from "./support.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PROJECT_DIR = fileURLToPath(new URL("./fixtures/vitest-project/", import.meta.url));
const setup = setupEval("acme/vitest");
const out = mkdtempSync(join(tmpdir(), "tw-vitest-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

interface Report {
  testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

/** `vitest run` on the fixture project's test file `testFile`, with `env`; its report saved as `<name>.json`. */
async function vitestRun(env: Record<string, string>, name: string, testFile = "capitals.eval.mjs") {
  const file = join(out, `${name}.json`);
  const child = spawn(
    process.execPath,
    [
      join(ROOT, "node_modules/vitest/vitest.mjs"),
      "run",
      testFile,
      "--root",
      PROJECT_DIR,
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${file}`,
    ],
    {
      cwd: PROJECT_DIR,
      env: { PATH: process.env.PATH, STANDIN_URL: setup.standIn.baseURL, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  const report = JSON.parse(readFileSync(file, "utf8")) as Report;
  const tests = report.testResults[0]!.assertionResults;
  const status = Object.fromEntries(tests.map((t) => [t.title, t.status]));
  const failures = tests.flatMap((t) => t.failureMessages).join("\n");
  return { code, output, status, failures };
}

const service = () => ({ TRACEWIRE_BASE_URL: setup.service.url, TRACEWIRE_PROJECT: setup.project });

describe("tracewire/eval/vitest", () => {
  it("records a test file as an evaluation: tests are rows, scores from inside the tests, pass/fail as a score", async () => {
    const { code, output, status } = await vitestRun(service(), "recorded");
    expect(status, output).toEqual({
      "answers 'Paris'": "passed",
      "answers 'Rome'": "passed",
      "answers 'Oslo'": "passed",
      "refuses nonsense": "failed",
      thresholds: "passed",
    });
    expect(code).toBe(1); // the failing test fails the run, as it should
    const [root] = (await evaluationRoots(setup.client, setup.project)).filter((r) =>
      /capitals-suite/.test(String(r.inputs.self)),
    );
    expect(root).toBeDefined();
    expect(root!.output).toEqual({
      exact: { true_count: 2, true_fraction: 2 / 3 },
      length: { mean: 13 / 3 },
      passed: { true_count: 3, true_fraction: 0.75 },
      model_latency: { mean: expect.any(Number) },
    });
    const calls = await setup.trace(root!.trace_id);
    const rows = childrenOf(calls, root!).filter((c) => opName(c) === "Evaluation.predict_and_score");
    expect(rows).toHaveLength(4);
    // Each row's example is a dataset row ref; the dataset is the tests' inputs.
    const examples = rows.map((r) => r.inputs.example as string);
    expect((await setup.client.refs.readBatch({ refs: examples })).vals).toEqual(
      expect.arrayContaining([{ city: "Paris", expected: "Paris" }, { city: "Atlantis" }]),
    );
    // The test's LLM call is recorded under the row's model call; the failed test's model call holds its error.
    for (const row of rows) {
      const [model] = childrenOf(calls, row).filter((c) => opName(c) === "echo-bot.predict");
      expect(childrenOf(calls, model!).map((c) => c.op_name)).toEqual(["openai.chat.completions.create"]);
    }
    const atlantis = rows.find((r) =>
      String((r.output as { scores: object }).scores && JSON.stringify(r.output)).includes('"passed":false'),
    )!;
    const failedModel = childrenOf(calls, atlantis).find((c) => opName(c) === "echo-bot.predict")!;
    expect(failedModel.exception).toMatch(/expected 'Atlantis' to be 'I do not know'/);
    expect(atlantis.output).toEqual({ output: null, scores: { passed: false }, model_latency: expect.any(Number) });
  }, 90_000);

  it("fails the thresholds test when a score is below its minimum", async () => {
    const { status, failures } = await vitestRun({ ...service(), MIN_EXACT: "0.9" }, "threshold");
    expect(status.thresholds, failures).toBe("failed");
    expect(failures).toMatch(/capitals-suite: exact \(mean or true fraction\) is at least 0\.9/);
  }, 90_000);

  it("without a service the tests still run and the thresholds are still checked, with one warning", async () => {
    const { status, output } = await vitestRun({ MIN_EXACT: "0.9" }, "offline");
    expect(status["answers 'Paris'"]).toBe("passed");
    expect(status.thresholds).toBe("failed");
    expect(output.match(/describeEval: not recorded/g)).toHaveLength(1);
  }, 90_000);

  for (const [what, start] of [
    ["refuses connections", async () => ({ url: "http://127.0.0.1:9", close: async () => {} })],
    [
      "never answers",
      async () => {
        const server = await TestServer.start();
        server.on("POST", /.*/, hang).on("GET", /.*/, hang);
        return { url: server.url, close: () => server.close() };
      },
    ],
  ] as const) {
    it(`with a service that ${what}, the tests pass or fail on their own and the thresholds are checked, with one warning`, async () => {
      const down = await start();
      try {
        const { status, output, failures } = await vitestRun(
          { TRACEWIRE_BASE_URL: down.url, TRACEWIRE_PROJECT: "acme/down", MIN_EXACT: "0.9" },
          `service-${what.replace(/ /g, "-")}`,
        );
        // Before: every test failed with the service's ConnectionError (or timed out waiting on it).
        expect(status, failures).toEqual({
          "answers 'Paris'": "passed",
          "answers 'Rome'": "passed",
          "answers 'Oslo'": "passed",
          "refuses nonsense": "failed",
          thresholds: "failed",
        });
        expect(failures).toMatch(/capitals-suite: exact \(mean or true fraction\) is at least 0\.9/);
        expect(failures).not.toMatch(/ConnectionError|TimeoutError|timed out/);
        expect(output.match(/describeEval: not recorded/g)).toHaveLength(1);
      } finally {
        await down.close();
      }
    }, 120_000);
  }

  it("runs the docs' vitest block verbatim (readme.eval.mjs) and records it as docs/evaluations.md says", async () => {
    const { code, output, status } = await vitestRun(service(), "readme", "readme.eval.mjs");
    expect(status, output).toEqual({ "capital of 'France'": "passed", thresholds: "passed" });
    expect(code, output).toBe(0);
    const [root] = (await evaluationRoots(setup.client, setup.project)).filter((r) =>
      /\/object\/capitals:/.test(String(r.inputs.self)),
    );
    expect(root).toBeDefined();
    expect(root!.output).toEqual({
      exact: { true_count: 1, true_fraction: 1 },
      passed: { true_count: 1, true_fraction: 1 },
      model_latency: { mean: expect.any(Number) },
    });
    const calls = await setup.trace(root!.trace_id);
    const [row] = childrenOf(calls, root!).filter((c) => opName(c) === "Evaluation.predict_and_score");
    // The test's return value is the row's output; its LLM call is recorded under the row's model call.
    expect(row!.output).toEqual({
      output: "Paris",
      scores: { exact: true, passed: true },
      model_latency: expect.any(Number),
    });
    const [model] = childrenOf(calls, row!).filter((c) => opName(c) === "Model.predict");
    expect(childrenOf(calls, model!).map((c) => c.op_name)).toEqual(["openai.chat.completions.create"]);
  }, 90_000);
});
