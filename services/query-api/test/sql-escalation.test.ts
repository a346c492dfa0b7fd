/**
 * The SQL escalation corpus (fixtures/sql-escalation-corpus.json) against the real API on embedded
 * chDB with a read-only key: every case answers 400 and nothing changes (no table, no key, no
 * request to the loopback canary, no file); the same corpus through the ClickHouse-protocol
 * endpoint (/clickhouse) is refused with ClickHouse's error texts. Then real analytics still work.
 */

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FEED_TABLES, HISTORY_TABLES, SERVICE_TABLES } from '@feedpipe/contracts';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET_DATA_TABLES } from '../src/index.js';
import { OUTPUT_FORMAT_NAMES } from '../src/query/formats.js';
import { type Harness, HIST, LIVE_A, LIVE_B, startHarness, UNDERLYING } from './helpers.js';

interface Case {
  class: string;
  sql: string;
  params?: Record<string, unknown>;
  /** Harmless cases only: the rows ClickHouse's reading of the text gives. */
  rows?: unknown[];
}

const corpus = JSON.parse(
  readFileSync(new URL('./fixtures/sql-escalation-corpus.json', import.meta.url), 'utf8'),
) as { refused: Case[]; harmless: Case[] };

let h: Harness;
let canary: Server;
let canaryHits = 0;
let canaryUrl = '';
const keyId = `pwn${randomUUID().replaceAll('-', '')}`;
/** A file only an escalation could read: its content must never appear in any answer. */
const fileCanary = `file-canary-${randomUUID()}`;
const canaryFile = join(tmpdir(), `feedpipe-canary-${process.pid}.txt`);
/** Every answer the corpus got, on both endpoints, for the canary check at the end. */
const bodies: string[] = [];

interface Snapshot {
  tables: string[];
  keys: number;
  ticks: number;
  audit: number;
}

async function snapshot(): Promise<Snapshot> {
  const rows = <T>(query: string) => h.store.internal.rows<T>(query);
  const tables = await rows<{ t: string }>(
    "SELECT database || '.' || name AS t FROM system.tables WHERE database NOT IN ('system', 'INFORMATION_SCHEMA', 'information_schema') ORDER BY t",
  );
  const [keys] = await rows<{ n: number }>(`SELECT count() AS n FROM ${SERVICE_TABLES.apiKeys.name}`);
  const [ticks] = await rows<{ n: number }>(`SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`);
  const [audit] = await rows<{ n: number }>(`SELECT count() AS n FROM ${SERVICE_TABLES.orderAudit.name}`);
  return {
    tables: tables.map((r) => r.t),
    keys: keys?.n ?? -1,
    ticks: ticks?.n ?? -1,
    audit: audit?.n ?? -1,
  };
}

function fill(text: string): string {
  return text
    .replaceAll('{{URL}}', canaryUrl)
    .replaceAll('{{KEY_ID}}', keyId)
    .replaceAll('{{FILE}}', canaryFile);
}

function post(sql: string, params?: Record<string, unknown>, format?: string) {
  return h.api.app.inject({
    method: 'POST',
    url: '/v1/sql',
    headers: h.read,
    payload: { sql, ...(params ? { params } : {}), ...(format ? { format } : {}) },
  });
}

let before: Snapshot;

