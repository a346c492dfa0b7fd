// test-tier: integration
import { type FetchLike, optionChainRows } from '@feedpipe/broker-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, ONE, type Sim, startSim, TWO } from './api-sim-helpers.js';

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim?.close();
});

interface Sent {
  path: string;
  start: number;
  end: number;
  status: number;
  body: unknown;
}

/** A fetch that records every call's path, body, status and start/end times. */
function recordingFetch(): { fetch: FetchLike; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetchImpl: FetchLike = async (url, init) => {
    const start = Date.now();
    const response = await fetch(url, init);
    const clone = response.clone();
    await clone.arrayBuffer();
    sent.push({
      path: new URL(url).pathname,
      start,
      end: Date.now(),
      status: response.status,
      body: typeof init.body === 'string' && init.body.startsWith('{') ? JSON.parse(init.body) : undefined,
    });
    return response;
  };
  return { fetch: fetchImpl, sent };
}

/** Largest number of calls sent within any window of `windowMs`. */
function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let hi = 0, lo = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] as number) - (sorted[lo] as number) >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** A call that bypasses the client, to show the simulator's own limits. */
async function raw(
  path: string,
  body: unknown,
  token = ONE.webToken!,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${sim.server.baseUrl}/v2${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'access-token': token, 'client-id': ONE.clientId },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function ids(segment: 'NSE_EQ' | 'BSE_EQ'): number[] {
  return sim.model.universe.filter((i) => i.exchangeSegment === segment).map((i) => i.securityId);
}

function istDate(msFromNow: number): string {
  return new Date(Date.now() + msFromNow + 5.5 * 3_600_000).toISOString().slice(0, 10);
}

const DAY = 86_400_000;
const NIFTY = 13;

describe('market snapshot against the simulator', () => {
  it('answers ltp, ohlc and a five-level quote', async () => {
    const c = sim.client();
    const [nse] = ids('NSE_EQ');
    const [bse] = ids('BSE_EQ');
    const ltp = await c.marketData.ltp({ NSE_EQ: [nse!], BSE_EQ: [bse!] });
    expect(ltp.NSE_EQ?.[String(nse)]?.last_price).toBeGreaterThan(0);
    expect(ltp.BSE_EQ?.[String(bse)]?.last_price).toBeGreaterThan(0);
    const ohlc = await c.marketData.ohlc({ NSE_EQ: [nse!] });
    const bar = ohlc.NSE_EQ?.[String(nse)];
    expect(bar?.ohlc.high).toBeGreaterThanOrEqual(bar?.ohlc.low ?? Number.POSITIVE_INFINITY);
    const quote = (await c.marketData.quote({ NSE_EQ: [nse!] })).NSE_EQ?.[String(nse)];
    expect(quote?.depth.buy).toHaveLength(5);
    expect(quote?.depth.sell).toHaveLength(5);
    expect(quote?.last_trade_time).toMatch(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/);
  });

  it('splits 1,400 instruments into two calls the simulator accepts, one per second', async () => {
    const { fetch, sent } = recordingFetch();
    const c = sim.client({ fetch });
    const nse = ids('NSE_EQ');
    const bse = ids('BSE_EQ');
    const request = { NSE_EQ: [...nse, ...nse, ...nse, ...nse].slice(0, 1200), BSE_EQ: bse.slice(0, 200) };
    const result = await c.marketData.ltp(request);
    expect(sent.map((s) => s.status)).toEqual([200, 200]);
    expect(sent[1]!.start - sent[0]!.end).toBeGreaterThanOrEqual(1000);
    expect(Object.keys(result.NSE_EQ ?? {})).toHaveLength(nse.length);
    expect(Object.keys(result.BSE_EQ ?? {})).toHaveLength(200);
    // In one request the simulator refuses them with data error 804.
    await new Promise((r) => setTimeout(r, 1100));
    const refused = await raw('/marketfeed/ltp', request);
    expect(refused).toMatchObject({ status: 400, body: { errorCode: '804' } });
  });
});

describe('candles against the simulator', () => {
  it('reads daily candles back to the inception of a stock', async () => {
    const c = sim.client();
    const inst = sim.model.universe.find((i) => i.exchangeSegment === 'NSE_EQ')!;
    const candles = await c.history.daily({
      securityId: String(inst.securityId),
      exchangeSegment: 'NSE_EQ',
      instrument: 'EQUITY',
      fromDate: '1990-01-01',
      toDate: istDate(DAY),
    });
    expect(candles.length).toBeGreaterThan(100);
    const inception = Date.parse(`${inst.inceptionDate}T00:00:00+05:30`) / 1000;
    expect(candles.timestamp[0]).toBeGreaterThanOrEqual(inception);
    for (let i = 1; i < candles.length; i++)
      expect(candles.timestamp[i]).toBeGreaterThan(candles.timestamp[i - 1]!);
    for (const row of candles) {
      expect(row.high).toBeGreaterThanOrEqual(Math.max(row.open!, row.close!));
      expect(row.low).toBeLessThanOrEqual(Math.min(row.open!, row.close!));
    }
  });

  it('asks for 2 years of 1-minute candles in 9 calls, within 5 per second, every candle once', async () => {
    const { fetch, sent } = recordingFetch();
    const c = sim.client({ fetch });
    const request = {
      securityId: String(NIFTY),
      exchangeSegment: 'IDX_I' as const,
      instrument: 'INDEX',
      interval: 1 as const,
      fromDate: istDate(-730 * DAY),
      toDate: istDate(0),
    };
    const candles = await c.history.intraday(request);
    expect(sent).toHaveLength(9);
    expect(sent.every((s) => s.status === 200)).toBe(true);
    expect(
      maxInWindow(
        sent.map((s) => s.start),
        1000,
      ),
    ).toBeLessThanOrEqual(5);
    // Consecutive ranges share their boundary date and nothing else (calls overlap in time, so
    // order them by range).
    const ranges = sent
      .map((s) => s.body as { fromDate: string; toDate: string })
      .sort((a, b) => a.fromDate.localeCompare(b.fromDate));
    expect(ranges[0]!.fromDate).toBe(request.fromDate);
    expect(ranges[ranges.length - 1]!.toDate).toBe(request.toDate);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.fromDate).toBe(ranges[i - 1]!.toDate);
    expect(candles.length).toBeGreaterThan(400 * 375 * 0.9);
    for (let i = 1; i < candles.length; i++)
      expect(candles.timestamp[i]).toBeGreaterThan(candles.timestamp[i - 1]!);
    // A 10-day window across the first boundary, fetched in one call, matches the merged result.
    const boundary = ranges[0]!.toDate;
    const from = new Date(Date.parse(boundary) - 5 * DAY).toISOString().slice(0, 10);
    const to = new Date(Date.parse(boundary) + 5 * DAY).toISOString().slice(0, 10);
    const window = await c.history.intraday({ ...request, fromDate: from, toDate: to });
    expect(window.length).toBeGreaterThan(0);
    const lo = window.timestamp[0]!;
    const hi = window.timestamp[window.length - 1]!;
    const merged = Array.from(candles.timestamp).filter((t) => t >= lo && t <= hi);
    expect(merged).toEqual(Array.from(window.timestamp));
  });

  it('aggregates intraday bars to the daily bar, for random instruments and days (property)', async () => {
    const c = sim.client();
    const stocks = sim.model.universe.filter(
      (i) => i.exchangeSegment === 'NSE_EQ' || i.exchangeSegment === 'IDX_I',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: stocks.length - 1 }),
        fc.integer({ min: 1, max: 1500 }),
        fc.constantFrom(1 as const, 5 as const, 15 as const, 60 as const),
        async (index, daysAgo, interval) => {
          const inst = stocks[index]!;
          const segment = inst.exchangeSegment as 'NSE_EQ' | 'IDX_I';
          const base = {
            securityId: String(inst.securityId),
            exchangeSegment: segment,
            instrument: inst.instrumentType,
          };
          const day = istDate(-daysAgo * DAY);
          const next = istDate(-(daysAgo - 1) * DAY);
          const daily = await c.history.daily({ ...base, fromDate: day, toDate: next });
          const bars = await c.history.intraday({ ...base, interval, fromDate: day, toDate: next });
          // Weekends and holidays have neither.
          expect(bars.length > 0).toBe(daily.length > 0);
          if (daily.length === 0) return;
          expect(daily.length).toBe(1);
          expect(bars.open[0]).toBeCloseTo(daily.open[0]!, 6);
          expect(bars.close[bars.length - 1]).toBeCloseTo(daily.close[0]!, 6);
          expect(Math.max(...bars.high)).toBeCloseTo(daily.high[0]!, 6);
          expect(Math.min(...bars.low)).toBeCloseTo(daily.low[0]!, 6);
          expect(bars.volume.reduce((a, b) => a + b, 0)).toBe(daily.volume[0]);
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe('option chain and expired options against the simulator', () => {
  it('lists expiries and reads a consistent chain, identical requests 3 s apart', async () => {
    const { fetch, sent } = recordingFetch();
    const c = sim.client({ fetch });
    const expiries = await c.optionChain.expiries({ UnderlyingScrip: NIFTY, UnderlyingSeg: 'IDX_I' });
    expect(expiries.length).toBeGreaterThan(1);
    expect([...expiries].sort()).toEqual(expiries);
    const request = { UnderlyingScrip: NIFTY, UnderlyingSeg: 'IDX_I', Expiry: expiries[0]! };
    const [first, second] = await Promise.all([c.optionChain.chain(request), c.optionChain.chain(request)]);
    const chainCalls = sent.filter((s) => s.path === '/v2/optionchain');
    expect(chainCalls.map((s) => s.status)).toEqual([200, 200]);
    expect(chainCalls[1]!.start - chainCalls[0]!.end).toBeGreaterThanOrEqual(3000);
    expect(first.last_price).toBeGreaterThan(0);
    const rows = optionChainRows(first);
    expect(rows.length).toBeGreaterThan(5);
    const atm = rows.reduce((a, b) =>
      Math.abs(b.strike - first.last_price) < Math.abs(a.strike - first.last_price) ? b : a,
    );
    expect(atm.ce?.greeks.delta).toBeGreaterThan(0);
    expect(atm.pe?.greeks.delta).toBeLessThan(0);
    expect(atm.ce?.implied_volatility).toBeGreaterThan(0);
    // Strikes are centred on spot, which may have moved in the 3 s between the two.
    expect(optionChainRows(second).length).toBeGreaterThan(5);
  });

  it('reads 60 days of expired options in two calls, with the arrays asked for', async () => {
    const { fetch, sent } = recordingFetch();
    const c = sim.client({ fetch });
    const result = await c.history.expiredOptions({
      securityId: String(NIFTY),
      interval: 15,
      strike: 'ATM+2',
      drvOptionType: 'PUT',
      requiredData: ['close', 'iv', 'spot', 'strike'],
      fromDate: istDate(-90 * DAY),
      toDate: istDate(-30 * DAY),
    });
    expect(sent.filter((s) => s.path === '/v2/charts/rollingoption').map((s) => s.status)).toEqual([
      200, 200,
    ]);
    expect(result.ce).toBeUndefined();
    const pe = result.pe!;
    expect(pe.length).toBeGreaterThan(0);
    expect(pe.fields.sort()).toEqual(['close', 'iv', 'spot', 'strike']);
    const row = pe.row(0);
    expect(row.spot).toBeGreaterThan(0);
    expect(row.strike).toBeGreaterThan(0);
  });
});

describe('data errors against the simulator', () => {
  it('answers a bad security id with data error 813, kept by the client', async () => {
    const error = await errorOf(
      sim.client().history.daily({
        securityId: '99999999',
        exchangeSegment: 'NSE_EQ',
        instrument: 'EQUITY',
        fromDate: '2024-01-01',
        toDate: '2024-02-01',
      }),
    );
    expect(error).toMatchObject({
      code: 'HTTP_ERROR',
      status: 400,
      errorType: 'Data_Error',
      errorCode: '813',
    });
  });

  it('refuses more than 90 days intraday and 45 days of expired options in one call (the client splits)', async () => {
    // These calls bypass the client's limiter: let the data window empty first.
    await new Promise((r) => setTimeout(r, 1100));
    const intraday = await raw('/charts/intraday', {
      securityId: String(NIFTY),
      exchangeSegment: 'IDX_I',
      instrument: 'INDEX',
      interval: 5,
      fromDate: istDate(-100 * DAY),
      toDate: istDate(-5 * DAY),
    });
    expect(intraday).toMatchObject({ status: 400, body: { errorCode: '812' } });
    const rolling = await raw('/charts/rollingoption', {
      securityId: String(NIFTY),
      strike: 'ATM',
      requiredData: ['close'],
      fromDate: istDate(-60 * DAY),
      toDate: istDate(-5 * DAY),
    });
    expect(rolling).toMatchObject({ status: 400, body: { errorCode: '812' } });
  });

  it('refuses data calls of an account without a data plan (806)', async () => {
    const c = sim.client({ clientId: TWO.clientId, accessToken: TWO.webToken });
    const error = await errorOf(c.optionChain.expiries({ UnderlyingScrip: NIFTY, UnderlyingSeg: 'IDX_I' }));
    expect(error).toMatchObject({ status: 400, errorCode: '806' });
  });

  it('reads the ledger', async () => {
    const ledger = await sim.client().edis.ledger(istDate(-30 * DAY), istDate(0));
    expect(Array.isArray(ledger)).toBe(true);
  });

  it('answers 429 / DH-904 to a client that ignores the limits', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const careless = sim.client({ rateLimiter: { enabled: false }, maxRetries: 0 });
    const [nse] = ids('NSE_EQ');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 4 }, () => careless.marketData.ltp({ NSE_EQ: [nse!] })),
    );
    const refused = outcomes
      .filter((o) => o.status === 'rejected')
      .map((o) => (o as PromiseRejectedResult).reason);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    for (const error of refused) {
      expect(error).toMatchObject({
        code: 'RATE_LIMITED',
        status: 429,
        errorCode: 'DH-904',
        retryable: true,
      });
    }
    // The option chain refuses an identical request within 3 s.
    await new Promise((r) => setTimeout(r, 1100));
    const expiry = (await careless.optionChain.expiries({ UnderlyingScrip: 25, UnderlyingSeg: 'IDX_I' }))[0]!;
    const request = { UnderlyingScrip: 25, UnderlyingSeg: 'IDX_I', Expiry: expiry };
    await careless.optionChain.chain(request);
    const again = await errorOf(careless.optionChain.chain(request));
    expect(again).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
  });
});
