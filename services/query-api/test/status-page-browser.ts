/// <reference lib="dom" />
/**
 * What the status page's browser tests share: Debian's chromium through playwright-core, a watch
 * on everything a page does that a viewer would count as broken (console errors, uncaught
 * exceptions, failed responses, the API key in any URL), screenshots in test-results/status-page/
 * (each path printed, so a run lists them), and sign-in through the form.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

export const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '../../../test-results/status-page');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface PageWatch {
  /** Console messages of type error, uncaught exceptions and responses of 400 or more, as text. */
  problems: string[];
  /** Every URL the page navigated to or requested. */
  urls: string[];
}

export function watchPage(page: Page): PageWatch {
  const watch: PageWatch = { problems: [], urls: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') watch.problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (error) => watch.problems.push(`exception: ${error.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) watch.problems.push(`HTTP ${r.status()} ${r.url()}`);
  });
  page.on('request', (r) => watch.urls.push(r.url()));
  page.on('framenavigated', (frame) => watch.urls.push(frame.url()));
  return watch;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  process.stdout.write(`screenshot: ${path}\n`);
  return path;
}

export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url);
  await page.locator('#key-input').fill(key);
  await page.locator('button[type=submit]').click();
}

/** The chart's state as the page publishes it on the container's data-* attributes. */
export async function chartState(page: Page): Promise<Record<string, string>> {
  return page.evaluate(
    () => ({ ...(document.getElementById('chart') as HTMLElement).dataset }) as Record<string, string>,
  );
}

/**
 * Pixels of the candle colours (up teal, down red) in the chart's canvases: candles drawn or not,
 * judged from the picture rather than from the page's own word.
 */
export async function candlePixels(page: Page): Promise<{ up: number; down: number }> {
  return page.evaluate(() => {
    let up = 0;
    let down = 0;
    for (const canvas of Array.from(document.querySelectorAll<HTMLCanvasElement>('#chart canvas'))) {
      const context = canvas.getContext('2d');
      if (!context || canvas.width === 0 || canvas.height === 0) continue;
      const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] === 0x26 && data[i + 1] === 0xa6 && data[i + 2] === 0x9a) up++;
        if (data[i] === 0xef && data[i + 1] === 0x53 && data[i + 2] === 0x50) down++;
      }
    }
    return { up, down };
  });
}

/** Whether the document is wider than the window (a sideways scroll bar on a phone). */
export async function overflowsSideways(page: Page): Promise<{ scrollWidth: number; clientWidth: number }> {
  return page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
}
