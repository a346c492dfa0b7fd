/**
 * Fills and end-of-day snapshots against the REST simulator on loopback: fills read from the trade
 * book (Indian and US) stored once however often the book is read, served per day, per order and
 * in pages, each key seeing its own orders' fills; a day the gateway missed is read back from the
 * trade history at start; snapshots of positions, holdings, funds and the ledger.
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import { SERVICE_TABLES } from '@feedpipe/contracts';
import { waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTradingGateway, type TradingGateway } from '../src/index.js';
import { type SimHarness, startSimHarness, tcsOrder } from './sim-harness.js';

const DAY_MS = 86_400_000;
/** 11:00 IST on a weekday, so the simulated exchange is open. */
const START = Date.parse('2026-11-24T11:00:00+05:30');

let clock = START;
const now = () => clock;
let h: SimHarness;
let usId: string;
const broker = (): BrokerClient => h.broker;
const call = (...args: Parameters<SimHarness['call']>) => h.call(...args);

beforeAll(async () => {
  h = await startSimHarness({
    seed: 1,
    now,
    gateway: {
      trading: { maxQuantity: 1_000, maxNotional: 10_000_000, killSwitchCacheMs: 0 },
      fills: { syncIntervalMs: 0, historyDays: 3, snapshotAtIst: 'off' },
    },
  });
  usId = h.usId;
});
afterAll(async () => h?.close());

const MARKET_BUY = tcsOrder({ orderType: 'MARKET', quantity: 3, price: 0 });

/** Places a market order with `headers` and waits until the service shows it traded. */
async function filledOrder(headers: Record<string, string>, quantity = 3): Promise<string> {
  const placed = await call('POST', '/v1/orders', { ...MARKET_BUY, quantity }, headers);
  expect(placed.statusCode, placed.body).toBe(200);
  const orderId = placed.json().orderId as string;
  // No correlationId was sent: the gateway made one with its own prefix.
  expect(placed.json().correlationId).toMatch(/^tg-[0-9a-f]{24}$/);
  await waitFor(
    async () =>
      (await call('GET', `/v1/orders/${orderId}`, undefined, headers)).json().orderStatus === 'TRADED',
    10_000,
    'the order traded',
  );
  return orderId;
}

async function physicalRows(fillKeyPrefix = ''): Promise<Map<string, number>> {
  const rows = await h.store.internal.rows<{ fill_key: string; n: number | string }>(
    `SELECT fill_key, count() AS n FROM ${SERVICE_TABLES.fills.name} WHERE startsWith(fill_key, {p:String}) GROUP BY fill_key`,
    { p: fillKeyPrefix },
  );
  return new Map(rows.map((r) => [r.fill_key, Number(r.n)]));
}

/** The `source` of each stored fill of an order on a trading day. */
async function sourcesOf(orderId: string, day: string): Promise<string[]> {
  const rows = await h.store.internal.rows<{ source: string }>(
    `SELECT source FROM ${SERVICE_TABLES.fills.name} FINAL WHERE order_id = {id:String} AND trade_date = {d:Date}`,
    { id: orderId, d: day },
  );
  return rows.map((r) => r.source);
}

