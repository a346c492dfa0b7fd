/// <reference lib="dom" />
/**
 * The status page in a real headless browser (Debian's chromium driven by playwright-core), as a
 * trader uses it: sign in once, type a symbol and watch the chart follow without Enter, hover a
 * candle and read its OHLC and volume, see the volume pane and the gap ledger's bands, get a clear
 * message and an empty chart for an unknown id, switch interval and zone, at phone and desktop
 * widths, without console errors and without the key ever in a URL. Screenshots of each state go
 * to test-results/status-page/ and their paths are printed.
 *
 * The gap ledger's route comes from another part of the API; the browser is handed its rows (the
 * ledger's JSON contract) by request interception, so the bands are tested whether or not this
 * API instance has the route.
 */
import { join } from 'node:path';
import { FEED_TABLES } from '@feedpipe/contracts';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueryApi, type PipelineStatus, type QueryApi } from '../src/index.js';
import {
  candlePixels,
  chartState,
  launchChromium,
  overflowsSideways,
  type PageWatch,
  screenshot,
  signIn,
  watchPage,
} from './status-page-browser.js';

const ACME = 1_000_001;
const BOLT = 1_000_002;
/** Listed, never traded: a suggestion without data. */
const ACMX = 1_000_003;
const NOW = Math.floor(Date.now() / 1000);
/** ACME trades every 10 s for the last 40 minutes except for a 10-minute hole, the gap in the ledger. */
const ACME_GAP = { start: NOW - 25 * 60, end: NOW - 15 * 60 };

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
    loader: {
      done: 40,
      total: 160,
      failed: 0,
      rate: 4.9,
      budgetLeft: 99_900,
      etaSeconds: 25,
      // The scheduled loader's next run: 2026-11-27 10:15 UTC (15:45 IST).
      nextRunAt: Date.UTC(2026, 10, 27, 10, 15),
    },
  };
}

function ticks(): unknown[][] {
  const rows: unknown[][] = [];
  // Prices walk up and down so candles of both colours exist; volume is cumulative for the day
  // (each tick's quantity, stored beside it, is the step).
  for (let t = NOW - 40 * 60, i = 0; t < NOW; t += 10, i++) {
    if (t >= ACME_GAP.start && t < ACME_GAP.end) continue;
    rows.push([
      ACME,
      14,
      100 + Math.sin(i / 5) * 2 + (i % 3) * 0.1,
      (i + 1) * 7,
      7,
      t,
      t,
      String(t * 1e6),
      0,
      i,
      'test',
    ]);
  }
  for (let t = NOW - 30 * 60, i = 0; t < NOW; t += 5, i++) {
    rows.push([BOLT, 14, 250 + Math.cos(i / 7) * 4, (i + 1) * 3, 3, t, t, String(t * 1e6), 1, i, 'test']);
  }
  return rows;
}

beforeAll(async () => {
  store = createStore({ dataDir: join(dir, 'chdb') });
  await runMigrations(store.internal);
  await store.internal.insertRows(FEED_TABLES.ticks.name, FEED_TABLES.ticks.columns, ticks());
  api = await createQueryApi(
    { host: '127.0.0.1', port: 0, logLevel: false },
    {
      store,
      pipelineStatus: status,
      instruments: [
        { securityId: ACME, symbol: 'ACME', segment: 'INX_EQ' },
        { securityId: BOLT, symbol: 'BOLT', segment: 'INX_EQ' },
        { securityId: ACMX, symbol: 'ACMX', segment: 'INX_EQ' },
      ],
    },
  );
  await api.start();
  key = (await api.keys.create('browser-test', ['read'])).key;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  await store?.close();
});

/** The ledger's rows for one instrument, as GET /v1/data-quality/gaps answers them. */
function ledgerRows(securityId: number): unknown[] {
  if (securityId !== ACME) return [];
  return [
    {
      securityId: ACME,
      exchangeSegment: 'INX_EQ',
      connection: 2,
      cause: 'reconnect',
      start: new Date(ACME_GAP.start * 1000).toISOString(),
      end: new Date(ACME_GAP.end * 1000).toISOString(),
    },
  ];
}

