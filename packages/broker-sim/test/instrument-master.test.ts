/**
 * The published instrument list: two CSV files without credentials, one row per instrument of the
 * universe plus the day's option contracts, every one of which the snapshot routes quote; the list
 * of a later day keeps its stocks and rolls its options.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTRUMENT_MASTER_PATHS } from '../src/instruments/index.js';
import { MarketModel } from '../src/market/index.js';
import { createRestServer, type RestServer, SIM_TEST_ACCOUNTS } from '../src/rest/index.js';

const DAY_MS = 86_400_000;
let now = Date.UTC(2024, 5, 5, 8, 0, 0); // Wednesday 2024-06-05 13:30 IST
const clock = () => now;
const model = new MarketModel({ seed: 9, instruments: 40, now: clock });
let server: RestServer;

beforeAll(async () => {
  server = await createRestServer({ model, now: clock, rateLimits: false });
});
afterAll(async () => server.close());

/** The file as rows of name -> value (the simulator quotes no field of its own list). */
async function list(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
  const [header, ...lines] = (await response.text()).trimEnd().split('\n');
  const names = (header ?? '').split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [names[i] ?? '', v])));
}

describe('instrument master', () => {
  it('publishes the compact and detailed lists without a token', async () => {
    const compact = await list(INSTRUMENT_MASTER_PATHS.compact);
    const detailed = await list(INSTRUMENT_MASTER_PATHS.detailed);
    expect(Object.keys(compact[0] ?? {})).toEqual([
      'SEM_EXM_EXCH_ID',
      'SEM_SEGMENT',
      'SEM_SMST_SECURITY_ID',
      'SEM_INSTRUMENT_NAME',
      'SEM_EXPIRY_CODE',
      'SEM_TRADING_SYMBOL',
      'SEM_LOT_UNITS',
      'SEM_CUSTOM_SYMBOL',
      'SEM_EXPIRY_DATE',
      'SEM_STRIKE_PRICE',
      'SEM_OPTION_TYPE',
      'SEM_TICK_SIZE',
      'SEM_EXPIRY_FLAG',
      'SEM_SERIES',
      'SM_SYMBOL_NAME',
    ]);
    expect(Object.keys(detailed[0] ?? {})).toEqual([
      ...Object.keys(compact[0] ?? {}),
      'ISIN',
      'UNDERLYING_SECURITY_ID',
      'UNDERLYING_SYMBOL',
    ]);
    expect(detailed.map((r) => r.SEM_SMST_SECURITY_ID)).toEqual(compact.map((r) => r.SEM_SMST_SECURITY_ID));

    // Every instrument of the universe, in the segment it trades on.
    const byId = new Map(detailed.map((r) => [Number(r.SEM_SMST_SECURITY_ID), r]));
    for (const inst of model.universe) {
      const row = byId.get(inst.securityId);
      expect(row?.SEM_TRADING_SYMBOL).toBe(inst.symbol);
    }
    expect(byId.get(2885)).toMatchObject({ SEM_EXM_EXCH_ID: 'NSE', SEM_SEGMENT: 'E', SEM_SERIES: 'EQ' });
    expect(byId.get(500325)).toMatchObject({ SEM_EXM_EXCH_ID: 'BSE', SEM_SEGMENT: 'E' });
    expect(byId.get(13)).toMatchObject({ SEM_SEGMENT: 'I', SEM_INSTRUMENT_NAME: 'INDEX' });
    expect(byId.get(1_000_001)).toMatchObject({ SEM_EXM_EXCH_ID: 'US', SEM_OPTION_TYPE: 'XX' });

    // Options name their underlying, expiry and strike; NIFTY's weekly ones expire on Thursdays.
    const nifty = detailed.filter((r) => r.UNDERLYING_SECURITY_ID === '13');
    expect(nifty.length).toBeGreaterThan(100);
    for (const r of nifty) {
      expect(r).toMatchObject({
        SEM_SEGMENT: 'D',
        SEM_INSTRUMENT_NAME: 'OPTIDX',
        UNDERLYING_SYMBOL: 'NIFTY',
      });
      expect(r.SEM_EXPIRY_DATE).toMatch(/^\d{4}-\d{2}-\d{2} 15:30:00$/);
      expect(new Date(`${r.SEM_EXPIRY_DATE?.slice(0, 10)}T00:00:00Z`).getUTCDay()).toBe(4);
      expect(Number(r.SEM_STRIKE_PRICE)).toBeGreaterThan(0);
      expect(['CE', 'PE']).toContain(r.SEM_OPTION_TYPE);
    }
    expect(
      detailed.some((r) => r.SEM_INSTRUMENT_NAME === 'OPTSTK' && r.UNDERLYING_SYMBOL === 'RELIANCE'),
    ).toBe(true);
  });

  it('lists option contracts the snapshot routes quote', async () => {
    const options = (await list(INSTRUMENT_MASTER_PATHS.compact)).filter((r) => r.SEM_SEGMENT === 'D');
    const ids = options.slice(0, 1000).map((r) => Number(r.SEM_SMST_SECURITY_ID));
    const response = await fetch(`${server.baseUrl}/v2/marketfeed/quote`, {
      method: 'POST',
      headers: { 'access-token': SIM_TEST_ACCOUNTS[0]!.webToken!, 'content-type': 'application/json' },
      body: JSON.stringify({ NSE_FNO: ids }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { NSE_FNO: Record<string, unknown> } };
    expect(Object.keys(body.data.NSE_FNO)).toHaveLength(1000);
  });

  it('keeps the stocks and rolls the options on a later day', async () => {
    const before = await list(INSTRUMENT_MASTER_PATHS.compact);
    now += 9 * DAY_MS; // past the nearest weekly expiry
    const after = await list(INSTRUMENT_MASTER_PATHS.compact);
    const stocks = (rows: typeof before) => rows.filter((r) => r.SEM_SEGMENT !== 'D');
    expect(stocks(after)).toEqual(stocks(before));
    const expiries = (rows: typeof before) => new Set(rows.map((r) => r.SEM_EXPIRY_DATE).filter(Boolean));
    expect(expiries(after)).not.toContain('2024-06-06 15:30:00');
    expect(expiries(before)).toContain('2024-06-06 15:30:00');
  });
});
