/**
 * Trading bodies are taken exactly as typed: a string, boolean or null where a number is declared
 * (or a number where a string is, or one value where a list is) is a 400 naming the field, and the
 * request never leaves for the service. The broker client's fetch is wrapped so every call that
 * would reach the simulator is recorded; the audit table must stay empty as well.
 */
import { BrokerClient, type FetchLike } from '@feedpipe/broker-api';
import { MarketModel } from '@feedpipe/broker-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TEST_ACCOUNTS } from '../../../packages/broker-sim/src/accounts/seeds.js';
import { ScriptedMarket } from '../../../packages/broker-sim/src/rest/scripted-market.js';
import { createRestServer, type RestServer } from '../../../packages/broker-sim/src/rest/server.js';
import { type Harness, startHarness } from './helpers.js';

const ACCOUNT = SIM_TEST_ACCOUNTS[0] as (typeof SIM_TEST_ACCOUNTS)[number];
const TCS = 11536;

let sim: RestServer;
let h: Harness;
let usId: string;
/** Every call the broker client sent to the simulator: "METHOD /path". */
const sent: string[] = [];

beforeAll(async () => {
  const model = new MarketModel({ seed: 2, instruments: 50 });
  const market = new ScriptedMarket(model);
  market.setLtp(TCS, 3500);
  usId = String(model.universe.find((i) => i.exchangeSegment === 'INX_EQ')?.securityId);
  sim = await createRestServer({ model: market, rateLimits: false });
  const recordingFetch: FetchLike = (url, init) => {
    sent.push(`${init.method ?? 'GET'} ${new URL(url).pathname}`);
    return fetch(url, init);
  };
  const broker = new BrokerClient({
    baseUrl: sim.baseUrl,
    clientId: ACCOUNT.clientId,
    accessToken: ACCOUNT.webToken,
    retryBaseDelayMs: 10,
    fetch: recordingFetch,
  });
  h = await startHarness(
    {
      trading: { maxQuantity: 1_000, maxNotional: 1_000_000, killSwitchCacheMs: 0 },
      // The cases below run back to back on one key: the per-key limit is not under test here.
      rateLimit: { perSecond: 10_000, burst: 10_000 },
    },
    {
      broker,
      instruments: [
        { securityId: TCS, segment: 'NSE_EQ', lastPrice: 3500 },
        { securityId: Number(usId), segment: 'INX_EQ', lastPrice: 100 },
      ],
    },
  );
});
afterAll(async () => {
  await h?.close();
  await sim?.close();
});