beforeAll(async () => {
  writeFileSync(canaryFile, `${fileCanary}\n`);
  canary = createServer((_req, res) => {
    canaryHits += 1;
    res.end('canary\n');
  });
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/`;
  // The corpus sends ~300 requests with one key: lift the per-key rate limit out of the way.
  h = await startHarness({ sql: { maxResultRows: 1_000 }, rateLimit: { perSecond: 10_000, burst: 10_000 } });
  before = await snapshot();
});

afterAll(async () => {
  await h?.close();
  await new Promise<void>((resolve) => canary?.close(() => resolve()));
});

describe('escalation corpus: every case is refused with 400 and changes nothing', () => {
  it.each(corpus.refused.map((c) => [c.class, c] as const))('%s: %j', async (_cls, c) => {
    const sql = fill(c.sql);
    const r = await post(sql, c.params);
    bodies.push(r.body);
    expect(r.statusCode, r.body).toBe(400);
    const error = r.json().error;
    expect(['SQL_REFUSED', 'QUERY_FAILED', 'BAD_REQUEST']).toContain(error.code);
    expect(error.message.length).toBeGreaterThan(0);
    if (!c.params) {
      const get = await h.api.app.inject({
        method: 'GET',
        url: `/v1/sql?q=${encodeURIComponent(sql)}`,
        headers: h.read,
      });
      bodies.push(get.body);
      expect(get.statusCode, get.body).toBe(400);
    }
  });

  it.each(corpus.harmless.map((c) => [c.class, c] as const))(
    'harmless as ClickHouse reads it, %s: %j',
    async (_cls, c) => {
      const r = await post(fill(c.sql), c.params);
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json().data).toEqual(c.rows);
    },
  );

  it('after the whole corpus: no new table, no minted key, nothing deleted, no outbound request, no file', async () => {
    const after = await snapshot();
    expect(after).toEqual(before);
    const minted = await h.store.internal.rows(
      `SELECT count() AS n FROM ${SERVICE_TABLES.apiKeys.name} WHERE key_id = {id:String}`,
      { id: keyId },
    );
    expect(minted).toEqual([{ n: 0 }]);
    expect(canaryHits).toBe(0);
    expect(existsSync('/tmp/feedpipe-pwn')).toBe(false);
    expect(existsSync('/tmp/feedpipe-pwn.csv')).toBe(false);
  });

  it('names the reason: statement kind, table, table function, function, SETTINGS', async () => {
    const reasons: [string, RegExp][] = [
      ['CREATE TABLE default.x (a UInt8) ENGINE = Memory', /only one SELECT.*got CREATE/],
      ['SELECT 1; SELECT 2', /one statement ClickHouse can parse.*syntax error at position/],
      [`SELECT * FROM ${SERVICE_TABLES.apiKeys.name}`, /table market\.api_keys is not readable/],
      [`SELECT 1 IN ${SERVICE_TABLES.orderAudit.name}`, /table market\.order_audit is not readable/],
      [`SELECT * FROM ${SERVICE_TABLES.fills.name}`, /table market\.fills is not readable/],
      [
        `SELECT * FROM ${SERVICE_TABLES.accountSnapshots.name}`,
        /table market\.account_snapshots is not readable/,
      ],
      ["SELECT * FROM url('http://127.0.0.1:1/', 'LineAsString')", /table functions are not allowed \(url\)/],
      ["SELECT dictGet('d', 'v', 1)", /function dictGet is not allowed/],
      ['SELECT * FROM (SELECT 1 SETTINGS readonly = 0)', /SETTINGS clauses are not allowed/],
      ['SHOW PROCESSLIST', /only "SHOW TABLES/],
    ];
    for (const [sql, reason] of reasons) {
      const r = await post(sql);
      expect(r.json().error, sql).toMatchObject({ code: 'SQL_REFUSED', field: 'sql' });
      expect(r.json().error.message, sql).toMatch(reason);
    }
  });
});

/** The corpus once more through ClickHouse's HTTP protocol: the same guard, ClickHouse's error texts. */
function clickhouse(sql: string, params: Record<string, unknown> = {}) {
  const query = new URLSearchParams(
    Object.entries(params).map(([name, value]) => [`param_${name}`, String(value)]),
  ).toString();
  const basic = `Basic ${Buffer.from(`reader:${h.read['x-api-key']}`).toString('base64')}`;
  return h.api.app.inject({
    method: 'POST',
    url: `/clickhouse/${query ? `?${query}` : ''}`,
    headers: { authorization: basic, 'content-type': 'text/plain' },
    payload: sql,
  });
}

describe("escalation corpus through /clickhouse: refused in ClickHouse's words, nothing changed", () => {
  // On this protocol a trailing FORMAT clause is how the caller names the output, not an escalation.
  const refused = corpus.refused.filter((c) => c.class !== 'format');

  it.each(refused.map((c) => [c.class, c] as const))('%s: %j', async (_cls, c) => {
    const r = await clickhouse(fill(c.sql), c.params);
    bodies.push(r.body);
    expect(r.statusCode, r.body).toBeGreaterThanOrEqual(400);
    expect(r.statusCode, r.body).toBeLessThan(500);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.body).toMatch(/^Code: \d+\. DB::Exception: .+\. \([A-Z_]+\) \(version [^)]+\)\n$/s);
    expect(r.headers['x-clickhouse-exception-code']).toBe(/^Code: (\d+)/.exec(r.body)?.[1]);
  });

  it.each(corpus.harmless.map((c) => [c.class, c] as const))('harmless, %s: %j', async (_cls, c) => {
    const r = await clickhouse(`${fill(c.sql)}\nFORMAT JSON`, c.params);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().data).toEqual(c.rows);
  });

  it('a trailing FORMAT clause picks the output; anything after it is still refused', async () => {
    const json = await clickhouse('SELECT 1 AS one FORMAT JSONEachRow');
    expect(json.statusCode, json.body).toBe(200);
    expect(json.body).toBe('{"one":1}\n');
    const settings = await clickhouse('SELECT 1 FORMAT CSV SETTINGS readonly = 0');
    expect(settings.statusCode).toBe(403);
    expect(settings.body).toMatch(/FORMAT only as the last clause/);
    const outfile = await clickhouse("SELECT 1 INTO OUTFILE '/tmp/feedpipe-pwn' TRUNCATE FORMAT CSV");
    expect(outfile.statusCode).toBe(403);
    expect(outfile.body).toMatch(/INTO OUTFILE is not allowed/);
  });

  it('after the corpus through /clickhouse too: nothing changed, nothing called, no file', async () => {
    expect(await snapshot()).toEqual(before);
    expect(canaryHits).toBe(0);
    // No answer of either endpoint carried the canary file's content.
    expect(bodies.length).toBeGreaterThan(corpus.refused.length);
    expect(bodies.filter((body) => body.includes(fileCanary))).toEqual([]);
    expect(existsSync('/tmp/feedpipe-pwn')).toBe(false);
    expect(existsSync('/tmp/feedpipe-pwn.csv')).toBe(false);
  });
});

describe('what a read key can still do', () => {
  it('joins, CTEs, unions, IN over allowed tables, window functions and combinators', async () => {
    const cases: [string, Record<string, unknown>, unknown[]][] = [
      [
        `WITH last AS (SELECT security_id, argMax(ltp, ltt) AS px FROM ${FEED_TABLES.ticks.name} GROUP BY security_id)
         SELECT l.security_id AS sid, l.px AS px, r.value1 AS prev_close
         FROM last AS l LEFT JOIN ${FEED_TABLES.referenceUpdates.name} AS r ON r.security_id = l.security_id AND r.kind = 'prev_close'
         WHERE l.security_id = {sid:UInt32}`,
        { sid: LIVE_A },
        [{ sid: LIVE_A, px: 109, prev_close: 98 }],
      ],
      [
        `WITH ids AS (SELECT security_id FROM ${FEED_TABLES.ticks.name})
         SELECT 'ticks' AS src, count() AS n FROM ${FEED_TABLES.ticks.name} WHERE security_id IN ids
         UNION ALL SELECT 'daily', count() FROM ${HISTORY_TABLES.candlesDaily.name} FINAL WHERE security_id = {hist:UInt32}
         UNION ALL SELECT 'chain', countIf(side = 'PE') FROM ${HISTORY_TABLES.optionChainSnapshots.name} FINAL WHERE underlying_id = {u:UInt32}`,
        { hist: HIST, u: UNDERLYING },
        [
          { src: 'ticks', n: 1200 },
          { src: 'daily', n: 30 },
          { src: 'chain', n: 10 },
        ],
      ],
      [
        `SELECT security_id AS sid, max(rn) AS n FROM (
           SELECT security_id, row_number() OVER (PARTITION BY security_id ORDER BY ltt) AS rn FROM ${FEED_TABLES.ticks.name})
         GROUP BY sid ORDER BY sid`,
        {},
        [
          { sid: LIVE_A, n: 600 },
          { sid: LIVE_B, n: 600 },
        ],
      ],
      [
        `SELECT COUNT(*) AS n, sumIf(volume, security_id = {sid:UInt32}) > 0 AS any_volume
         FROM ${FEED_TABLES.ticks.name} WHERE security_id IN (SELECT security_id FROM ${FEED_TABLES.referenceUpdates.name})`,
        { sid: LIVE_A },
        [{ n: 600, any_volume: 1 }],
      ],
      ['SELECT 1 AS one', {}, [{ one: 1 }]],
      [
        `SELECT count() AS n FROM ${HISTORY_TABLES.expiredOptions.name} WHERE option_type = {t:String}`,
        { t: 'CALL' },
        [{ n: 20 }],
      ],
    ];
    // A UNION ALL without ORDER BY has no defined row order: such answers are compared as sets.
    const sorted = (rows: unknown[]): unknown[] => rows.map((row) => JSON.stringify(row)).sort();
    for (const [sql, params, data] of cases) {
      const r = await post(sql, params);
      expect(r.statusCode, r.body).toBe(200);
      if (/UNION ALL/.test(sql) && !/ORDER BY/.test(sql)) {
        expect(sorted(r.json().data), sql).toEqual(sorted(data));
      } else {
        expect(r.json().data, sql).toEqual(data);
      }
    }
  });

  it('every output format', async () => {
    const sql = `SELECT security_id, count() AS n FROM ${FEED_TABLES.ticks.name} GROUP BY security_id ORDER BY security_id`;
    for (const format of OUTPUT_FORMAT_NAMES) {
      const r = await post(sql, undefined, format);
      expect(r.statusCode, `${format}: ${r.body.slice(0, 200)}`).toBe(200);
      if (format === 'parquet') {
        expect(tableFromIPC(readParquet(new Uint8Array(r.rawPayload)).intoIPCStream()).numRows).toBe(2);
      } else if (format === 'arrow' || format === 'arrowstream') {
        expect(tableFromIPC(r.rawPayload).numRows).toBe(2);
      } else if (format === 'csv') {
        expect(r.body).toBe(`"security_id","n"\n${LIVE_A},600\n${LIVE_B},600\n`);
      } else if (format === 'ndjson') {
        expect(
          r.body
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l)),
        ).toEqual([
          { security_id: LIVE_A, n: 600 },
          { security_id: LIVE_B, n: 600 },
        ]);
      } else {
        expect(r.json().data).toHaveLength(2);
      }
    }
  });

  it('SHOW TABLES lists the market-data tables only; DESCRIBE answers for them', async () => {
    for (const sql of ['SHOW TABLES', 'show tables from market', '/* hi */ SHOW TABLES FROM market;']) {
      const r = await post(sql);
      expect(r.statusCode, r.body).toBe(200);
      const names = (r.json().data as { name: string }[]).map((row) => `market.${row.name}`);
      expect(names).toEqual([...MARKET_DATA_TABLES].sort());
    }
    const d = await post(`desc ${FEED_TABLES.ticks.name}`);
    expect(d.statusCode, d.body).toBe(200);
    const columns = d.json().data as { name: string; type: string }[];
    expect(columns[0]).toMatchObject({ name: 'security_id', type: 'UInt32' });
    expect(columns.map((c) => c.name)).toContain('ltp');
  });
});
