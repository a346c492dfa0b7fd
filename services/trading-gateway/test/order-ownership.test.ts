/**
 * Issue 37, item 5: orders belong to the gateway key that placed them. The attack: a second trade
 * key reused key A's correlationId and got A's answer (`x-idempotent-replay: true`) while its own
 * order was silently not placed; it could modify and cancel A's order and read A's audit rows.
 * Now: another key's correlationId is a 409 CORRELATION_ID_CONFLICT (never A's answer), another
 * key's order is 404 on every route, lists and the audit trail hold the caller's own only, and a
 * supervisor key (trade + admin) sees and acts on all. Ownership outlives the process.
 */
import { BrokerClient } from '@feedpipe/broker-api';
import { MarketModel } from '@feedpipe/broker-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_TEST_ACCOUNTS } from '../../../packages/broker-sim/src/accounts/seeds.js';
import { ScriptedMarket } from '../../../packages/broker-sim/src/rest/scripted-market.js';
import { createRestServer, type RestServer } from '../../../packages/broker-sim/src/rest/server.js';
import { createTradingGateway } from '../src/index.js';
import { type Harness, startHarness } from './helpers.js';

const ACCOUNT = SIM_TEST_ACCOUNTS[0] as (typeof SIM_TEST_ACCOUNTS)[number];
const TCS = 11536;

let sim: RestServer;
let h: Harness;
let broker: BrokerClient;
let usId: string;

