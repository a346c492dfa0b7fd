/**
 * Order routes end to end: gateway -> BrokerClient -> the REST simulator on loopback, with audit
 * rows checked in ClickHouse.
 */
import { BrokerClient } from '@feedpipe/broker-api';
import { MarketModel } from '@feedpipe/broker-sim';
import { ApiKeyStore } from '@feedpipe/service-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TEST_ACCOUNTS } from '../../../packages/broker-sim/src/accounts/seeds.js';
import { ScriptedMarket } from '../../../packages/broker-sim/src/rest/scripted-market.js';
import { createRestServer, type RestServer } from '../../../packages/broker-sim/src/rest/server.js';
import { createTradingGateway } from '../src/index.js';
import { type Harness, startHarness } from './helpers.js';

const ACCOUNT = SIM_TEST_ACCOUNTS[0] as (typeof SIM_TEST_ACCOUNTS)[number];
const TCS = 11536;
const INFY = 1594;

let sim: RestServer;
let market: ScriptedMarket;
let h: Harness;
let usId: string;

beforeAll(async () => {
  const model = new MarketModel({ seed: 1, instruments: 50 });
  market = new ScriptedMarket(model);
  market.setLtp(TCS, 3500);
  usId = String(model.universe.find((i) => i.exchangeSegment === 'INX_EQ')?.securityId);
  sim = await createRestServer({ model: market, rateLimits: false });
  const broker = new BrokerClient({
    baseUrl: sim.baseUrl,
    clientId: ACCOUNT.clientId,
    accessToken: ACCOUNT.webToken,
    retryBaseDelayMs: 10,
  });
  h = await startHarness(
    { trading: { maxQuantity: 1_000, maxNotional: 1_000_000, killSwitchCacheMs: 0 } },
    {
      broker,
      instruments: [
        { securityId: TCS, segment: 'NSE_EQ', lastPrice: 3500 },
        { securityId: INFY, segment: 'NSE_EQ', lastPrice: 1500 },
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

async function audit(correlationId: string) {
  const r = await call('GET', `/v1/order-audit?correlationId=${encodeURIComponent(correlationId)}`);
  return (
    r.json() as {
      rows: { phase: string; outcome: string; action: string; order_id: string; error_code: string }[];
    }
  ).rows;
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

describe('regular orders', () => {
  it('places, reads, modifies and cancels an order, with an audit row per request and outcome', async () => {
    const placed = await call('POST', '/v1/orders', { ...LIMIT_BUY, correlationId: 'test-place-1' });
    expect(placed.statusCode).toBe(200);
    const { orderId, correlationId } = placed.json() as { orderId: string; correlationId: string };
    expect(correlationId).toBe('test-place-1');
    const rows = await audit('test-place-1');
    expect(rows.map((r) => [r.phase, r.outcome])).toEqual([
      ['outcome', 'accepted'],
      ['request', ''],
    ]);
    expect(rows[0]).toMatchObject({ action: 'orders.place', order_id: orderId });

    expect((await call('GET', `/v1/orders/${orderId}`)).json()).toMatchObject({ orderId, quantity: 2 });
    expect((await call('GET', '/v1/orders/by-correlation/test-place-1')).json()).toMatchObject({ orderId });
    expect((await call('GET', '/v1/orders')).json()).toEqual(
      expect.arrayContaining([expect.objectContaining({ orderId })]),
    );
    const modified = await call('PUT', `/v1/orders/${orderId}`, {
      orderType: 'LIMIT',
      price: 3100,
      quantity: 3,
    });
    expect(modified.statusCode).toBe(200);
    const cancelled = await call('DELETE', `/v1/orders/${orderId}`);
    expect(cancelled.json()).toMatchObject({ orderId, orderStatus: 'CANCELLED' });
    const all = (await call('GET', '/v1/order-audit?limit=50')).json().rows as {
      action: string;
      order_id: string;
    }[];
    expect(all.filter((r) => r.order_id === orderId).map((r) => r.action)).toEqual(
      expect.arrayContaining(['orders.modify', 'orders.cancel']),
    );
  });

  it('a retried request with the same correlationId does not place twice', async () => {
    const first = await call('POST', '/v1/orders', { ...LIMIT_BUY, correlationId: 'test-idem-1' });
    const again = await call('POST', '/v1/orders', { ...LIMIT_BUY, correlationId: 'test-idem-1' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['x-idempotent-replay']).toBe('true');
    expect(again.json().orderId).toBe(first.json().orderId);
    const concurrent = await Promise.all(
      [1, 2, 3].map(() => call('POST', '/v1/orders', { ...LIMIT_BUY, correlationId: 'test-idem-2' })),
    );
    expect(new Set(concurrent.map((r) => r.json().orderId)).size).toBe(1);
    const book = (await call('GET', '/v1/orders')).json() as { correlationId?: string }[];
    expect(book.filter((o) => o.correlationId === 'test-idem-1')).toHaveLength(1);
    expect(book.filter((o) => o.correlationId === 'test-idem-2')).toHaveLength(1);
    expect((await audit('test-idem-1')).map((r) => r.outcome)).toContain('replayed');
  });

  it('after an unknown outcome, a retry finds the order at the service instead of placing again', async () => {
    const placed = await call('POST', '/v1/orders', { ...LIMIT_BUY, correlationId: 'test-lost-1' });
    // Simulate a crash between sending and recording: a newer 'request' row without its outcome.
    await h.store.internal.insertRows(
      'market.order_audit',
      ['at', 'request_id', 'phase', 'action', 'correlation_id'],
      [
        [
          new Date(Date.now() + 1_000).toISOString().replace('T', ' ').replace('Z', ''),
          'x',
          'request',
          'orders.place',
          'test-lost-1',
        ],
      ],
    );
    const retry = await call('POST', '/v1/orders', { ...LIMIT_BUY, correlationId: 'test-lost-1' });
    expect(retry.headers['x-idempotent-replay']).toBe('true');
    expect(retry.json().orderId).toBe(placed.json().orderId);
  });

  it('pre-trade checks refuse unknown instruments, large quantities and notionals, with audit rows', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...LIMIT_BUY, securityId: '2885', correlationId: 'test-ptc-1' }, 'securityId'],
      [{ ...LIMIT_BUY, quantity: 5_000, correlationId: 'test-ptc-2' }, 'quantity'],
      [{ ...LIMIT_BUY, quantity: 400, price: 3000, correlationId: 'test-ptc-3' }, 'quantity'],
      [
        { ...LIMIT_BUY, orderType: 'MARKET', price: 0, quantity: 300, correlationId: 'test-ptc-4' },
        'quantity',
      ],
    ];
    for (const [body, field] of cases) {
      const r = await call('POST', '/v1/orders', body);
      expect(r.statusCode, JSON.stringify(body)).toBe(422);
      expect(r.json().error).toMatchObject({ code: 'PRE_TRADE_REJECTED', field });
      expect((await audit(body.correlationId as string))[0]).toMatchObject({
        outcome: 'refused',
        error_code: 'PRE_TRADE_REJECTED',
      });
    }
  });

  it('400 naming the field for a bad body; 404 for an unknown order; 403 without the trade scope; 401 without a key', async () => {
    const bad = await call('POST', '/v1/orders', { ...LIMIT_BUY, quantity: 0 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.field).toBe('quantity');
    const missing = await call('POST', '/v1/orders', { ...LIMIT_BUY, transactionType: undefined });
    expect(missing.json().error.field).toBe('transactionType');
    const cid = await call('POST', '/v1/orders', { ...LIMIT_BUY, correlationId: 'no;way' });
    expect(cid.json().error.field).toBe('correlationId');
    expect((await call('GET', '/v1/orders/999999999')).statusCode).toBe(404);
    expect((await call('GET', '/v1/orders', undefined, h.admin)).statusCode).toBe(403);
    expect((await call('GET', '/v1/orders', undefined, {})).statusCode).toBe(401);
  });

  it('the service refusing an order is a 422 with its error kept, and audited as rejected', async () => {
    const r = await call('POST', '/v1/orders', {
      ...LIMIT_BUY,
      orderType: 'STOP_LOSS',
      triggerPrice: 0,
      correlationId: 'test-rej-1',
    });
    expect(r.statusCode).toBe(422);
    expect(r.json().error.code).toBe('UPSTREAM_REJECTED');
    expect(r.json().error.upstream.errorCode).toMatch(/^DH-9/);
    expect((await audit('test-rej-1'))[0]).toMatchObject({ outcome: 'rejected' });
  });
});

describe('super, forever, conditional and US orders', () => {
  it('super order: place, list, modify a leg, cancel', async () => {
    const placed = await call('POST', '/v1/super-orders', {
      ...LIMIT_BUY,
      validity: undefined,
      targetPrice: 3200,
      stopLossPrice: 2900,
      correlationId: 'test-super-1',
    });
    expect(placed.statusCode).toBe(200);
    const { orderId } = placed.json();
    expect((await call('GET', '/v1/super-orders')).json()).toEqual(
      expect.arrayContaining([expect.objectContaining({ orderId })]),
    );
    expect(
      (await call('PUT', `/v1/super-orders/${orderId}`, { legName: 'TARGET_LEG', targetPrice: 3300 }))
        .statusCode,
    ).toBe(200);
    expect((await call('DELETE', `/v1/super-orders/${orderId}/ENTRY_LEG`)).statusCode).toBe(200);
    expect((await call('DELETE', `/v1/super-orders/${orderId}/MIDDLE_LEG`)).json().error.field).toBe('leg');
    expect((await audit('test-super-1'))[0]).toMatchObject({
      action: 'superOrders.place',
      outcome: 'accepted',
    });
  });

  it('forever order: place, list, modify, cancel', async () => {
    const placed = await call('POST', '/v1/forever-orders', {
      ...LIMIT_BUY,
      productType: 'CNC',
      orderFlag: 'SINGLE',
      triggerPrice: 3010,
      correlationId: 'test-forever-1',
    });
    expect(placed.statusCode, placed.body).toBe(200);
    const { orderId } = placed.json();
    expect((await call('GET', '/v1/forever-orders')).statusCode).toBe(200);
    const modified = await call('PUT', `/v1/forever-orders/${orderId}`, {
      orderFlag: 'SINGLE',
      orderType: 'LIMIT',
      legName: 'TARGET_LEG',
      price: 3001,
      triggerPrice: 3011,
      quantity: 2,
    });
    expect(modified.statusCode).toBe(200);
    expect((await call('DELETE', `/v1/forever-orders/${orderId}`)).statusCode).toBe(200);
    expect(
      (
        await call('POST', '/v1/forever-orders', { ...LIMIT_BUY, triggerPrice: 1, orderFlag: 'TRIPLE' })
      ).json().error.field,
    ).toBe('orderFlag');
  });

  it('conditional order: place, read, list, cancel', async () => {
    const placed = await call('POST', '/v1/conditional-orders', {
      correlationId: 'test-alert-1',
      condition: {
        comparisonType: 'PRICE_WITH_VALUE',
        exchangeSegment: 'NSE_EQ',
        securityId: String(TCS),
        operator: 'GREATER_THAN',
        comparingValue: 4000,
        timeFrame: 'DAY',
        expDate: '2030-01-01',
      },
      orders: [{ ...LIMIT_BUY, quantity: 1 }],
    });
    expect(placed.statusCode, placed.body).toBe(200);
    const { alertId } = placed.json();
    expect((await call('GET', `/v1/conditional-orders/${alertId}`)).json()).toMatchObject({ alertId });
    expect((await call('GET', '/v1/conditional-orders')).statusCode).toBe(200);
    expect((await call('DELETE', `/v1/conditional-orders/${alertId}`)).json()).toMatchObject({
      alertStatus: 'CANCELLED',
    });
    const tooMany = await call('POST', '/v1/conditional-orders', {
      condition: {
        comparisonType: 'PRICE_WITH_VALUE',
        exchangeSegment: 'NSE_EQ',
        securityId: String(TCS),
        operator: 'GREATER_THAN',
      },
      orders: Array.from({ length: 16 }, () => LIMIT_BUY),
    });
    expect(tooMany.json().error.field).toBe('orders');
    expect((await call('GET', '/v1/conditional-orders/does-not-exist')).statusCode).toBe(404);
  });

  it('US-stock order: place, read, list, cancel; holdings, funds and trades read', async () => {
    const placed = await call('POST', '/v1/us/orders', {
      transactionType: 'BUY',
      orderType: 'LIMIT',
      securityId: usId,
      quantity: 1.5,
      price: 1,
      correlationId: 'test-us-1',
    });
    expect(placed.statusCode).toBe(200);
    const { orderId } = placed.json();
    expect((await call('GET', `/v1/us/orders/${orderId}`)).json()).toMatchObject({ orderId });
    expect((await call('GET', '/v1/us/orders')).statusCode).toBe(200);
    expect((await call('DELETE', `/v1/us/orders/${orderId}`)).statusCode).toBe(200);
    for (const url of ['/v1/us/holdings', '/v1/us/funds', '/v1/us/trades'])
      expect((await call('GET', url)).statusCode, url).toBe(200);
    const amount = await call('POST', '/v1/us/orders', {
      transactionType: 'BUY',
      orderType: 'AMOUNT',
      securityId: usId,
      amount: 5_000_000,
    });
    expect(amount.json().error).toMatchObject({ code: 'PRE_TRADE_REJECTED', field: 'quantity' });
  });
});

describe('account and risk controls', () => {
  it('positions, holdings, funds and margin', async () => {
    for (const url of ['/v1/positions', '/v1/holdings', '/v1/funds'])
      expect((await call('GET', url)).statusCode, url).toBe(200);
    const margin = await call('POST', '/v1/margin', {
      exchangeSegment: 'NSE_EQ',
      transactionType: 'BUY',
      quantity: 1,
      productType: 'CNC',
      securityId: String(INFY),
      price: 1500,
    });
    expect(margin.json()).toHaveProperty('totalMargin');
    expect((await call('POST', '/v1/margin', { exchangeSegment: 'NSE_EQ' })).json().error.field).toBe(
      'transactionType',
    );
  });

  it('P&L exit is configured and read back', async () => {
    const set = await call('POST', '/v1/pnl-exit', {
      profitValue: 5000,
      lossValue: 2000,
      productType: ['INTRADAY'],
      enableKillSwitch: false,
    });
    expect(set.statusCode).toBe(200);
    expect((await call('GET', '/v1/pnl-exit')).json()).toMatchObject({ pnlExitStatus: 'ACTIVE' });
    expect((await call('POST', '/v1/pnl-exit', { profitValue: -1 })).json().error.field).toBe('profitValue');
  });

  // Last: the simulator keeps the kill switch on for the rest of the day.
  it('with the kill switch active, orders are refused before reaching the service', async () => {
    // Activation needs no open positions and no pending orders.
    await call('DELETE', '/v1/positions');
    const on = await call('POST', '/v1/kill-switch', { status: 'ACTIVATE' });
    expect(on.statusCode, on.body).toBe(200);
    expect((await call('GET', '/v1/kill-switch')).json()).toMatchObject({ killSwitchStatus: 'ACTIVATE' });
    const refused = await call('POST', '/v1/orders', { ...LIMIT_BUY, correlationId: 'test-ks-1' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('KILL_SWITCH_ACTIVE');
    expect((await audit('test-ks-1'))[0]).toMatchObject({
      outcome: 'refused',
      error_code: 'KILL_SWITCH_ACTIVE',
    });
    // The spec's state table moves ACTIVATE -> DEACTIVATE; trading is allowed again. Lifting it
    // takes a supervisor key (trade and admin): a trade key may only stop trading.
    const denied = await call('POST', '/v1/kill-switch', { status: 'DEACTIVATE' });
    expect(denied.statusCode, denied.body).toBe(403);
    expect((await call('GET', '/v1/kill-switch')).json()).toMatchObject({ killSwitchStatus: 'ACTIVATE' });
    const off = await call('POST', '/v1/kill-switch', { status: 'DEACTIVATE' }, h.supervisor);
    expect(off.statusCode, off.body).toBe(200);
    expect((await call('GET', '/v1/kill-switch')).json()).toMatchObject({ killSwitchStatus: 'DEACTIVATE' });
    const again = await call('POST', '/v1/orders', { ...LIMIT_BUY, correlationId: 'test-ks-2' });
    expect(again.statusCode, again.body).toBe(200);
    expect((await call('POST', '/v1/kill-switch', { status: 'MAYBE' })).json().error.field).toBe('status');
  });
});

describe('without a broker client', () => {
  it('order routes answer 503 TRADING_DISABLED', async () => {
    const bare = await createTradingGateway({ port: 0 }, { store: h.store });
    try {
      const r = await bare.app.inject({
        method: 'POST',
        url: '/v1/orders',
        headers: h.trade,
        payload: LIMIT_BUY,
      });
      expect(r.statusCode).toBe(503);
      expect(r.json().error.code).toBe('TRADING_DISABLED');
    } finally {
      await bare.stop();
    }
  });
});

describe('open routes', () => {
  it('keeps /healthz, /metrics and /docs open; /docs documents the order routes', async () => {
    for (const url of ['/healthz', '/metrics', '/docs/json']) {
      expect((await h.gateway.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    }
    const doc = (await h.gateway.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/orders', '/v1/kill-switch', '/v1/order-audit', '/v1/admin/keys']),
    );
    const metrics = (await h.gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('trading_gateway_http_requests_total');
    expect(metrics).toContain('trading_gateway_order_requests_total');
  });
});

describe('keys of the gateway alone', () => {
  it('a key of the query API (market.api_keys), whatever its scopes, is unknown here', async () => {
    const apiKeys = new ApiKeyStore(h.store.internal, {
      table: 'market.api_keys',
      scopes: ['read', 'trade', 'admin'],
      cacheMs: 0,
    });
    const foreign = await apiKeys.create('query-api-key', ['read', 'trade', 'admin']);
    const r = await call('GET', '/v1/orders', undefined, { 'x-api-key': foreign.key });
    expect(r.statusCode).toBe(401);
    expect(r.json().error.code).toBe('UNAUTHENTICATED');
  });
});
