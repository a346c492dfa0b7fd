import type { FetchLike, PlaceOrderRequest } from '@feedpipe/broker-api';
import { BrokerClient } from '@feedpipe/broker-api';
import { waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, ONE, type Sim, startSim, stock, TWO } from './api-sim-helpers.js';

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim?.close();
});

function limitBuy(
  securityId: string,
  price: number,
  extra: Partial<PlaceOrderRequest> = {},
): PlaceOrderRequest {
  return {
    transactionType: 'BUY',
    exchangeSegment: 'NSE_EQ',
    productType: 'INTRADAY',
    orderType: 'LIMIT',
    validity: 'DAY',
    securityId,
    quantity: 1,
    price,
    ...extra,
  };
}

async function statusOf(c: BrokerClient, orderId: string): Promise<string> {
  return (await c.orders.byId(orderId)).orderStatus;
}

describe('orders against the simulator', () => {
  it('places a resting limit order, modifies it, finds it by correlation id, cancels it', async () => {
    const c = sim.client();
    const s = stock(sim);
    const price = s.restingBuy;
    const ack = await c.orders.place(limitBuy(s.securityId, price, { quantity: 3, correlationId: 'rest-1' }));
    expect(ack.orderId).toBeTruthy();
    expect(['TRANSIT', 'PENDING']).toContain(ack.orderStatus);
    await waitFor(async () => (await statusOf(c, ack.orderId)) === 'PENDING', 10_000, 'order pending');

    const lower = Number((price + s.tick).toFixed(2));
    await c.orders.modify(ack.orderId, { orderType: 'LIMIT', price: lower, quantity: 4, validity: 'DAY' });
    const modified = await c.orders.byId(ack.orderId);
    expect(modified).toMatchObject({ orderId: ack.orderId, quantity: 4, orderStatus: 'PENDING' });
    expect(modified.price).toBeCloseTo(lower, 6);

    const byCorrelation = await c.orders.byCorrelationId('rest-1');
    expect(byCorrelation.orderId).toBe(ack.orderId);
    expect((await c.orders.list()).some((o) => o.orderId === ack.orderId)).toBe(true);

    const cancelled = await c.orders.cancel(ack.orderId);
    expect(cancelled.orderId).toBe(ack.orderId);
    await waitFor(async () => (await statusOf(c, ack.orderId)) === 'CANCELLED', 10_000, 'order cancelled');
    const again = await errorOf(c.orders.cancel(ack.orderId));
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.errorCode).toMatch(/^DH-90\d$/);
  });

  it('fills a market order: trades, positions and funds follow', async () => {
    const c = sim.client();
    const s = stock(sim, 'NSE_EQ', 1);
    const before = await c.funds.fundLimit();
    const ack = await c.orders.place({
      ...limitBuy(s.securityId, 0),
      orderType: 'MARKET',
      price: 0,
      quantity: 5,
    });
    await waitFor(async () => (await statusOf(c, ack.orderId)) === 'TRADED', 20_000, 'market order traded');
    const order = await c.orders.byId(ack.orderId);
    expect(order).toMatchObject({ filledQty: 5, remainingQuantity: 0 });
    expect(order.averageTradedPrice).toBeGreaterThan(0);

    const trades = await c.trades.byOrder(ack.orderId);
    expect(trades.reduce((n, t) => n + t.tradedQuantity, 0)).toBe(5);
    expect(trades.every((t) => t.orderId === ack.orderId)).toBe(true);
    expect((await c.trades.today()).some((t) => t.orderId === ack.orderId)).toBe(true);

    const position = (await c.portfolio.positions()).find(
      (p) => p.securityId === s.securityId && p.productType === 'INTRADAY',
    );
    expect(position).toMatchObject({ netQty: 5, buyQty: 5, positionType: 'LONG' });
    const after = await c.funds.fundLimit();
    expect(after.availabelBalance).toBeLessThan(before.availabelBalance);
    expect(after.utilizedAmount).toBeGreaterThan(before.utilizedAmount);
  });

  it('refuses order placement from an account without a whitelisted static IP', async () => {
    const c = sim.client({ clientId: TWO.clientId, accessToken: TWO.webToken });
    const s = stock(sim);
    const error = await errorOf(c.orders.place(limitBuy(s.securityId, s.restingBuy)));
    expect(error).toMatchObject({ code: 'HTTP_ERROR', errorCode: 'DH-906' });
    expect([400, 403]).toContain(error.status);
    // Reading needs no whitelisting.
    await expect(c.orders.list()).resolves.toEqual([]);
  });

  it('answers input errors with 400 / DH-905 and unknown ids clearly', async () => {
    const c = sim.client();
    const s = stock(sim);
    const bad = await errorOf(
      c.orders.place(limitBuy(s.securityId, s.restingBuy, { validity: 'WEEK' as never })),
    );
    expect(bad).toMatchObject({ status: 400, errorCode: 'DH-905' });
    const unknown = await errorOf(c.orders.byId('999999999'));
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    expect(unknown.errorMessage).toBeTruthy();
  });

  it('stops at 25 modifications: the client refuses the 26th, and so does the simulator', async () => {
    const c = sim.client();
    const s = stock(sim, 'NSE_EQ', 2);
    const price = s.restingBuy;
    const ack = await c.orders.place(limitBuy(s.securityId, price));
    await waitFor(async () => (await statusOf(c, ack.orderId)) === 'PENDING', 10_000, 'order pending');
    for (let i = 1; i <= 25; i++) {
      const next = Number((price + (i % 2) * s.tick).toFixed(2));
      await c.orders.modify(ack.orderId, { orderType: 'LIMIT', price: next, quantity: 1 });
    }
    expect((await errorOf(c.orders.modify(ack.orderId, { orderType: 'LIMIT', price }))).code).toBe(
      'MODIFICATION_LIMIT',
    );
    // A client that has not counted them (e.g. after a restart) hears it from the simulator.
    const fresh = new BrokerClient({
      baseUrl: sim.server.baseUrl,
      clientId: ONE.clientId,
      accessToken: ONE.webToken,
    });
    const refused = await errorOf(fresh.orders.modify(ack.orderId, { orderType: 'LIMIT', price }));
    expect(refused.errorCode).toBe('DH-906');
    await c.orders.cancel(ack.orderId);
  });

  it('fires 100 placements at once: never a 429, never more than 10 per second', async () => {
    const sent: number[] = [];
    const statuses: number[] = [];
    const recording: FetchLike = async (url, init) => {
      sent.push(Date.now());
      const response = await fetch(url, init);
      statuses.push(response.status);
      return response;
    };
    const c = sim.client({ fetch: recording });
    const s = stock(sim, 'NSE_EQ', 3);
    // The previous test's second client spent order slots this file's limiter never saw; let the
    // simulator's one-second window empty so only this client's own pacing is measured.
    await new Promise((r) => setTimeout(r, 1100));
    const price = s.restingBuy;
    const acks = await Promise.all(
      Array.from({ length: 100 }, () => c.orders.place(limitBuy(s.securityId, price))),
    );
    expect(new Set(acks.map((a) => a.orderId)).size).toBe(100);
    expect(statuses).toHaveLength(100);
    expect(statuses.filter((st) => st === 429)).toEqual([]);
    const sorted = [...sent].sort((a, b) => a - b);
    let most = 0;
    for (let hi = 0, lo = 0; hi < sorted.length; hi++) {
      while ((sorted[hi] as number) - (sorted[lo] as number) >= 1000) lo++;
      most = Math.max(most, hi - lo + 1);
    }
    expect(most).toBeLessThanOrEqual(10);
    await c.portfolio.exitAll();
  });

  it('slices an order above the freeze quantity', async () => {
    const c = sim.client();
    const s = stock(sim, 'NSE_EQ', 4);
    const acks = await c.orders.slice(limitBuy(s.securityId, s.restingBuy, { quantity: 1 }));
    expect(acks.length).toBeGreaterThanOrEqual(1);
    for (const a of acks) await c.orders.cancel(a.orderId);
  });

  it('runs a super order: place, list with legs, modify a leg, cancel', async () => {
    const c = sim.client();
    const s = stock(sim, 'NSE_EQ', 5);
    const price = s.restingBuy;
    const ack = await c.superOrders.place({
      transactionType: 'BUY',
      exchangeSegment: 'NSE_EQ',
      productType: 'INTRADAY',
      orderType: 'LIMIT',
      securityId: s.securityId,
      quantity: 2,
      price,
      targetPrice: Number((price + 20 * s.tick).toFixed(2)),
      stopLossPrice: Number((price - 2 * s.tick).toFixed(2)),
      trailingJump: 0,
    });
    const listed = (await c.superOrders.list()).find((o) => o.orderId === ack.orderId);
    expect(listed).toBeDefined();
    expect(listed?.legName).toBe('ENTRY_LEG');
    expect(Array.isArray(listed?.legDetails)).toBe(true);
    await c.superOrders.modify(ack.orderId, {
      legName: 'TARGET_LEG',
      targetPrice: Number((price + 30 * s.tick).toFixed(2)),
    });
    await c.superOrders.cancelLeg(ack.orderId, 'ENTRY_LEG');
    const after = (await c.superOrders.list()).find((o) => o.orderId === ack.orderId);
    expect(after?.orderStatus).toBe('CANCELLED');
  });

  it('runs a forever order: place, list, modify, cancel', async () => {
    const c = sim.client();
    const s = stock(sim, 'NSE_EQ', 6);
    const price = s.restingBuy;
    const ack = await c.foreverOrders.place({
      orderFlag: 'SINGLE',
      transactionType: 'BUY',
      exchangeSegment: 'NSE_EQ',
      productType: 'CNC',
      orderType: 'LIMIT',
      validity: 'DAY',
      securityId: s.securityId,
      quantity: 1,
      price,
      triggerPrice: price,
    });
    expect((await c.foreverOrders.list()).some((o) => o.orderId === ack.orderId)).toBe(true);
    await c.foreverOrders.modify(ack.orderId, {
      orderFlag: 'SINGLE',
      orderType: 'LIMIT',
      legName: 'TARGET_LEG',
      quantity: 2,
      price,
      triggerPrice: price,
      validity: 'DAY',
    });
    const cancelled = await c.foreverOrders.cancel(ack.orderId);
    expect(cancelled.orderId).toBe(ack.orderId);
  });

  it('runs a conditional order: place, get, list, modify, cancel; refuses 16 orders', async () => {
    const c = sim.client();
    const s = stock(sim, 'NSE_EQ', 7);
    const leg = {
      transactionType: 'BUY' as const,
      exchangeSegment: 'NSE_EQ' as const,
      productType: 'CNC' as const,
      orderType: 'LIMIT' as const,
      validity: 'DAY' as const,
      securityId: s.securityId,
      quantity: 1,
      price: s.restingBuy,
    };
    const condition = {
      comparisonType: 'PRICE_WITH_VALUE',
      exchangeSegment: 'NSE_EQ' as const,
      securityId: s.securityId,
      operator: 'CROSSING_UP',
      comparingValue: Math.round(s.ltp * 2),
      timeFrame: 'DAY',
      frequency: 'ONCE',
      expDate: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
    };
    const ack = await c.alerts.place({ condition, orders: [leg] });
    expect(ack.alertStatus).toBe('ACTIVE');
    expect((await c.alerts.get(ack.alertId)).alertId).toBe(ack.alertId);
    expect((await c.alerts.list()).some((a) => a.alertId === ack.alertId)).toBe(true);
    await c.alerts.modify(ack.alertId, {
      condition: { ...condition, comparingValue: Math.round(s.ltp * 3) },
      orders: [leg],
    });
    const multi = await c.alerts.placeMulti({ condition, orders: [leg, { ...leg, quantity: 2 }] });
    expect(multi.alertId).toBeTruthy();
    expect((await c.alerts.cancel(ack.alertId)).alertStatus).toBe('CANCELLED');
    expect((await errorOf(c.alerts.place({ condition, orders: Array(16).fill(leg) }))).code).toBe(
      'INVALID_ARGUMENT',
    );
  });
});
