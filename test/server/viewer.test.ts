/**
 * The viewer page in real headless Chromium (Debian's `chromium`, driven by playwright-core, which downloads no
 * browser): traces traced by the library show up in the list (op, status, latency, tokens, model), a trace opens
 * as a call tree with children under their parent, and a call shows inputs, output, usage, exception and feedback.
 * New traces appear without a reload. A screenshot is saved and its path annotated on the test; with
 * TRACEWIRE_SCREENSHOTS=1 the test also writes docs/viewer.png, the picture the README shows.
 * (Without Chromium: see browser.ts.)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { trace } from "@opentelemetry/api";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callOf, init, op, type TracewireHandle } from "../../src/index.js";
import { type Browser, chromiumWanted, launchChromium } from "./browser.js";
import { closeAll, llm, PROJECT, startService, type TestService } from "./helpers.js";

const agent = op(
  async function agent(question: string) {
    const answer = await llm(question);
    trace.getTracer("foreign-lib").startActiveSpan("http GET", (span) => span.end());
    return { answer, transcript: "word ".repeat(200) };
  },
  { parameterNames: ["question"] },
);
const failing = op(async function failing() {
  throw new TypeError("tool exploded");
});
const guarded = op(async function guarded() {
  try {
    await failing();
  } catch {
    // handled: the trace goes on, and its root reports the failure below it
  }
  return "recovered";
});
const later = op(async function later() {
  return "late";
});

describe.skipIf(!chromiumWanted("viewer.test"))("viewer in Chromium", () => {
  let service: TestService;
  let tracing: TracewireHandle;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    service = await startService({ storage: "memory" });
    tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
    const result = await agent("What is up?");
    await callOf(result)!.react("👍");
    await failing().catch(() => {});
    await tracing.flush();
    browser = await launchChromium();
    page = browser.page;
  }, 60_000);

  afterAll(() => closeAll(browser, tracing, service));

  it("lists traces, shows the call tree, payloads, usage, exceptions and feedback, and refreshes live", async ({
    annotate,
  }) => {
    await page.goto(`${service.url}/?project=${encodeURIComponent(PROJECT)}`);

    const rows = page.locator("#trace-list tbody tr");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
    const agentRow = rows.filter({ hasText: "agent" });
    const cells = await agentRow.locator("td").allTextContents();
    // Started, Op, Status, Latency, Tokens, Model, Calls
    expect(cells.slice(1)).toEqual(["agent", "success", expect.stringMatching(/\d+ ms/), "17", "gpt-4o-mini", "3"]);
    expect(await rows.first().locator("td.op").textContent()).toBe("failing"); // newest first
    expect(await rows.first().locator(".status").textContent()).toBe("error");

    await agentRow.click();
    const root = page.locator("#tree > ul > li").first();
    await expect.poll(() => root.getAttribute("data-op")).toBe("agent");
    const children = root.locator(":scope > ul > li");
    expect(await children.evaluateAll((lis) => lis.map((li) => li.getAttribute("data-op")))).toEqual([
      "llm",
      "http GET",
    ]);
    expect(await root.locator(":scope > .node").textContent()).toContain("👍");

    const detail = page.locator("#detail");
    await expect.poll(() => detail.locator("h2").textContent()).toBe("agent");
    const text = (await detail.textContent()) ?? "";
    expect(text).toContain('"question": "What is up?"');
    expect(text).toContain('"answer": "answer to What is up?"');
    expect(text).toContain("(1000 chars)"); // a long value is folded
    expect(await detail.locator(".feedback .emoji").textContent()).toBe("👍");

    await children.filter({ hasText: "llm" }).locator(":scope > .node").click();
    await expect.poll(() => detail.locator("h2").textContent()).toBe("llm");
    expect(await detail.locator("table.usage").textContent()).toMatch(/gpt-4o-mini.*12.*5.*17.*1/);

    await rows.filter({ hasText: "failing" }).click();
    await expect.poll(() => detail.locator(".exception").textContent()).toContain("tool exploded");

    await later();
    await tracing.flush();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
    expect(await rows.first().locator("td.op").textContent()).toBe("later");

    await agentRow.click();
    await expect.poll(() => detail.locator("h2").textContent()).toBe("agent");
    const shot = join(mkdtempSync(join(tmpdir(), "tracewire-viewer-")), "viewer.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`[viewer.test] screenshot: ${shot}`);
    await annotate(`screenshot: ${shot}`, "screenshot");
    if (process.env.TRACEWIRE_SCREENSHOTS === "1") {
      // The README's and docs/local-service.md's picture of the viewer, regenerated on request only (a normal run
      // must not dirty the tree): TRACEWIRE_SCREENSHOTS=1 npx vitest run test/server/viewer.test.ts
      await page.setViewportSize({ width: 1280, height: 720 });
      await page.screenshot({ path: fileURLToPath(new URL("../../docs/viewer.png", import.meta.url)) });
    }
    expect(browser.errors).toEqual([]);
  }, 60_000);

  it("shows dates, 'descendant error' for a root whose child failed, and every column at 1280×720", async () => {
    await guarded();
    await tracing.flush();
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(`${service.url}/?project=${encodeURIComponent(PROJECT)}`);
    const row = page.locator("#trace-list tbody tr").filter({ hasText: "guarded" });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.locator(".status").textContent()).toBe("descendant error");
    const month = new Date().toLocaleString("en-US", { month: "short" });
    expect(await row.locator("td").first().textContent()).toMatch(
      new RegExp(`${month} \\d{1,2}, \\d{2}:\\d{2}:\\d{2}`),
    );
    // Every header cell of the list ends inside the list's pane.
    const pane = await page.locator("#traces").boundingBox();
    const heads = await page
      .locator("#trace-list th")
      .evaluateAll((ths) => ths.map((th) => [th.textContent, th.getBoundingClientRect().right]));
    expect(heads.map(([name]) => name)).toEqual(["Started", "Op", "Status", "Latency", "Tokens", "Model", "Calls"]);
    for (const [name, right] of heads) expect(right as number, String(name)).toBeLessThanOrEqual(pane!.x + pane!.width);
  }, 30_000);
});
