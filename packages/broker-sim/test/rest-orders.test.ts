import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MarketModel } from '../src/market/index.js';
import {
  createRestServer,
  type OrderRecord,
  type RestServer,
  ScriptedMarket,
  SIM_TEST_ACCOUNTS,
} from '../src/rest/index.js';

/** Response bodies as plain JSON values (Response.json is typed unknown). */
async function json(r: Response) {
  return JSON.parse(await r.text());
}

const START = Date.UTC(2024, 5, 3, 5, 0, 0); // Monday 10:30 IST
const RELIANCE = 2885;
let nowMs = START;
const clock = () => nowMs;
let market: ScriptedMarket;
let server: RestServer;
const one = SIM_TEST_ACCOUNTS[0]!;
const two = SIM_TEST_ACCOUNTS[1]!;

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.baseUrl}/v2${path}`, {
    method,
    headers: { 'access-token': token, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
const api = (method: string, path: string, body?: unknown) => call(one.webToken!, method, path, body);

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

beforeEach(async () => {
  nowMs = START;
  market = new ScriptedMarket(new MarketModel({ seed: 5, instruments: 10, now: clock }));
  market.setLtp(RELIANCE, 100);
  server = await createRestServer({
    model: market,
    now: clock,
    rateLimits: false,
    matchIntervalMs: 0,
    matching: { liquidityPerTick: 100 },
  });
});
afterEach(async () => server.close());

describe('order lifecycle', () => {
  it('moves a limit order TRANSIT -> PENDING -> TRADED and books trade, position and funds', async () => {
    const events: string[] = [];
    server.orderEvents.on('order', (clientId: string, o: OrderRecord) =>
      events.push(`${clientId}:${o.orderStatus}`),
    );
    const placed = await api('POST', '/orders', order({ price: 99, correlationId: 'lim-1' }));
    expect(placed.body).toMatchObject({ orderStatus: 'TRANSIT' });
    const pending = await api('GET', `/orders/${placed.body.orderId}`);
    expect(pending.body).toMatchObject({ orderStatus: 'PENDING', filledQty: 0, remainingQuantity: 10 });
    market.setLtp(RELIANCE, 98.5);
    nowMs += 1000;
    const done = await api('GET', '/orders/external/lim-1');
    expect(done.body).toMatchObject({ orderStatus: 'TRADED', filledQty: 10, averageTradedPrice: 98.5 });
    const trades = await api('GET', `/trades/${placed.body.orderId}`);
    expect(trades.body).toHaveLength(1);
    expect(trades.body[0]).toMatchObject({
      'order-id': placed.body.orderId,
      tradedQuantity: 10,
      tradedPrice: 98.5,
    });
    const positions = await api('GET', '/positions');
    expect(positions.body[0]).toMatchObject({ netQty: 10, positionType: 'LONG', buyAvg: 98.5 });
    const funds = await api('GET', '/fundlimit');
    expect(funds.body.utilizedAmount).toBeCloseTo(10 * 98.5 * 0.2, 2);
    expect(funds.body.availabelBalance).toBeCloseTo(1_000_000 - 197, 2);
    expect(events).toEqual([`${one.clientId}:TRANSIT`, `${one.clientId}:PENDING`, `${one.clientId}:TRADED`]);
  });

  it('fills above the per-tick liquidity in parts over successive ticks', async () => {
    const placed = await api('POST', '/orders', order({ orderType: 'MARKET', price: 0, quantity: 250 }));
    const id = placed.body.orderId;
    expect((await api('GET', `/orders/${id}`)).body).toMatchObject({
      orderStatus: 'PENDING',
      filledQty: 100,
    });
    expect((await api('GET', `/orders/${id}`)).body.filledQty).toBe(100);
    nowMs += 1000;
    expect((await api('GET', `/orders/${id}`)).body).toMatchObject({ filledQty: 200, remainingQuantity: 50 });
    nowMs += 1000;
    expect((await api('GET', `/orders/${id}`)).body).toMatchObject({ orderStatus: 'TRADED', filledQty: 250 });
    expect((await api('GET', '/trades')).body).toHaveLength(3);
  });

  it('cancels the unfilled rest of an IOC order and triggers stop-loss orders', async () => {
    const ioc = await api('POST', '/orders', order({ validity: 'IOC', price: 90 }));
    expect((await api('GET', `/orders/${ioc.body.orderId}`)).body.orderStatus).toBe('CANCELLED');
    await api('POST', '/orders', order({ orderType: 'MARKET', price: 0, quantity: 10 }));
    const sl = await api(
      'POST',
      '/orders',
      order({ transactionType: 'SELL', orderType: 'STOP_LOSS_MARKET', price: 0, triggerPrice: 95 }),
    );
    nowMs += 1000;
    expect((await api('GET', `/orders/${sl.body.orderId}`)).body.orderStatus).toBe('PENDING');
    market.setLtp(RELIANCE, 94.9);
    nowMs += 1000;
    expect((await api('GET', `/orders/${sl.body.orderId}`)).body).toMatchObject({
      orderStatus: 'TRADED',
      averageTradedPrice: 94.9,
    });
    const pos = (await api('GET', '/positions')).body[0];
    expect(pos).toMatchObject({ netQty: 0, positionType: 'CLOSED', realizedProfit: -51 });
  });

  it('allows 25 modifications per order, then answers DH-906', async () => {
    const placed = await api('POST', '/orders', order({ price: 90 }));
    for (let i = 0; i < 25; i++) {
      expect((await api('PUT', `/orders/${placed.body.orderId}`, { price: 80 + i * 0.05 })).status).toBe(200);
    }
    const over = await api('PUT', `/orders/${placed.body.orderId}`, { price: 85 });
    expect(over.status).toBe(400);
    expect(over.body.errorCode).toBe('DH-906');
    const cancel = await api('DELETE', `/orders/${placed.body.orderId}`);
    expect(cancel.body).toEqual({ orderId: placed.body.orderId, orderStatus: 'CANCELLED' });
    expect((await api('DELETE', `/orders/${placed.body.orderId}`)).body.errorCode).toBe('DH-906');
  });

  it('rejects orders beyond the available funds and validates inputs', async () => {
    const big = await api('POST', '/orders', order({ productType: 'CNC', quantity: 20_000, price: 100 }));
    expect((await api('GET', `/orders/${big.body.orderId}`)).body).toMatchObject({
      orderStatus: 'REJECTED',
      omsErrorDescription: 'Insufficient funds',
    });
    const bad = await api('POST', '/orders', order({ orderType: 'LIMIT', price: 0 }));
    expect(bad).toMatchObject({ status: 400, body: { errorCode: 'DH-905' } });
    const unknown = await api('POST', '/orders', order({ securityId: '999999' }));
    expect(unknown.body.errorCode).toBe('DH-905');
    expect((await api('GET', '/orders/nope')).status).toBe(404);
  });

  it('slices an order above the freeze quantity', async () => {
    const fresh = await createRestServer({
      model: market,
      now: clock,
      rateLimits: false,
      matchIntervalMs: 0,
      matching: { freezeQuantity: 40 },
    });
    try {
      const res = await fetch(`${fresh.baseUrl}/v2/orders/slicing`, {
        method: 'POST',
        headers: { 'access-token': one.webToken!, 'content-type': 'application/json' },
        body: JSON.stringify(order({ quantity: 100, price: 90 })),
      });
      expect((await json(res)).length).toBe(3);
    } finally {
      await fresh.close();
    }
  });
});

describe('static IP, kill switch and P&L exit', () => {
  it('refuses order calls from an account without a whitelisted IP, and locks IP changes for 7 days', async () => {
    const token = two.webToken!;
    const refused = await call(token, 'POST', '/orders', order());
    expect(refused).toMatchObject({ status: 403, body: { errorCode: 'DH-906' } });
    expect((await call(token, 'GET', '/orders')).status).toBe(200);
    const set = await call(token, 'POST', '/ip/setIP', {
      svcClientId: two.clientId,
      ip: '127.0.0.2',
      ipFlag: 'PRIMARY',
    });
    expect(set.body.status).toBe('SUCCESS');
    expect((await call(token, 'POST', '/orders', order())).status).toBe(403);
    const early = await call(token, 'PUT', '/ip/modifyIP', { ip: '127.0.0.1', ipFlag: 'PRIMARY' });
    expect(early).toMatchObject({ status: 400, body: { errorCode: 'DH-906' } });
    expect((await call(token, 'GET', '/ip/getIP')).body).toMatchObject({
      primaryIP: '127.0.0.2',
      modifyDatePrimary: '2024-06-10',
    });
    nowMs += 7 * 86_400_000;
    expect((await call(token, 'PUT', '/ip/modifyIP', { ip: '127.0.0.3', ipFlag: 'PRIMARY' })).status).toBe(
      200,
    );
    expect((await call(token, 'POST', '/ip/setIP', { ip: '127.0.0.1', ipFlag: 'SECONDARY' })).status).toBe(
      400,
    );
  });

  it('activates the kill switch only when flat, then blocks trading until deactivated or the day ends', async () => {
    await api('POST', '/orders', order({ orderType: 'MARKET', price: 0 }));
    await api('GET', '/orders');
    const busy = await api('POST', '/killswitch?killSwitchStatus=ACTIVATE');
    expect(busy).toMatchObject({ status: 400, body: { errorCode: 'DH-906' } });
    const exit = await fetch(`${server.baseUrl}/v2/positions`, {
      method: 'DELETE',
      headers: { 'access-token': one.webToken! },
    });
    expect(exit.status).toBe(202);
    nowMs += 1000;
    expect((await api('GET', '/positions')).body[0].netQty).toBe(0);
    expect((await api('POST', '/killswitch?killSwitchStatus=ACTIVATE')).body).toEqual({
      killSwitchStatus: 'ACTIVATE',
    });
    expect((await api('POST', '/orders', order())).status).toBe(403);
    // Left active, it lifts at the end of the trading day (DEACTIVATE: rest-client-compat.test.ts).
    nowMs += 86_400_000;
    expect((await api('GET', '/killswitch')).body.killSwitchStatus).toBe('DEACTIVATE');
    expect((await api('POST', '/orders', order())).status).toBe(200);
  });

  it('exits positions when the P&L exit loss is reached', async () => {
    await api('POST', '/orders', order({ orderType: 'MARKET', price: 0, quantity: 50 }));
    await api('GET', '/orders');
    const set = await api('POST', '/pnlExit', {
      profitValue: 1000,
      lossValue: 100,
      productType: ['INTRADAY'],
    });
    expect(set.body.pnlExitStatus).toBe('ACTIVE');
    market.setLtp(RELIANCE, 97.5);
    nowMs += 1000;
    await api('GET', '/orders');
    nowMs += 1000;
    const pos = (await api('GET', '/positions')).body[0];
    expect(pos.netQty).toBe(0);
    expect((await api('GET', '/pnlExit')).body.pnlExitStatus).toBe('INACTIVE');
  });
});

describe('super, forever and conditional orders, holdings', () => {
  it('places exit legs after the entry fills and closes on the target', async () => {
    const placed = await api('POST', '/super/orders', {
      ...order({ price: 100 }),
      targetPrice: 105,
      stopLossPrice: 97,
      trailingJump: 0,
    });
    nowMs += 1000;
    await api('GET', '/orders');
    nowMs += 1000;
    const book = (await api('GET', '/orders')).body as OrderRecord[];
    expect(book.map((o) => o.legName).sort()).toEqual(['ENTRY_LEG', 'STOP_LOSS_LEG', 'TARGET_LEG']);
    market.setLtp(RELIANCE, 105);
    nowMs += 1000;
    const supers = (await api('GET', '/super/orders')).body;
    expect(supers[0]).toMatchObject({ orderId: placed.body.orderId, orderStatus: 'CLOSED' });
    const legs = Object.fromEntries(
      supers[0].legDetails.map((l: { legName: string; orderStatus: string }) => [l.legName, l.orderStatus]),
    );
    expect(legs).toEqual({ TARGET_LEG: 'TRADED', STOP_LOSS_LEG: 'CANCELLED' });
    expect((await api('GET', '/positions')).body[0].netQty).toBe(0);
  });

  it('triggers a forever order and a conditional order when the price crosses', async () => {
    const f = await api('POST', '/forever/orders', {
      ...order({ productType: 'CNC', price: 102 }),
      orderFlag: 'SINGLE',
      triggerPrice: 101,
    });
    const a = await api('POST', '/alerts/orders', {
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
    expect(a.body).toMatchObject({ alertStatus: 'ACTIVE' });
    market.setLtp(RELIANCE, 101.5);
    await api('GET', '/orders');
    expect((await api('GET', '/forever/orders')).body[0]).toMatchObject({
      orderId: f.body.orderId,
      orderStatus: 'TRIGGERED',
    });
    expect((await api('GET', `/alerts/orders/${a.body.alertId}`)).body.alertStatus).toBe('ACTIVE');
    market.setLtp(RELIANCE, 103);
    nowMs += 1000;
    await api('GET', '/orders');
    nowMs += 1000;
    expect((await api('GET', `/alerts/orders/${a.body.alertId}`)).body.alertStatus).toBe('TRIGGERED');
    const holdings = (await api('GET', '/holdings')).body;
    expect(holdings[0]).toMatchObject({ securityId: String(RELIANCE), totalQty: 15, t1Qty: 15 });
    const tooMany = await api('POST', '/alerts/orders', {
      condition: {
        exchangeSegment: 'NSE_EQ',
        securityId: String(RELIANCE),
        operator: 'GREATER_THAN',
        comparingValue: 1,
        expDate: '2024-06-30',
      },
      orders: Array.from({ length: 16 }, () => order()),
    });
    expect(tooMany.body.errorCode).toBe('DH-905');
  });

  it('needs eDIS authorisation for CNC sells without DDPI', async () => {
    // Static IPs are unique per account and every test request comes from 127.0.0.1, so this
    // server holds only the second (non-DDPI) account, with loopback whitelisted.
    await server.close();
    server = await createRestServer({
      model: market,
      now: clock,
      rateLimits: false,
      matchIntervalMs: 0,
      accounts: [{ ...two, staticIp: { primary: '127.0.0.1' } }],
    });
    const token = two.webToken!;
    await call(token, 'POST', '/orders', order({ productType: 'CNC', orderType: 'MARKET', price: 0 }));
    await call(token, 'GET', '/orders');
    const sell = await call(
      token,
      'POST',
      '/orders',
      order({ transactionType: 'SELL', productType: 'CNC', orderType: 'MARKET', price: 0 }),
    );
    expect((await call(token, 'GET', `/orders/${sell.body.orderId}`)).body.orderStatus).toBe('REJECTED');
    const isin = (await call(token, 'GET', '/holdings')).body[0].isin;
    expect(
      (await call(token, 'POST', '/edis/bulkform', { isin: [isin], exchange: 'NSE', segment: 'EQ' })).status,
    ).toBe(400);
    expect((await call(token, 'GET', '/edis/tpin')).status).toBe(202);
    const form = await call(token, 'POST', '/edis/bulkform', {
      isin: [isin],
      exchange: 'NSE',
      segment: 'EQ',
    });
    expect(form.body.edisFormHtml).toContain('<form');
    expect((await call(token, 'GET', `/edis/inquire/${isin}`)).body).toMatchObject({
      aprvdQty: 10,
      status: 'SUCCESS',
    });
    const again = await call(
      token,
      'POST',
      '/orders',
      order({ transactionType: 'SELL', productType: 'CNC', orderType: 'MARKET', price: 0 }),
    );
    expect((await call(token, 'GET', `/orders/${again.body.orderId}`)).body.orderStatus).toBe('TRADED');
  });
});

describe('US stocks', () => {
  it('buys a fractional quantity with an AMOUNT order and shows holdings and USD funds', async () => {
    const us = market.universe.find((i) => i.exchangeSegment === 'INX_EQ')!;
    market.setLtp(us.securityId, 40);
    const placed = await api('POST', '/globalstocks/orders', {
      transactionType: 'BUY',
      orderType: 'AMOUNT',
      securityId: String(us.securityId),
      amount: 100,
    });
    const o = (await api('GET', `/globalstocks/orders/${placed.body.orderId}`)).body;
    expect(o).toMatchObject({
      orderStatus: 'TRADED',
      quantity: 2.5,
      fractionalFlag: true,
      avgTradedPrice: 40,
    });
    expect((await api('GET', '/globalstocks/holdings')).body[0]).toMatchObject({
      quantity: 2.5,
      costValue: 100,
    });
    const funds = (await api('GET', '/globalstocks/fundlimit')).body;
    expect(funds.availableCash).toBeCloseTo(10_000 - 100 - 0.5 - 0.01, 2);
    const sell = await api('POST', '/globalstocks/orders', {
      transactionType: 'SELL',
      orderType: 'MARKET',
      securityId: String(us.securityId),
      quantity: 3,
    });
    expect((await api('GET', `/globalstocks/orders/${sell.body.orderId}`)).body.orderStatus).toBe('REJECTED');
  });
});
