/**
 * Issue 37, item 1: every modification of every order kind is checked pre-trade against the
 * order's RESULTING state. The attack: `{"orderType":"LIMIT","quantity":5000000}` and then
 * `{"orderType":"LIMIT","price":1000000}` each passed, because the check ran only when one body
 * carried both a quantity and a non-zero price; the order grew far past both limits in two steps.
 * Each kind is tried with quantity only, price only, both, neither, and a change to MARKET.
 */
import { BrokerClient } from '@feedpipe/broker-api';
import { MarketModel } from '@feedpipe/broker-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TEST_ACCOUNTS } from '../../../packages/broker-sim/src/accounts/seeds.js';
import { ScriptedMarket } from '../../../packages/broker-sim/src/rest/scripted-market.js';
import { createRestServer, type RestServer } from '../../../packages/broker-sim/src/rest/server.js';
import { type Harness, startHarness } from './helpers.js';

// The simulator below is this file's own, so no other file's orders or kill switch meet these.
const ACCOUNT = SIM_TEST_ACCOUNTS[0] as (typeof SIM_TEST_ACCOUNTS)[number];
const TCS = 11536;
const LTP = 3500;
/** The limits of this gateway: 1,000 shares and 1,000,000 of notional per order. */
const LIMITS = { maxQuantity: 1_000, maxNotional: 1_000_000, killSwitchCacheMs: 0 };

let sim: RestServer;
let h: Harness;
let broker: BrokerClient;
let usId: string;

beforeAll(async () => {
  const model = new MarketModel({ seed: 1, instruments: 50 });
  const market = new ScriptedMarket(model);
  market.setLtp(TCS, LTP);
  usId = String(model.universe.find((i) => i.exchangeSegment === 'INX_EQ')?.securityId);
  sim = await createRestServer({ model: market, rateLimits: false });
  broker = new BrokerClient({
    baseUrl: sim.baseUrl,
    clientId: ACCOUNT.clientId,
    accessToken: ACCOUNT.webToken,
    retryBaseDelayMs: 10,
  });
  h = await startHarness(
    { trading: LIMITS },
    {
      broker,
      instruments: [
        { securityId: TCS, segment: 'NSE_EQ', lastPrice: LTP },
        { securityId: Number(usId), segment: 'INX_EQ', lastPrice: 100 },
      ],
    },
  );
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
});

