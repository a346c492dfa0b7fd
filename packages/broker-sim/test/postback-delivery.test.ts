import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@feedpipe/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MarketModel } from '../src/market/index.js';
import { resolvePostbackOptions } from '../src/postbacks/index.js';
import { createRestServer, type RestServer, ScriptedMarket, SIM_TEST_ACCOUNTS } from '../src/rest/index.js';

const START = Date.UTC(2024, 5, 3, 5, 0, 0); // Monday 10:30 IST
const RELIANCE = 2885;
let nowMs = START;
const clock = () => nowMs;
let market: ScriptedMarket;
let server: RestServer;
const one = SIM_TEST_ACCOUNTS[0]!;

/** A postback receiver that records every body and answers what `answer` says. */
interface Receiver {
  url: string;
  bodies: Array<Record<string, unknown>>;
  answer: (n: number) => number;
  hits: number;
  close(): Promise<void>;
}

async function startReceiver(answer: (n: number) => number = () => 200): Promise<Receiver> {
  const r: Receiver = { url: '', bodies: [], answer, hits: 0, close: async () => {} };
  const http: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      r.hits += 1;
      const status = r.answer(r.hits);
      if (status === 200) r.bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`;
  r.close = () => new Promise<void>((resolve) => http.close(() => resolve()));
  return r;
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { 'access-token': one.webToken!, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const order = (over: Record<string, unknown> = {}) => ({
  transactionType: 'BUY',
  exchangeSegment: 'NSE_EQ',
  productType: 'INTRADAY',
  orderType: 'LIMIT',
  validity: 'DAY',
  securityId: String(RELIANCE),
  quantity: 10,
  price: 100,
  ...over,
});

async function start(postbacks: Parameters<typeof createRestServer>[0]['postbacks'] = {}) {
  server = await createRestServer({
    model: market,
    now: clock,
    rateLimits: false,
    matchIntervalMs: 0,
    matching: { liquidityPerTick: 100 },
    postbacks: { retryBaseMs: 10, retryMaxMs: 50, ...postbacks },
  });
}

const statusesOf = (r: Receiver, orderId: string) =>
  r.bodies.filter((b) => b.orderId === orderId).map((b) => `${b.orderStatus}:${b.filledQty}`);

beforeEach(() => {
  nowMs = START;
  market = new ScriptedMarket(new MarketModel({ seed: 5, instruments: 10, now: clock }));
  market.setLtp(RELIANCE, 100);
});
afterEach(async () => server.close());

describe('postback registration', () => {
  it('takes a URL with the access token or with the API key, and refuses bad ones', async () => {
    await start();
    expect((await call('POST', '/v2/postback', { postbackUrl: 'http://127.0.0.1:9/a' })).body).toEqual({
      svcClientId: one.clientId,
      postbackUrl: 'http://127.0.0.1:9/a',
      status: 'success',
    });
    const viaKey = await call(
      'PUT',
      '/auth/app/postback',
      { postbackUrl: 'http://127.0.0.1:9/b' },
      { app_id: one.appId!, app_secret: one.appSecret! },
    );
    expect(viaKey.status).toBe(200);
    expect((await call('GET', '/v2/postback')).body).toEqual({
      svcClientId: one.clientId,
      postbackUrl: 'http://127.0.0.1:9/a',
      apiKeyPostbackUrl: 'http://127.0.0.1:9/b',
    });
    const wrongSecret = await call(
      'PUT',
      '/auth/app/postback',
      { postbackUrl: 'http://127.0.0.1:9/c' },
      { app_id: one.appId!, app_secret: 'nope' },
    );
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.errorCode).toBe('DH-901');
    expect(JSON.stringify(wrongSecret.body)).not.toContain('nope');
    const badUrl = await call('POST', '/v2/postback', { postbackUrl: 'ftp://x/y' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.errorCode).toBe('DH-905');
    const noToken = await call(
      'POST',
      '/v2/postback',
      { postbackUrl: 'http://x/' },
      { 'access-token': 'bad' },
    );
    expect(noToken.status).toBe(401);
    await call('DELETE', '/v2/postback');
    expect((await call('GET', '/v2/postback')).body.postbackUrl).toBe('');
  });

  it('validates delivery options by name', () => {
    expect(() => resolvePostbackOptions({ retries: 3 } as never)).toThrow(
      'postbacks: unknown option "retries" (allowed: giveUpAfterMs, retryBaseMs, retryMaxMs, requestTimeoutMs, maxQueued, maxConcurrent)',
    );
    expect(() => resolvePostbackOptions({ giveUpAfterMs: 0 })).toThrow(/giveUpAfterMs/);
    expect(() => resolvePostbackOptions({ retryBaseMs: 100, retryMaxMs: 10 })).toThrow(/retryMaxMs/);
    expect(resolvePostbackOptions().giveUpAfterMs).toBe(60_000);
  });
});

describe('postback delivery', () => {
  it('posts every transition of an order, in order, with the order record fields', async () => {
    const rx = await startReceiver();
    try {
      await start();
      await call('POST', '/v2/postback', { postbackUrl: rx.url });
      const placed = await call('POST', '/v2/orders', order({ quantity: 250, price: 99 }));
      const id = placed.body.orderId as string;
      await call('GET', '/v2/orders'); // PENDING
      market.setLtp(RELIANCE, 98.5);
      nowMs += 1000;
      await call('GET', '/v2/orders'); // 100 filled
      await call('PUT', `/v2/orders/${id}`, { orderType: 'LIMIT', quantity: 150, price: 99 });
      market.setLtp(RELIANCE, 99.5);
      nowMs += 1000;
      await call('DELETE', `/v2/orders/${id}`);
      const rejected = await call('POST', '/v2/orders', order({ price: 500 }));
      await call('GET', '/v2/orders');
      await waitFor(() => rx.bodies.length === 7, 5000, 'seven postbacks');
      expect(statusesOf(rx, id)).toEqual([
        'TRANSIT:0',
        'PENDING:0',
        'PENDING:100',
        'PENDING:100',
        'CANCELLED:100',
      ]);
      const modified = rx.bodies.filter((b) => b.orderId === id)[3]!;
      expect(modified).toMatchObject({ quantity: 150, remainingQuantity: 50, averageTradedPrice: 98.5 });
      const rej = rx.bodies.find((b) => b.orderId === rejected.body.orderId && b.orderStatus === 'REJECTED');
      expect(rej).toMatchObject({ svcClientId: one.clientId, omsErrorCode: 'RMS' });
      expect(String(rej?.omsErrorDescription)).toMatch(/circuit/);
      expect(server.postbacks.stats()).toMatchObject({ delivered: 7, dropped: 0, queued: 0 });
    } finally {
      await rx.close();
    }
  });

  it('posts forever orders, conditional-order triggers, super-order legs and US orders', async () => {
    const rx = await startReceiver();
    try {
      await start();
      await call(
        'PUT',
        '/auth/app/postback',
        { postbackUrl: rx.url },
        { app_id: one.appId!, app_secret: one.appSecret! },
      );
      const f = await call('POST', '/v2/forever/orders', {
        ...order({ productType: 'CNC', price: 102 }),
        orderFlag: 'SINGLE',
        triggerPrice: 101,
      });
      const a = await call('POST', '/v2/alerts/orders', {
        condition: {
          comparisonType: 'PRICE_WITH_VALUE',
          exchangeSegment: 'NSE_EQ',
          securityId: String(RELIANCE),
          operator: 'CROSSING_UP',
          comparingValue: 103,
          expDate: '2024-06-30',
        },
        orders: [order({ orderType: 'MARKET', price: 0, quantity: 5, productType: 'CNC' })],
      });
      const sup = await call('POST', '/v2/super/orders', {
        ...order({ orderType: 'MARKET', price: 0, quantity: 5 }),
        targetPrice: 110,
        stopLossPrice: 90,
        trailingJump: 0,
      });
      expect(sup.status).toBe(200);
      market.setLtp(RELIANCE, 101.5);
      await call('GET', '/v2/orders');
      market.setLtp(RELIANCE, 103);
      nowMs += 1000;
      await call('GET', '/v2/orders');
      nowMs += 1000;
      await call('GET', '/v2/orders');
      const us = market.universe.find((i) => i.exchangeSegment === 'INX_EQ')!;
      market.setLtp(us.securityId, 40);
      const usOrder = await call('POST', '/v2/globalstocks/orders', {
        transactionType: 'BUY',
        orderType: 'AMOUNT',
        securityId: String(us.securityId),
        amount: 100,
      });
      await call('GET', '/v2/globalstocks/orders');
      await waitFor(
        () => rx.bodies.some((b) => b.orderId === usOrder.body.orderId && b.orderStatus === 'TRADED'),
        5000,
        'the US order fill',
      );
      expect(rx.bodies.filter((b) => b.orderId === f.body.orderId).map((b) => b.orderStatus)).toEqual([
        'PENDING',
        'TRIGGERED',
      ]);
      const trigger = rx.bodies.find((b) => b.alertId === a.body.alertId);
      expect(trigger).toMatchObject({ alertStatus: 'TRIGGERED', svcClientId: one.clientId });
      const placedByAlert = ((trigger?.placedOrderIds ?? []) as string[])[0] ?? '';
      expect(statusesOf(rx, placedByAlert)[0]).toBe('TRANSIT:0');
      const legs = new Set(rx.bodies.map((b) => b.legName));
      expect(legs).toContain('ENTRY_LEG');
      expect(legs).toContain('TARGET_LEG');
      expect(legs).toContain('STOP_LOSS_LEG');
      expect(rx.bodies.filter((b) => b.orderId === usOrder.body.orderId).map((b) => b.orderStatus)).toEqual([
        'TRANSIT',
        'PENDING',
        'TRADED',
      ]);
    } finally {
      await rx.close();
    }
  });

  it('retries while the receiver fails and keeps each order in order', async () => {
    // The first 12 POSTs fail with 503, whichever order they belong to.
    const rx = await startReceiver((n) => (n <= 12 ? 503 : 200));
    try {
      await start({ maxConcurrent: 4 });
      await call('POST', '/v2/postback', { postbackUrl: rx.url });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await call('POST', '/v2/orders', order({ price: 95 + i * 0.05 }))).body.orderId);
      }
      await call('GET', '/v2/orders');
      for (const id of ids) await call('DELETE', `/v2/orders/${id}`);
      await waitFor(() => server.postbacks.stats().delivered === 15, 10_000, '15 deliveries');
      for (const id of ids) expect(statusesOf(rx, id)).toEqual(['TRANSIT:0', 'PENDING:0', 'CANCELLED:0']);
      expect(server.postbacks.stats()).toMatchObject({ retries: 12, dropped: 0, queued: 0 });
    } finally {
      await rx.close();
    }
  });

  it('gives up after the bounded time and counts what it dropped', async () => {
    const rx = await startReceiver();
    const deadUrl = rx.url;
    await rx.close(); // nothing listens there now: every POST is refused
    await start({ giveUpAfterMs: 150 });
    await call('POST', '/v2/postback', { postbackUrl: deadUrl });
    await call('POST', '/v2/orders', order({ price: 95 }));
    await call('GET', '/v2/orders');
    await waitFor(() => server.postbacks.stats().queued === 0, 10_000, 'the queue to empty');
    const stats = server.postbacks.stats();
    expect(stats).toMatchObject({ delivered: 0, gaveUp: 2, dropped: 2 });
    expect(stats.retries).toBeGreaterThan(0);
  });

  it('does not retry a final 4xx and drops beyond maxQueued', async () => {
    const rx = await startReceiver(() => 403);
    try {
      await start({ maxQueued: 2, maxConcurrent: 1 });
      let events = 0;
      server.orderEvents.on('order', () => {
        events += 1;
      });
      await call('POST', '/v2/postback', { postbackUrl: rx.url });
      await call('POST', '/v2/orders', order({ price: 95 }));
      await call('POST', '/v2/orders', order({ price: 95 }));
      await call('POST', '/v2/orders', order({ price: 95 }));
      await waitFor(() => server.postbacks.stats().queued === 0, 5000, 'the queue to empty');
      const stats = server.postbacks.stats();
      expect(events).toBeGreaterThanOrEqual(3);
      expect(stats.refused + stats.overflow).toBe(events);
      expect(stats.overflow).toBeGreaterThanOrEqual(1);
      expect(stats.retries).toBe(0);
      expect(rx.hits).toBe(stats.refused);
    } finally {
      await rx.close();
    }
  });
});
