import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DAY,
  type Harness,
  HIST,
  type JsonTable,
  LIVE_A,
  LIVE_B,
  startHarness,
  UNDERLYING,
} from './helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ cache: { finalAfterMs: 0 } });
});
afterAll(async () => {
  await h?.close();
});

async function get(url: string, headers: Record<string, string> = h.read) {
  return h.api.app.inject({ method: 'GET', url, headers });
}

function table<T = Record<string, unknown>>(body: string): JsonTable<T> {
  return JSON.parse(body) as JsonTable<T>;
}

/** Every read route with a request that succeeds on the fixture. */
const READ_ROUTES: string[] = [
  '/v1/status',
  '/v1/instruments',
  `/v1/instruments/${LIVE_A}`,
  '/v1/market-status',
  `/v1/instruments/${LIVE_A}/ticks?from=${DAY}&to=2024-03-05`,
  `/v1/instruments/${LIVE_A}/bars?from=${DAY}&to=2024-03-05&interval=1m`,
  '/v1/movers?to=2024-03-05&window=1d',
  '/v1/most-active?to=2024-03-05&window=1d',
  `/v1/instruments/${HIST}/candles/daily?from=2024-01-01&to=2024-02-01`,
  `/v1/instruments/${HIST}/candles/intraday?from=${DAY}&to=2024-03-05&interval=5`,
  `/v1/option-chains/${UNDERLYING}`,
  `/v1/option-chains/${UNDERLYING}/smile`,
  `/v1/option-chains/${UNDERLYING}/oi`,
  `/v1/option-chains/${UNDERLYING}/history?from=${DAY}&to=2024-03-05`,
  `/v1/option-chains/${UNDERLYING}/expiries`,
  `/v1/expired-options/${UNDERLYING}?from=2024-02-01&to=2024-02-02`,
  '/v1/sql?q=SELECT%201',
];

describe('authentication and scopes on every read route', () => {
  it.each(READ_ROUTES)(
    '%s: 200 with a read key, 401 without a key, 403 with a key without the read scope',
    async (url) => {
      expect((await get(url)).statusCode).toBe(200);
      const missing = await get(url, {});
      expect(missing.statusCode).toBe(401);
      expect(missing.json().error.code).toBe('UNAUTHENTICATED');
      const wrong = await get(url, h.admin);
      expect(wrong.statusCode).toBe(403);
      expect(wrong.json().error.code).toBe('FORBIDDEN');
    },
  );

  it('refuses an unknown or malformed key and accepts Authorization: Bearer', async () => {
    expect(
      (await get('/v1/status', { 'x-api-key': 'fpk_0000000000000000_' + 'a'.repeat(43) })).statusCode,
    ).toBe(401);
    expect((await get('/v1/status', { 'x-api-key': 'nonsense' })).statusCode).toBe(401);
    const bearer = { authorization: `Bearer ${h.read['x-api-key']}` };
    expect((await get('/v1/status', bearer)).statusCode).toBe(200);
  });

  it('keeps /healthz, /metrics and /docs open', async () => {
    for (const url of ['/healthz', '/metrics', '/docs/json'])
      expect((await get(url, {})).statusCode).toBe(200);
    const doc = (await get('/docs/json', {})).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/instruments/{securityId}/bars', '/v1/sql', '/v1/stream']),
    );
    // Orders are the trading gateway's (its own /docs): the read API documents none.
    expect(Object.keys(doc.paths).filter((p) => /order|kill-switch|postback/.test(p))).toEqual([]);
  });

  it('a revoked key stops working', async () => {
    const created = await h.api.keys.create('temp', ['read']);
    expect((await get('/v1/status', { 'x-api-key': created.key })).statusCode).toBe(200);
    expect(await h.api.keys.revoke(created.keyId)).toBe(true);
    expect((await get('/v1/status', { 'x-api-key': created.key })).statusCode).toBe(401);
  });
});

