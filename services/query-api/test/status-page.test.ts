/// <reference lib="dom" />
/**
 * The status page in a real headless browser (Debian's chromium driven by playwright-core): the
 * figures from /v1/pipeline render, and the candlestick chart draws bars of an instrument from the
 * bars endpoint. The screenshot is checked for drawn candles (their colours in the canvas).
 */
import { join } from 'node:path';
import { FEED_TABLES } from '@feedpipe/contracts';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueryApi, type PipelineStatus, type QueryApi } from '../src/index.js';

const SECURITY_ID = 1_000_001;
const BARS = 20;

let store: Store;
let api: QueryApi;
let browser: Browser;
let key: string;
const dir = tempDir('status-page');

function status(): PipelineStatus {
  return {
    at: Date.now(),
    feed: {
      ticksPerSecond: 12_345,
      packets: 1_000_000,
      malformed: 0,
      unknown: 0,
      bufferedBytes: 0,
      connections: [0, 1, 2, 3, 4].map((index) => ({
        index,
        state: index === 4 ? 'evicted' : 'open',
        reason: index === 4 ? 'another session took this connection slot (805)' : 'connected',
        trade: 1_000,
        ohlc: 20,
        reconnects: index === 0 ? 1 : 0,
      })),
      recentFeedErrors: [{ at: Date.now(), connection: 4, code: 805 }],
    },
    kafka: { produced: 1_000_000, lag: 42 },
    store: { ticks: 999_958, ohlc: 100, reference: 15_000 },
    loader: { done: 40, total: 160, failed: 0, rate: 4.9, budgetLeft: 99_900, etaSeconds: 25 },
  };
}

beforeAll(async () => {
  store = createStore({ dataDir: join(dir, 'chdb') });
  await runMigrations(store.internal);
  // One trade every 10 seconds for the last BARS minutes, walking up and down so candles of both colours exist.
  const now = Math.floor(Date.now() / 1000);
  const start = now - BARS * 60;
  const rows: unknown[][] = [];
  for (let t = start, i = 0; t < now; t += 10, i++) {
    const price = 100 + Math.sin(i / 5) * 2 + (i % 3) * 0.1;
    rows.push([SECURITY_ID, 14, price, i + 1, t, t, String(t * 1_000_000), 0, i, 'test']);
  }
  await store.internal.insertRows(FEED_TABLES.ticks.name, FEED_TABLES.ticks.columns, rows);
  api = await createQueryApi(
    { host: '127.0.0.1', port: 0, logLevel: false },
    { store, pipelineStatus: status },
  );
  await api.start();
  key = (await api.keys.create('browser-test', ['read'])).key;
  browser = await chromium.launch({
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
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  await store?.close();
});

describe('status page in a headless browser', () => {
  it('renders the live figures and a non-empty candlestick chart', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // The key goes in through the sign-in form, never the URL.
    await page.goto(`${api.url}/status?instrument=${SECURITY_ID}`);
    expect(await page.locator('#key-form').isVisible()).toBe(true);
    await page.fill('#key-input', key);
    await page.click('button[type=submit]');
    await page.waitForFunction(
      () => document.getElementById('ticks-per-second')?.textContent === '12,345',
      null,
      { timeout: 20_000 },
    );
    await page.waitForFunction(() => Number(document.getElementById('chart')?.dataset.candles) > 0, null, {
      timeout: 20_000,
    });

    expect(await page.locator('#connections-open').textContent()).toBe('4 / 5');
    expect(await page.locator('#kafka-lag').textContent()).toBe('42');
    expect(await page.locator('#rows-stored').textContent()).toBe('999,958');
    expect(await page.locator('#loader').textContent()).toBe('25%');
    expect(await page.locator('#feed-errors').textContent()).toContain('805 connection limit exceeded');
    expect(await page.locator('#connections tbody tr').count()).toBe(5);
    const candles = Number(await page.locator('#chart').getAttribute('data-candles'));
    expect(candles).toBeGreaterThanOrEqual(BARS - 1);

    // The picture itself: candles are drawn in the up (teal) and down (red) colours.
    const screenshot = join(dir, 'status.png');
    await page.screenshot({ path: screenshot });
    const colours = await page.evaluate(() => {
      const canvas = document.getElementById('chart') as HTMLCanvasElement;
      const data =
        canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ??
        new Uint8ClampedArray();
      let up = 0;
      let down = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] === 0x26 && data[i + 1] === 0xa6 && data[i + 2] === 0x9a) up++;
        if (data[i] === 0xef && data[i + 1] === 0x53 && data[i + 2] === 0x50) down++;
      }
      return { up, down };
    });
    expect(colours.up).toBeGreaterThan(100);
    expect(colours.down).toBeGreaterThan(100);
    await page.close();
  });

  it('ignores a key in the URL and removes it from the address bar', async () => {
    const page = await browser.newPage();
    await page.goto(`${api.url}/status?key=${key}&instrument=${SECURITY_ID}`);
    await page.waitForFunction(() => !location.search.includes('key='), null, { timeout: 10_000 });
    expect(page.url()).not.toContain(key);
    expect(page.url()).toContain(`instrument=${SECURITY_ID}`);
    // Not signed in by the link: the form asks for the key, and nothing was stored from the URL.
    expect(await page.locator('#key-form').isVisible()).toBe(true);
    expect(await page.locator('#main').isVisible()).toBe(false);
    expect(await page.evaluate(() => sessionStorage.getItem('feedpipe-key'))).toBeNull();
    await page.close();
  });

  it('asks for a key when none is given, and refuses a wrong one', async () => {
    const page = await browser.newPage();
    await page.goto(`${api.url}/status`);
    expect(await page.locator('#key-form').isVisible()).toBe(true);
    await page.fill('#key-input', 'fpk_not_a_real_key');
    await page.click('button[type=submit]');
    await page.waitForFunction(() => !(document.getElementById('key-form') as HTMLFormElement).hidden, null, {
      timeout: 10_000,
    });
    expect(await page.locator('#main').isVisible()).toBe(false);
    await page.close();
  });
});
