/**
 * Driving the viewer to one LLM call's conversation, for the viewer tests: open the project's trace list, the trace
 * whose root is `root`, select the `index`-th call named `opName`, wait for its conversation, and read back what the
 * detail pane shows (roles and texts of the messages, the answer, the model/tokens line).
 */
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { PROJECT } from "./helpers.js";

/** Opens the project's trace list and the trace whose root is `root`; waits for more than `minCalls` calls in its tree. */
export async function openTrace(page: Page, serviceUrl: string, root: string, minCalls = 0) {
  await page.goto(`${serviceUrl}/?project=${encodeURIComponent(PROJECT)}`);
  const row = page.locator("#trace-list tbody tr").filter({ hasText: root });
  await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
  await row.click();
  if (minCalls > 0)
    await expect.poll(() => page.locator("#tree li").count(), { timeout: 10_000 }).toBeGreaterThan(minCalls);
}

/** {@link openTrace}, then the `index`-th call named `opName` and its conversation (see the file comment). */
export async function openConversation(page: Page, serviceUrl: string, root: string, opName: string, index = 0) {
  await openTrace(page, serviceUrl, root);
  const node = page.locator(`#tree li[data-op="${opName}"] > .node`).nth(index);
  await expect.poll(() => node.count(), { timeout: 10_000 }).toBe(1);
  await node.click();
  const detail = page.locator("#detail");
  await expect.poll(() => detail.locator(".conversation").count(), { timeout: 10_000 }).toBe(1);
  const messages = detail.locator(".conversation > .msg");
  return {
    detail,
    roles: await messages.evaluateAll((els) => els.map((e) => e.getAttribute("data-role"))),
    texts: await messages.evaluateAll((els) => els.map((e) => e.querySelector(".parts")?.textContent ?? "")),
    answer: (await detail.locator(".answer").textContent()) ?? "",
    meta: (await detail.locator(".llm-meta").textContent()) ?? "",
    hash: () => page.evaluate<string>("location.hash"),
  };
}
