import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, type Harness, HIST, LIVE_A, LIVE_B, startHarness } from './helpers.js';
import { seedInstruments } from './reference-fixtures.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({}, { instruments: [{ securityId: LIVE_B, symbol: 'BOLTX' }] });
  await seedInstruments(h.store);
});
afterAll(async () => {
  await h?.close();
});

async function get(url: string) {
  return h.api.app.inject({ method: 'GET', url, headers: h.read });
}

function sql(text: string) {
  return h.api.app.inject({ method: 'POST', url: '/v1/sql', headers: h.read, payload: { sql: text } });
}

describe('instrument master in the query API', () => {
  it('finds instruments by the master symbols, the configured file overriding what it names', async () => {
    expect((await get('/v1/instruments/search?q=acme')).json().data).toEqual([
      { securityId: LIVE_A, symbol: 'ACME', segment: 'INX_EQ', exact: true, stored: true },
    ]);
    // The file names BOLTX for LIVE_B; the master's segment stays.
    expect((await get('/v1/instruments/search?q=boltx')).json().data).toEqual([
      { securityId: LIVE_B, symbol: 'BOLTX', segment: 'INX_EQ', exact: true, stored: true },
    ]);
    // Listed only (no data stored): found, marked so, and known to the instrument routes.
    expect((await get('/v1/instruments/search?q=NIFTY-Mar')).json().data).toEqual([
      {
        securityId: 40_000_123,
        symbol: 'NIFTY-Mar2024-22000-CE',
        segment: 'NSE_FNO',
        exact: false,
        stored: false,
      },
    ]);
    expect((await get(`/v1/instruments/40000123/ticks?from=${DAY}`)).statusCode).toBe(200);
  });

  it('answers every version of a listing, newest first, and 404 for an id it does not list', async () => {
    const r = await get(`/v1/instruments/${LIVE_A}/listing`);
    expect(r.statusCode).toBe(200);
    expect(
      r.json().data.map((v: Record<string, unknown>) => [v.trading_symbol, v.valid_from, v.valid_to]),
    ).toEqual([
      ['ACME', DAY, null],
      ['ACMEOLD', '2024-01-02', DAY],
    ]);
    const option = (await get('/v1/instruments/40000123/listing')).json().data[0];
    expect(option).toMatchObject({
      lot_size: 75,
      strike_price: 22_000,
      option_type: 'CE',
      underlying_security_id: 13,
      expiry_date: '2024-03-07T10:00:00Z',
    });
    const csv = await get(`/v1/instruments/${HIST}/listing?format=csv`);
    expect(csv.body).toContain('RELIANCE');
    expect((await get('/v1/instruments/4242/listing')).statusCode).toBe(404);
  });

  it('joins ticks and 1-minute bars to symbols through read-only SQL', async () => {
    const ticks = await sql(`
      SELECT i.trading_symbol AS symbol, count() AS n
      FROM market.ticks AS t
      INNER JOIN market.instruments AS i ON i.security_id = t.security_id AND i.exchange_segment = 'INX_EQ'
      WHERE i.valid_to IS NULL
      GROUP BY symbol ORDER BY symbol`);
    expect(ticks.statusCode).toBe(200);
    expect(ticks.json().data).toEqual([
      { symbol: 'ACME', n: 600 },
      { symbol: 'BOLT', n: 600 },
    ]);
    // The version valid at each tick's time: the day before the rename the symbol was ACMEOLD.
    const asOf = await sql(`
      SELECT i.trading_symbol AS symbol, count() AS n
      FROM market.ticks AS t
      INNER JOIN market.instruments AS i ON i.security_id = t.security_id
      WHERE toDate(t.received_at) >= i.valid_from AND (i.valid_to IS NULL OR toDate(t.received_at) < i.valid_to)
        AND t.security_id = ${LIVE_A}
      GROUP BY symbol`);
    expect(asOf.json().data).toEqual([{ symbol: 'ACME', n: 600 }]);
    const bars = await sql(`
      SELECT i.trading_symbol AS symbol, count() AS minutes
      FROM market.bars_1m AS b
      INNER JOIN market.instruments AS i ON i.security_id = b.security_id
      WHERE i.valid_to IS NULL
      GROUP BY symbol ORDER BY symbol`);
    expect(bars.statusCode).toBe(200);
    expect(bars.json().data).toEqual([
      { symbol: 'ACME', minutes: 10 },
      { symbol: 'BOLT', minutes: 10 },
    ]);
  });
});