function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers = h.trade) {
  return h.gateway.app.inject({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const LIMIT_BUY = {
  transactionType: 'BUY',
  exchangeSegment: 'NSE_EQ',
  productType: 'INTRADAY',
  orderType: 'LIMIT',
  validity: 'DAY',
  securityId: String(TCS),
  quantity: 2,
  price: 3000,
};

async function placed(url: string, body: Record<string, unknown>): Promise<string> {
  const r = await call('POST', url, body);
  expect(r.statusCode, r.body).toBe(200);
  return r.json().orderId as string;
}

/** A modification refused by the checks: 422 PRE_TRADE_REJECTED naming `field`, nothing sent. */
async function refused(url: string, body: Record<string, unknown>, field: string, headers = h.trade) {
  const r = await call('PUT', url, body, headers);
  expect(r.statusCode, `${JSON.stringify(body)} -> ${r.body}`).toBe(422);
  expect(r.json().error).toMatchObject({ code: 'PRE_TRADE_REJECTED', field });
}

async function accepted(url: string, body: Record<string, unknown>, headers = h.trade) {
  const r = await call('PUT', url, body, headers);
  expect(r.statusCode, `${JSON.stringify(body)} -> ${r.body}`).toBe(200);
}

describe('regular orders: PUT /v1/orders/{id}', () => {
  it('the two-step attack of the issue is refused at each step, and the order stays as placed', async () => {
    const id = await placed('/v1/orders', LIMIT_BUY);
    await refused(`/v1/orders/${id}`, { orderType: 'LIMIT', quantity: 5_000_000 }, 'quantity');
    // 2 x 1,000,000: only the price changes, the quantity is the order's.
    await refused(`/v1/orders/${id}`, { orderType: 'LIMIT', price: 1_000_000 }, 'quantity');
    const order = (await broker.orders.byId(id)) as { quantity: number; price: number };
    expect(order).toMatchObject({ quantity: 2, price: 3000 });
  });

  it('quantity only: judged at the order price (400 x 3,000 = 1.2 M > 1 M)', async () => {
    const id = await placed('/v1/orders', LIMIT_BUY);
    await refused(`/v1/orders/${id}`, { orderType: 'LIMIT', quantity: 400 }, 'quantity');
    await accepted(`/v1/orders/${id}`, { orderType: 'LIMIT', quantity: 300 });
  });

  it('price only: judged with the order quantity, which an earlier modification set', async () => {
    const id = await placed('/v1/orders', LIMIT_BUY);
    await accepted(`/v1/orders/${id}`, { orderType: 'LIMIT', quantity: 300 });
    // 300 x 3,400 = 1.02 M: only over the limit with the quantity of the earlier modification.
    await refused(`/v1/orders/${id}`, { orderType: 'LIMIT', price: 3_400 }, 'quantity');
    await accepted(`/v1/orders/${id}`, { orderType: 'LIMIT', price: 3_300 });
  });

  it('both: judged on the values sent', async () => {
    const id = await placed('/v1/orders', LIMIT_BUY);
    await refused(`/v1/orders/${id}`, { orderType: 'LIMIT', quantity: 1_001, price: 1 }, 'quantity');
    await refused(`/v1/orders/${id}`, { orderType: 'LIMIT', quantity: 500, price: 2_001 }, 'quantity');
    await accepted(`/v1/orders/${id}`, { orderType: 'LIMIT', quantity: 500, price: 1_999 });
  });

  it('to MARKET: the notional uses the last price (300 x 3,500 = 1.05 M), not the old limit price', async () => {
    const id = await placed('/v1/orders', { ...LIMIT_BUY, quantity: 300 });
    await refused(`/v1/orders/${id}`, { orderType: 'MARKET' }, 'quantity');
    await refused(`/v1/orders/${id}`, { orderType: 'MARKET', price: 1 }, 'quantity');
    await accepted(`/v1/orders/${id}`, { orderType: 'MARKET', quantity: 200 });
  });

  it('neither: an order made larger at the service itself (its console) is judged as the service has it', async () => {
    const id = await placed('/v1/orders', LIMIT_BUY);
    // Outside the gateway: 400 x 3,000 = 1.2 M, over the limit.
    await broker.orders.modify(id, { orderType: 'LIMIT', quantity: 400 });
    await refused(`/v1/orders/${id}`, { orderType: 'LIMIT', validity: 'DAY' }, 'quantity');
    await refused(`/v1/orders/${id}`, { orderType: 'LIMIT', triggerPrice: 1 }, 'quantity');
    // Back within the limits through the gateway: 100 x 3,000.
    await accepted(`/v1/orders/${id}`, { orderType: 'LIMIT', quantity: 100 });
    await accepted(`/v1/orders/${id}`, { orderType: 'LIMIT', validity: 'DAY' });
  });
});

describe('super orders: PUT /v1/super-orders/{id}', () => {
  const SUPER = { ...LIMIT_BUY, validity: undefined, targetPrice: 3_200, stopLossPrice: 2_900 };

  it('entry leg: quantity only, price only, both, to MARKET', async () => {
    const id = await placed('/v1/super-orders', SUPER);
    const url = `/v1/super-orders/${id}`;
    await refused(url, { legName: 'ENTRY_LEG', quantity: 5_000_000 }, 'quantity');
    await refused(url, { legName: 'ENTRY_LEG', price: 1_000_000 }, 'quantity');
    await refused(url, { legName: 'ENTRY_LEG', quantity: 400, price: 3_000 }, 'quantity');
    await accepted(url, { legName: 'ENTRY_LEG', quantity: 300 });
    // 300 x 3,500 once it trades at the market.
    await refused(url, { legName: 'ENTRY_LEG', orderType: 'MARKET' }, 'quantity');
    await refused(url, { legName: 'ENTRY_LEG', price: 3_400 }, 'quantity');
    await accepted(url, { legName: 'ENTRY_LEG', price: 3_100 });
  });

  it('exit legs: a target or stop-loss price is judged with the entry quantity', async () => {
    const id = await placed('/v1/super-orders', SUPER);
    const url = `/v1/super-orders/${id}`;
    await refused(url, { legName: 'TARGET_LEG', targetPrice: 1_000_000 }, 'targetPrice');
    await refused(url, { legName: 'STOP_LOSS_LEG', stopLossPrice: 1_000_000 }, 'stopLossPrice');
    await accepted(url, { legName: 'TARGET_LEG', targetPrice: 3_300 });
    await accepted(url, { legName: 'STOP_LOSS_LEG', trailingJump: 5 });
  });
});

describe('forever orders: PUT /v1/forever-orders/{id}', () => {
  const FOREVER = { ...LIMIT_BUY, productType: 'CNC', orderFlag: 'SINGLE', triggerPrice: 3_010 };
  const MODIFY = { orderFlag: 'SINGLE', orderType: 'LIMIT', legName: 'TARGET_LEG' };

  it('quantity only, price only, both, neither', async () => {
    const id = await placed('/v1/forever-orders', FOREVER);
    const url = `/v1/forever-orders/${id}`;
    await refused(url, { ...MODIFY, quantity: 5_000_000 }, 'quantity');
    await refused(url, { ...MODIFY, price: 1_000_000 }, 'quantity');
    await refused(url, { ...MODIFY, quantity: 400, price: 3_000 }, 'quantity');
    await accepted(url, { ...MODIFY, quantity: 300 });
    await refused(url, { ...MODIFY, price: 3_400 }, 'quantity');
    await refused(url, { ...MODIFY, orderType: 'MARKET' }, 'quantity');
    await accepted(url, { ...MODIFY, triggerPrice: 3_020 });
  });

  it("an OCO's second leg is judged with its own quantity", async () => {
    const id = await placed('/v1/forever-orders', {
      ...FOREVER,
      orderFlag: 'OCO',
      quantity1: 2,
      price1: 2_900,
      triggerPrice1: 2_890,
    });
    const url = `/v1/forever-orders/${id}`;
    const leg2 = { ...MODIFY, orderFlag: 'OCO', legName: 'STOP_LOSS_LEG' };
    await refused(url, { ...leg2, price: 1_000_000 }, 'quantity');
    await refused(url, { ...leg2, quantity: 5_000 }, 'quantity');
    await accepted(url, { ...leg2, price: 2_950 });
  });
});

describe('US-stock orders: PUT /v1/us/orders/{id}', () => {
  it('quantity only, price only, both, to MARKET', async () => {
    const id = await placed('/v1/us/orders', {
      transactionType: 'BUY',
      orderType: 'LIMIT',
      securityId: usId,
      quantity: 1.5,
      price: 1,
    });
    const url = `/v1/us/orders/${id}`;
    const base = { transactionType: 'BUY', orderType: 'LIMIT', securityId: usId };
    await refused(url, { ...base, quantity: 5_000 }, 'quantity');
    await refused(url, { ...base, price: 1_000_000 }, 'quantity');
    await refused(url, { ...base, quantity: 600, price: 2_000 }, 'quantity');
    await accepted(url, { ...base, quantity: 900 });
    await refused(url, { ...base, price: 1_200 }, 'quantity');
    await accepted(url, { ...base, orderType: 'MARKET' });
  });
});

describe('conditional orders: PUT /v1/conditional-orders/{id}', () => {
  it('the new orders of the replacement are checked like placements', async () => {
    const condition = {
      comparisonType: 'PRICE_WITH_VALUE',
      exchangeSegment: 'NSE_EQ',
      securityId: String(TCS),
      operator: 'GREATER_THAN',
      comparingValue: 4_000,
      timeFrame: 'DAY',
      expDate: '2030-01-01',
    };
    const r = await call('POST', '/v1/conditional-orders', { condition, orders: [{ ...LIMIT_BUY }] });
    expect(r.statusCode, r.body).toBe(200);
    const url = `/v1/conditional-orders/${r.json().alertId}`;
    await refused(url, { condition, orders: [{ ...LIMIT_BUY, quantity: 5_000_000 }] }, 'orders.0.quantity');
    await refused(url, { condition, orders: [{ ...LIMIT_BUY, price: 1_000_000 }] }, 'orders.0.quantity');
    await accepted(url, { condition, orders: [{ ...LIMIT_BUY, quantity: 3 }] });
  });
});
