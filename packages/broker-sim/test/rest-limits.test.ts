import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketModel } from '../src/market/index.js';
import { categoryOf, createRestServer, type RestServer, SIM_TEST_ACCOUNTS } from '../src/rest/index.js';
import { RateLimiter } from '../src/rest/rate-limits.js';

describe('sliding-window rate limiter', () => {
  it('keeps orders within 10/s and 250/min, counting only allowed requests', () => {
    let t = 0;
    const limiter = new RateLimiter(() => t);
    for (let i = 0; i < 10; i++) expect(limiter.take('c', 'order').allowed).toBe(true);
    const refused = limiter.take('c', 'order');
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 1000 });
    t = 999;
    expect(limiter.take('c', 'order').allowed).toBe(false);
    t = 1000;
    expect(limiter.take('c', 'order').allowed).toBe(true);
    // 250 per minute: ten per second for 25 s fills the minute window.
    let allowed = 11;
    for (t = 1100; allowed < 250; t += 100) if (limiter.take('c', 'order').allowed) allowed += 1;
    t += 2000;
    const minute = limiter.take('c', 'order');
    expect(minute.allowed).toBe(false);
    if (!minute.allowed) expect(minute.window.label).toBe('minute');
    expect(limiter.take('other', 'order').allowed).toBe(true);
  });

  it('counts a request from when it arrived, not from when its handler ran', () => {
    let t = 0;
    const limiter = new RateLimiter(() => t);
    expect(limiter.take('c', 'quote', 1_000).allowed).toBe(true);
    // Arrived 1 s after the first, handled 40 ms later (a busy simulator): within the limit.
    t = 2_040;
    expect(limiter.take('c', 'quote', 2_000).allowed).toBe(true);
    // Arrived 999 ms after that one: refused, whenever handled.
    t = 2_999;
    expect(limiter.take('c', 'quote', 2_999).allowed).toBe(false);
    // Handlers finishing out of arrival order keep the log in time order: two orders that arrived
    // within one second, the later handled first, leave room for eight more in that second only.
    expect(limiter.take('c', 'order', 5_500).allowed).toBe(true);
    expect(limiter.take('c', 'order', 5_400).allowed).toBe(true);
    for (let i = 0; i < 8; i++) expect(limiter.take('c', 'order', 5_600).allowed).toBe(true);
    expect(limiter.take('c', 'order', 5_700).allowed).toBe(false);
    expect(limiter.take('c', 'order', 6_400).allowed).toBe(true);
  });

  it('maps routes to the spec categories', () => {
    expect(categoryOf('POST', '/v2/orders')).toBe('order');
    expect(categoryOf('DELETE', '/v2/super/orders/:orderId/:leg')).toBe('order');
    expect(categoryOf('GET', '/v2/orders')).toBe('nonTrading');
    expect(categoryOf('POST', '/v2/charts/intraday')).toBe('data');
    expect(categoryOf('POST', '/v2/marketfeed/quote')).toBe('quote');
    expect(categoryOf('GET', '/v2/fundlimit')).toBe('nonTrading');
  });
});

describe('server rate limits', () => {
  let nowMs = Date.UTC(2024, 5, 3, 5, 0, 0);
  const clock = () => nowMs;
  let server: RestServer;
  beforeAll(async () => {
    server = await createRestServer({
      model: new MarketModel({ seed: 2, instruments: 5, now: clock }),
      now: clock,
    });
  });
  afterAll(async () => server.close());
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.baseUrl}/v2${path}`, {
      method: 'POST',
      headers: { 'access-token': SIM_TEST_ACCOUNTS[0]!.webToken!, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: JSON.parse(await res.text()) };
  };

  it('answers 429 with DH-904 above one quote per second', async () => {
    expect((await post('/marketfeed/ltp', { NSE_EQ: [2885] })).status).toBe(200);
    const over = await post('/marketfeed/ltp', { NSE_EQ: [2885] });
    expect(over).toMatchObject({ status: 429, body: { errorType: 'Rate_Limit', errorCode: 'DH-904' } });
    nowMs += 1000;
    expect((await post('/marketfeed/ltp', { NSE_EQ: [2885] })).status).toBe(200);
  });

  it('allows one identical option chain request per 3 seconds', async () => {
    const list = await post('/optionchain/expirylist', { UnderlyingScrip: 13, UnderlyingSeg: 'IDX_I' });
    const body = { UnderlyingScrip: 13, UnderlyingSeg: 'IDX_I', Expiry: list.body.data[0] };
    expect((await post('/optionchain', body)).status).toBe(200);
    nowMs += 2000;
    expect((await post('/optionchain', body)).status).toBe(429);
    expect((await post('/optionchain', { ...body, Expiry: list.body.data[1] })).status).toBe(200);
    nowMs += 1000;
    expect((await post('/optionchain', body)).status).toBe(200);
  });

  it('answers 429 on the sixth data request within a second', async () => {
    nowMs += 5000;
    const body = {
      securityId: '2885',
      exchangeSegment: 'NSE_EQ',
      fromDate: '2024-05-01',
      toDate: '2024-05-03',
    };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post('/charts/historical', body)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
