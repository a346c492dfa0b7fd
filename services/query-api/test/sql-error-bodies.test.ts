/**
 * Errors carry no data: a canary value is stored in a readable table, and queries that fail ON that
 * value (conversions, parsing, casts the engine quotes the value in) are sent through /v1/sql (POST
 * and GET) and /clickhouse. Every answer is an error, and no error body contains the canary; each
 * still says what kind of error it was (the engine's number and its name).
 */
import { randomUUID } from 'node:crypto';
import { FEED_TABLES } from '@feedpipe/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers.js';

const canary = `tablecanary${randomUUID().replaceAll('-', '')}`;
const table = FEED_TABLES.feedStatus.name;
const column = 'toString(kafka_cluster)';
const rows = `FROM ${table} WHERE startsWith(kafka_cluster, 'tablecanary')`;

/** Each fails on the canary value itself; the engine's own message would quote it. */
const FAILING = [
  `SELECT toUInt8(${column}) ${rows}`,
  `SELECT CAST(${column}, 'Date') ${rows}`,
  `SELECT toDateTime(${column}) ${rows}`,
  `SELECT toDecimal32(${column}, 2) ${rows}`,
  `SELECT toUUID(${column}) ${rows}`,
  `SELECT toIPv4(${column}) ${rows}`,
  `SELECT parseDateTimeBestEffort(${column}) ${rows}`,
  `SELECT CAST(${column}, 'Enum8(\\'a\\' = 1)') ${rows}`,
  `SELECT toUInt8(substring(${column}, 1, 1400)) ${rows}`,
  `SELECT ${column}::UInt64 ${rows}`,
  `SELECT toInt32(${column}) + 1 AS n ${rows} ORDER BY n`,
  `SELECT toFloat64(${column}) ${rows}`,
  `SELECT toBool(${column}) ${rows}`,
  `SELECT toIPv6(${column}) ${rows}`,
  `SELECT CAST(${column}, 'Array(UInt8)') ${rows}`,
  `SELECT CAST(${column}, 'Tuple(UInt8)') ${rows}`,
  `SELECT CAST(${column}, 'JSON') ${rows}`,
  `SELECT match('a', ${column} || '(') ${rows}`,
  `SELECT parseDateTime(${column}, '%Y') ${rows}`,
];

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ rateLimit: { perSecond: 10_000, burst: 10_000 } });
  await h.store.internal.command(
    `INSERT INTO ${table} (type, kafka_cluster, received_at) VALUES ('error', {canary:String}, now64(6))`,
    { canary },
  );
});

afterAll(async () => {
  await h?.close();
});

function clickhouse(sql: string) {
  const basic = `Basic ${Buffer.from(`reader:${h.read['x-api-key']}`).toString('base64')}`;
  return h.api.app.inject({
    method: 'POST',
    url: '/clickhouse/',
    headers: { authorization: basic, 'content-type': 'text/plain' },
    payload: sql,
  });
}

describe('error bodies carry no value from a table', () => {
  it('the canary is readable as a value, so the failures below are failures on it', async () => {
    const r = await h.api.app.inject({
      method: 'POST',
      url: '/v1/sql',
      headers: h.read,
      payload: { sql: `SELECT ${column} AS v ${rows}` },
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().data).toEqual([{ v: canary }]);
  });

  it.each(FAILING)('%s', async (sql) => {
    const answers = [
      await h.api.app.inject({ method: 'POST', url: '/v1/sql', headers: h.read, payload: { sql } }),
      await h.api.app.inject({
        method: 'GET',
        url: `/v1/sql?q=${encodeURIComponent(sql)}`,
        headers: h.read,
      }),
      await clickhouse(sql),
    ];
    for (const r of answers) {
      expect(r.statusCode, r.body).toBeGreaterThanOrEqual(400);
      expect(r.body).not.toContain(canary);
      expect(r.body).not.toContain(canary.slice(0, 24));
    }
    const [post, , ch] = answers;
    expect(post?.json().error.code).toBe('QUERY_FAILED');
    expect(post?.json().error.message).toMatch(/^ClickHouse refused the query: .+ \([A-Z0-9_]+, code \d+\)$/);
    expect(ch?.body).toMatch(/^Code: \d+\. DB::Exception: .+. \([A-Z0-9_]+\) \(version [^)]+\)\n$/s);
  });
});
