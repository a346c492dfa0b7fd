/**
 * Requests as the service's official client sends them (issue #18): identity fields in snapshot
 * bodies, a trailing slash on the trade book, the kill switch's ACTIVATE -> DEACTIVATE, both
 * spellings of the single eDIS form, an exit-leg cancel while the super order's entry is pending,
 * one-element arrays in form bodies. Each case also checks the rule it must not loosen.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MarketModel } from '../src/market/index.js';
import { createRestServer, type RestServer, ScriptedMarket, SIM_TEST_ACCOUNTS } from '../src/rest/index.js';

const START = Date.UTC(2024, 5, 3, 5, 0, 0); // Monday 10:30 IST
const RELIANCE = 2885;
let nowMs = START;
const clock = () => nowMs;
let market: ScriptedMarket;
let server: RestServer;
const one = SIM_TEST_ACCOUNTS[0]!;
const two = SIM_TEST_ACCOUNTS[1]!;

async function send(token: string, method: string, path: string, body?: unknown, form?: string) {
  const res = await fetch(`${server.baseUrl}/v2${path}`, {
    method,
    headers: {
      'access-token': token,
      'content-type': form === undefined ? 'application/json' : 'application/x-www-form-urlencoded',
    },
    ...(form !== undefined ? { body: form } : body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
const api = (method: string, path: string, body?: unknown) => send(one.webToken!, method, path, body);
const form = (method: string, path: string, fields: string) =>
  send(one.webToken!, method, path, undefined, fields);

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

describe('market snapshots', () => {
  it('takes the client id in the body as identity, not as a segment', async () => {
    for (const path of ['/marketfeed/ltp', '/marketfeed/ohlc', '/marketfeed/quote']) {
      const r = await api('POST', path, { NSE_EQ: [RELIANCE], svcClientId: one.clientId });
      expect(r.status, path).toBe(200);
      expect(Object.keys(r.body.data)).toEqual(['NSE_EQ']);
      expect(r.body.data.NSE_EQ[String(RELIANCE)].last_price).toBe(100);
    }
    // Anything else that is not a segment is still refused, and an identity field alone is no request.
    const other = await api('POST', '/marketfeed/ltp', { NSE_EQ: [RELIANCE], clientId: one.clientId });
    expect(other).toMatchObject({ status: 400, body: { errorCode: '814' } });
    const alone = await api('POST', '/marketfeed/ltp', { svcClientId: one.clientId });
    expect(alone).toMatchObject({ status: 400, body: { errorCode: '814' } });
  });

  it('reads a one-element array from a form body; JSON still needs an array', async () => {
    const one1 = await form('POST', '/marketfeed/ltp', `NSE_EQ=${RELIANCE}&svcClientId=${one.clientId}`);
    expect(one1.status).toBe(200);
    expect(Object.keys(one1.body.data.NSE_EQ)).toEqual([String(RELIANCE)]);
    const repeated = await form('POST', '/marketfeed/ltp', `NSE_EQ=${RELIANCE}&NSE_EQ=${RELIANCE}`);
    expect(repeated.status).toBe(200);
    const scalar = await api('POST', '/marketfeed/ltp', { NSE_EQ: RELIANCE });
    expect(scalar).toMatchObject({ status: 400, body: { errorCode: '814' } });
    const text = await api('POST', '/marketfeed/ltp', { NSE_EQ: String(RELIANCE) });
    expect(text).toMatchObject({ status: 400, body: { errorCode: '814' } });
  });
});

describe('trade book', () => {
  it('answers GET /trades/ (trailing slash) with the day book, not as an empty order id', async () => {
    const placed = await api('POST', '/orders', order({ orderType: 'MARKET', price: 0 }));
    nowMs += 1000;
    const plain = await api('GET', '/trades');
    expect(plain.body).toHaveLength(1);
    const slash = await api('GET', '/trades/');
    expect(slash).toEqual(plain);
    expect(slash.body[0].orderId).toBe(placed.body.orderId);
    expect((await api('GET', `/trades/${placed.body.orderId}/`)).body[0]['order-id']).toBe(
      placed.body.orderId,
    );
    expect((await api('GET', '/orders/')).body).toHaveLength(1);
    expect((await api('GET', '/trades/none')).body).toEqual([]);
  });
});

describe('kill switch', () => {
  it('moves ACTIVATE -> DEACTIVATE as the spec state table lists, and trading resumes', async () => {
    expect((await api('POST', '/killswitch?killSwitchStatus=ACTIVATE')).body).toEqual({
      killSwitchStatus: 'ACTIVATE',
    });
    expect((await api('POST', '/orders', order())).status).toBe(403);
    const off = await api('POST', '/killswitch?killSwitchStatus=DEACTIVATE');
    expect(off).toEqual({ status: 200, body: { killSwitchStatus: 'DEACTIVATE' } });
    expect((await api('GET', '/killswitch')).body).toEqual({
      svcClientId: one.clientId,
      killSwitchStatus: 'DEACTIVATE',
    });
    expect((await api('POST', '/orders', order({ price: 90 }))).status).toBe(200);
    // Activation keeps its condition: a pending order refuses it.
    expect((await api('POST', '/killswitch?killSwitchStatus=ACTIVATE')).body.errorCode).toBe('DH-906');
    // Deactivating an inactive switch is a no-op, and the static IP rule still applies.
    expect((await api('POST', '/killswitch?killSwitchStatus=DEACTIVATE')).status).toBe(200);
    const foreign = await send(two.webToken!, 'POST', '/killswitch?killSwitchStatus=DEACTIVATE');
    expect(foreign).toMatchObject({ status: 403, body: { errorCode: 'DH-906' } });
  });

  it('names killSwitchStatus when its value is invalid', async () => {
    for (const query of ['?killSwitchStatus=MAYBE', '']) {
      const r = await api('POST', `/killswitch${query}`);
      expect(r.status).toBe(400);
      expect(r.body.errorCode).toBe('DH-905');
      expect(r.body.errorMessage).toMatch(/^killSwitchStatus /);
    }
  });
});

describe('eDIS', () => {
  it('serves the single-ISIN form at /edis/from (spec) and /edis/form (official client)', async () => {
    const isin = await holdingIsin();
    const early = await api('POST', '/edis/form', {
      isin,
      qty: 1,
      exchange: 'NSE',
      segment: 'EQ',
      bulk: false,
    });
    expect(early).toMatchObject({ status: 400, body: { errorCode: 'DH-906' } });
    expect((await api('GET', '/edis/tpin')).status).toBe(202);
    for (const path of ['/edis/from', '/edis/form']) {
      const r = await api('POST', path, { isin, qty: 1, exchange: 'NSE', segment: 'EQ', bulk: false });
      expect(r.status, path).toBe(200);
      expect(r.body).toMatchObject({
        svcClientId: one.clientId,
        edisFormHtml: expect.stringContaining('<form'),
      });
    }
    const bad = await api('POST', '/edis/form', { isin, exchange: 'NYSE' });
    expect(bad).toMatchObject({ status: 400, body: { errorCode: 'DH-905' } });
  });

  it('reads isin=ALL from a form body as a one-element array; JSON still needs an array', async () => {
    await holdingIsin();
    expect((await api('GET', '/edis/tpin')).status).toBe(202);
    const r = await form('POST', '/edis/bulkform', 'isin=ALL&exchange=NSE&segment=EQ&bulk=true');
    expect(r.status).toBe(200);
    expect(r.body.edisFormHtml).toContain('<form');
    const json = await api('POST', '/edis/bulkform', { isin: 'ALL', exchange: 'NSE', segment: 'EQ' });
    expect(json).toMatchObject({ status: 400, body: { errorCode: 'DH-905' } });
  });
});

describe('super orders', () => {
  it('cancels an exit leg while the entry is pending: that leg is never placed', async () => {
    const placed = await api('POST', '/super/orders', {
      ...order({ price: 99 }),
      targetPrice: 105,
      stopLossPrice: 97,
      trailingJump: 0,
    });
    const id = placed.body.orderId as string;
    expect(
      (await api('PUT', `/super/orders/${id}`, { legName: 'STOP_LOSS_LEG', stopLossPrice: 96 })).status,
    ).toBe(200);
    const cancel = await api('DELETE', `/super/orders/${id}/STOP_LOSS_LEG`);
    expect(cancel).toEqual({ status: 200, body: { orderId: id, orderStatus: 'CANCELLED' } });
    // Cancelled once: not again, and not modified any more.
    expect((await api('DELETE', `/super/orders/${id}/STOP_LOSS_LEG`)).body.errorCode).toBe('DH-906');
    expect(
      (await api('PUT', `/super/orders/${id}`, { legName: 'STOP_LOSS_LEG', stopLossPrice: 95 })).status,
    ).toBe(400);
    const legs = async () =>
      Object.fromEntries(
        (await api('GET', '/super/orders')).body[0].legDetails.map(
          (l: { legName: string; orderStatus: string }) => [l.legName, l.orderStatus],
        ),
      );
    expect(await legs()).toEqual({ TARGET_LEG: 'PENDING', STOP_LOSS_LEG: 'CANCELLED' });

    market.setLtp(RELIANCE, 98.5);
    nowMs += 1000;
    await api('GET', '/orders');
    nowMs += 1000;
    const book = (await api('GET', '/orders')).body as Array<{ legName: string }>;
    expect(book.map((o) => o.legName).sort()).toEqual(['ENTRY_LEG', 'TARGET_LEG']);
    market.setLtp(RELIANCE, 105);
    nowMs += 1000;
    const supers = (await api('GET', '/super/orders')).body;
    expect(supers[0].orderStatus).toBe('CLOSED');
    expect(await legs()).toEqual({ TARGET_LEG: 'TRADED', STOP_LOSS_LEG: 'CANCELLED' });
  });

  it('refuses an exit-leg cancel once the super order is no longer open', async () => {
    const placed = await api('POST', '/super/orders', {
      ...order({ price: 99 }),
      targetPrice: 105,
      stopLossPrice: 97,
    });
    const id = placed.body.orderId as string;
    expect((await api('DELETE', `/super/orders/${id}/ENTRY_LEG`)).body.orderStatus).toBe('CANCELLED');
    const late = await api('DELETE', `/super/orders/${id}/TARGET_LEG`);
    expect(late).toMatchObject({ status: 400, body: { errorCode: 'DH-906' } });
  });
});

/** Buys one CNC lot so the account holds an ISIN (the scripted market starts without holdings). */
async function holdingIsin(): Promise<string> {
  await api('POST', '/orders', order({ productType: 'CNC', orderType: 'MARKET', price: 0, quantity: 1 }));
  nowMs += 1000;
  const holdings = (await api('GET', '/holdings')).body as Array<{ isin: string }>;
  const first = holdings[0];
  if (!first) throw new Error('no holding after a CNC buy');
  return first.isin;
}
