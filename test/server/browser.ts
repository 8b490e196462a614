/**
 * Headless Chromium for the viewer tests: Debian's `chromium`, driven by playwright-core (which downloads no
 * browser). Without /usr/bin/chromium the tests fail under CI=true (where .ci/run installs it) and are skipped
 * elsewhere, with a message naming the install command.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
const INSTALL = "apt-get update && apt-get install -y chromium";

/** Whether the viewer tests run here: Chromium is installed, or CI requires it (and the launch then fails loudly). */
export function chromiumWanted(test: string): boolean {
  const available = existsSync(CHROMIUM);
  if (!available && process.env.CI !== "true") {
    console.warn(`[${test}] skipped: ${CHROMIUM} not found. Install it with: ${INSTALL}`);
  }
  return available || process.env.CI === "true";
}

export interface Browser {
  page: Page;
  context: BrowserContext;
  /** Page errors seen so far (a viewer script error fails the test that checks this). */
  errors: string[];
  close(): Promise<void>;
}

/** A fresh browser profile with one page. */
export async function launchChromium(viewport = { width: 1400, height: 820 }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is required for the viewer test but ${CHROMIUM} is missing. Install it with: ${INSTALL}`);
  }
  const profile = mkdtempSync(join(tmpdir(), "tracewire-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(err.message));
  return {
    page,
    context,
    errors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
