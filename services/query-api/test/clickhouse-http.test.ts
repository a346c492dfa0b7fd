/**
 * ClickHouse's HTTP protocol under /clickhouse, over real HTTP (as ClickHouse clients speak it):
 * where the SQL and the output format come from, the ways a key is sent, ClickHouse's formats,
 * headers and error texts, the settings a read-only caller may send, and the catalogue answers.
 * The values equal those of /v1/sql. No Kafka needed.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET_DATA_TABLES } from '../src/index.js';
import { type Harness, LIVE_A, LIVE_B, startHarness } from './helpers.js';

let h: Harness;
let basic: string;

beforeAll(async () => {
  h = await startHarness({ rateLimit: { perSecond: 10_000, burst: 10_000 } });
  await h.api.start();
  basic = `Basic ${Buffer.from(`analyst:${h.read['x-api-key']}`).toString('base64')}`;
});

afterAll(async () => {
  await h?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
}

async function ch(
  sql: string | undefined,
  options: { url?: string; headers?: Record<string, string>; method?: 'GET' | 'POST' } = {},
): Promise<Answer> {
  const method = options.method ?? 'POST';
  const response = await fetch(`${h.api.url}/clickhouse${options.url ?? '/'}`, {
    method,
    headers: { authorization: basic, ...options.headers },
    ...(method === 'POST' && sql !== undefined ? { body: sql } : {}),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, text: bytes.toString('utf8') };
}

const TICKS = `SELECT security_id, count() AS n, max(volume) AS v FROM ${FEED_TABLES.ticks.name} GROUP BY security_id ORDER BY security_id`;

describe('request framing', () => {
  it('answers /ping without a key, and a query in the URL, the body or both', async () => {
    const ping = await fetch(`${h.api.url}/clickhouse/ping`);
    expect([ping.status, await ping.text()]).toEqual([200, 'Ok.\n']);
    const inUrl = await ch(undefined, { method: 'GET', url: `/?query=${encodeURIComponent('SELECT 1')}` });
    expect([inUrl.status, inUrl.text]).toEqual([200, '1\n']);
    const noSlash = await ch('SELECT 2', { url: '' });
    expect([noSlash.status, noSlash.text]).toEqual([200, '2\n']);
    // URL text, a newline, then the body: one statement split between the two.
    const both = await ch('FROM system.one', { url: `/?query=${encodeURIComponent('SELECT 3 AS x')}` });
    expect([both.status, both.text]).toEqual([200, '3\n']);
  });

  it('takes the format from FORMAT, else default_format, else X-ClickHouse-Format, else TabSeparated', async () => {
    const header = { 'x-clickhouse-format': 'CSVWithNames' };
    const clause = await ch('SELECT 1 AS a FORMAT JSONEachRow', {
      url: '/?default_format=TSV',
      headers: header,
    });
    expect([clause.text, clause.headers.get('x-clickhouse-format')]).toEqual(['{"a":1}\n', 'JSONEachRow']);
    const param = await ch('SELECT 1 AS a', { url: '/?default_format=TSVWithNames', headers: header });
    expect([param.text, param.headers.get('x-clickhouse-format')]).toEqual([
      'a\n1\n',
      'TabSeparatedWithNames',
    ]);
    const viaHeader = await ch('SELECT 1 AS a', { headers: header });
    expect(viaHeader.text).toBe('"a"\n1\n');
    const plain = await ch('SELECT 1 AS a');
    expect([plain.text, plain.headers.get('x-clickhouse-format')]).toEqual(['1\n', 'TabSeparated']);
  });

  it('binds param_<name> to {name:Type}', async () => {
    const r = await ch(
      `SELECT count() AS n FROM ${FEED_TABLES.ticks.name} WHERE security_id = {sid:UInt32}`,
      {
        url: `/?param_sid=${LIVE_A}`,
      },
    );
    expect([r.status, r.text]).toEqual([200, '600\n']);
    // Arrays as text, as ClickHouse's protocol passes every parameter (they once failed here).
    const ids = await ch(
      `SELECT count() AS n FROM ${FEED_TABLES.ticks.name} WHERE security_id IN {ids:Array(UInt32)}`,
      { url: `/?param_ids=${encodeURIComponent(`[${LIVE_A},${LIVE_B}]`)}` },
    );
    expect([ids.status, ids.text]).toEqual([200, '1200\n']);
    const names = await ch('SELECT {s:Array(String)} AS s FORMAT JSONEachRow', {
      url: `/?param_s=${encodeURIComponent("['a','b']")}`,
    });
    expect([names.status, names.text]).toEqual([200, '{"s":["a","b"]}\n']);
  });

  it('refuses a URL parameter given twice with 400 BAD_ARGUMENTS (once a 500)', async () => {
    const r = await ch(undefined, { method: 'GET', url: '/?query=SELECT%201&query=SELECT%202' });
    expect([r.status, r.headers.get('x-clickhouse-exception-code')]).toEqual([400, '36']);
    expect(r.text).toMatch(/^Code: 36\. DB::Exception: the URL parameters are not valid/);
  });

  it('sends the headers clients read: query id, format, time zone, display name, summary', async () => {
    const r = await ch('SELECT 1', { url: '/?query_id=my-query-1' });
    expect(r.headers.get('x-clickhouse-query-id')).toBe('my-query-1');
    expect(r.headers.get('x-clickhouse-timezone')).toMatch(/UTC/);
    expect(r.headers.get('x-clickhouse-server-display-name')).toBe('feedpipe');
    expect(JSON.parse(r.headers.get('x-clickhouse-summary') ?? '')).toHaveProperty('read_rows');
    const generated = await ch('SELECT 1');
    expect(generated.headers.get('x-clickhouse-query-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('keys', () => {
  it('takes the key as the basic-auth password, in X-ClickHouse-Key, or as x-api-key', async () => {
    const key = h.read['x-api-key'] as string;
    expect((await ch('SELECT 1')).status).toBe(200);
    const viaHeaders = await ch('SELECT 1', {
      headers: { authorization: '', 'x-clickhouse-user': 'a', 'x-clickhouse-key': key },
    });
    expect(viaHeaders.status).toBe(200);
    expect((await ch('SELECT 1', { headers: { authorization: '', 'x-api-key': key } })).status).toBe(200);
  });

  it('refuses as ClickHouse does: no key 401 REQUIRED_PASSWORD, a wrong key AUTHENTICATION_FAILED, a key without read ACCESS_DENIED', async () => {
    const none = await ch('SELECT 1', { headers: { authorization: '' } });
    expect([none.status, none.headers.get('x-clickhouse-exception-code')]).toEqual([401, '194']);
    expect(none.text).toMatch(/^Code: 194\. DB::Exception: .*\(REQUIRED_PASSWORD\)/);
    const wrong = `Basic ${Buffer.from(`x:fpk_0123456789abcdef_${'A'.repeat(43)}`).toString('base64')}`;
    const bad = await ch('SELECT 1', { headers: { authorization: wrong } });
    expect([bad.status, bad.headers.get('x-clickhouse-exception-code')]).toEqual([403, '516']);
    const admin = `Basic ${Buffer.from(`x:${h.admin['x-api-key']}`).toString('base64')}`;
    const scope = await ch('SELECT 1', { headers: { authorization: admin } });
    expect([scope.status, scope.headers.get('x-clickhouse-exception-code')]).toEqual([403, '497']);
  });

  it('refuses a key in the URL and a revoked key at once', async () => {
    const created = await h.api.keys.create('short-lived', ['read']);
    const auth = `Basic ${Buffer.from(`x:${created.key}`).toString('base64')}`;
    expect((await ch('SELECT 1', { headers: { authorization: auth } })).status).toBe(200);
    await h.api.keys.revoke(created.keyId);
    const revoked = await ch('SELECT 1', { headers: { authorization: auth } });
    expect(revoked.headers.get('x-clickhouse-exception-code')).toBe('516');
    const inUrl = await ch('SELECT 1', { url: `/?user=x&password=${created.key}` });
    expect(inUrl.headers.get('x-clickhouse-exception-code')).toBe('516');
    expect(inUrl.text).not.toContain(created.key);
  });
});

describe('formats', () => {
  it('writes the text formats as ClickHouse does, with the values /v1/sql gives', async () => {
    const api = await h.api.app.inject({
      method: 'POST',
      url: '/v1/sql',
      headers: h.read,
      payload: { sql: TICKS },
    });
    const expected = api.json().data as { security_id: number; n: number; v: number }[];
    expect(expected).toHaveLength(2);
    const tsv = await ch(`${TICKS} FORMAT TabSeparatedWithNamesAndTypes`);
    const lines = tsv.text.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['security_id\tn\tv', 'UInt32\tUInt64\tInt32']);
    expect(lines.slice(2)).toEqual(expected.map((r) => `${r.security_id}\t${r.n}\t${r.v}`));
    // The engine's own JSON settings (not the API's): 64-bit integers as the engine writes them.
    const numbers = (row: Record<string, unknown> | unknown[]) => Object.values(row).map(Number);
    const json = JSON.parse((await ch(`${TICKS} FORMAT JSON`)).text);
    expect(json.data.map(numbers)).toEqual(expected.map(numbers));
    expect(json.meta.map((m: { type: string }) => m.type)).toEqual(['UInt32', 'UInt64', 'Int32']);
    const compact = JSON.parse((await ch(`${TICKS} FORMAT JSONCompact`)).text);
    expect(compact.data.map(numbers)).toEqual(expected.map(numbers));
    const csv = await ch(`${TICKS} FORMAT CSVWithNames`);
    expect(csv.text).toBe(
      `"security_id","n","v"\n${expected.map((r) => `${r.security_id},${r.n},${r.v}`).join('\n')}\n`,
    );
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
  });

  it('writes Parquet, Arrow, ArrowStream, Native and RowBinary', async () => {
    const parquet = await ch(`${TICKS} FORMAT Parquet`);
    const table = tableFromIPC(readParquet(new Uint8Array(parquet.bytes)).intoIPCStream());
    expect(table.numRows).toBe(2);
    expect(Number(table.getChild('security_id')?.get(1))).toBe(LIVE_B);
    // Arrow as the engine writes it (LZ4-framed buffers, which pyarrow reads: the Python client
    // test decodes it); the JS reader has no LZ4 codec, so only the framing is checked here.
    const arrow = await ch(`${TICKS} FORMAT Arrow`);
    expect(arrow.bytes.subarray(0, 6).toString('latin1')).toBe('ARROW1');
    const stream = await ch(`${TICKS} FORMAT ArrowStream`);
    expect(stream.bytes.readUInt32LE(0)).toBe(0xffffffff);
    // Native: columns 1, rows 1, then name and type as length-prefixed strings, then the value.
    const native = await ch('SELECT toUInt8(7) AS check FORMAT Native');
    expect([...native.bytes]).toEqual([1, 1, 5, ...Buffer.from('check'), 5, ...Buffer.from('UInt8'), 7]);
    const rowBinary = await ch('SELECT toUInt16(258) AS x FORMAT RowBinary');
    expect([...rowBinary.bytes]).toEqual([2, 1]);
  });

  it('refuses an unknown format with UNKNOWN_FORMAT', async () => {
    const r = await ch('SELECT 1 FORMAT XML');
    expect([r.status, r.headers.get('x-clickhouse-exception-code')]).toEqual([404, '73']);
  });
});

describe('errors and settings', () => {
  it("passes the engine's own code through, in words of ours (its text can quote values)", async () => {
    const r = await ch(`SELECT no_such_column FROM ${FEED_TABLES.ticks.name}`);
    expect(r.headers.get('x-clickhouse-exception-code')).toBe('47');
    expect(r.status).toBe(404);
    expect(r.text).toMatch(
      /^Code: 47\. DB::Exception: ClickHouse refused the query: a name in the query is not a column[^\n]*\. \(UNKNOWN_IDENTIFIER\) \(version [\d.]+\)\n$/s,
    );
    const syntax = await ch('SELEC 1');
    expect([syntax.status, syntax.headers.get('x-clickhouse-exception-code')]).toEqual([400, '62']);
    const write = await ch(`INSERT INTO ${FEED_TABLES.ticks.name} SELECT * FROM ${FEED_TABLES.ticks.name}`);
    expect(write.headers.get('x-clickhouse-exception-code')).toBe('164');
  });

  it('accepts the transport settings clients send, lowers limits on request, refuses any other setting', async () => {
    const habits =
      '/?session_id=abc&enable_http_compression=1&send_progress_in_http_headers=1&wait_end_of_query=1&database=market';
    expect((await ch('SELECT 1', { url: habits })).status).toBe(200);
    const lowered = await ch(`SELECT * FROM ${FEED_TABLES.ticks.name}`, { url: '/?max_result_rows=10' });
    expect(lowered.headers.get('x-clickhouse-exception-code')).toBe('396');
    const raised = await ch('SELECT 1', { url: '/?max_result_rows=999999999999' });
    expect(raised.status).toBe(200);
    const other = await ch('SELECT 1', { url: '/?allow_introspection_functions=1' });
    expect([other.status, other.headers.get('x-clickhouse-exception-code')]).toEqual([403, '164']);
    expect(other.text).toMatch(/Cannot modify 'allow_introspection_functions' setting in readonly mode/);
    const db = await ch('SELECT 1', { url: '/?database=system' });
    expect(db.headers.get('x-clickhouse-exception-code')).toBe('81');
  });
});

describe('catalogue answers (from the allow-list, never from system tables)', () => {
  it('SHOW DATABASES, SHOW TABLES, DESCRIBE, EXISTS', async () => {
    expect((await ch('SHOW DATABASES')).text).toBe('market\n');
    const tables = (await ch('SHOW TABLES')).text
      .trim()
      .split('\n')
      .map((t) => `market.${t}`);
    expect(tables).toEqual([...MARKET_DATA_TABLES].sort());
    const describe = (await ch(`DESCRIBE TABLE ${FEED_TABLES.ticks.name} FORMAT JSONEachRow`)).text;
    expect(JSON.parse(describe.split('\n')[0] as string)).toMatchObject({
      name: 'security_id',
      type: 'UInt32',
    });
    expect((await ch(`EXISTS TABLE ${FEED_TABLES.ticks.name}`)).text).toBe('1\n');
    expect((await ch('EXISTS TABLE market.api_keys')).text).toBe('0\n');
  });

  it("answers clickhouse-connect's connect probes: version and time zone, read-only settings", async () => {
    const [version, zone] = (await ch('SELECT version(), timezone()')).text.trim().split('\t');
    expect(version).toMatch(/^\d+\.\d+/);
    expect(zone).toMatch(/UTC/);
    const settings = (
      await ch('SELECT name, value, readonly FROM system.settings LIMIT 10000 FORMAT JSONEachRow')
    ).text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; value: string; readonly: number });
    expect(settings.find((s) => s.name === 'max_result_rows')?.value).toBe(
      String(h.api.config.sql.maxResultRows),
    );
    expect(settings.every((s) => s.readonly === 1)).toBe(true);
    // Anything else about the server stays closed.
    const other = await ch('SELECT name, value FROM system.settings');
    expect(other.headers.get('x-clickhouse-exception-code')).toBe('497');
    expect((await ch('SELECT version() AS v')).headers.get('x-clickhouse-exception-code')).toBe('497');
  });
});
