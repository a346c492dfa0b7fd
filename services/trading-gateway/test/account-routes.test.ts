/**
 * The gateway routes of the remaining client calls, end to end against the REST simulator on
 * loopback: order slicing (every slice the key's), multi-order margin, position conversion, the US
 * charge estimate, margin, market status and trades by security, the profile, the static-IP
 * status, eDIS and the ledger; each with the order routes' validation (400 naming the field,
 * nothing sent or audited), audit rows for what changes the account, and ownership.
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import { waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTradingGateway } from '../src/index.js';
import { ACCOUNT, type SimHarness, startSimHarness, TCS, tcsOrder } from './sim-harness.js';

/** Real time moved to 11:00 IST on a weekday, so the simulated exchange is open and orders fill. */
const OFFSET_MS = Date.parse('2026-11-24T11:00:00+05:30') - Date.now();
const now = () => Date.now() + OFFSET_MS;

let h: SimHarness;
let usId: string;
let broker: BrokerClient;
const call = (...args: Parameters<SimHarness['call']>) => h.call(...args);

beforeAll(async () => {
  h = await startSimHarness({
    seed: 3,
    now,
    sim: { matching: { freezeQuantity: 5 } },
    gateway: {
      trading: { maxQuantity: 1_000, maxNotional: 10_000_000, killSwitchCacheMs: 0 },
      fills: { syncIntervalMs: 0, historyDays: 0, snapshotAtIst: 'off' },
    },
  });
  usId = h.usId;
  broker = h.broker;
});
afterAll(async () => h?.close());

async function auditRows(action: string, headers = h.trade) {
  const rows = (await call('GET', '/v1/order-audit?limit=1000', undefined, headers)).json().rows as {
    action: string;
    phase: string;
    outcome: string;
    order_id: string;
    correlation_id: string;
  }[];
  return rows.filter((r) => r.action === action);
}

const BUY = tcsOrder({ orderType: 'LIMIT', price: 3000 });

describe('order slicing', () => {
  it("splits at the freeze quantity; every slice is the key's, audited, and a retry is a replay", async () => {
    const placed = await call('POST', '/v1/orders/slicing', {
      ...BUY,
      quantity: 12,
      correlationId: 'slice-1',
    });
    expect(placed.statusCode, placed.body).toBe(200);
    const orders = placed.json().orders as { orderId: string }[];
    expect(orders).toHaveLength(3);
    const ids = orders.map((o) => o.orderId);
    const book = (await call('GET', '/v1/orders')).json() as { orderId: string; quantity: number }[];
    expect(
      book
        .filter((o) => ids.includes(o.orderId))
        .map((o) => o.quantity)
        .sort(),
    ).toEqual([2, 5, 5]);
    for (const id of ids) {
      expect((await call('GET', `/v1/orders/${id}`)).statusCode).toBe(200);
      expect((await call('GET', `/v1/orders/${id}`, undefined, h.trade2)).statusCode).toBe(404);
    }
    const outcomes = (await auditRows('orders.slice')).filter((r) => r.phase === 'outcome');
    expect(outcomes.map((r) => r.order_id).sort()).toEqual([...ids].sort());
    const again = await call('POST', '/v1/orders/slicing', {
      ...BUY,
      quantity: 12,
      correlationId: 'slice-1',
    });
    expect(again.headers['x-idempotent-replay']).toBe('true');
    expect(again.json().orders).toEqual(orders);
    expect((await broker.orders.list()).filter((o) => o.correlationId === 'slice-1')).toHaveLength(3);
  });

  it('is checked pre-trade on the whole quantity and typed strictly', async () => {
    const tooMany = await call('POST', '/v1/orders/slicing', {
      ...BUY,
      quantity: 5_000,
      correlationId: 'slice-2',
    });
    expect(tooMany.json().error).toMatchObject({ code: 'PRE_TRADE_REJECTED', field: 'quantity' });
    const text = await call('POST', '/v1/orders/slicing', {
      ...BUY,
      quantity: '12',
      correlationId: 'slice-3',
    });
    expect(text.statusCode).toBe(400);
    expect(text.json().error.field).toBe('quantity');
    expect(
      await auditRows('orders.slice').then((r) => r.filter((x) => x.correlation_id === 'slice-3')),
    ).toEqual([]);
  });
});

describe('positions and margin', () => {
  it('converts part of a position, audited; a bad body is 400 and not audited', async () => {
    const placed = await call('POST', '/v1/orders', { ...BUY, orderType: 'MARKET', price: 0, quantity: 2 });
    const orderId = placed.json().orderId as string;
    await waitFor(
      async () => (await call('GET', `/v1/orders/${orderId}`)).json().orderStatus === 'TRADED',
      10_000,
      'the buy to fill',
    );
    const convert = {
      fromProductType: 'INTRADAY',
      toProductType: 'CNC',
      exchangeSegment: 'NSE_EQ',
      positionType: 'LONG',
      securityId: String(TCS),
      convertQty: 1,
    };
    const done = await call('POST', '/v1/positions/convert', convert);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ status: 'accepted' });
    const positions = (await call('GET', '/v1/positions')).json() as {
      productType: string;
      netQty: number;
      securityId: string;
    }[];
    expect(positions.find((p) => p.productType === 'CNC' && p.securityId === String(TCS))?.netQty).toBe(1);
    expect((await auditRows('positions.convert')).map((r) => [r.phase, r.outcome])).toEqual([
      ['outcome', 'accepted'],
      ['request', ''],
    ]);
    const bad = await call('POST', '/v1/positions/convert', { ...convert, convertQty: '1' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.field).toBe('convertQty');
    // More than the position holds: the service refuses, the gateway maps and audits it.
    const refused = await call('POST', '/v1/positions/convert', { ...convert, convertQty: 500 });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.upstream).toHaveProperty('errorCode');
    expect((await auditRows('positions.convert')).filter((r) => r.outcome === 'rejected')).toHaveLength(1);
  });

  it('the margin of several orders together', async () => {
    const scrip = {
      exchangeSegment: 'NSE_EQ',
      transactionType: 'BUY',
      quantity: 2,
      productType: 'CNC',
      securityId: String(TCS),
      price: 3500,
    };
    const r = await call('POST', '/v1/margin/multi', {
      includePosition: false,
      scripList: [scrip, { ...scrip, quantity: 3 }],
    });
    expect(r.statusCode, r.body).toBe(200);
    const one = (await call('POST', '/v1/margin/multi', { scripList: [scrip] })).json();
    expect(r.json().totalMargin).toBeGreaterThan(one.totalMargin);
    expect((await call('POST', '/v1/margin/multi', { scripList: [] })).statusCode).toBe(400);
    const typed = await call('POST', '/v1/margin/multi', { includeOrder: 'true', scripList: [scrip] });
    expect(typed.json().error.field).toBe('includeOrder');
  });
});

