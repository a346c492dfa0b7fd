/**
 * Issue 37, item 7 and the gateway's low findings:
 * - one trade key opened all 100 order-update streams (the next key got 503 STREAM_FULL): now a
 *   key holds at most its share (`maxStreamClientsPerKey`), 429 STREAM_KEY_FULL past it;
 * - any trade key lifted the kill switch: now only a key with the admin scope (the admin key, or a
 *   supervisor: trade + admin) may;
 * - an order the service refused because the kill switch turned on after the gateway's last read
 *   of it came back as 502: now 409 KILL_SWITCH_ACTIVE with the service's refusal under `upstream`;
 * - answers carrying caller text had no `X-Content-Type-Options: nosniff`.
 */
import { BrokerClient } from '@feedpipe/broker-api';
import { MarketModel } from '@feedpipe/broker-sim';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SIM_TEST_ACCOUNTS } from '../../../packages/broker-sim/src/accounts/seeds.js';
import { ScriptedMarket } from '../../../packages/broker-sim/src/rest/scripted-market.js';
import { createRestServer, type RestServer } from '../../../packages/broker-sim/src/rest/server.js';
import { type Harness, startHarness } from './helpers.js';

const ACCOUNT = SIM_TEST_ACCOUNTS[0] as (typeof SIM_TEST_ACCOUNTS)[number];
const TCS = 11536;
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

