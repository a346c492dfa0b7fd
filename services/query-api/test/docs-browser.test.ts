/**
 * /docs in a real browser under its Content-Security-Policy (issue 37, low finding: /docs had no
 * CSP or frame options): Swagger UI renders the API's title and its operations, and the page logs
 * no refusal of the policy (a blocked script, style or request is a console error) nor any other
 * error. Debian's chromium through playwright-core, as the status page's tests.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers.js';
import { launchChromium, watchPage } from './status-page-browser.js';

let h: Harness;
let url: string;
let browser: Browser;

beforeAll(async () => {
  h = await startHarness({}, {}, false);
  url = await h.api.start();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('/docs under its Content-Security-Policy', () => {
  it('renders the title and the operations, with no policy refusal or other error', async () => {
    const page = await browser.newPage();
    const watch = watchPage(page);
    const response = await page.goto(`${url}/docs`);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    await page.locator('.swagger-ui .info .title').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('.swagger-ui .info .title').first().textContent()).toContain(
      'feedpipe query API',
    );
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    expect(watch.problems).toEqual([]);
    await page.close();
  });
});