describe('instruments', () => {
  it('lists instruments with their latest state', async () => {
    const t = table<{ security_id: number; last_price: number; prev_close: number | null }>(
      (await get('/v1/instruments')).body,
    );
    expect(t.data.map((r) => r.security_id)).toEqual([LIVE_A, LIVE_B]);
    expect(t.data[0]?.prev_close).toBe(98);
    expect(t.data[1]?.prev_close).toBeNull();
  });

  it('shows one instrument with reference values and market status, 404 for an unknown one', async () => {
    const one = (await get(`/v1/instruments/${LIVE_A}`)).json();
    expect(one).toMatchObject({
      security_id: LIVE_A,
      last_price: 109,
      volume: 6000,
      prev_close: 98,
      week52_high: 130,
      week52_low: 60,
      market_status: [{ segment: 14, status: 2, last_received_at: `${DAY}T08:55:00.000000Z` }],
      // JSON answers built from rows keep the tabular convention: ISO 8601 in UTC with Z.
      last_trade_time: `${DAY}T09:09:59Z`,
    });
    expect(one.upper_circuit).toBeCloseTo(117.6, 3);
    const missing = await get('/v1/instruments/4242');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
    const bad = await get('/v1/instruments/abc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.field).toBe('securityId');
  });

  it('pages ticks with a cursor until every tick was seen exactly once', async () => {
    const seen: string[] = [];
    let url: string | undefined =
      `/v1/instruments/${LIVE_A}/ticks?from=${DAY}&to=2024-03-05&limit=250&format=ndjson`;
    for (let page = 0; url !== undefined && page < 10; page++) {
      const r = await get(url);
      expect(r.statusCode).toBe(200);
      for (const line of r.body.trim().split('\n'))
        seen.push((JSON.parse(line) as { received_at: string }).received_at);
      const next = r.headers['x-next-cursor'];
      url =
        typeof next === 'string'
          ? `/v1/instruments/${LIVE_A}/ticks?from=${DAY}&to=2024-03-05&limit=250&format=ndjson&cursor=${next}`
          : undefined;
    }
    expect(seen).toHaveLength(600);
    expect(new Set(seen).size).toBe(600);
    expect([...seen].sort()).toEqual(seen);
  });

  it('gives each tick its stored quantity as a last column, the columns before it as they were', async () => {
    const r = await get(`/v1/instruments/${LIVE_A}/ticks?from=${DAY}&to=2024-03-05&limit=3&format=csv`);
    expect(r.statusCode).toBe(200);
    const [header, ...lines] = r.body.trim().split('\n');
    // A reader of the columns by position before quantity existed reads the same ones.
    expect(header).toBe('"received_at","ltt","lut","ltp","volume","segment","quantity"');
    const rows = lines.map((line) => line.split(','));
    // The fixture's cumulative volume steps by 10 a tick from 10: every quantity is 10.
    expect(rows.map((row) => Number(row[4]))).toEqual([10, 20, 30]);
    expect(rows.map((row) => Number(row[6]))).toEqual([10, 10, 10]);
  });

  it('ticks: 400 naming the field for a bad time, range, cursor or limit; 404 for an unknown instrument', async () => {
    const cases: [string, string][] = [
      [`/v1/instruments/${LIVE_A}/ticks?from=yesterday`, 'from'],
      [`/v1/instruments/${LIVE_A}/ticks?from=2024-03-05&to=${DAY}`, 'to'],
      [`/v1/instruments/${LIVE_A}/ticks?from=${DAY}&cursor=x`, 'cursor'],
      [`/v1/instruments/${LIVE_A}/ticks?from=${DAY}&limit=0`, 'limit'],
      [`/v1/instruments/${LIVE_A}/ticks`, 'from'],
      [`/v1/instruments/${LIVE_A}/ticks?from=${DAY}&format=xlsx`, 'format'],
      [`/v1/instruments/${LIVE_A}/ticks?from=${DAY}&extra=1`, 'extra'],
    ];
    for (const [url, field] of cases) {
      const r = await get(url);
      expect(r.statusCode, url).toBe(400);
      expect(r.json().error.field, url).toBe(field);
      expect(r.json().error.message, url).toContain(field);
    }
    expect((await get(`/v1/instruments/4242/ticks?from=${DAY}`)).statusCode).toBe(404);
  });
});

describe('bars', () => {
  it('resamples ticks into OHLCV bars with VWAP and trade count', async () => {
    const r = await get(`/v1/instruments/${LIVE_A}/bars?from=${DAY}&to=2024-03-05&interval=1m`);
    const t = table<{
      time: string;
      open: number;
      high: number;
      low: number;
      close: number;
      volume: number;
      vwap: number;
      trades: number;
    }>(r.body);
    expect(t.rows).toBe(10);
    expect(t.data[0]).toEqual({
      time: `${DAY}T09:00:00Z`,
      open: 100,
      high: 109,
      low: 100,
      close: 109,
      volume: 600,
      vwap: 104.5,
      trades: 60,
    });
    expect(t.data.reduce((s, b) => s + b.volume, 0)).toBe(6000);
  });

  it('takes the volume of the range start from the previous tick of the day, not from zero', async () => {
    const t = table<{ volume: number; trades: number }>(
      (await get(`/v1/instruments/${LIVE_B}/bars?from=${DAY}T09:05:00Z&to=${DAY}T09:06:00Z&interval=30s`))
        .body,
    );
    expect(t.data).toEqual([
      expect.objectContaining({ volume: 600, trades: 30 }),
      expect.objectContaining({ volume: 600, trades: 30 }),
    ]);
  });

  it('aggregates a day into one bar and answers a repeat from the cache', async () => {
    const url = `/v1/instruments/${LIVE_A}/bars?from=${DAY}&to=2024-03-05&interval=1d`;
    const first = await get(url);
    expect(table<{ volume: number; trades: number }>(first.body).data).toEqual([
      expect.objectContaining({ volume: 6000, trades: 600 }),
    ]);
    const second = await get(url);
    expect(second.headers['x-cache']).toBe('hit');
    expect(second.body).toBe(first.body);
  });

  it('bars: 400 for a bad interval or too many bars, 404 for an unknown instrument', async () => {
    for (const interval of ['0s', '2d', '5x', '1']) {
      const r = await get(`/v1/instruments/${LIVE_A}/bars?from=${DAY}&to=2024-03-05&interval=${interval}`);
      expect(r.statusCode, interval).toBe(400);
      expect(r.json().error.field).toBe('interval');
    }
    const tooMany = await get(`/v1/instruments/${LIVE_A}/bars?from=2020-01-01&to=2024-03-05&interval=1s`);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.message).toContain('bars');
    expect((await get(`/v1/instruments/4242/bars?from=${DAY}&to=2024-03-05`)).statusCode).toBe(404);
  });
});

