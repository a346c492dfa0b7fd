/// <reference lib="dom" />
/**
 * The status page following an instrument live: trades produced to the run's real Kafka broker
 * reach the page through the API's stream (/v1/stream, read with the key in a header) and move the
 * chart one bar at a time, without drawing the history again.
 */
import { join } from 'node:path';
import { FEED_TABLES } from '@feedpipe/contracts';
import { JsonProducer, KafkaAdmin } from '@feedpipe/kafka-client';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir, uniqueName } from '@feedpipe/testkit';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createQueryApi, type QueryApi } from '../src/index.js';
import { chartState, launchChromium, screenshot, signIn, watchPage } from './status-page-browser.js';

const brokers = inject('kafkaBrokers');
const topics = {
  trades: uniqueName('sp_trades'),
  ohlc: uniqueName('sp_ohlc'),
  reference: uniqueName('sp_ref'),
  status: uniqueName('sp_status'),
};
const ACME = 1_000_001;
const NOW = Math.floor(Date.now() / 1000);

let store: Store;
let api: QueryApi;
let browser: Browser;
let key: string;

beforeAll(async () => {
  const admin = new KafkaAdmin({ brokers });
  await admin.ensureTopics(Object.values(topics), { partitions: 1 });
  await admin.close();
  store = createStore({ dataDir: join(tempDir('status-page-live'), 'chdb') });
  await runMigrations(store.internal);
  const rows: unknown[][] = [];
  for (let t = NOW - 20 * 60, i = 0; t < NOW - 120; t += 10, i++) {
    rows.push([ACME, 14, 100 + (i % 7) * 0.25, (i + 1) * 5, 5, t, t, String(t * 1e6), 0, i, 'test']);
  }
  await store.internal.insertRows(FEED_TABLES.ticks.name, FEED_TABLES.ticks.columns, rows);
  api = await createQueryApi(
    { host: '127.0.0.1', port: 0, logLevel: false, topics },
    { store, kafkaBrokers: brokers, instruments: [{ securityId: ACME, symbol: 'ACME', segment: 'INX_EQ' }] },
  );
  await api.start();
  key = (await api.keys.create('live-page', ['read'])).key;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  await store?.close();
});

describe('status page with the live stream', () => {
  it('moves the chart with live trades, one bar at a time, the history drawn once', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const watch = watchPage(page);
    await signIn(page, `${api.url}/status?instrument=ACME`, key);
    await page.waitForFunction(() => document.getElementById('live-state')?.textContent === 'live', null, {
      timeout: 60_000,
    });
    const before = await chartState(page);
    expect(before.redraws).toBe('1');
    expect(Number(before.candles)).toBeGreaterThan(10);

    // The mouse off the chart: the readout then shows the latest bar, not the one under the pointer.
    await page.mouse.move(1, 1);
    // Three trades now, in a slot after the stored ones (they end two minutes ago): a new bar past
    // whitespace slots. The first trade after connecting adds no quantity (its predecessor is
    // unknown); the next two add 10 and 15.
    const ltt = Math.floor(Date.now() / 1000);
    const trade = (ltp: number, volume: number, n: number) => ({
      key: String(ACME),
      value: { type: 'trade', segment: 14, securityId: ACME, ltp, volume, ltt, lut: ltt, receivedAt: n },
    });
    const producer = new JsonProducer({ brokers });
    await producer.send(topics.trades, [
      trade(150.5, 1_000, 1),
      trade(152.25, 1_010, 2),
      trade(149.75, 1_025, 3),
    ]);
    await producer.close();

    await page.waitForFunction(
      () => document.getElementById('readout-close')?.textContent === '149.75',
      null,
      {
        timeout: 30_000,
      },
    );
    const text = (id: string) => page.locator(`#readout-${id}`).textContent();
    expect([await text('open'), await text('high'), await text('low'), await text('volume')]).toEqual([
      '150.50',
      '152.25',
      '149.75',
      '25',
    ]);
    const after = await chartState(page);
    expect(after.redraws).toBe('1');
    expect(Number(after.liveUpdates)).toBeGreaterThanOrEqual(3);
    expect(Number(after.candles)).toBe(Number(before.candles) + 1);
    await screenshot(page, '9-live-bar-from-the-stream');
    expect(watch.problems).toEqual([]);
    expect(watch.urls.filter((u) => u.includes(key))).toEqual([]);
    await page.close();
  });
});