describe('fills from the trade book', () => {
  it("stores the day's Indian and US fills once, however often the book is read", async () => {
    const orderId = await filledOrder(h.trade);
    const us = await call('POST', '/v1/us/orders', {
      transactionType: 'BUY',
      orderType: 'MARKET',
      securityId: usId,
      quantity: 2,
      price: 0,
    });
    expect(us.statusCode, us.body).toBe(200);
    const usOrderId = us.json().orderId as string;
    await waitFor(
      async () => (await call('GET', `/v1/us/orders/${usOrderId}`)).json().orderStatus === 'TRADED',
      10_000,
      'the US order traded',
    );

    const first = await call('POST', '/v1/trades/sync');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().added).toBeGreaterThanOrEqual(2);
    const again = await Promise.all([call('POST', '/v1/trades/sync'), call('POST', '/v1/trades/sync')]);
    expect(again.map((r) => r.json().added)).toEqual([0, 0]);
    for (const n of (await physicalRows()).values()) expect(n).toBe(1);

    const book = (await broker().trades.today()).filter((t) => t.orderId === orderId);
    const day = (await call('GET', '/v1/trades')).json() as Record<string, unknown>[];
    // The service's record with the SDK's field names, exactly as the trade book gave it.
    expect(day.filter((t) => t.orderId === orderId)).toEqual(book);
    const usFill = day.find((t) => t.orderId === usOrderId);
    expect(usFill).toMatchObject({ exchangeSegment: 'INX_EQ', tradedQuantity: 2, securityId: usId });
    expect(usFill).toHaveProperty('tradeValue');

    const ofOrder = await call('GET', `/v1/trades/${orderId}`);
    expect(ofOrder.json()).toEqual(book);
    const total = book.reduce((a, t) => a + t.tradedQuantity, 0);
    expect(total).toBe(3);
  });

  it('shows a key the fills of its own orders only; a supervisor sees all', async () => {
    const mine = await filledOrder(h.trade);
    const theirs = await filledOrder(h.trade2);
    await call('POST', '/v1/trades/sync');
    const ids = (headers: Record<string, string>) =>
      call('GET', '/v1/trades', undefined, headers).then((r) =>
        (r.json() as { orderId: string }[]).map((t) => t.orderId),
      );
    expect(await ids(h.trade)).toContain(mine);
    expect(await ids(h.trade)).not.toContain(theirs);
    expect(await ids(h.trade2)).toEqual(expect.arrayContaining([theirs]));
    expect(await ids(h.trade2)).not.toContain(mine);
    expect(await ids(h.supervisor)).toEqual(expect.arrayContaining([mine, theirs]));
    expect((await call('GET', `/v1/trades/${theirs}`)).statusCode).toBe(404);
    expect((await call('GET', '/v1/trades', undefined, h.admin)).statusCode).toBe(403);
  });

  it('pages trade history over a date range; bad dates are 400', async () => {
    const today = new Date(clock + 19_800_000).toISOString().slice(0, 10);
    const all = (
      await call('GET', `/v1/trades/${today}/${today}/0?pageSize=1000`, undefined, h.supervisor)
    ).json() as {
      orderId: string;
    }[];
    expect(all.length).toBeGreaterThanOrEqual(4);
    const paged: unknown[] = [];
    for (let page = 0; page < 50; page++) {
      const r = (
        await call('GET', `/v1/trades/${today}/${today}/${page}?pageSize=2`, undefined, h.supervisor)
      ).json() as unknown[];
      if (r.length === 0) break;
      paged.push(...r);
    }
    expect(paged).toEqual(all);
    const bad = await call('GET', '/v1/trades/2026-13-01/2026-11-24/0');
    expect(bad.statusCode).toBe(400);
    const reversed = await call('GET', `/v1/trades/${today}/2020-01-01/0`);
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json().error).toMatchObject({ code: 'BAD_REQUEST', field: 'fromDate' });
  });

  it('a postback that shows a fill makes the gateway read the book', async () => {
    const orderId = await filledOrder(h.trade);
    expect((await call('GET', `/v1/trades/${orderId}`)).json()).toEqual([]);
    const fill = (await broker().orders.byId(orderId)) as unknown as Record<string, unknown>;
    // The receiver hands stored updates to the recorder; here the update is handed over directly.
    h.gateway.fills?.noteOrderEvents([
      { kind: 'order', filledQty: Number(fill.filledQty), orderId } as never,
    ]);
    await waitFor(
      async () => ((await call('GET', `/v1/trades/${orderId}`)).json() as unknown[]).length > 0,
      10_000,
      "the order's fill stored after its update",
    );
  });

  it('reads the trade history of days it missed when it starts', async () => {
    const yesterdays = await filledOrder(h.trade2, 2);
    const dayBefore = new Date(clock + 19_800_000).toISOString().slice(0, 10);
    // Nothing read the book since this order filled; then the gateway is down over the night.
    expect(await sourcesOf(yesterdays, dayBefore)).toEqual([]);
    clock += DAY_MS;
    const store = h.store;
    const gateway: TradingGateway = await createTradingGateway(
      { port: 0, fills: { syncIntervalMs: 0, historyDays: 3, snapshotAtIst: 'off' } },
      { store, broker: broker(), now },
    );
    try {
      await gateway.start();
      await waitFor(
        async () => (await sourcesOf(yesterdays, dayBefore)).length > 0,
        10_000,
        "yesterday's fill read from the trade history",
      );
      expect(await sourcesOf(yesterdays, dayBefore)).toEqual(['history']);
      for (const n of (await physicalRows()).values()) expect(n).toBe(1);
    } finally {
      await gateway.stop();
    }
  });
});

describe('end-of-day snapshots', () => {
  it('stores positions, holdings, funds and the ledger of the day, the latest of a day winning', async () => {
    const taken = await call('POST', '/v1/account/snapshots');
    expect(taken.statusCode, taken.body).toBe(200);
    const kinds = taken.json().kinds as { kind: string; outcome: string }[];
    expect(kinds.map((k) => k.kind).sort()).toEqual([
      'funds',
      'holdings',
      'ledger',
      'positions',
      'us_funds',
      'us_holdings',
    ]);
    expect(kinds.every((k) => k.outcome === 'stored')).toBe(true);
    await call('POST', '/v1/account/snapshots');
    const read = (await call('GET', '/v1/account/snapshots')).json() as {
      snapshots: { kind: string; data: unknown; records: number }[];
    };
    expect(read.snapshots).toHaveLength(6);
    const positions = read.snapshots.find((s) => s.kind === 'positions');
    expect(positions?.data).toEqual(await broker().portfolio.positions());
    const funds = read.snapshots.find((s) => s.kind === 'funds');
    expect(funds?.data).toHaveProperty('availabelBalance');
    const one = (await call('GET', '/v1/account/snapshots?kind=ledger')).json();
    expect(one.snapshots.map((s: { kind: string }) => s.kind)).toEqual(['ledger']);
    expect((await call('GET', '/v1/account/snapshots?kind=trades')).statusCode).toBe(400);
  });

  it('are taken every day at the configured IST time', async () => {
    // 300 ms before 15:45 IST on the gateway's clock.
    const at = Date.parse('2026-11-26T15:44:59.700+05:30');
    const gateway = await createTradingGateway(
      { port: 0, logLevel: false, fills: { syncIntervalMs: 0, historyDays: 0, snapshotAtIst: '15:45' } },
      { store: h.store, broker: broker(), now: () => at },
    );
    try {
      await gateway.start();
      await waitFor(
        async () => {
          const rows = await h.store.internal.rows<{ n: number | string }>(
            `SELECT count() AS n FROM ${SERVICE_TABLES.accountSnapshots.name} FINAL WHERE snapshot_date = '2026-11-26'`,
          );
          return Number(rows[0]?.n) === 6;
        },
        10_000,
        "the scheduled snapshot's six kinds",
      );
    } finally {
      await gateway.stop();
    }
  });
});