describe('movers and most active', () => {
  it('ranks instruments by change and by activity', async () => {
    const movers = table<{ security_id: number; change_pct: number }>(
      (await get('/v1/movers?to=2024-03-05&window=1d')).body,
    );
    expect(movers.data.map((r) => r.security_id)).toEqual([LIVE_A, LIVE_B]);
    expect(movers.data[0]?.change_pct).toBeCloseTo(9, 5);
    const byVolume = table<{ security_id: number; volume: number }>(
      (await get('/v1/most-active?to=2024-03-05&window=1d&by=volume')).body,
    );
    expect(byVolume.data[0]?.security_id).toBe(LIVE_B);
    const limited = table((await get('/v1/movers?to=2024-03-05&window=1d&limit=1&direction=losers')).body);
    expect(limited.rows).toBe(1);
  });

  it('400 naming window, by or direction', async () => {
    for (const [url, field] of [
      ['/v1/movers?window=30s', 'window'],
      ['/v1/movers?direction=sideways', 'direction'],
      ['/v1/most-active?by=price', 'by'],
      ['/v1/most-active?to=tomorrow', 'to'],
    ] as const) {
      const r = await get(url);
      expect(r.statusCode, url).toBe(400);
      expect(r.json().error.field, url).toBe(field);
    }
  });
});

describe('history', () => {
  it('daily and intraday candles', async () => {
    const daily = table<{ time: string; date: string; close: number }>(
      (await get(`/v1/instruments/${HIST}/candles/daily?from=2024-01-01&to=2024-01-11`)).body,
    );
    // Stamped at midnight IST (18:30 UTC the evening before), selected and dated by trading day.
    expect(daily.rows).toBe(10);
    expect(daily.data[0]).toMatchObject({ time: '2023-12-31T18:30:00Z', date: '2024-01-01', close: 101 });
    expect(daily.data.at(-1)).toMatchObject({ date: '2024-01-10' });
    const intraday = table(
      (
        await get(
          `/v1/instruments/${HIST}/candles/intraday?from=${DAY}&to=2024-03-05&interval=5&segment=NSE_EQ`,
        )
      ).body,
    );
    expect(intraday.rows).toBe(20);
    const none = table(
      (await get(`/v1/instruments/${HIST}/candles/intraday?from=${DAY}&to=2024-03-05&interval=15`)).body,
    );
    expect(none.rows).toBe(0);
  });

  it('candles: 400 for a bad interval or segment, 404 without candles', async () => {
    const bad = await get(`/v1/instruments/${HIST}/candles/intraday?from=${DAY}&interval=7`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.field).toBe('interval');
    const seg = await get(`/v1/instruments/${HIST}/candles/daily?from=${DAY}&segment=nse eq`);
    expect(seg.json().error.field).toBe('segment');
    expect((await get(`/v1/instruments/${LIVE_A}/candles/daily?from=${DAY}`)).statusCode).toBe(404);
    expect((await get(`/v1/instruments/${LIVE_A}/candles/intraday?from=${DAY}`)).statusCode).toBe(404);
  });
});