function call(method: 'POST' | 'PUT' | 'GET', url: string, payload?: unknown) {
  return h.gateway.app.inject({
    method,
    url,
    headers: h.trade,
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
const { validity: _v, ...SUPER_BASE } = LIMIT_BUY;
const SUPER = { ...SUPER_BASE, targetPrice: 3200, stopLossPrice: 2900 };
const FOREVER = { ...LIMIT_BUY, productType: 'CNC', orderFlag: 'SINGLE', triggerPrice: 3010 };
const CONDITION = {
  comparisonType: 'PRICE_WITH_VALUE',
  exchangeSegment: 'NSE_EQ',
  securityId: String(TCS),
  operator: 'GREATER_THAN',
  comparingValue: 4000,
  timeFrame: 'DAY',
  expDate: '2030-01-01',
};
const ALERT = { condition: CONDITION, orders: [{ ...LIMIT_BUY, quantity: 1 }] };
const MARGIN = {
  exchangeSegment: 'NSE_EQ',
  transactionType: 'BUY',
  quantity: 1,
  productType: 'CNC',
  securityId: String(TCS),
  price: 3000,
};

type Case = { method: 'POST' | 'PUT'; url: string; body: unknown; field: string };

/** A copy of `base` with the value at the dotted `path` replaced. */
function withValue(base: unknown, path: string, value: unknown): unknown {
  const copy = structuredClone(base) as Record<string, unknown>;
  const keys = path.split('.');
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys[keys.length - 1] as string] = value;
  return copy;
}

/** The three coercions the red team saw for a numeric field: a numeric string, true, null. */
function numericCases(method: Case['method'], url: string, base: unknown, fields: string[]): Case[] {
  return fields.flatMap((field) =>
    ['5', true, null].map((value) => ({ method, url, body: withValue(base, field, value), field })),
  );
}

const CASES: Case[] = [
  // Regular orders.
  ...numericCases('POST', '/v1/orders', LIMIT_BUY, ['quantity', 'price']),
  ...numericCases('POST', '/v1/orders', { ...LIMIT_BUY, orderType: 'STOP_LOSS', triggerPrice: 2990 }, [
    'triggerPrice',
    'disclosedQuantity',
  ]),
  { method: 'POST', url: '/v1/orders', body: { ...LIMIT_BUY, securityId: TCS }, field: 'securityId' },
  {
    method: 'POST',
    url: '/v1/orders',
    body: { ...LIMIT_BUY, afterMarketOrder: 'true' },
    field: 'afterMarketOrder',
  },
  {
    method: 'POST',
    url: '/v1/orders',
    body: { ...LIMIT_BUY, afterMarketOrder: 1 },
    field: 'afterMarketOrder',
  },
  {
    method: 'POST',
    url: '/v1/orders',
    body: { ...LIMIT_BUY, transactionType: ['BUY'] },
    field: 'transactionType',
  },
  ...numericCases('PUT', '/v1/orders/1001', { orderType: 'LIMIT', quantity: 3, price: 3100 }, [
    'quantity',
    'price',
  ]),
  // Super orders.
  ...numericCases('POST', '/v1/super-orders', SUPER, ['quantity', 'price', 'targetPrice', 'stopLossPrice']),
  ...numericCases('POST', '/v1/super-orders', { ...SUPER, trailingJump: 5 }, ['trailingJump']),
  ...numericCases('PUT', '/v1/super-orders/1001', { legName: 'ENTRY_LEG', quantity: 1, price: 3000 }, [
    'quantity',
    'price',
  ]),
  // Forever orders.
  ...numericCases('POST', '/v1/forever-orders', FOREVER, ['quantity', 'price', 'triggerPrice']),
  ...numericCases(
    'POST',
    '/v1/forever-orders',
    { ...FOREVER, orderFlag: 'OCO', quantity1: 1, price1: 3100, triggerPrice1: 3090 },
    ['quantity1', 'price1', 'triggerPrice1'],
  ),
  ...numericCases(
    'PUT',
    '/v1/forever-orders/1001',
    { orderFlag: 'SINGLE', orderType: 'LIMIT', legName: 'TARGET_LEG', quantity: 2, price: 3001 },
    ['quantity', 'price'],
  ),
  // Conditional orders: the condition and every order inside.
  ...numericCases('POST', '/v1/conditional-orders', ALERT, [
    'condition.comparingValue',
    'orders.0.quantity',
    'orders.0.price',
  ]),
  ...numericCases('PUT', '/v1/conditional-orders/a1', ALERT, [
    'orders.0.quantity',
    'condition.comparingValue',
  ]),
  // US-stock orders.
  ...numericCases(
    'POST',
    '/v1/us/orders',
    { transactionType: 'BUY', orderType: 'LIMIT', securityId: 'X', quantity: 1.5, price: 1 },
    ['quantity', 'price'],
  ),
  ...numericCases(
    'POST',
    '/v1/us/orders',
    { transactionType: 'BUY', orderType: 'AMOUNT', securityId: 'X', amount: 10 },
    ['amount'],
  ),
  ...numericCases(
    'PUT',
    '/v1/us/orders/1001',
    { transactionType: 'BUY', orderType: 'LIMIT', securityId: 'X', quantity: 1, price: 1 },
    ['quantity', 'price'],
  ),
  // Risk controls: margin, P&L exit, kill switch.
  ...numericCases('POST', '/v1/margin', MARGIN, ['quantity', 'price']),
  ...numericCases('POST', '/v1/pnl-exit', { profitValue: 5000, lossValue: 2000 }, [
    'profitValue',
    'lossValue',
  ]),
  { method: 'POST', url: '/v1/pnl-exit', body: { profitValue: null, lossValue: true }, field: 'profitValue' },
  { method: 'POST', url: '/v1/pnl-exit', body: { lossValue: true }, field: 'lossValue' },
  {
    method: 'POST',
    url: '/v1/pnl-exit',
    body: { lossValue: 100, enableKillSwitch: 'true' },
    field: 'enableKillSwitch',
  },
  {
    method: 'POST',
    url: '/v1/pnl-exit',
    body: { lossValue: 100, productType: 'INTRADAY' },
    field: 'productType',
  },
  { method: 'POST', url: '/v1/kill-switch', body: { status: ['ACTIVATE'] }, field: 'status' },
  { method: 'POST', url: '/v1/kill-switch', body: { status: true }, field: 'status' },
];

describe('trading bodies are not coerced', () => {
  it('every order and risk route answers 400 naming the field, and nothing reaches the service', async () => {
    for (const c of CASES) {
      const body = c.url.startsWith('/v1/us/') ? withValue(c.body, 'securityId', usId) : c.body;
      sent.length = 0;
      const r = await call(c.method, c.url, body);
      const label = `${c.method} ${c.url} ${JSON.stringify(body)}`;
      expect(r.statusCode, `${label}: ${r.body}`).toBe(400);
      expect(r.json().error, label).toMatchObject({ code: 'BAD_REQUEST', field: c.field });
      expect(r.json().error.message, label).toContain(c.field);
      expect(sent, label).toEqual([]);
    }
    const [row] = await h.store.internal.rows<{ n: number | string }>(
      'SELECT count() AS n FROM market.order_audit',
    );
    expect(Number(row?.n)).toBe(0);
    sent.length = 0;
    expect((await call('GET', '/v1/orders')).json()).toEqual([]);
    expect((await call('GET', '/v1/kill-switch')).json()).toMatchObject({ killSwitchStatus: 'DEACTIVATE' });
    expect(sent).toEqual(['GET /v2/orders', 'GET /v2/killswitch']);
  });

  it('conditional orders refuse an impossible or non-ISO expiry date', async () => {
    for (const expDate of [
      '2030-02-30',
      '2031-02-29',
      '2030-13-01',
      '01/01/2030',
      '2030-1-1',
      '2030-01-01T00:00:00Z',
    ]) {
      sent.length = 0;
      const r = await call('POST', '/v1/conditional-orders', withValue(ALERT, 'condition.expDate', expDate));
      expect(r.statusCode, expDate).toBe(400);
      expect(r.json().error.field, expDate).toBe('condition.expDate');
      expect(sent, expDate).toEqual([]);
    }
  });

  it('exactly typed bodies still go through, and the P&L exit stores the values sent', async () => {
    sent.length = 0;
    const placed = await call('POST', '/v1/orders', { ...LIMIT_BUY, correlationId: 'strict-ok-1' });
    expect(placed.statusCode, placed.body).toBe(200);
    expect(sent).toContain('POST /v2/orders');
    const order = (await call('GET', `/v1/orders/${placed.json().orderId}`)).json();
    expect(order).toMatchObject({ quantity: 2, price: 3000 });

    const leap = await call(
      'POST',
      '/v1/conditional-orders',
      withValue(ALERT, 'condition.expDate', '2028-02-29'),
    );
    expect(leap.statusCode, leap.body).toBe(200);

    const set = await call('POST', '/v1/pnl-exit', {
      profitValue: 5000,
      lossValue: 1500,
      productType: ['INTRADAY'],
    });
    expect(set.statusCode, set.body).toBe(200);
    expect((await call('GET', '/v1/pnl-exit')).json()).toMatchObject({ profit: 5000, loss: 1500 });
  });
});