/** A signed-in page at a width, showing `instrument`, with the gap ledger handed in. */
async function openPage(width: number, instrument = 'ACME', options: { bypassCSP?: boolean } = {}) {
  const context = await browser.newContext({ viewport: { width, height: 1000 }, ...options });
  const page = await context.newPage();
  const watch = watchPage(page);
  await page.route('**/status/features', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, json: { ...(await response.json()), gapLedger: true } });
  });
  await page.route('**/v1/data-quality/gaps?*', async (route) => {
    const securityId = Number(new URL(route.request().url()).searchParams.get('securityId'));
    await route.fulfill({ json: { data: ledgerRows(securityId) } });
  });
  await signIn(page, `${api.url}/status?instrument=${instrument}`, key);
  await waitShown(page, instrument);
  return { page, watch, close: () => context.close() };
}

async function waitShown(page: Page, name: string): Promise<void> {
  await page.waitForFunction(
    (n) =>
      document.getElementById('chart')?.dataset.state === 'shown' &&
      (document.getElementById('chart-title')?.textContent ?? '').includes(n),
    name,
    { timeout: 30_000 },
  );
}

function widestCandleInPage(): number {
  let widest = 0;
  for (const canvas of Array.from(document.querySelectorAll<HTMLCanvasElement>('#chart canvas'))) {
    const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
    if (!data) continue;
    for (let y = 0; y < canvas.height; y += 4) {
      let run = 0;
      for (let x = 0; x < canvas.width; x++) {
        const i = (y * canvas.width + x) * 4;
        run = data[i] === 0x26 && data[i + 1] === 0xa6 && data[i + 2] === 0x9a ? run + 1 : 0;
        widest = Math.max(widest, run);
      }
    }
  }
  return widest;
}

/** The widest candle body in device pixels, from the chart's canvases. */
function widestCandle(page: Page): Promise<number> {
  return page.evaluate(widestCandleInPage);
}

/** Nothing a viewer would see as broken, and the key in no URL the page used. */
function expectClean(watch: PageWatch): void {
  expect(watch.problems).toEqual([]);
  expect(watch.urls.filter((u) => u.includes(key))).toEqual([]);
}

