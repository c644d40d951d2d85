// Debian's headless Chromium driven by playwright-core, for the Web UI screenshots of the docs
// (scripts/screenshot-web-ui.ts, scripts/screenshot-encryption.ts). playwright-core downloads no browser:
// it drives the one at CHROMIUM (default /usr/bin/chromium, `apt-get install -y chromium`), with a fresh
// profile and nothing fetched from outside. The Web UI is a JS app, so each shot waits until the page
// shows the text it should, instead of guessing a delay.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Frame } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Flags that keep the browser from reaching outside (updates, sync, field trials) and from needing a GPU. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars',
];

/** Exits with the install hint when Chromium is missing. */
export function requireChromium(script: string): void {
  if (existsSync(CHROMIUM)) return;
  console.error(
    `${script}: Chromium not found at ${CHROMIUM}. Install Debian's package (apt-get update && apt-get install -y chromium) or set CHROMIUM=/path/to/chromium.`,
  );
  process.exit(1);
}

/** The visible text of a frame, '' while it cannot be read (navigating, cross-origin). */
const textOf = (frame: Frame) => frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');

export async function openChromium(size = { width: 1400, height: 900 }) {
  // A fresh profile each time: no state from an earlier run, and removed at close.
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: size,
    deviceScaleFactor: 1,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    async resize(width: number, height: number) {
      await page.setViewportSize({ width, height });
    },
    async goto(url: string) {
      await page.goto(url, { waitUntil: 'domcontentloaded' });
    },
    evaluate<T>(expression: string): Promise<T> {
      return page.evaluate(expression) as Promise<T>;
    },
    /** Waits until every text is on the page (or fails naming what is missing), then lets it settle. */
    async waitForText(texts: string[], timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // Markdown (summary, details) is rendered in iframes: read every frame.
        const body = (await Promise.all(page.frames().map(textOf))).join('\n');
        const missing = texts.filter((t) => !body.includes(t));
        if (missing.length === 0) break;
        if (Date.now() > deadline) throw new Error(`the page never showed: ${missing.join(', ')}`);
        await page.waitForTimeout(250);
      }
      await page.waitForTimeout(1_000);
    },
    async screenshot(file: string) {
      await page.screenshot({ path: file });
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
