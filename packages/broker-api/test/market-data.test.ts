import { describe, expect, it } from 'vitest';
import {
  BrokerClient,
  type FetchLike,
  ManualClock,
  mergeColumns,
  optionChainRows,
  splitDateRange,
  splitSnapshotRequest,
} from '../src/index.js';
import { type FakeCall, fakeFetch, maxInWindow, runWithClock } from './helpers.js';

const DAY_S = 86_400;

function client(clock: ManualClock, fetch: FetchLike): BrokerClient {
  return new BrokerClient({
    baseUrl: 'http://127.0.0.1:9',
    clientId: '1000000001',
    accessToken: 'token',
    clock,
    fetch,
    rateLimiter: { windowMarginMs: 0 },
  });
}

function dayStart(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 1000;
}

/**
 * A fake intraday answer: one candle per minute from 09:15 to 15:29 on weekdays of the range.
 * It treats toDate as inclusive on purpose, so consecutive calls overlap by a day.
 */
function intradayAnswer(call: FakeCall): { body: unknown } {
  const body = call.body as { fromDate: string; toDate: string; interval: number };
  const cols = {
    open: [] as number[],
    high: [] as number[],
    low: [] as number[],
    close: [] as number[],
    volume: [] as number[],
    timestamp: [] as number[],
  };
  for (let day = dayStart(body.fromDate); day <= dayStart(body.toDate); day += DAY_S) {
    const weekday = new Date(day * 1000).getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    for (let m = 555; m < 930; m += body.interval) {
      const t = day + m * 60;
      cols.timestamp.push(t);
      cols.open.push(t % 97);
      cols.high.push((t % 97) + 1);
      cols.low.push((t % 97) - 1);
      cols.close.push(t % 89);
      cols.volume.push(t % 1000);
    }
  }
  return { body: cols };
}

describe('market snapshot', () => {
  it('splits more than 1,000 instruments into calls of at most 1,000, one per second', async () => {
    const clock = new ManualClock(0);
    const { fetch, calls } = fakeFetch(clock, (call) => {
      const body = call.body as Record<string, number[]>;
      const data: Record<string, Record<string, unknown>> = {};
      for (const [segment, ids] of Object.entries(body)) {
        data[segment] = Object.fromEntries(ids.map((id) => [String(id), { last_price: id / 10 }]));
      }
      return { body: { data, status: 'success' } };
    });
    const ids = Array.from({ length: 2300 }, (_, i) => i + 1);
    const bse = [500325, 500180];
    const result = await runWithClock(
      clock,
      client(clock, fetch).marketData.ltp({ NSE_EQ: ids, BSE_EQ: bse }),
      60_000,
    );
    expect(calls).toHaveLength(3);
    const sizes = calls.map((c) => Object.values(c.body as Record<string, number[]>).flat().length);
    expect(sizes).toEqual([1000, 1000, 302]);
    expect(
      maxInWindow(
        calls.map((c) => c.at),
        1000,
      ),
    ).toBe(1);
    expect(Object.keys(result.NSE_EQ ?? {})).toHaveLength(2300);
    expect(result.BSE_EQ?.['500325']?.last_price).toBe(50032.5);
    expect(calls.every((c) => c.headers['client-id'] === '1000000001')).toBe(true);
  });

  it('keeps request order when splitting and refuses bad input', () => {
    const parts = splitSnapshotRequest({ NSE_EQ: [1, 2, 3], NSE_FNO: [4, 5] }, 2);
    expect(parts).toEqual([{ NSE_EQ: [1, 2] }, { NSE_EQ: [3], NSE_FNO: [4] }, { NSE_FNO: [5] }]);
    expect(() => splitSnapshotRequest({})).toThrow(/at least one/);
    expect(() => splitSnapshotRequest({ MCX_COMM: [1] } as never)).toThrow(/segment/);
    expect(() => splitSnapshotRequest({ NSE_EQ: [1.5] })).toThrow(/invalid security id/);
  });
});

describe('date range splitting', () => {
  it('splits into consecutive ranges of at most N days', () => {
    expect(splitDateRange('2024-01-01', '2024-01-31', 90)).toEqual([
      { fromDate: '2024-01-01', toDate: '2024-01-31' },
    ]);
    const parts = splitDateRange('2022-01-01', '2024-01-01', 90);
    expect(parts).toHaveLength(9);
    expect(parts[0]).toEqual({ fromDate: '2022-01-01', toDate: '2022-04-01' });
    expect(parts[8]?.toDate).toBe('2024-01-01');
    for (let i = 1; i < parts.length; i++) expect(parts[i]?.fromDate).toBe(parts[i - 1]?.toDate);
    expect(splitDateRange('2024-01-01 09:15:00', '2024-01-03 15:30:00', 1)).toEqual([
      { fromDate: '2024-01-01 09:15:00', toDate: '2024-01-02 09:15:00' },
      { fromDate: '2024-01-02 09:15:00', toDate: '2024-01-03 09:15:00' },
      { fromDate: '2024-01-03 09:15:00', toDate: '2024-01-03 15:30:00' },
    ]);
    expect(() => splitDateRange('2024-02-30', '2024-03-01', 90)).toThrow(/real date/);
    expect(() => splitDateRange('2024-03-01', '2024-03-01', 90)).toThrow(/after/);
  });
});

