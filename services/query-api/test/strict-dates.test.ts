/**
 * Dates and instants are read by one strict grammar: an impossible day (2026-02-30) or a non-ISO
 * text (`2026-11-22 09:00`, read by Date.parse in the server's local zone) is a 400 naming the
 * parameter, never a window silently moved to another day.
 */

import { isCalendarDate, parseIsoInstant } from '@feedpipe/service-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers.js';

describe('parseIsoInstant and isCalendarDate', () => {
  it('read dates, instants with their zone and fractions exactly', () => {
    expect(parseIsoInstant('2024-03-04')).toBe(Date.UTC(2024, 2, 4));
    expect(parseIsoInstant('2024-03-04T09:15Z')).toBe(Date.UTC(2024, 2, 4, 9, 15));
    expect(parseIsoInstant('2024-03-04T09:15:00+05:30')).toBe(Date.UTC(2024, 2, 4, 3, 45));
    expect(parseIsoInstant('2024-03-04T23:59:59.123456-01:00')).toBe(Date.UTC(2024, 2, 5, 0, 59, 59, 123));
    expect(parseIsoInstant('2028-02-29')).toBe(Date.UTC(2028, 1, 29));
    expect(parseIsoInstant('2000-02-29T00:00:00Z')).toBe(Date.UTC(2000, 1, 29));
    // Date.UTC would read year 70 as 1970.
    expect(parseIsoInstant('0070-01-01')).toBe(Date.parse('0070-01-01T00:00:00Z'));
  });

  it('refuse what Date.parse would roll over or read in local time', () => {
    for (const text of [
      '2026-02-30',
      '2026-02-29',
      '2100-02-29',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '2026-11-22 09:00',
      '2026-11-22T09:00:00',
      '2026-11-22T24:00:00Z',
      '2026-11-22T09:60Z',
      '2026-11-22T09:00:60Z',
      '2026-11-22T09:00:00+25:00',
      '2026-11-22T09:00:00+0530',
      '22/11/2026',
      'Nov 22 2026',
      '2026-1-2',
      '',
    ]) {
      expect(parseIsoInstant(text), text).toBeUndefined();
    }
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2026-02-28T00:00:00Z')).toBe(false);
  });
});

describe('analytics routes refuse impossible and non-ISO dates', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({}, {}, false);
  });
  afterAll(async () => {
    await h?.close();
  });

  const get = (url: string) => h.api.app.inject({ method: 'GET', url, headers: h.read });

  it('answers 400 naming from, to or expiry', async () => {
    const cases: [string, string][] = [
      ['/v1/instruments/1000001/ticks?from=2026-02-30', 'from'],
      ['/v1/instruments/1000001/ticks?from=2026-11-22%2009:00', 'from'],
      ['/v1/instruments/1000001/ticks?from=2026-11-22T09:00:00', 'from'],
      ['/v1/instruments/1000001/bars?from=2024-03-04&to=2024-02-30', 'to'],
      ['/v1/instruments/1000001/bars?from=2024-03-04T24:00:00Z', 'from'],
      ['/v1/movers?to=2026-11-22%2009:00', 'to'],
      ['/v1/most-active?to=2026-02-30', 'to'],
      ['/v1/instruments/2885/candles/daily?from=2024-02-30', 'from'],
      ['/v1/instruments/2885/candles/intraday?from=2024-03-04&to=2024-04-31', 'to'],
      ['/v1/option-chains/13/history?from=2024-02-30', 'from'],
      ['/v1/option-chains/13/history?from=2024-03-04&expiry=2024-02-30', 'expiry'],
      ['/v1/option-chains/13?expiry=2024-02-30', 'expiry'],
      ['/v1/expired-options/13?from=2024-02-30', 'from'],
    ];
    for (const [url, field] of cases) {
      const r = await get(url);
      expect(r.statusCode, `${url}: ${r.body}`).toBe(400);
      expect(r.json().error, url).toMatchObject({ code: 'BAD_REQUEST', field });
    }
  });

  it('a real date and an instant with its zone still pass the parameter checks', async () => {
    // The store is empty: past the checks, an unknown instrument is a 404 and a window a 200.
    expect((await get('/v1/instruments/1000001/ticks?from=2024-02-29')).statusCode).toBe(404);
    expect(
      (await get('/v1/instruments/1000001/bars?from=2024-03-04T09:00:00%2B05:30&to=2024-03-05')).statusCode,
    ).toBe(404);
    expect((await get('/v1/movers?to=2024-03-04T09:00:00Z')).statusCode).toBe(200);
    expect((await get('/v1/option-chains/13?expiry=2024-02-29')).statusCode).not.toBe(400);
  });
});
