/**
 * The viewer's navigation in headless Chromium: the trace list filtered by op name, status and text (text found
 * in any call of a trace), with the selection in the URL hash, so back and forward (`hashchange`) and a reload
 * restore it; and the thread view, which lists a thread's turns in order, each opening its trace.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { init, op, type TracewireHandle, withThread } from "../../src/index.js";
import { type Browser, chromiumWanted, launchChromium } from "./browser.js";
import { closeAll, llm, PROJECT, startService, type TestService } from "./helpers.js";

const turn = op(
  async function turn(question: string) {
    return llm(question);
  },
  { parameterNames: ["question"] },
);
const research = op(async function research() {
  return llm("weather in Lisbon"); // the text is only in the child's inputs
});
const failing = op(async function failing() {
  throw new TypeError("tool exploded");
});

describe.skipIf(!chromiumWanted("viewer-navigation.test"))("viewer: filters, URL hash and threads", () => {
  let service: TestService;
  let tracing: TracewireHandle;
  let browser: Browser;

  beforeAll(async () => {
    service = await startService({ storage: "memory" });
    tracing = init({ baseUrl: service.url, project: PROJECT, env: {}, scheduledDelayMillis: 10 });
    await withThread("conv-42", () => turn("What should I pack?"));
    await research();
    await failing().catch(() => {});
    await withThread("conv-42", () => turn("And for the evening?"));
    await tracing.flush();
    browser = await launchChromium();
  }, 60_000);

  afterAll(() => closeAll(browser, tracing, service));

  it("filters by op name, status and text; the hash holds them through back, forward and reload", async () => {
    const { page } = browser;
    await page.goto(`${service.url}/?project=${encodeURIComponent(PROJECT)}`);
    const rows = page.locator("#trace-list tbody tr");
    const ops = () => rows.locator("td.op").allTextContents();
    const hash = () => page.evaluate<string>("decodeURIComponent(location.hash)");
    await expect.poll(ops, { timeout: 10_000 }).toEqual(["turn", "failing", "research", "turn"]);
    expect(await hash()).toBe(`#project=${PROJECT}`);

    await page.locator("#filter-op").fill("TUR"); // part of the name, any case
    await expect.poll(ops, { timeout: 5_000 }).toEqual(["turn", "turn"]);
    expect(await hash()).toBe(`#project=${PROJECT}&op=TUR`);
    await page.locator("#filter-op").fill("");
    await expect.poll(ops, { timeout: 5_000 }).toHaveLength(4);

    await page.locator("#filter-q").fill("lisbon");
    await expect.poll(ops, { timeout: 5_000 }).toEqual(["research"]);
    expect(await hash()).toBe(`#project=${PROJECT}&q=lisbon`);

    await page.locator("#filter-q").fill("");
    await expect.poll(ops, { timeout: 5_000 }).toHaveLength(4);
    await page.locator("#filter-status").selectOption("error");
    await expect.poll(ops, { timeout: 5_000 }).toEqual(["failing"]);
    expect(await hash()).toBe(`#project=${PROJECT}&status=error`);
    await page.locator("#filter-q").fill("nothing like this");
    await expect
      .poll(() => page.locator("#trace-rows .empty").textContent(), { timeout: 5_000 })
      .toContain("No traces match these filters.");

    // Back: the status filter alone; back again: the cleared text field (one field's edit is one entry); forward
    // twice: the text filter on top again.
    await page.goBack();
    await expect.poll(ops, { timeout: 5_000 }).toEqual(["failing"]);
    expect(await page.locator("#filter-q").inputValue()).toBe("");
    expect(await page.locator("#filter-status").inputValue()).toBe("error");
    await page.goBack();
    await expect.poll(ops, { timeout: 5_000 }).toHaveLength(4);
    expect(await page.locator("#filter-status").inputValue()).toBe("");
    await page.goForward();
    await expect.poll(ops, { timeout: 5_000 }).toEqual(["failing"]);
    await page.goForward();
    await expect.poll(() => page.locator("#filter-q").inputValue(), { timeout: 5_000 }).toBe("nothing like this");
    await expect.poll(ops, { timeout: 5_000 }).toEqual([]); // the list reloads after the fields are set
    await page.goBack();
    await expect.poll(ops, { timeout: 5_000 }).toEqual(["failing"]);

    // A selected trace is in the hash too, and a reload opens the same list and trace.
    await rows.first().click();
    await expect.poll(() => page.locator("#detail h2").textContent()).toBe("failing");
    expect(await hash()).toMatch(new RegExp(`^#project=${PROJECT}&status=error&trace=[0-9a-f]+$`));
    await page.reload();
    await expect.poll(ops, { timeout: 10_000 }).toEqual(["failing"]);
    await expect.poll(() => page.locator("#detail h2").textContent()).toBe("failing");
    await expect.poll(() => rows.first().getAttribute("class")).toBe("selected");
    expect(browser.errors).toEqual([]);
  }, 60_000);

  it("shows a thread's turns in order, each opening its trace; back returns to the thread", async ({ annotate }) => {
    const { page } = browser;
    await page.goto(`${service.url}/?project=${encodeURIComponent(PROJECT)}`);
    await page.locator("#tab-threads").click();
    const threadRow = page.locator("#thread-list tbody tr");
    await expect
      .poll(() => threadRow.locator("td").allTextContents(), { timeout: 10_000 })
      .toEqual(["conv-42", "2", expect.any(String), expect.any(String)]);
    await threadRow.click();
    const turns = page.locator("#thread ol.turns > li");
    await expect.poll(() => turns.count(), { timeout: 10_000 }).toBe(2);
    expect(await turns.locator(".turn-in").allTextContents()).toEqual([
      "inWhat should I pack?",
      "inAnd for the evening?",
    ]);
    expect(await turns.locator(".turn-out").allTextContents()).toEqual([
      "outanswer to What should I pack?",
      "outanswer to And for the evening?",
    ]);
    expect(decodeURIComponent(await page.evaluate<string>("location.hash"))).toBe(
      `#project=${PROJECT}&view=threads&thread=conv-42`,
    );

    const shot = join(mkdtempSync(join(tmpdir(), "tracewire-viewer-")), "thread.png");
    await page.screenshot({ path: shot, fullPage: true });
    await annotate(`screenshot: ${shot}`, "screenshot");
    console.log(`[viewer-navigation.test] screenshot: ${shot}`);

    const second = await turns.nth(1).getAttribute("data-call-id");
    await turns.nth(1).click();
    await expect.poll(() => page.locator("#trace").isVisible()).toBe(true);
    await expect.poll(() => page.locator("#tree li").first().getAttribute("data-call-id")).toBe(second);
    await expect.poll(() => page.locator("#detail h2").textContent()).toBe("turn");
    expect(await page.locator("#detail .ids").first().textContent()).toContain("thread conv-42");

    await page.goBack();
    await expect.poll(() => page.locator("#thread").isVisible()).toBe(true);
    await expect.poll(() => turns.count()).toBe(2);
    expect(await page.locator("#traces").isVisible()).toBe(false);

    // The thread link in a call's detail opens its thread.
    await page.goForward();
    await expect.poll(() => page.locator("#detail h2").textContent()).toBe("turn");
    await page.locator("#detail a.thread-link").click();
    await expect.poll(() => turns.count(), { timeout: 5_000 }).toBe(2);
    expect(browser.errors).toEqual([]);
  }, 60_000);
});
