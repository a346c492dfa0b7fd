/**
 * Output formats chosen by Accept as well as by format= (format= wins), 406 for an Accept the
 * route cannot answer, and the documented JSON row of every tabular route equal to what ClickHouse
 * reports in `meta` for a real answer (names, order and types), so the document cannot drift from
 * the SQL. Embedded chDB with the test fixture; no Kafka.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatFromAccept } from '../src/query/negotiation.js';
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
import { seedInstruments, seedQuotes } from './reference-fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ logLevel: false }, { now: () => Date.parse(`${DAY}T10:00:00Z`) });
  // One interval of the ledger of gaps, so its route answers a row to compare with the document.
  await h.store.internal.command(`INSERT INTO ${FEED_TABLES.feedGaps.name}
      (security_id, segment, subscription, cause, started_at, ended_at, connection, kafka_partition, kafka_offset, kafka_cluster)
      VALUES (${LIVE_A}, 14, 'trade', 'eviction', '${DAY} 09:05:00', '${DAY} 09:06:00', 1, 0, 1, 'test')`);
  // The instrument master's versions and polled quotes, for the listing and quote routes.
  await seedInstruments(h.store);
  await seedQuotes(h.store);
}, 120_000);
afterAll(async () => h?.close());

const BARS = `/v1/instruments/${LIVE_A}/bars?from=${DAY}&to=${DAY}T09:10:00Z`;

function get(url: string, accept?: string) {
  return h.api.app.inject({
    method: 'GET',
    url,
    headers: { ...h.read, ...(accept === undefined ? {} : { accept }) },
  });
}

describe('Accept negotiation', () => {
  it('picks by quality and specificity, json for */* or no header', () => {
    expect(formatFromAccept(undefined)).toBe('json');
    expect(formatFromAccept('*/*')).toBe('json');
    expect(formatFromAccept('text/csv')).toBe('csv');
    expect(formatFromAccept('text/*')).toBe('csv');
    expect(formatFromAccept('application/json;q=0.5, application/vnd.apache.parquet')).toBe('parquet');
    expect(formatFromAccept('application/*;q=0.2, application/x-ndjson;q=0.9')).toBe('ndjson');
    // Ties go to the order of OUTPUT_FORMATS: json, then ndjson.
    expect(formatFromAccept('*/*;q=0.1, application/json;q=0')).toBe('ndjson');
    expect(formatFromAccept('application/vnd.apache.arrow.stream')).toBe('arrowstream');
    expect(() => formatFromAccept('image/png')).toThrow(/Accept allows none/);
    expect(() => formatFromAccept('application/json;q=0')).toThrow(/Accept allows none/);
  });

  it('answers CSV, Parquet and Arrow by Accept, the same rows as JSON', async () => {
    const json = (await get(BARS)).json() as JsonTable<{ time: string; close: number }>;
    expect(json.data.length).toBe(10);
    const csv = await get(BARS, 'text/csv');
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toContain('close');
    expect(lines.length).toBe(json.data.length + 1);
    const parquet = await get(BARS, 'application/vnd.apache.parquet');
    expect(parquet.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(parquet.rawPayload.subarray(0, 4).toString('latin1')).toBe('PAR1');
    const arrow = await get(BARS, 'application/vnd.apache.arrow.file');
    expect(arrow.rawPayload.subarray(0, 6).toString('latin1')).toBe('ARROW1');
  });

  it('lets format= override Accept', async () => {
    const res = await get(`${BARS}&format=csv`, 'application/vnd.apache.parquet');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
  });

  it('answers 406 in the error body for an Accept it cannot serve, naming what it can', async () => {
    const res = await get(BARS, 'image/png');
    expect(res.statusCode).toBe(406);
    const body = res.json() as { error: { code: string; message: string } };
    expect(body.error.code).toBe('NOT_ACCEPTABLE');
    expect(body.error.message).toContain('application/vnd.apache.parquet');
  });

  it('negotiates POST /v1/sql too', async () => {
    const res = await h.api.app.inject({
      method: 'POST',
      url: '/v1/sql',
      headers: { ...h.read, accept: 'text/csv' },
      payload: { sql: 'SELECT 1 AS one' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body.trim()).toBe('"one"\n1');
    const refused = await h.api.app.inject({
      method: 'POST',
      url: '/v1/sql',
      headers: { ...h.read, accept: 'image/png' },
      payload: { sql: 'SELECT 1 AS one' },
    });
    expect(refused.statusCode).toBe(406);
  });
});

describe('documented rows', () => {
  /** One call per tabular route (GET /v1/sql aside: its rows are whatever the caller selects). */
  const CALLS: Record<string, string> = {
    '/v1/instruments': '/v1/instruments',
    '/v1/instruments/{securityId}/ticks': `/v1/instruments/${LIVE_A}/ticks?from=${DAY}&limit=5`,
    '/v1/instruments/{securityId}/bars': BARS,
    '/v1/bars': `/v1/bars?ids=${LIVE_A},${LIVE_B}&from=${DAY}&interval=1m`,
    '/v1/movers': '/v1/movers?window=1d',
    '/v1/most-active': '/v1/most-active?window=1d',
    '/v1/instruments/{securityId}/candles/daily': `/v1/instruments/${HIST}/candles/daily?from=2024-01-01`,
    '/v1/instruments/{securityId}/candles/intraday': `/v1/instruments/${HIST}/candles/intraday?from=${DAY}&interval=5`,
    '/v1/option-chains/{underlyingId}': `/v1/option-chains/${UNDERLYING}`,
    '/v1/option-chains/{underlyingId}/smile': `/v1/option-chains/${UNDERLYING}/smile`,
    '/v1/option-chains/{underlyingId}/oi': `/v1/option-chains/${UNDERLYING}/oi`,
    '/v1/option-chains/{underlyingId}/history': `/v1/option-chains/${UNDERLYING}/history?from=${DAY}`,
    '/v1/expired-options/{underlyingId}': `/v1/expired-options/${UNDERLYING}?from=2024-02-01`,
    '/v1/data-quality/gaps': `/v1/data-quality/gaps?from=${DAY}`,
    '/v1/instruments/{securityId}/listing': `/v1/instruments/${LIVE_A}/listing`,
    '/v1/instruments/{securityId}/quote': `/v1/instruments/${HIST}/quote`,
    '/v1/instruments/{securityId}/quote-bars': `/v1/instruments/${HIST}/quote-bars?from=${DAY}T04:00:00Z&to=${DAY}T04:01:00Z&interval=10s`,
    '/v1/instruments/{securityId}/depth': `/v1/instruments/${HIST}/depth?from=${DAY}T04:00:00Z&to=${DAY}T04:00:10Z`,
  };

  it('equal what ClickHouse reports for a real answer, column by column', async () => {
    const doc = (await h.api.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<
        string,
        { get?: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }
      >;
    };
    const documented = Object.entries(doc.paths).filter(([path, ops]) => {
      const content = ops.get?.responses['200']?.content ?? {};
      // Binary downloads (`<route>.parquet`, http/binary-downloads.ts) carry no JSON rows to compare.
      return (
        'application/json' in content && 'application/vnd.apache.parquet' in content && path !== '/v1/sql'
      );
    });
    expect(documented.map(([p]) => p).sort()).toEqual(Object.keys(CALLS).sort());
    for (const [path, ops] of documented) {
      const table = ops.get?.responses['200']?.content['application/json']?.schema as {
        properties: { data: { items: { properties: Record<string, { description: string }> } } };
      };
      const columns = Object.entries(table.properties.data.items.properties).map(
        ([name, p]) => `${name}: ${p.description.replace(/^ClickHouse /, '')}`,
      );
      const res = await get(CALLS[path] as string);
      expect(res.statusCode, path).toBe(200);
      const answer = res.json() as JsonTable;
      expect(answer.data.length, path).toBeGreaterThan(0);
      expect(columns, path).toEqual(answer.meta.map((m) => `${m.name}: ${m.type}`));
    }
  });
});