describe('candles', () => {
  it('asks for 2 years of 1-minute candles in 9 calls of <= 90 days, paced at 5/s, every candle once', async () => {
    const clock = new ManualClock(Date.UTC(2024, 0, 2));
    const { fetch, calls } = fakeFetch(clock, intradayAnswer);
    const candles = await runWithClock(
      clock,
      client(clock, fetch).history.intraday({
        securityId: '1333',
        exchangeSegment: 'NSE_EQ',
        instrument: 'EQUITY',
        interval: 1,
        fromDate: '2022-01-01',
        toDate: '2024-01-01',
      }),
      60_000,
    );
    expect(calls).toHaveLength(9);
    for (const call of calls) {
      const body = call.body as { fromDate: string; toDate: string; interval: number };
      expect(body.interval).toBe(1);
      expect((dayStart(body.toDate) - dayStart(body.fromDate)) / DAY_S).toBeLessThanOrEqual(90);
    }
    expect(
      maxInWindow(
        calls.map((c) => c.at),
        1000,
      ),
    ).toBeLessThanOrEqual(5);
    // Reference: every weekday minute in [2022-01-01, 2024-01-01], fetched in one piece.
    const whole = intradayAnswer({
      body: { fromDate: '2022-01-01', toDate: '2024-01-01', interval: 1 },
    } as FakeCall).body as { timestamp: number[]; close: number[] };
    expect(candles.length).toBe(whole.timestamp.length);
    expect(Array.from(candles.timestamp)).toEqual(whole.timestamp);
    expect(Array.from(candles.close)).toEqual(whole.close);
    expect(new Set(candles.timestamp).size).toBe(candles.length);
    const first = candles.row(0);
    expect(first).toEqual({
      timestamp: whole.timestamp[0],
      open: candles.open[0],
      high: candles.high[0],
      low: candles.low[0],
      close: candles.close[0],
      volume: candles.volume[0],
    });
    let count = 0;
    for (const row of candles) {
      expect(row.high).toBeGreaterThan(row.low ?? Number.NaN);
      count++;
      if (count > 10) break;
    }
    expect(candles.openInterest).toBeUndefined();
  });

  it('reads daily candles with open interest and sends oi as text', async () => {
    const clock = new ManualClock(0);
    const { fetch, calls } = fakeFetch(clock, () => ({
      body: {
        open: [1, 2],
        high: [3, 4],
        low: [0, 1],
        close: [2, 3],
        volume: [10, 20],
        open_interest: [7, 8],
        timestamp: [100, 200],
      },
    }));
    const candles = await runWithClock(
      clock,
      client(clock, fetch).history.daily({
        securityId: '52175',
        exchangeSegment: 'NSE_FNO',
        instrument: 'FUTIDX',
        expiryCode: 0,
        oi: true,
        fromDate: '2024-01-01',
        toDate: '2024-02-01',
      }),
      10_000,
    );
    expect(calls[0]?.body).toMatchObject({ oi: 'true' });
    expect(calls[0]?.url.pathname).toBe('/v2/charts/historical');
    expect(Array.from(candles.openInterest ?? [])).toEqual([7, 8]);
    expect([...candles.rows()].map((r) => r.open_interest)).toEqual([7, 8]);
  });

  it('refuses parallel arrays of different lengths', () => {
    expect(() =>
      mergeColumns([{ timestamp: [1, 2], open: [1] }], ['open'], [], 'POST /charts/historical'),
    ).toThrow(expect.objectContaining({ code: 'INVALID_RESPONSE' }));
    expect(() => mergeColumns([{ timestamp: [1], open: ['x'] }], ['open'], [], 'r')).toThrow(/non-number/);
    expect(mergeColumns([{}], ['open'], [], 'r').length).toBe(0);
  });
});