beforeAll(async () => {
  const model = new MarketModel({ seed: 1, instruments: 50 });
  const market = new ScriptedMarket(model);
  market.setLtp(TCS, 3500);
  usId = String(model.universe.find((i) => i.exchangeSegment === 'INX_EQ')?.securityId);
  sim = await createRestServer({ model: market, rateLimits: false });
  broker = new BrokerClient({
    baseUrl: sim.baseUrl,
    clientId: ACCOUNT.clientId,
    accessToken: ACCOUNT.webToken,
    retryBaseDelayMs: 10,
  });
  h = await startHarness(
    { trading: { killSwitchCacheMs: 0 } },
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

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
function call(method: Method, url: string, headers: Record<string, string>, payload?: unknown) {
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

describe('correlation ids are per key', () => {
  it("a second key reusing A's correlationId gets 409, never A's answer, and A's retry still replays", async () => {
    const a = await call('POST', '/v1/orders', h.trade, { ...LIMIT_BUY, correlationId: 'own-cid-1' });
    expect(a.statusCode, a.body).toBe(200);
    const b = await call('POST', '/v1/orders', h.trade2, {
      ...LIMIT_BUY,
      quantity: 3,
      correlationId: 'own-cid-1',
    });
    expect(b.statusCode, b.body).toBe(409);
    expect(b.headers['x-idempotent-replay']).toBeUndefined();
    expect(b.json().error).toMatchObject({ code: 'CORRELATION_ID_CONFLICT', field: 'correlationId' });
    expect(b.body).not.toContain(a.json().orderId);
    // Nothing was placed for B under that id, and A's own retry is still A's replay.
    const book = await broker.orders.list();
    expect(book.filter((o) => o.correlationId === 'own-cid-1')).toHaveLength(1);
    const again = await call('POST', '/v1/orders', h.trade, { ...LIMIT_BUY, correlationId: 'own-cid-1' });
    expect(again.headers['x-idempotent-replay']).toBe('true');
    expect(again.json().orderId).toBe(a.json().orderId);
    // B with an id of its own gets its own order.
    const own = await call('POST', '/v1/orders', h.trade2, { ...LIMIT_BUY, correlationId: 'own-cid-2' });
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json().orderId).not.toBe(a.json().orderId);
  });

  it('two keys sending the same new correlationId at once: one order, the other key 409', async () => {
    const answers = await Promise.all([
      call('POST', '/v1/orders', h.trade, { ...LIMIT_BUY, correlationId: 'own-cid-race' }),
      call('POST', '/v1/orders', h.trade2, { ...LIMIT_BUY, correlationId: 'own-cid-race' }),
    ]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(answers.every((r) => r.headers['x-idempotent-replay'] === undefined)).toBe(true);
    const book = await broker.orders.list();
    expect(book.filter((o) => o.correlationId === 'own-cid-race')).toHaveLength(1);
  });

  it("another key's correlation id cannot be read", async () => {
    await call('POST', '/v1/orders', h.trade, { ...LIMIT_BUY, correlationId: 'own-cid-read' });
    expect((await call('GET', '/v1/orders/by-correlation/own-cid-read', h.trade2)).statusCode).toBe(404);
    expect((await call('GET', '/v1/orders/by-correlation/own-cid-read', h.trade)).statusCode).toBe(200);
    expect((await call('GET', '/v1/orders/by-correlation/own-cid-read', h.supervisor)).statusCode).toBe(200);
  });
});

describe("another key's orders are 404", () => {
  it('regular orders: read, modify and cancel refused and nothing sent; lists hold the own orders only', async () => {
    const placed = await call('POST', '/v1/orders', h.trade, { ...LIMIT_BUY, correlationId: 'own-regular' });
    const { orderId } = placed.json() as { orderId: string };
    for (const [method, payload] of [
      ['GET', undefined],
      ['PUT', { orderType: 'LIMIT', quantity: 1 }],
      ['DELETE', undefined],
    ] as const) {
      const r = await call(method, `/v1/orders/${orderId}`, h.trade2, payload);
      expect(r.statusCode, `${method} ${r.body}`).toBe(404);
      expect(r.json().error.code).toBe('NOT_FOUND');
    }
    expect(await broker.orders.byId(orderId)).toMatchObject({ quantity: 2, orderStatus: 'PENDING' });
    const ids = (headers: Record<string, string>) =>
      call('GET', '/v1/orders', headers).then((r) =>
        (r.json() as { orderId: string }[]).map((o) => o.orderId),
      );
    expect(await ids(h.trade2)).not.toContain(orderId);
    expect(await ids(h.trade)).toContain(orderId);
    expect(await ids(h.supervisor)).toContain(orderId);
    // The owner acts on it.
    expect(
      (await call('PUT', `/v1/orders/${orderId}`, h.trade, { orderType: 'LIMIT', quantity: 3 })).statusCode,
    ).toBe(200);
  });

  it('a supervisor key (trade + admin) reads, modifies and cancels any key’s order', async () => {
    const placed = await call('POST', '/v1/orders', h.trade, {
      ...LIMIT_BUY,
      correlationId: 'own-supervised',
    });
    const { orderId } = placed.json() as { orderId: string };
    expect((await call('GET', `/v1/orders/${orderId}`, h.supervisor)).statusCode).toBe(200);
    const put = await call('PUT', `/v1/orders/${orderId}`, h.supervisor, { orderType: 'LIMIT', quantity: 4 });
    expect(put.statusCode, put.body).toBe(200);
    const del = await call('DELETE', `/v1/orders/${orderId}`, h.supervisor);
    expect(del.json()).toMatchObject({ orderId, orderStatus: 'CANCELLED' });
  });

  it('super, forever, conditional and US orders', async () => {
    const sup = (
      await call('POST', '/v1/super-orders', h.trade, {
        ...LIMIT_BUY,
        validity: undefined,
        targetPrice: 3200,
        stopLossPrice: 2900,
      })
    ).json().orderId as string;
    const forever = (
      await call('POST', '/v1/forever-orders', h.trade, {
        ...LIMIT_BUY,
        productType: 'CNC',
        orderFlag: 'SINGLE',
        triggerPrice: 3010,
      })
    ).json().orderId as string;
    const alert = (
      await call('POST', '/v1/conditional-orders', h.trade, {
        condition: {
          comparisonType: 'PRICE_WITH_VALUE',
          exchangeSegment: 'NSE_EQ',
          securityId: String(TCS),
          operator: 'GREATER_THAN',
          comparingValue: 4000,
          timeFrame: 'DAY',
          expDate: '2030-01-01',
        },
        orders: [LIMIT_BUY],
      })
    ).json().alertId as string;
    const us = (
      await call('POST', '/v1/us/orders', h.trade, {
        transactionType: 'BUY',
        orderType: 'LIMIT',
        securityId: usId,
        quantity: 1,
        price: 1,
      })
    ).json().orderId as string;
    const refused: [Method, string, unknown?][] = [
      ['PUT', `/v1/super-orders/${sup}`, { legName: 'TARGET_LEG', targetPrice: 3300 }],
      ['DELETE', `/v1/super-orders/${sup}/ENTRY_LEG`],
      [
        'PUT',
        `/v1/forever-orders/${forever}`,
        { orderFlag: 'SINGLE', orderType: 'LIMIT', legName: 'TARGET_LEG', price: 3001 },
      ],
      ['DELETE', `/v1/forever-orders/${forever}`],
      ['GET', `/v1/conditional-orders/${alert}`],
      [
        'PUT',
        `/v1/conditional-orders/${alert}`,
        {
          condition: {
            comparisonType: 'PRICE_WITH_VALUE',
            exchangeSegment: 'NSE_EQ',
            securityId: String(TCS),
            operator: 'GREATER_THAN',
            comparingValue: 1,
          },
          orders: [LIMIT_BUY],
        },
      ],
      ['DELETE', `/v1/conditional-orders/${alert}`],
      ['GET', `/v1/us/orders/${us}`],
      [
        'PUT',
        `/v1/us/orders/${us}`,
        { transactionType: 'BUY', orderType: 'LIMIT', securityId: usId, price: 2 },
      ],
      ['DELETE', `/v1/us/orders/${us}`],
    ];
    for (const [method, url, payload] of refused) {
      const r = await call(method, url, h.trade2, payload);
      expect(r.statusCode, `${method} ${url}: ${r.body}`).toBe(404);
    }
    const lists: [string, string, string][] = [
      ['/v1/super-orders', 'orderId', sup],
      ['/v1/forever-orders', 'orderId', forever],
      ['/v1/conditional-orders', 'alertId', alert],
      ['/v1/us/orders', 'orderId', us],
    ];
    for (const [url, field, id] of lists) {
      const of = async (headers: Record<string, string>) =>
        ((await call('GET', url, headers)).json() as Record<string, unknown>[]).map((o) => o[field]);
      expect(await of(h.trade2), url).not.toContain(id);
      expect(await of(h.trade), url).toContain(id);
      expect(await of(h.supervisor), url).toContain(id);
    }
    // Still the owner's: cancels by the owner go through.
    expect((await call('DELETE', `/v1/super-orders/${sup}/ENTRY_LEG`, h.trade)).statusCode).toBe(200);
    expect((await call('DELETE', `/v1/conditional-orders/${alert}`, h.trade)).statusCode).toBe(200);
  });
});

describe('the audit trail', () => {
  it("holds the caller's rows only; a supervisor's holds every key's", async () => {
    await call('POST', '/v1/orders', h.trade, { ...LIMIT_BUY, correlationId: 'own-audit-a' });
    await call('POST', '/v1/orders', h.trade2, { ...LIMIT_BUY, correlationId: 'own-audit-b' });
    type Row = { key_id: string; correlation_id: string };
    const rows = async (headers: Record<string, string>, query = '') =>
      ((await call('GET', `/v1/order-audit?limit=1000${query}`, headers)).json() as { rows: Row[] }).rows;
    const mine = await rows(h.trade2);
    expect(mine.length).toBeGreaterThan(0);
    expect(new Set(mine.map((r) => r.key_id)).size).toBe(1);
    expect(mine.map((r) => r.correlation_id)).toContain('own-audit-b');
    expect(mine.map((r) => r.correlation_id)).not.toContain('own-audit-a');
    expect(await rows(h.trade2, '&correlationId=own-audit-a')).toEqual([]);
    const all = (await rows(h.supervisor)).map((r) => r.correlation_id);
    expect(all).toEqual(expect.arrayContaining(['own-audit-a', 'own-audit-b']));
  });
});

describe('ownership is persisted', () => {
  it('a new gateway process over the same store knows the owners of earlier orders', async () => {
    const placed = await call('POST', '/v1/orders', h.trade, { ...LIMIT_BUY, correlationId: 'own-restart' });
    const { orderId } = placed.json() as { orderId: string };
    const next = await createTradingGateway({ port: 0 }, { store: h.store, broker });
    try {
      const get = (headers: Record<string, string>) =>
        next.app.inject({ method: 'GET', url: `/v1/orders/${orderId}`, headers });
      expect((await get(h.trade2)).statusCode).toBe(404);
      expect((await get(h.trade)).statusCode).toBe(200);
      const b = await next.app.inject({
        method: 'POST',
        url: '/v1/orders',
        headers: h.trade2,
        payload: { ...LIMIT_BUY, correlationId: 'own-restart' },
      });
      expect(b.statusCode).toBe(409);
    } finally {
      await next.stop();
    }
  });
});
