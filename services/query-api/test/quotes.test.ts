import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, HIST, startHarness } from './helpers.js';
import { seedQuotes } from './reference-fixtures.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ cache: { finalAfterMs: 0 } });
  await seedQuotes(h.store);
});
afterAll(async () => {
  await h?.close();
});

const get = (url: string) => h.api.app.inject({ method: 'GET', url, headers: h.read });

describe('quote routes', () => {
  it('answers the latest quote with its depth, best level first', async () => {
    const r = await get(`/v1/instruments/${HIST}/quote`);
    expect(r.statusCode).toBe(200);
    const [quote] = r.json().data;
    expect(quote).toMatchObject({
      polled_at: '2024-03-04T04:00:10.000Z',
      exchange_segment: 'NSE_EQ',
      last_price: 2502,
      last_trade_time: '2024-03-04T04:00:00Z',
      volume: 3000,
      bid_quantity: [10, 20, 30, 40, 50],
      ask_orders: [1, 1, 1, 1, 1],
    });
    expect(quote.bid_price[0]).toBeCloseTo(2501.95, 6);
    expect(quote.ask_price[0]).toBeCloseTo(2502.05, 6);
    expect((await get(`/v1/instruments/${HIST}/quote?segment=BSE_EQ`)).statusCode).toBe(404);
    expect((await get('/v1/instruments/4242/quote')).statusCode).toBe(404);
  });

  it('answers the depth history of a range, in order, in JSON and CSV', async () => {
    const url = `/v1/instruments/${HIST}/depth?from=2024-03-04T04:00:00Z&to=2024-03-04T04:00:10Z`;
    const r = await get(url);
    expect(r.statusCode).toBe(200);
    expect(
      r.json().data.map((q: { polled_at: string; last_price: number }) => [q.polled_at, q.last_price]),
    ).toEqual([
      ['2024-03-04T04:00:00.000Z', 2500],
      ['2024-03-04T04:00:05.000Z', 2501],
    ]);
    const csv = await get(`${url}&format=csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.body.split('\n')[0]).toContain('bid_price');
    expect((await get(`/v1/instruments/${HIST}/depth`)).statusCode).toBe(400);
  });

  it('answers bars of the polled last price, the chart of the status page for an Indian instrument', async () => {
    const r = await get(
      `/v1/instruments/${HIST}/quote-bars?from=2024-03-04T04:00:00Z&to=2024-03-04T04:01:00Z&interval=10s`,
    );
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toEqual([
      {
        time: '2024-03-04T04:00:00Z',
        open: 2500,
        high: 2501,
        low: 2500,
        close: 2501,
        volume: 1000,
        quotes: 2,
      },
      { time: '2024-03-04T04:00:10Z', open: 2502, high: 2502, low: 2502, close: 2502, volume: 0, quotes: 1 },
    ]);
    const tooMany = await get(`/v1/instruments/${HIST}/quote-bars?from=2020-01-01&interval=1s`);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.field).toBe('interval');
  });

  it('reads market.quotes through read-only SQL', async () => {
    const r = await h.api.app.inject({
      method: 'POST',
      url: '/v1/sql',
      headers: h.read,
      payload: { sql: 'SELECT count() AS n, max(ask_price[1] - bid_price[1]) AS spread FROM market.quotes' },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().data[0].n).toBe(3);
    expect(r.json().data[0].spread).toBeCloseTo(0.1, 6);
  });
});