describe('status page in a headless browser', () => {
  it('follows a typed symbol without Enter; candles, volume pane and gap bands drawn', async () => {
    const { page, watch, close } = await openPage(1400);
    const acme = await chartState(page);
    expect(Number(acme.candles)).toBeGreaterThan(20);
    expect(acme.panes).toBe('2');
    expect(Number(acme.volumeBars)).toBe(Number(acme.candles));
    expect(acme.bands).toBe('1');
    expect(await page.locator('#gap-list').textContent()).toMatch(/reconnect, connection 2/);
    const acmePixels = await candlePixels(page);
    expect(acmePixels.up).toBeGreaterThan(100);
    expect(acmePixels.down).toBeGreaterThan(100);
    await screenshot(page, '1-acme-with-gap-band');

    // The beginning of two symbols: suggestions, a hint, and the chart stays where it was.
    const search = page.locator('#search');
    await search.fill('');
    await search.pressSequentially('ACM', { delay: 40 });
    await page.waitForFunction(() =>
      /begin with/.test(document.getElementById('chart-message')?.textContent ?? ''),
    );
    expect(
      await page
        .locator('#instrument-list option')
        .evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value)),
    ).toEqual(['ACME', 'ACMX']);
    expect(await page.locator('#chart-title').textContent()).toContain('ACME');

    // A whole symbol, typed in lower case, and no Enter: the chart follows.
    await search.fill('');
    await search.pressSequentially('bolt', { delay: 40 });
    await waitShown(page, 'BOLT');
    const bolt = await chartState(page);
    expect(Number(bolt.candles)).toBeGreaterThanOrEqual(30);
    // BOLT trades near 250, ACME near 100: the latest candle in the readout is BOLT's.
    await page.mouse.move(1, 1);
    expect(Number(await page.locator('#readout-close').textContent())).toBeGreaterThan(240);
    expect(bolt.bands).toBe('0');
    expect(await page.locator('#gaps').isVisible()).toBe(false);
    expect(page.url()).toContain('instrument=BOLT');
    await screenshot(page, '2-typed-bolt-without-enter');
    expectClean(watch);
    await close();
  });

  it('reads the OHLC and volume of the candle under the mouse, in IST or UTC; zooms with the wheel', async () => {
    const { page, watch, close } = await openPage(1400);
    const box = await page.locator('#chart').boundingBox();
    if (!box) throw new Error('the chart has no box');
    let hovered = '';
    // From the right edge of the candle pane leftwards until the crosshair is on a candle.
    for (let x = box.x + box.width - 70; x > box.x + 10 && hovered === ''; x -= 3) {
      await page.mouse.move(x, box.y + box.height * 0.3);
      hovered = await page.evaluate(() => {
        const readout = document.getElementById('readout') as HTMLElement;
        const label = document.getElementById('readout-time')?.textContent ?? '';
        return readout.dataset.empty === 'false' && !label.startsWith('last')
          ? (readout.dataset.time ?? '')
          : '';
      });
    }
    expect(hovered).not.toBe('');
    const time = Number(hovered);
    const iso = (sec: number) => new Date(sec * 1000).toISOString();
    const response = await fetch(
      `${api.url}/v1/instruments/${ACME}/bars?interval=1m&from=${iso(time)}&to=${iso(time + 60)}`,
      { headers: { 'x-api-key': key } },
    );
    const bar = ((await response.json()) as { data: Record<string, number | string>[] }).data[0];
    if (!bar) throw new Error(`the API has no bar at ${iso(time)}`);
    const text = (id: string) => page.locator(`#readout-${id}`).textContent();
    for (const field of ['open', 'high', 'low', 'close'])
      expect(await text(field)).toBe(Number(bar[field]).toFixed(2));
    expect(await text('volume')).toBe(Number(bar.volume).toLocaleString('en-US'));
    // The exchange's clock, labelled: UTC + 05:30.
    const ist = new Date((time + 19_800) * 1000).toISOString().slice(11, 16);
    expect(await text('time')).toMatch(new RegExp(`${ist} IST$`));
    await screenshot(page, '3-crosshair-ohlc-readout');

    await page.locator('#zone').selectOption('UTC');
    await page.mouse.move(box.x + 5, box.y + 5);
    await page.mouse.move(box.x + box.width - 70, box.y + box.height * 0.3);
    await page.waitForFunction(() =>
      / UTC$/.test(document.getElementById('readout-time')?.textContent ?? ''),
    );

    // Zoom: the wheel over the chart makes candles wider (the widest run of candle colour grows).
    // Each wheel event zooms by a bounded step, and a busy browser coalesces events that arrive
    // together into one, so the wheel turns in rounds until the candles are wider (at most 6).
    const before = await widestCandle(page);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.3);
    let zoomed = before;
    for (let round = 0; round < 6 && zoomed <= before * 1.3; round++) {
      for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -300);
      await page.waitForTimeout(300);
      zoomed = await widestCandle(page);
    }
    expect(zoomed).toBeGreaterThan(before * 1.3);
    await screenshot(page, '4-zoomed-in-utc');
    expectClean(watch);
    await close();
  });

  it('clears the chart with a clear message for an unknown id, and recovers', async () => {
    const { page, watch, close } = await openPage(1400);
    const search = page.locator('#search');
    await search.fill('');
    await search.pressSequentially('999999', { delay: 40 });
    await page.waitForFunction(() => document.getElementById('chart')?.dataset.state === 'unknown', null, {
      timeout: 20_000,
    });
    expect(await page.locator('#chart-message').textContent()).toContain('No instrument matches “999999”');
    expect((await chartState(page)).candles).toBe('0');
    expect(await candlePixels(page)).toEqual({ up: 0, down: 0 });
    expect(await page.locator('#readout-close').textContent()).toBe('–');
    expect(page.url()).not.toContain('instrument=');
    await screenshot(page, '5-unknown-id-empty-chart');

    await search.fill('');
    await search.pressSequentially(String(ACME), { delay: 40 });
    await waitShown(page, 'ACME');
    expect(await page.locator('#chart-message').isVisible()).toBe(false);
    expect((await candlePixels(page)).up).toBeGreaterThan(100);
    expectClean(watch);
    await close();
  });

  it('switches the interval and reloads the history at that step', async () => {
    const { page, watch, close } = await openPage(1400, 'BOLT');
    const minutes = Number((await chartState(page)).candles);
    await page.locator('label', { hasText: '5m' }).click();
    await page.waitForFunction(() =>
      /5 minutes candles/.test(document.getElementById('chart-title')?.textContent ?? ''),
    );
    await page.waitForFunction(() => document.getElementById('chart')?.dataset.state === 'shown');
    const fives = Number((await chartState(page)).candles);
    // 30 minutes of trades: 30 or 31 one-minute bars, 6 or 7 five-minute ones.
    expect(minutes).toBeGreaterThanOrEqual(30);
    expect(fives).toBeGreaterThanOrEqual(6);
    expect(fives).toBeLessThanOrEqual(7);
    expect(page.url()).toContain('interval=5m');
    await screenshot(page, '6-interval-5m');
    expectClean(watch);
    await close();
  });

  it('fits 400 px and 1400 px without sideways overflow', async () => {
    for (const width of [400, 1400]) {
      const { page, watch, close } = await openPage(width);
      await page.waitForFunction(() => document.getElementById('ticks-per-second')?.textContent === '12,345');
      const { scrollWidth, clientWidth } = await overflowsSideways(page);
      expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
      const chartWidth = await page.locator('#chart').evaluate((e) => e.getBoundingClientRect().width);
      expect(chartWidth).toBeLessThanOrEqual(clientWidth);
      expect(chartWidth).toBeGreaterThan(clientWidth * 0.8);
      expect((await candlePixels(page)).up).toBeGreaterThan(50);
      await screenshot(page, `7-width-${width}`);
      expectClean(watch);
      await close();
    }
  });

  it('has no WCAG 2 A or AA violations that axe-core finds', async () => {
    // Only this page lets the test inject axe-core past the page's content security policy.
    const { page, watch, close } = await openPage(1400, 'ACME', { bypassCSP: true });
    await page.addScriptTag({ content: axe.source });
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: typeof axe }).axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] },
      });
      return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
    expect(violations).toEqual([]);
    expectClean(watch);
    await close();
  });

  it('renders the live pipeline figures', async () => {
    const { page, watch, close } = await openPage(1280);
    await page.waitForFunction(
      () => document.getElementById('ticks-per-second')?.textContent === '12,345',
      null,
      {
        timeout: 20_000,
      },
    );
    expect(await page.locator('#connections-open').textContent()).toBe('4 / 5');
    expect(await page.locator('#kafka-lag').textContent()).toBe('42');
    expect(await page.locator('#rows-stored').textContent()).toBe('999,958');
    expect(await page.locator('#loader').textContent()).toBe('25%');
    expect(await page.locator('#loader-detail').textContent()).toContain('next run 2026-11-27 10:15 UTC');
    expect(await page.locator('#feed-errors').textContent()).toMatch(
      /\d\d:\d\d:\d\d IST {2}connection 4: 805 connection limit exceeded/,
    );
    expect(await page.locator('#connections tbody tr').count()).toBe(5);
    expectClean(watch);
    await close();
  });

  it('serves a favicon without a key, and the page asks for no other', async () => {
    const ico = await fetch(`${api.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    const bytes = new Uint8Array(await ico.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), one image.
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
    const svg = await fetch(`${api.url}/status/favicon.svg`);
    expect(svg.status).toBe(200);
    expect(await svg.text()).toContain('<svg');
  });

  it('ignores a key in the URL and removes it from the address bar', async () => {
    const page = await browser.newPage();
    await page.goto(`${api.url}/status?key=${key}&instrument=${ACME}`);
    await page.waitForFunction(() => !location.search.includes('key='), null, { timeout: 10_000 });
    expect(page.url()).not.toContain(key);
    expect(page.url()).toContain(`instrument=${ACME}`);
    // Not signed in by the link: the form asks for the key, and nothing was stored from the URL.
    expect(await page.locator('#key-form').isVisible()).toBe(true);
    expect(await page.locator('#main').isVisible()).toBe(false);
    expect(await page.evaluate(() => sessionStorage.getItem('feedpipe-key'))).toBeNull();
    await page.close();
  });

  it('asks for a key when none is given, and refuses a wrong one with a message', async () => {
    const page = await browser.newPage();
    await signIn(page, `${api.url}/status`, 'fpk_not_a_real_key');
    await page.waitForFunction(() => (document.getElementById('key-error')?.textContent ?? '') !== '', null, {
      timeout: 10_000,
    });
    expect(await page.locator('#key-form').isVisible()).toBe(true);
    expect(await page.locator('#main').isVisible()).toBe(false);
    expect(await page.locator('#key-error').textContent()).toContain('refused');
    expect(await page.evaluate(() => sessionStorage.getItem('feedpipe-key'))).toBeNull();
    await screenshot(page, '8-key-refused');
    await page.close();
  });
});
