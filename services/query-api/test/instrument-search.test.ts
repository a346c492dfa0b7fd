/**
 * GET /v1/instruments/search over real HTTP: symbols and ids from the configured list and the stored
 * data, ranked whole match, prefix, substring, stored before listed-only; an empty list (not a 404)
 * for no match; 400 naming the field; the key's scope; and its OpenAPI description.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, HIST, LIVE_A, LIVE_B, startHarness } from './helpers.js';

let h: Harness;
let url: string;

beforeAll(async () => {
  h = await startHarness(
    {},
    {
      instruments: [
        { securityId: HIST, symbol: 'RELIANCE', segment: 'NSE_EQ' },
        { securityId: 500_325, symbol: 'RELIANCE', segment: 'BSE_EQ' },
        { securityId: 11_536, symbol: 'TCS', segment: 'NSE_EQ' },
        { securityId: LIVE_A, symbol: 'ACME', segment: 'INX_EQ' },
      ],
    },
  );
  url = await h.api.start();
});
afterAll(async () => {
  await h?.close();
});

interface Match {
  securityId: number;
  symbol: string | null;
  segment: string | null;
  exact: boolean;
  stored: boolean;
}

async function search(query: string, headers: Record<string, string> = h.read) {
  const response = await fetch(`${url}/v1/instruments/search?${query}`, { headers });
  return {
    status: response.status,
    body: (await response.json()) as { data: Match[]; error?: { field?: string; message: string } },
  };
}

describe('GET /v1/instruments/search', () => {
  it('finds a symbol whole, case-insensitive, the instrument with stored data first', async () => {
    const { status, body } = await search('q=reliance');
    expect(status).toBe(200);
    expect(body.data).toEqual([
      { securityId: HIST, symbol: 'RELIANCE', segment: 'NSE_EQ', exact: true, stored: true },
      { securityId: 500_325, symbol: 'RELIANCE', segment: 'BSE_EQ', exact: true, stored: false },
    ]);
  });

  it('ranks prefixes before substrings, and never a whole match below them', async () => {
    expect((await search('q=REL')).body.data.map((m) => [m.securityId, m.exact])).toEqual([
      [HIST, false],
      [500_325, false],
    ]);
    expect((await search('q=lian')).body.data.map((m) => m.securityId)).toEqual([HIST, 500_325]);
    // ACME begins with A; RELIANCE only contains it (the stored one before the listed one).
    expect((await search('q=a')).body.data.map((m) => m.securityId)).toEqual([LIVE_A, HIST, 500_325]);
    expect((await search('q=CS')).body.data.map((m) => [m.symbol, m.stored])).toEqual([['TCS', false]]);
  });

  it('finds ids, whole or by their beginning, listed or only stored', async () => {
    expect((await search(`q=${LIVE_A}`)).body.data[0]).toEqual({
      securityId: LIVE_A,
      symbol: 'ACME',
      segment: 'INX_EQ',
      exact: true,
      stored: true,
    });
    const prefix = (await search('q=100000')).body.data;
    expect(prefix.map((m) => [m.securityId, m.symbol, m.exact])).toEqual([
      [LIVE_A, 'ACME', false],
      [LIVE_B, null, false],
    ]);
    expect((await search('q=1000&limit=1')).body.data).toHaveLength(1);
  });

  it('answers an empty list, not a 404, when nothing matches', async () => {
    expect(await search('q=999999')).toEqual({ status: 200, body: { data: [] } });
    expect(await search('q=NOSUCH')).toEqual({ status: 200, body: { data: [] } });
  });

  it('400 naming the field for a bad query; 401 without a key, 403 without the read scope', async () => {
    for (const [query, field] of [
      ['', 'q'],
      ['q=', 'q'],
      ['q=%20%20', 'q'],
      [`q=${'x'.repeat(65)}`, 'q'],
      ['q=a&limit=0', 'limit'],
      ['q=a&limit=51', 'limit'],
      ['q=a&other=1', 'other'],
    ]) {
      const { status, body } = await search(query ?? '');
      expect(status, query).toBe(400);
      expect(body.error?.message, query).toMatch(new RegExp(field ?? ''));
    }
    expect((await search('q=a', {})).status).toBe(401);
    expect((await search('q=a', h.admin)).status).toBe(403);
  });

  it('is described in the OpenAPI document with its operation id, reply schema and error bodies', async () => {
    const doc = (await (await fetch(`${url}/docs/json`)).json()) as {
      paths: Record<string, { get?: Record<string, unknown> & { responses: Record<string, unknown> } }>;
    };
    const op = doc.paths['/v1/instruments/search']?.get;
    expect(op?.operationId).toBe('searchInstruments');
    expect(op?.summary).toMatch(/symbol or security id/);
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual(['200', '400', '401', '403', '429', '5XX']);
    expect(JSON.stringify(op?.responses['200'])).toContain('securityId');
    expect(JSON.stringify(op?.responses['400'])).toContain('message');
  });
});