function call(
  h: Harness,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: unknown,
) {
  return h.gateway.app.inject({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

describe('the kill switch', () => {
  let sim: RestServer;
  let h: Harness;
  let broker: BrokerClient;

  beforeAll(async () => {
    const market = new ScriptedMarket(new MarketModel({ seed: 1, instruments: 50 }));
    market.setLtp(TCS, 3500);
    sim = await createRestServer({ model: market, rateLimits: false });
    broker = new BrokerClient({
      baseUrl: sim.baseUrl,
      clientId: ACCOUNT.clientId,
      accessToken: ACCOUNT.webToken,
      retryBaseDelayMs: 10,
    });
    // The switch's state is trusted for an hour: the race below is the window of that cache.
    h = await startHarness(
      { trading: { killSwitchCacheMs: 3_600_000 } },
      { broker, instruments: [{ securityId: TCS, segment: 'NSE_EQ', lastPrice: 3500 }] },
    );
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });

  it('turned on at the service after our last read: the refused order is 409 KILL_SWITCH_ACTIVE with the service code, not 502', async () => {
    expect((await call(h, 'GET', '/v1/kill-switch', h.trade)).json()).toMatchObject({
      killSwitchStatus: 'DEACTIVATE',
    });
    // Another client of the account (the service's console) stops trading.
    await broker.funds.setKillSwitch('ACTIVATE');
    const raced = await call(h, 'POST', '/v1/orders', h.trade, { ...LIMIT_BUY, correlationId: 'ks-race-1' });
    expect(raced.statusCode, raced.body).toBe(409);
    expect(raced.json().error).toMatchObject({
      code: 'KILL_SWITCH_ACTIVE',
      upstream: { status: 403, errorCode: 'DH-906' },
    });
    const audit = (await call(h, 'GET', '/v1/order-audit?correlationId=ks-race-1', h.trade)).json().rows;
    expect(audit[0]).toMatchObject({ outcome: 'rejected', error_code: 'DH-906', http_status: 409 });
    // The refusal refreshed the state: the next order is refused before reaching the service.
    const next = await call(h, 'POST', '/v1/orders', h.trade, { ...LIMIT_BUY, correlationId: 'ks-race-2' });
    expect(next.statusCode).toBe(409);
    expect(next.json().error.code).toBe('KILL_SWITCH_ACTIVE');
    expect(next.json().error.upstream).toBeUndefined();
  });

  it('a trade key may turn it on but not lift it; the admin key and a supervisor key lift it', async () => {
    expect((await call(h, 'POST', '/v1/kill-switch', h.trade2, { status: 'ACTIVATE' })).statusCode).toBe(200);
    for (const key of [h.trade, h.trade2]) {
      const lift = await call(h, 'POST', '/v1/kill-switch', key, { status: 'DEACTIVATE' });
      expect(lift.statusCode, lift.body).toBe(403);
      expect(lift.json().error).toMatchObject({ code: 'FORBIDDEN', field: 'status' });
    }
    const audit = (await call(h, 'GET', '/v1/order-audit?limit=1', h.trade2)).json().rows;
    expect(audit[0]).toMatchObject({ action: 'killSwitch.set', outcome: 'refused', error_code: 'FORBIDDEN' });
    expect(await broker.funds.killSwitch()).toMatchObject({ killSwitchStatus: 'ACTIVATE' });
    // The admin key (no trade scope) reaches this one route, and lifts the switch.
    const byAdmin = await call(h, 'POST', '/v1/kill-switch', h.admin, { status: 'DEACTIVATE' });
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    expect(await broker.funds.killSwitch()).toMatchObject({ killSwitchStatus: 'DEACTIVATE' });
    // ...but no order route.
    expect((await call(h, 'POST', '/v1/orders', h.admin, LIMIT_BUY)).statusCode).toBe(403);
    expect((await call(h, 'POST', '/v1/kill-switch', h.trade, { status: 'ACTIVATE' })).statusCode).toBe(200);
    const lifted = await call(h, 'POST', '/v1/kill-switch', h.supervisor, { status: 'DEACTIVATE' });
    expect(lifted.statusCode, lifted.body).toBe(200);
    expect(await broker.funds.killSwitch()).toMatchObject({ killSwitchStatus: 'DEACTIVATE' });
    const order = await call(h, 'POST', '/v1/orders', h.trade, LIMIT_BUY);
    expect(order.statusCode, order.body).toBe(200);
  });

  it('every answer, errors that echo caller text included, says nosniff', async () => {
    const answers = [
      await call(h, 'GET', '/v1/orders/by-correlation/%3Cscript%3E', h.trade),
      await call(h, 'GET', '/nope/%3Cscript%3Ealert(1)%3C%2Fscript%3E', h.trade),
      // A malformed URL is refused by the router itself, before any hook.
      await call(h, 'GET', '/v1/orders/%zz%3Cscript%3E', h.trade),
      await call(h, 'POST', '/v1/orders', h.trade, { ...LIMIT_BUY, correlationId: '<b>x</b>' }),
      await call(h, 'GET', '/v1/orders/123456789', h.trade),
      await call(h, 'GET', '/v1/orders', {}),
      await h.gateway.app.inject({ method: 'GET', url: '/metrics' }),
      await h.gateway.app.inject({ method: 'GET', url: '/healthz' }),
    ];
    for (const r of answers) {
      expect(r.headers['x-content-type-options'], `${r.statusCode} ${r.body.slice(0, 80)}`).toBe('nosniff');
      if (r.statusCode >= 400) {
        expect(String(r.headers['content-type'])).toMatch(/^application\/json/);
        expect(r.json().error.code, r.body).toEqual(expect.any(String));
        expect(r.body).not.toContain('<script>');
      }
    }
  });
});

describe('order-update streams: a share per key', () => {
  let h: Harness;
  let url: string;
  const open: AbortController[] = [];

  beforeAll(async () => {
    const suffix = Math.random().toString(36).slice(2, 10);
    h = await startHarness(
      {
        postbacks: {
          secret: 'risk-controls-secret-0123456789',
          walDir: tempDir('risk-controls-wal'),
          topic: `orders.updates.risk-${suffix}`,
          // The default share (10 per key) of a total small enough to fill here: on a gateway
          // without shares one key takes all 12 and the next key is turned away.
          maxStreamClients: 12,
        },
      },
      { kafkaBrokers: inject('kafkaBrokers') },
    );
    url = `${await h.gateway.start()}/order-updates/stream`;
  });
  afterAll(async () => {
    for (const a of open) a.abort();
    await h?.close();
  });

  /** Opens a stream and keeps it open (until afterAll or `abort`): its status and headers. */
  async function stream(headers: Record<string, string>) {
    const abort = new AbortController();
    open.push(abort);
    const res = await fetch(url, { headers, signal: abort.signal });
    if (res.status !== 200) {
      const body = (await res.json()) as { error: { code: string } };
      abort.abort();
      return { status: res.status, body, abort, res };
    }
    return { status: 200, body: undefined, abort, res };
  }

  it('one key cannot take every slot: past its share (10) it gets 429 while other keys still connect', async () => {
    const mine = [];
    for (let i = 0; i < 10; i++) {
      const r = await stream(h.trade);
      expect(r.status, `stream ${i + 1}`).toBe(200);
      mine.push(r);
    }
    for (let i = 0; i < 2; i++) {
      const over = await stream(h.trade);
      expect(over.status).toBe(429);
      expect(over.body?.error.code).toBe('STREAM_KEY_FULL');
    }
    // Other keys have their own shares.
    expect((await stream(h.trade2)).status).toBe(200);
    expect((await stream(h.supervisor)).status).toBe(200);
    expect(mine[0]?.res.headers.get('x-content-type-options')).toBe('nosniff');
    // Closing one of the first key's streams gives that key its slot back.
    mine[0]?.abort.abort();
    let again = 0;
    for (let attempt = 0; attempt < 200 && again !== 200; attempt++) {
      const r = await stream(h.trade);
      again = r.status;
      if (again !== 200) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(again).toBe(200);
  });
});