describe('US account', () => {
  it("market status, charges, margin, and trades by security of the key's own orders", async () => {
    expect((await call('GET', '/v1/us/market-status')).json()).toHaveProperty('status');
    const estimate = { securityId: usId, price: 0, quantity: 2, transactionType: 'BUY' };
    const charges = await call('POST', '/v1/us/charges', estimate);
    expect(charges.statusCode, charges.body).toBe(200);
    expect(charges.json()).toHaveProperty('brokerage');
    expect((await call('POST', '/v1/us/margin', estimate)).json()).toHaveProperty('totalMargin');
    expect((await call('POST', '/v1/us/charges', { ...estimate, quantity: '2' })).json().error.field).toBe(
      'quantity',
    );

    const mine = await call('POST', '/v1/us/orders', {
      transactionType: 'BUY',
      orderType: 'MARKET',
      securityId: usId,
      quantity: 1,
    });
    const orderId = mine.json().orderId as string;
    await waitFor(
      async () => (await call('GET', `/v1/us/orders/${orderId}`)).json().orderStatus === 'TRADED',
      10_000,
      'the US buy to fill',
    );
    const ids = async (headers: Record<string, string>) =>
      ((await call('GET', `/v1/us/trades/${usId}`, undefined, headers)).json() as { orderId: string }[]).map(
        (t) => t.orderId,
      );
    expect(await ids(h.trade)).toContain(orderId);
    expect(await ids(h.trade2)).not.toContain(orderId);
    expect(await ids(h.supervisor)).toContain(orderId);
  });
});

describe('profile, static IP, eDIS and the ledger', () => {
  it('reads the profile and the static-IP status', async () => {
    expect((await call('GET', '/v1/profile')).json()).toMatchObject({ svcClientId: ACCOUNT.clientId });
    expect((await call('GET', '/v1/static-ip')).json()).toHaveProperty('primaryIP');
  });

  it('T-PIN and forms are audited; the status is read; bad ISINs are 400', async () => {
    const tpin = await call('POST', '/v1/edis/tpin');
    expect(tpin.statusCode, tpin.body).toBe(200);
    expect(tpin.json()).toMatchObject({ edisStatus: 'SUCCESS' });
    expect((await auditRows('edis.tpin')).map((r) => r.outcome)).toContain('accepted');
    const form = await call('POST', '/v1/edis/bulk-form', { isin: ['ALL'], exchange: 'NSE', segment: 'EQ' });
    expect(form.statusCode, form.body).toBe(200);
    expect(typeof form.json().edisFormHtml).toBe('string');
    expect(Array.isArray((await call('GET', '/v1/edis/inquire/ALL')).json())).toBe(true);
    expect((await call('GET', '/v1/edis/inquire/not-an-isin')).statusCode).toBe(400);
    const single = await call('POST', '/v1/edis/form', { isin: 'x', exchange: 'NSE' });
    expect(single.json().error.field).toBe('isin');
  });

  it('the ledger over a date range; a date that does not exist is 400', async () => {
    const day = new Date(now() + 19_800_000).toISOString().slice(0, 10);
    const ledger = await call('GET', `/v1/ledger?fromDate=${day}&toDate=${day}`);
    expect(ledger.statusCode, ledger.body).toBe(200);
    expect(ledger.json()).toEqual(await broker.edis.ledger(day, day));
    expect((await call('GET', '/v1/ledger?fromDate=2026-02-30')).statusCode).toBe(400);
  });
});

describe('scopes and a gateway without a broker', () => {
  it('an admin-only key reaches none of them; without a broker they are 503', async () => {
    for (const [method, url] of [
      ['GET', '/v1/profile'],
      ['POST', '/v1/edis/tpin'],
      ['GET', '/v1/ledger'],
      ['GET', '/v1/us/market-status'],
    ] as const) {
      expect((await call(method, url, undefined, h.admin)).statusCode, url).toBe(403);
    }
    const bare = await createTradingGateway({ port: 0, logLevel: false }, { store: h.store });
    try {
      const key = (await bare.keys.create('bare', ['trade'])).key;
      const r = await bare.app.inject({ method: 'GET', url: '/v1/profile', headers: { 'x-api-key': key } });
      expect(r.statusCode).toBe(503);
      expect(r.json().error.code).toBe('TRADING_DISABLED');
    } finally {
      await bare.stop();
    }
  });
});
