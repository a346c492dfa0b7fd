import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDay, isTradingDay, istDay, parseDay } from '../src/history/calendar.js';
import { aggregate } from '../src/history/day-bars.js';
import { PriceHistory } from '../src/history/series.js';
import { MarketModel } from '../src/market/index.js';
import { createRestServer, type RestServer, SIM_TEST_ACCOUNTS } from '../src/rest/index.js';

const NOW = Date.UTC(2024, 5, 5, 8, 0, 0); // Wednesday 13:30 IST
const clock = () => NOW;
const model = new MarketModel({ seed: 21, instruments: 10, now: clock });
const history = new PriceHistory(model, clock);
const indian = model.universe.filter((i) => i.exchangeSegment !== 'INX_EQ');
const today = istDay(NOW / 1000);
let server: RestServer;

async function post(path: string, body: unknown, token = SIM_TEST_ACCOUNTS[0]!.webToken!) {
  const res = await fetch(`${server.baseUrl}/v2${path}`, {
    method: 'POST',
    headers: { 'access-token': token, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

beforeAll(async () => {
  server = await createRestServer({ model, now: clock, rateLimits: false });
});
afterAll(async () => server.close());

describe('history generator', () => {
  it('aggregates every interval and the daily bar exactly from the minute bars (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: indian.length - 1 }),
        fc.integer({ min: 1, max: 5 * 365 }),
        (k, back) => {
          const inst = indian[k]!;
          const day = today - back;
          const minutes = history.minuteBars(inst, day);
          const inception = parseDay(inst.inceptionDate)!;
          if (!isTradingDay(day) || day < inception) {
            expect(minutes).toBeUndefined();
            return;
          }
          expect(minutes!.open.length).toBe(375);
          for (const interval of [5, 15, 30, 60]) {
            const bars = history.intradayBars(inst, day, interval)!;
            const again = aggregate(minutes!, interval);
            expect(Array.from(bars.close)).toEqual(Array.from(again.close));
            expect(bars.open.length).toBe(Math.ceil(375 / interval));
            // The bars of the interval aggregate to the same daily bar as the minutes.
            const fromBars = aggregate(bars, bars.open.length);
            const daily = history.dailyBar(inst, day)!;
            expect(fromBars.open[0]).toBe(daily.open[0]);
            expect(fromBars.high[0]).toBe(daily.high[0]);
            expect(fromBars.low[0]).toBe(daily.low[0]);
            expect(fromBars.close[0]).toBe(daily.close[0]);
            expect(fromBars.volume[0]).toBe(daily.volume[0]);
          }
          for (let i = 0; i < 375; i++) {
            expect(minutes!.high[i]!).toBeGreaterThanOrEqual(Math.max(minutes!.open[i]!, minutes!.close[i]!));
            expect(minutes!.low[i]!).toBeLessThanOrEqual(Math.min(minutes!.open[i]!, minutes!.close[i]!));
            if (i > 0) expect(minutes!.open[i]).toBe(minutes!.close[i - 1]);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('closes the last finished day at the live previous close and is deterministic per seed', () => {
    const inst = indian.find((i) => i.exchangeSegment === 'NSE_EQ')!;
    const yesterday = today - 1;
    expect(history.dailyBar(inst, yesterday)!.close[0]).toBe(model.quote(inst.securityId)!.prevClose);
    const other = new PriceHistory(new MarketModel({ seed: 21, instruments: 10, now: clock }), clock);
    expect(Array.from(other.minuteBars(inst, today - 30)!.close)).toEqual(
      Array.from(history.minuteBars(inst, today - 30)!.close),
    );
    const reseeded = new PriceHistory(new MarketModel({ seed: 22, instruments: 10, now: clock }), clock);
    expect(Array.from(reseeded.minuteBars(inst, today - 30)!.close)).not.toEqual(
      Array.from(history.minuteBars(inst, today - 30)!.close),
    );
  });

  it("builds today's bars up to now, from the live open to the live last price", () => {
    const inst = indian.find((i) => i.exchangeSegment === 'NSE_EQ')!;
    const bars = history.minuteBars(inst, today)!;
    const q = model.quote(inst.securityId)!;
    expect(bars.open.length).toBe(4 * 60 + 16); // 09:15 .. 13:30 inclusive
    expect(bars.open[0]).toBe(q.open);
    expect(bars.close[bars.close.length - 1]).toBe(q.ltp);
  });
});

describe('/charts endpoints', () => {
  const reliance = { securityId: '2885', exchangeSegment: 'NSE_EQ' };

  it('serves daily candles that match the intraday bars of the same days', async () => {
    const daily = await post('/charts/historical', {
      ...reliance,
      fromDate: '2024-05-27',
      toDate: '2024-06-01',
    });
    expect(daily.status).toBe(200);
    expect(daily.body.timestamp).toHaveLength(5);
    const intra = await post('/charts/intraday', {
      ...reliance,
      interval: '60',
      fromDate: '2024-05-27',
      toDate: '2024-06-01',
    });
    expect(intra.body.timestamp).toHaveLength(5 * 7);
    for (let d = 0; d < 5; d++) {
      const slice = (k: string) => intra.body[k].slice(d * 7, d * 7 + 7) as number[];
      expect(slice('open')[0]).toBe(daily.body.open[d]);
      expect(slice('close')[6]).toBe(daily.body.close[d]);
      expect(Math.max(...slice('high'))).toBe(daily.body.high[d]);
      expect(Math.min(...slice('low'))).toBe(daily.body.low[d]);
      expect(slice('volume').reduce((a, b) => a + b, 0)).toBe(daily.body.volume[d]);
    }
    expect(formatDay(istDay(daily.body.timestamp[0]))).toBe('2024-05-27');
  });

  it('accepts date-times and answers every candle of the range once', async () => {
    const r = await post('/charts/intraday', {
      ...reliance,
      interval: '1',
      fromDate: '2024-06-03 09:30:00',
      toDate: '2024-06-03 10:00:00',
    });
    expect(r.body.timestamp).toHaveLength(30);
    expect(new Set(r.body.timestamp).size).toBe(30);
  });

  it('enforces the data limits with 8xx data errors', async () => {
    const long = await post('/charts/intraday', {
      ...reliance,
      fromDate: '2024-01-01',
      toDate: '2024-04-15',
    });
    expect(long).toMatchObject({ status: 400, body: { errorType: 'Data_Error', errorCode: '812' } });
    const badDate = await post('/charts/historical', {
      ...reliance,
      fromDate: '2024-13-01',
      toDate: '2024-06-01',
    });
    expect(badDate.body.errorCode).toBe('812');
    const reversed = await post('/charts/historical', {
      ...reliance,
      fromDate: '2024-06-01',
      toDate: '2024-05-01',
    });
    expect(reversed.body.errorCode).toBe('812');
    const old = await post('/charts/intraday', { ...reliance, fromDate: '2018-01-01', toDate: '2018-01-05' });
    expect(old.body.errorCode).toBe('812');
    const badId = await post('/charts/historical', { securityId: '2885', exchangeSegment: 'BSE_EQ' });
    expect(badId).toMatchObject({ status: 400, body: { errorCode: '813' } });
    const badInterval = await post('/charts/intraday', { ...reliance, interval: '7' });
    expect(badInterval.body.errorCode).toBe('814');
    const many = await post('/marketfeed/ltp', { NSE_EQ: Array.from({ length: 1001 }, (_, i) => i + 1) });
    expect(many.body.errorCode).toBe('804');
    const unknown = await post('/marketfeed/ltp', { NSE_EQ: [2885, 424242] });
    expect(unknown.body.errorCode).toBe('813');
    const noPlan = await post('/charts/historical', reliance, SIM_TEST_ACCOUNTS[1]!.webToken!);
    expect(noPlan.body.errorCode).toBe('806');
  });

  it('answers snapshots in the documented shapes with five depth levels', async () => {
    const ltp = await post('/marketfeed/ltp', { NSE_EQ: [2885], IDX_I: [13] });
    expect(ltp.body.status).toBe('success');
    expect(ltp.body.data.NSE_EQ['2885'].last_price).toBe(model.quote(2885)!.ltp);
    const ohlc = await post('/marketfeed/ohlc', { NSE_EQ: [2885] });
    expect(Object.keys(ohlc.body.data.NSE_EQ['2885'].ohlc).sort()).toEqual(['close', 'high', 'low', 'open']);
    const quote = await post('/marketfeed/quote', { NSE_EQ: [2885] });
    const q = quote.body.data.NSE_EQ['2885'];
    expect(q.depth.buy).toHaveLength(5);
    expect(q.depth.sell).toHaveLength(5);
    expect(q.depth.buy[0].price).toBeLessThan(q.depth.sell[0].price);
    expect(q.last_trade_time).toMatch(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/);
  });
});