describe('option chains', () => {
  it('latest chain, IV smile, OI by strike, history with put-call ratio, expiries', async () => {
    const chain = table<{ strike: number; side: string; oi: number }>(
      (await get(`/v1/option-chains/${UNDERLYING}`)).body,
    );
    expect(chain.rows).toBe(10);
    expect(chain.data[0]).toMatchObject({ strike: 24000, side: 'CE', oi: 2000 });
    const smile = table<{ strike: number; call_iv: number; put_iv: number }>(
      (await get(`/v1/option-chains/${UNDERLYING}/smile?expiry=2024-03-07`)).body,
    );
    expect(smile.data.map((r) => r.strike)).toEqual([24000, 24100, 24200, 24300, 24400]);
    expect(smile.data[2]?.call_iv).toBeCloseTo(0.12, 6);
    expect(smile.data[0]?.put_iv).toBeCloseTo(0.14, 6);
    const oi = table<{ call_oi: number; put_oi: number; put_oi_change: number }>(
      (await get(`/v1/option-chains/${UNDERLYING}/oi`)).body,
    );
    expect(oi.data[0]).toMatchObject({ call_oi: 2000, put_oi: 3000, put_oi_change: 2100 });
    const history = table<{ pcr_oi: number }>(
      (await get(`/v1/option-chains/${UNDERLYING}/history?from=${DAY}&to=2024-03-05`)).body,
    );
    expect(history.rows).toBe(2);
    expect(history.data[0]?.pcr_oi).toBeCloseTo(1.5, 6);
    expect((await get(`/v1/option-chains/${UNDERLYING}/expiries`)).json()).toEqual({
      underlyingId: UNDERLYING,
      asOf: DAY,
      expiries: ['2024-03-07', '2024-03-14'],
    });
  });

  it('expired-options series filtered by option type', async () => {
    const t = table<{ option_type: string }>(
      (await get(`/v1/expired-options/${UNDERLYING}?from=2024-02-01&to=2024-02-02&optionType=PUT`)).body,
    );
    expect(t.rows).toBe(20);
    expect(new Set(t.data.map((r) => r.option_type))).toEqual(new Set(['PUT']));
  });

  it('400 for a bad expiry or strike offset, 404 for an unknown underlying', async () => {
    const bad = await get(`/v1/option-chains/${UNDERLYING}?expiry=07-03-2024`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.field).toBe('expiry');
    const offset = await get(`/v1/expired-options/${UNDERLYING}?from=2024-02-01&strikeOffset=11`);
    expect(offset.json().error.field).toBe('strikeOffset');
    for (const url of [
      '/v1/option-chains/99',
      '/v1/option-chains/99/smile',
      '/v1/option-chains/99/expiries',
      '/v1/expired-options/99?from=2024-02-01',
    ]) {
      expect((await get(url)).statusCode, url).toBe(404);
    }
  });
});

describe('status and metrics', () => {
  it('reports row counts and request metrics per route', async () => {
    const status = (await get('/v1/status')).json();
    expect(status.tables.ticks.rows).toBe(1200);
    expect(status.ticks.last_tick_received_at).toBe(`${DAY}T09:09:59.101000Z`);
    const metrics = (await get('/metrics', {})).body;
    expect(metrics).toContain(
      'query_api_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v1/status"}',
    );
    expect(metrics).toMatch(
      /query_api_errors_total\{route="\/v1\/instruments\/:securityId",code="NOT_FOUND"\} [1-9]/,
    );
  });

  it('unknown paths need a key and then answer 404', async () => {
    expect((await get('/v1/nothing', {})).statusCode).toBe(401);
    expect((await get('/v1/nothing')).statusCode).toBe(404);
  });
});
