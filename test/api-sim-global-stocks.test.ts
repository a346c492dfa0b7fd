import type { BrokerClient } from '@feedpipe/broker-api';
import { waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type Sim, startSim } from './api-sim-helpers.js';

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim?.close();
});

function usStock(nth: number): { securityId: string; ltp: number; resting: number } {
  const inst = sim.model.universe.filter((i) => i.exchangeSegment === 'INX_EQ')[nth]!;
  const quote = sim.model.quote(inst.securityId)!;
  const floor = quote.lowerCircuit > 0 ? quote.lowerCircuit : quote.ltp * 0.9;
  return { securityId: String(inst.securityId), ltp: quote.ltp, resting: Number((floor + 0.05).toFixed(2)) };
}

async function statusOf(c: BrokerClient, orderId: string): Promise<string> {
  return (await c.globalStocks.order(orderId)).orderStatus;
}

describe('US stocks against the simulator', () => {
  it('reads market status, funds, charge estimate and margin', async () => {
    const c = sim.client();
    const status = await c.globalStocks.marketStatus();
    expect(['open', 'closed', 'OPEN', 'CLOSED']).toContain(status.status);
    const funds = await c.globalStocks.fundLimit();
    expect(funds.availableCash).toBeGreaterThan(0);
    const s = usStock(0);
    const estimate = await c.globalStocks.chargeEstimate({
      securityId: s.securityId,
      price: String(s.ltp),
      quantity: '2.5',
      transactionType: 'BUY',
    });
    expect(estimate.brokerage).toBeGreaterThanOrEqual(0);
    const margin = await c.globalStocks.margin({
      securityId: s.securityId,
      price: '0',
      quantity: '1',
      transactionType: 'BUY',
    });
    expect(margin.totalMargin).toBeGreaterThan(0);
  });

  it('fills fractional and AMOUNT orders into trades and holdings', async () => {
    const c = sim.client();
    const s = usStock(1);
    const fractional = await c.globalStocks.place({
      transactionType: 'BUY',
      orderType: 'MARKET',
      securityId: s.securityId,
      quantity: 0.5,
      price: 0,
    });
    const amount = await c.globalStocks.place({
      transactionType: 'BUY',
      orderType: 'AMOUNT',
      securityId: s.securityId,
      amount: 100,
    });
    for (const ack of [fractional, amount]) {
      await waitFor(async () => (await statusOf(c, ack.orderId)) === 'TRADED', 20_000, 'US order traded');
    }
    const trades = await c.globalStocks.tradesBySecurity(s.securityId);
    expect(trades.length).toBeGreaterThanOrEqual(2);
    expect(trades.some((t) => t.tradedQuantity === 0.5)).toBe(true);
    expect((await c.globalStocks.trades()).length).toBeGreaterThanOrEqual(trades.length);
    const holding = (await c.globalStocks.holdings()).find((h) => h.securityId === s.securityId);
    expect(holding?.quantity).toBeGreaterThan(0.5);
    expect((await c.globalStocks.orders()).map((o) => o.orderId)).toEqual(
      expect.arrayContaining([fractional.orderId, amount.orderId]),
    );
  });

  it('modifies and cancels a resting limit order', async () => {
    const c = sim.client();
    const s = usStock(2);
    const ack = await c.globalStocks.place({
      transactionType: 'BUY',
      orderType: 'LIMIT',
      securityId: s.securityId,
      quantity: 1.25,
      price: s.resting,
    });
    await waitFor(async () => (await statusOf(c, ack.orderId)) === 'PENDING', 20_000, 'US order pending');
    await c.globalStocks.modify(ack.orderId, {
      orderType: 'LIMIT',
      transactionType: 'BUY',
      securityId: s.securityId,
      quantity: 2,
      price: s.resting,
    });
    const order = await c.globalStocks.order(ack.orderId);
    expect(order.quantity).toBe(2);
    await c.globalStocks.cancel(ack.orderId);
    await waitFor(async () => (await statusOf(c, ack.orderId)) === 'CANCELLED', 20_000, 'US order cancelled');
    const unknown = await errorOf(c.globalStocks.order('no-such-order'));
    expect(unknown.status).toBeGreaterThanOrEqual(400);
  });
});
