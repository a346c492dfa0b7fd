/**
 * The typed client against the simulator on the cases of issue #18: the single-ISIN eDIS form, the
 * kill switch's ACTIVATE -> DEACTIVATE, an exit-leg cancel while the super order's entry is
 * pending, one-element arrays in form-encoded bodies; and a guard that every method of the client
 * is called by some client-against-simulator test (test/api-sim-*.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrokerClient, istDate } from '@feedpipe/broker-api';
import { waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type Sim, startSim, stock } from './api-sim-helpers.js';

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim?.close();
});

/** Buys one CNC share and waits for the holding; returns its ISIN. */
async function holdingIsin(c: BrokerClient, nth: number): Promise<string> {
  const s = stock(sim, 'NSE_EQ', nth);
  const ack = await c.orders.place({
    transactionType: 'BUY',
    exchangeSegment: 'NSE_EQ',
    productType: 'CNC',
    orderType: 'MARKET',
    validity: 'DAY',
    securityId: s.securityId,
    quantity: 1,
    price: 0,
  });
  await waitFor(async () => (await c.orders.byId(ack.orderId)).orderStatus === 'TRADED', 20_000, 'CNC buy');
  const holding = (await c.portfolio.holdings()).find((h) => h.securityId === s.securityId);
  if (!holding) throw new Error('no holding after a CNC buy');
  return holding.isin;
}

describe('issue #18 cases through the typed client', () => {
  // First in this file: activation needs a flat account with no pending order.
  it('activates the kill switch, then deactivates it and trading resumes', async () => {
    const c = sim.client();
    expect((await c.funds.setKillSwitch('ACTIVATE')).killSwitchStatus).toBe('ACTIVATE');
    const s = stock(sim, 'NSE_EQ', 20);
    const order = {
      transactionType: 'BUY',
      exchangeSegment: 'NSE_EQ',
      productType: 'INTRADAY',
      orderType: 'LIMIT',
      validity: 'DAY',
      securityId: s.securityId,
      quantity: 1,
      price: s.restingBuy,
    } as const;
    expect((await errorOf(c.orders.place(order))).errorCode).toBe('DH-906');
    expect((await c.funds.setKillSwitch('DEACTIVATE')).killSwitchStatus).toBe('DEACTIVATE');
    expect((await c.funds.killSwitch()).killSwitchStatus).toBe('DEACTIVATE');
    const ack = await c.orders.place(order);
    expect(ack.orderId).toBeTruthy();
    await c.orders.cancel(ack.orderId);
  });

  it('gets the single-ISIN eDIS form (POST /edis/from) once a T-PIN was requested', async () => {
    const c = sim.client();
    const isin = await holdingIsin(c, 21);
    expect(await errorOf(c.edis.singleForm({ isin, qty: 1, exchange: 'NSE' }))).toMatchObject({
      status: 400,
      errorCode: 'DH-906',
    });
    await c.edis.requestTpin();
    const form = await c.edis.singleForm({ isin, qty: 1, exchange: 'NSE', segment: 'EQ' });
    expect(form.edisFormHtml).toContain('<form');
    const row = (await c.edis.inquire(isin))[0];
    expect(row).toMatchObject({ isin, aprvdQty: expect.any(Number) });
    // Refused before sending: no ISIN, or a quantity that is not a positive integer.
    await expect(c.edis.singleForm({ isin: '', exchange: 'NSE' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(c.edis.singleForm({ isin, qty: 0, exchange: 'NSE' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('cancels a super order exit leg while the entry is pending', async () => {
    const c = sim.client();
    const s = stock(sim, 'NSE_EQ', 22);
    const price = s.restingBuy;
    const ack = await c.superOrders.place({
      transactionType: 'BUY',
      exchangeSegment: 'NSE_EQ',
      productType: 'INTRADAY',
      orderType: 'LIMIT',
      securityId: s.securityId,
      quantity: 1,
      price,
      targetPrice: Number((price + 20 * s.tick).toFixed(2)),
      stopLossPrice: Number((price - 2 * s.tick).toFixed(2)),
      trailingJump: 0,
    });
    await c.superOrders.modify(ack.orderId, {
      legName: 'STOP_LOSS_LEG',
      stopLossPrice: Number((price - 3 * s.tick).toFixed(2)),
    });
    const cancelled = await c.superOrders.cancelLeg(ack.orderId, 'STOP_LOSS_LEG');
    expect(cancelled.orderStatus).toBe('CANCELLED');
    const listed = (await c.superOrders.list()).find((o) => o.orderId === ack.orderId);
    expect(listed?.orderStatus).toBe('PENDING');
    expect(listed?.legDetails?.find((l) => l.legName === 'STOP_LOSS_LEG')?.orderStatus).toBe('CANCELLED');
    expect((await errorOf(c.superOrders.cancelLeg(ack.orderId, 'STOP_LOSS_LEG'))).errorCode).toBe('DH-906');
    await c.superOrders.cancelLeg(ack.orderId, 'ENTRY_LEG');
  });

  it('sends one-element arrays in form-encoded bodies (snapshot, bulk eDIS form, expired options)', async () => {
    const c = sim.client({ bodyEncoding: 'form' });
    const s = stock(sim, 'NSE_EQ', 23);
    const ltp = await c.marketData.ltp({ NSE_EQ: [Number(s.securityId)] });
    expect(Object.keys(ltp.NSE_EQ ?? {})).toEqual([s.securityId]);
    await holdingIsin(c, 24);
    await c.edis.requestTpin();
    const bulk = await c.edis.bulkForm({ isin: ['ALL'], exchange: 'NSE', segment: 'EQ', bulk: true });
    expect(bulk.edisFormHtml).toContain('<form');
    const expired = await c.history.expiredOptions({
      securityId: '13',
      strike: 'ATM',
      drvOptionType: 'CALL',
      requiredData: ['close'],
      fromDate: istDate(Date.now() - 60 * 86_400_000),
      toDate: istDate(Date.now() - 50 * 86_400_000),
    });
    expect(expired.ce?.fields).toEqual(['close']);
  });

  it('reads one page of trade history directly', async () => {
    const c = sim.client();
    const today = istDate(Date.now());
    const page = await c.trades.history(today, today, 0);
    expect(page.length).toBeGreaterThan(0);
    expect(page.every((t) => typeof t.exchangeTradeId === 'string')).toBe(true);
    expect(await c.trades.history(today, today, 1000)).toEqual([]);
  });
});

describe('coverage of the client by the client-against-simulator tests', () => {
  it('calls every endpoint method of every group of BrokerClient somewhere in test/api-sim-*.test.ts', () => {
    const dir = dirname(fileURLToPath(import.meta.url));
    const sources = readdirSync(dir)
      .filter((f) => /^api-sim-.*\.test\.ts$/.test(f))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    const client = new BrokerClient({ baseUrl: 'http://127.0.0.1:1' });
    const missing: string[] = [];
    let methods = 0;
    for (const [group, api] of Object.entries(client)) {
      // Endpoint groups only: the rate limiter is the client's own machinery, not an endpoint.
      if (typeof api !== 'object' || api === null || api === client.limiter) continue;
      const proto = Object.getPrototypeOf(api) as object;
      for (const name of Object.getOwnPropertyNames(proto)) {
        if (name === 'constructor' || typeof (api as Record<string, unknown>)[name] !== 'function') continue;
        methods += 1;
        if (!new RegExp(`\\.${group}\\s*\\.${name}\\s*\\(`).test(sources)) missing.push(`${group}.${name}`);
      }
    }
    expect(methods).toBeGreaterThan(70);
    expect(missing).toEqual([]);
  });
});
