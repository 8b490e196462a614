/**
 * The viewer's Evaluations view in headless Chromium: the list (dataset, model, scores, status, date) with the
 * evaluations of `evaluate()` and of the vendor's TS SDK, one evaluation's rows (inputs, output, each score,
 * latency, tokens) filtered to failed or low-scoring ones, a row opening its trace, and two evaluations compared
 * row by row with per-score deltas, regressions first. (Without Chromium: see browser.ts.)
 */
import { join } from "node:path";
import OpenAI from "openai";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TracingClient } from "../../src/api/index.js";
import { type EvaluationResult, evaluate } from "../../src/eval/index.js";
import { init, type TracewireHandle } from "../../src/index.js";
import { wrapOpenAI } from "../../src/instrument/index.js";
import { OpenAIServer } from "../support/openai-server.js";
import { type Browser, chromiumWanted, launchChromium } from "./browser.js";
import { runWeaveApp, startService, type TestService } from "./helpers.js";

const PROJECT = "local/evals-view";
const ROWS = [
  { question: "Paris", expected: "Paris" },
  { question: "Rome", expected: "Rome" },
  { question: "Oslo", expected: "Oslo" },
  { question: "Lima", expected: "Lima" },
];

describe.skipIf(!chromiumWanted("viewer-evals.test"))("the Evaluations view in Chromium", () => {
  let service: TestService;
  let standIn: OpenAIServer;
  let tracing: TracewireHandle;
  let browser: Browser;
  let page: Page;
  let good: EvaluationResult;
  let worse: EvaluationResult;
  const tracingClient = () => new TracingClient({ baseUrl: service.url, project: PROJECT, env: {} });

  beforeAll(async () => {
    service = await startService({ storage: "memory" });
    standIn = await OpenAIServer.start();
    tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
    const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: standIn.baseURL, maxRetries: 0 }));
    const run = (broken: boolean) =>
      evaluate({
        name: "capitals",
        dataset: ROWS,
        task: async function answer(row) {
          if (broken && row.question === "Lima") throw new Error("the model is down for Lima");
          const c = await openai.chat.completions.create({
            model: "m-echo",
            messages: [{ role: "user", content: row.question }],
          });
          const text = c.choices[0]!.message.content ?? "";
          return broken && row.question === "Rome" ? `${text}?` : text;
        },
        scorers: [
          function exact({ output, row }) {
            return output === row.expected;
          },
          function length({ output }) {
            return output.length;
          },
        ],
        progress: false,
      });
    good = await run(false);
    worse = await run(true);
    // An evaluation recorded by the vendor's TS SDK, in its own process.
    await runWeaveApp(join(import.meta.dirname, "../eval/fixtures/weave-eval-app.cjs"), service.url, PROJECT);
    await tracing.flush();
    browser = await launchChromium();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await tracing?.shutdown();
    await standIn?.close();
    await service?.close();
  });

  it("lists the evaluations, ours and the vendor SDK's, with dataset, model, scores, status and date", async () => {
    await page.goto(`${service.url}/#project=${encodeURIComponent(PROJECT)}&view=evals`);
    const rows = page.locator("#eval-list tbody tr");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
    expect(await page.locator("#tab-evals").getAttribute("class")).toBe("active");
    const cells = async (id: string) =>
      rows.locator(`xpath=self::*[@data-eval-id="${id}"]`).locator("td").allTextContents();
    const [name, dataset, model, summary, status, started] = await cells(worse.callId);
    expect(name).toMatch(/^capitals · /);
    expect([dataset, model, status]).toEqual(["capitals-dataset", "answer", "done"]);
    // Lima failed (left out); Rome answered "Rome?".
    expect(summary).toContain("exact 66.7%");
    expect(summary).toContain("length 4.67");
    expect(started).toMatch(/\d\d:\d\d:\d\d/);
    expect((await cells(good.callId))[3]).toContain("exact 100.0%");
    const vendorRow = rows.filter({ hasText: "vendor-capitals" });
    await expect.poll(() => vendorRow.count()).toBe(1);
    const vendorCells = await vendorRow.locator("td").allTextContents();
    expect(vendorCells[1]).toBe("capitals");
    expect(vendorCells[3]).toContain("exact 60.0%");
    expect(browser.errors).toEqual([]);
  });

  it("opens an evaluation's rows, filters them to failed or low-scoring ones, and a row opens its trace", async () => {
    await page.locator(`#eval-list tbody tr[data-eval-id="${worse.callId}"]`).click();
    const rows = page.locator("#eval-rows tbody tr");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(4);
    const head = await page.locator("#eval-rows thead th").allTextContents();
    expect(head).toEqual(["#", "Inputs", "Output", "exact", "length", "Latency", "Tokens"]);
    const rome = await rows.nth(1).locator("td").allTextContents();
    expect(rome.slice(0, 5)).toEqual(["2", '{"question":"Rome","expected":"Rome"}', "Rome?", "✗", "5"]);
    expect(rome[5]).toMatch(/^\d+\.\d\d s$/);
    // Tokens: the model call's total as the service answers it (its own usage plus, once usage rolls up, its LLM call's).
    const scope = tracingClient().project("local", "evals-view");
    const answer = await scope.evalResults.query({ evaluation_call_ids: [worse.callId] });
    const trial = (
      answer.rows as { row_digest: string; evaluations: { trials: { total_tokens: number | null }[] }[] }[]
    ).find((r) => r.row_digest === worse.rows[1]!.rowDigest)!.evaluations[0]!.trials[0]!;
    expect(rome[6]).toBe(trial.total_tokens === null ? "" : String(trial.total_tokens));
    const lima = await rows.nth(3).locator("td").allTextContents();
    expect(lima[2]).toContain("the model is down for Lima");
    expect(await rows.nth(3).getAttribute("class")).toBe("failed");

    await page.selectOption("#row-filter", "failed");
    await expect.poll(() => rows.count()).toBe(1);
    expect(page.url()).toContain("rows=failed");
    await page.selectOption("#row-filter", "low");
    // Rome (✗), Oslo (length 4, below the mean 4.67) and Lima (failed); Paris scores ✓ and length 5.
    await expect.poll(() => rows.count()).toBe(3);
    expect(await page.locator("#eval-count").textContent()).toBe("3 of 4 rows");

    const callId = await rows.first().getAttribute("data-call-id");
    await rows.first().click();
    await expect.poll(() => page.locator("main").getAttribute("data-view")).toBe("traces");
    await expect
      .poll(() => page.locator("#tree .node.selected .name").textContent())
      .toBe("Evaluation.predict_and_score");
    expect(page.url()).toContain(`call=${callId}`);
    await page.goBack();
    await expect.poll(() => page.locator("main").getAttribute("data-view")).toBe("evals");
    expect(browser.errors).toEqual([]);
  });

  it("compares two evaluations row by row, with per-score deltas and the regressions first", async () => {
    await page.goto(
      `${service.url}/#project=${encodeURIComponent(PROJECT)}&view=evals&eval=${worse.callId}&compare=${good.callId}`,
    );
    const summary = page.locator("#compare-summary tbody tr");
    await expect.poll(() => summary.count(), { timeout: 10_000 }).toBe(2);
    expect(await summary.nth(0).locator("td").allTextContents()).toEqual(["exact", "100.0%", "66.7%", "-33.3 pts"]);
    expect(await summary.nth(0).getAttribute("class")).toBe("regressed");
    expect(await summary.nth(1).locator("td").allTextContents()).toEqual(["length", "4.25", "4.67", "+0.417"]);
    const rows = page.locator("#compare-rows tbody tr");
    await expect.poll(() => rows.count()).toBe(4);
    // Rome got worse (exact 1 → 0); Lima failed in this run, so it has no scores to compare.
    expect(await rows.nth(0).getAttribute("class")).toBe("regressed");
    expect(await rows.nth(0).locator("td").first().textContent()).toContain("Rome");
    expect(await rows.nth(0).locator('td[data-key="exact"]').textContent()).toBe("1 → 0 (-1)");
    expect(await page.locator("#compare-count").textContent()).toBe("4 rows · 1 regressed · 0 improved");
    // The rows line up by digest: the same rows as the evaluation's own.
    const digests = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-row-digest")).sort());
    expect(digests).toEqual([...new Set(good.rows.map((r) => r.rowDigest))].sort());
    // Swapping the sides turns exact's drop into a gain (and Rome's shorter answer into a drop in length).
    await page.getByRole("button", { name: "⇄ swap" }).click();
    await expect.poll(() => rows.nth(0).locator('td[data-key="exact"]').textContent()).toBe("0 → 1 (+1)");
    expect(await rows.nth(0).locator('td[data-key="length"]').textContent()).toBe("5 → 4 (-1)");
    expect(page.url()).toContain(`eval=${good.callId}&compare=${worse.callId}`);
    expect(browser.errors).toEqual([]);
  });
});
