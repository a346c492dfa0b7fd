import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blackScholes } from '../src/history/black-scholes.js';
import { formatDay, parseDay, weekday } from '../src/history/calendar.js';
import { expiryList, monthlyExpiries, weeklyExpiries } from '../src/history/expiries.js';
import { MarketModel } from '../src/market/index.js';
import { createRestServer, type RestServer, SIM_TEST_ACCOUNTS } from '../src/rest/index.js';

const NOW = Date.UTC(2024, 5, 5, 8, 0, 0); // Wednesday 2024-06-05 13:30 IST
const clock = () => NOW;
const model = new MarketModel({ seed: 9, instruments: 10, now: clock });
let server: RestServer;

async function post(path: string, body: unknown) {
  const res = await fetch(`${server.baseUrl}/v2${path}`, {
    method: 'POST',
    headers: { 'access-token': SIM_TEST_ACCOUNTS[0]!.webToken!, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

beforeAll(async () => {
  server = await createRestServer({ model, now: clock, rateLimits: false });
});
afterAll(async () => server.close());

describe('expiries', () => {
  it('lists weekly Thursdays and last-Thursday monthlies', () => {
    const day = parseDay('2024-06-05')!;
    expect(weeklyExpiries(day, 2).map(formatDay)).toEqual(['2024-06-06', '2024-06-13']);
    expect(monthlyExpiries(day, 2).map(formatDay)).toEqual(['2024-06-27', '2024-07-25']);
    expect(expiryList(day, false).map(formatDay)).toEqual(['2024-06-27', '2024-07-25', '2024-08-29']);
    for (const e of expiryList(day, true)) expect(weekday(e)).toBe(4);
  });

  it('serves the expiry list and refuses an expiry outside it with 811', async () => {
    const list = await post('/optionchain/expirylist', { UnderlyingScrip: 13, UnderlyingSeg: 'IDX_I' });
    expect(list.body.data[0]).toBe('2024-06-06');
    const bad = await post('/optionchain', {
      UnderlyingScrip: 13,
      UnderlyingSeg: 'IDX_I',
      Expiry: '2024-06-07',
    });
    expect(bad).toMatchObject({ status: 400, body: { errorCode: '811' } });
    const badId = await post('/optionchain/expirylist', { UnderlyingScrip: 999_999, UnderlyingSeg: 'IDX_I' });
    expect(badId.body.errorCode).toBe('813');
  });
});

describe('option chain', () => {
  it('prices strikes around spot with greeks consistent with price and IV', async () => {
    const r = await post('/optionchain', {
      UnderlyingScrip: 13,
      UnderlyingSeg: 'IDX_I',
      Expiry: '2024-06-27',
    });
    expect(r.status).toBe(200);
    const spot = r.body.data.last_price as number;
    expect(spot).toBe(model.quote(13)!.ltp);
    const strikes = Object.keys(r.body.data.oc);
    expect(strikes).toHaveLength(41);
    expect(strikes[0]).toMatch(/^\d+\.000000$/);
    const t = (Date.UTC(2024, 5, 27, 10, 0, 0) - NOW) / 1000 / (365 * 86_400);
    let prevCall = Number.POSITIVE_INFINITY;
    for (const key of strikes) {
      const k = Number(key);
      const { ce, pe } = r.body.data.oc[key];
      expect(ce.last_price).toBeLessThanOrEqual(prevCall);
      prevCall = ce.last_price;
      for (const [side, call] of [
        [ce, true],
        [pe, false],
      ] as const) {
        const sigma = side.implied_volatility / 100;
        const v = blackScholes(call, spot, k, t, sigma);
        expect(Math.abs(Math.max(v.price, 0.05) - side.last_price)).toBeLessThanOrEqual(0.026);
        const h = spot * 1e-4;
        const fd =
          (blackScholes(call, spot + h, k, t, sigma).price -
            blackScholes(call, spot - h, k, t, sigma).price) /
          (2 * h);
        expect(side.greeks.delta).toBeCloseTo(fd, 3);
        const fv =
          (blackScholes(call, spot, k, t, sigma + 0.005).price -
            blackScholes(call, spot, k, t, sigma - 0.005).price) /
          1;
        expect(side.greeks.vega).toBeCloseTo(fv, 2);
        expect(side.oi).toBeGreaterThanOrEqual(0);
        expect(Number.isInteger(side.security_id)).toBe(true);
      }
    }
    // A smile: far strikes carry more implied volatility than the at-the-money one.
    const ivs = strikes.map((s) => r.body.data.oc[s].ce.implied_volatility as number);
    expect(Math.min(ivs[0]!, ivs[ivs.length - 1]!)).toBeGreaterThan(Math.min(...ivs));
  });

  it('quotes listed option contracts through the market snapshot', async () => {
    const r = await post('/optionchain', {
      UnderlyingScrip: 13,
      UnderlyingSeg: 'IDX_I',
      Expiry: '2024-06-13',
    });
    const first = Object.values(r.body.data.oc)[20] as { ce: { security_id: number; last_price: number } };
    const snap = await post('/marketfeed/ltp', { NSE_FNO: [first.ce.security_id] });
    expect(snap.body.data.NSE_FNO[String(first.ce.security_id)].last_price).toBe(first.ce.last_price);
  });
});

describe('expired options', () => {
  it('answers only the requested arrays per bar, relative to spot', async () => {
    const r = await post('/charts/rollingoption', {
      securityId: '13',
      exchangeSegment: 'NSE_FNO',
      instrument: 'OPTIDX',
      interval: '15',
      expiryFlag: 'WEEK',
      expiryCode: 1,
      strike: 'ATM+2',
      drvOptionType: 'PUT',
      requiredData: ['close', 'strike', 'spot', 'iv'],
      fromDate: '2024-05-27',
      toDate: '2024-05-29',
    });
    expect(r.status).toBe(200);
    expect(r.body.data.ce).toBeNull();
    const pe = r.body.data.pe;
    expect(Object.keys(pe).sort()).toEqual(['close', 'iv', 'spot', 'strike', 'timestamp']);
    expect(pe.timestamp).toHaveLength(2 * 25);
    for (let i = 0; i < pe.timestamp.length; i++) {
      const step = 50;
      expect(pe.strike[i]).toBe(Math.round(pe.spot[i] / step) * step + 2 * step);
      expect(pe.close[i]).toBeGreaterThan(0);
    }
  });

  it('limits a call to 45 days and the history to 5 years', async () => {
    const base = { securityId: '13', fromDate: '2024-01-01', toDate: '2024-03-01' };
    expect((await post('/charts/rollingoption', base)).body.errorCode).toBe('812');
    const old = await post('/charts/rollingoption', {
      ...base,
      fromDate: '2019-01-01',
      toDate: '2019-01-10',
    });
    expect(old.body.errorCode).toBe('812');
    const strike = await post('/charts/rollingoption', { ...base, toDate: '2024-01-05', strike: 'ATM+11' });
    expect(strike.body.errorCode).toBe('814');
  });
});