describe('expired options', () => {
  const base = {
    securityId: '13',
    strike: 'ATM+3',
    requiredData: ['close', 'iv', 'spot'] as ('close' | 'iv' | 'spot')[],
    interval: 1 as const,
  };

  it('splits into calls of <= 45 days and merges each side', async () => {
    const clock = new ManualClock(Date.UTC(2025, 0, 1));
    const { fetch, calls } = fakeFetch(clock, (call) => {
      const body = call.body as { fromDate: string; toDate: string };
      const ts = [dayStart(body.fromDate) + 33_300, dayStart(body.toDate) + 33_300];
      return {
        body: { data: { ce: { close: [1, 2], iv: [0.1, 0.2], spot: [100, 101], timestamp: ts }, pe: null } },
      };
    });
    const result = await runWithClock(
      clock,
      client(clock, fetch).history.expiredOptions({ ...base, fromDate: '2024-01-01', toDate: '2024-04-01' }),
      60_000,
    );
    expect(calls).toHaveLength(3);
    expect(calls.map((c) => (c.body as { fromDate: string }).fromDate)).toEqual([
      '2024-01-01',
      '2024-02-15',
      '2024-03-31',
    ]);
    expect(calls[0]?.body).toMatchObject({
      exchangeSegment: 'NSE_FNO',
      instrument: 'OPTIDX',
      drvOptionType: 'CALL',
      strike: 'ATM+3',
    });
    expect(
      maxInWindow(
        calls.map((c) => c.at),
        1000,
      ),
    ).toBeLessThanOrEqual(5);
    expect(result.pe).toBeUndefined();
    // Boundary candles overlap between calls; each comes back once.
    expect(result.ce?.length).toBe(4);
    expect(result.ce?.fields.sort()).toEqual(['close', 'iv', 'spot']);
  });

  it('refuses strikes beyond ATM±10, unknown fields and ranges older than 5 years', async () => {
    const clock = new ManualClock(Date.UTC(2025, 5, 1));
    const { fetch, calls } = fakeFetch(clock, () => ({ body: { data: {} } }));
    const c = client(clock, fetch);
    const range = { fromDate: '2025-01-01', toDate: '2025-01-10' };
    await expect(c.history.expiredOptions({ ...base, ...range, strike: 'ATM+11' })).rejects.toThrow(/strike/);
    await expect(
      c.history.expiredOptions({ ...base, ...range, requiredData: ['delta' as never] }),
    ).rejects.toThrow(/requiredData/);
    await expect(
      c.history.expiredOptions({ ...base, fromDate: '2020-05-31', toDate: '2020-06-10' }),
    ).rejects.toThrow(/5 years/);
    expect(calls).toHaveLength(0);
  });
});

describe('option chain', () => {
  it('paces identical requests 3 s apart and reads the chain', async () => {
    const clock = new ManualClock(0);
    const { fetch, calls } = fakeFetch(clock, () => ({
      body: {
        data: {
          last_price: 25_640,
          oc: {
            '25700.000000': { ce: { last_price: 50 } },
            '25600.000000': { ce: { last_price: 120 }, pe: { last_price: 70 } },
          },
        },
        status: 'success',
      },
    }));
    const c = client(clock, fetch);
    const request = { UnderlyingScrip: 13, UnderlyingSeg: 'IDX_I', Expiry: '2024-10-31' };
    const chains = await runWithClock(
      clock,
      Promise.all([
        c.optionChain.chain(request),
        c.optionChain.chain(request),
        c.optionChain.chain({ ...request, Expiry: '2024-11-07' }),
      ]),
      60_000,
    );
    const sameKey = calls
      .filter((x) => (x.body as { Expiry: string }).Expiry === '2024-10-31')
      .map((x) => x.at);
    expect(sameKey).toEqual([0, 3000]);
    expect(
      calls.filter((x) => (x.body as { Expiry: string }).Expiry === '2024-11-07').map((x) => x.at),
    ).toEqual([0]);
    expect(calls.every((x) => x.headers['client-id'] === '1000000001')).toBe(true);
    const rows = optionChainRows(chains[0]);
    expect(rows.map((r) => r.strike)).toEqual([25_600, 25_700]);
    expect(rows[0]?.pe?.last_price).toBe(70);
  });

  it('reads the expiry list', async () => {
    const clock = new ManualClock(0);
    const { fetch, calls } = fakeFetch(clock, () => ({
      body: { data: ['2024-10-17', '2024-10-24'], status: 'success' },
    }));
    const list = await runWithClock(
      clock,
      client(clock, fetch).optionChain.expiries({ UnderlyingScrip: 13, UnderlyingSeg: 'IDX_I' }),
      1000,
    );
    expect(list).toEqual(['2024-10-17', '2024-10-24']);
    expect(calls[0]?.url.pathname).toBe('/v2/optionchain/expirylist');
  });
});
