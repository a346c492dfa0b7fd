import { FEED_TABLES, SERVICE_TABLES } from '@feedpipe/contracts';
import { TimeUnit, Type, tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, type Harness, LIVE_A, startHarness } from './helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ sql: { maxResultRows: 1_000 } });
});
afterAll(async () => {
  await h?.close();
});

function sql(body: Record<string, unknown>) {
  return h.api.app.inject({ method: 'POST', url: '/v1/sql', headers: h.read, payload: body });
}

describe('POST /v1/sql', () => {
  it('runs a read with parameters and returns ClickHouse JSON', async () => {
    const r = await sql({
      sql: `SELECT count() AS n FROM ${FEED_TABLES.ticks.name} WHERE security_id = {sid:UInt32}`,
      params: { sid: LIVE_A },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toEqual([{ n: 600 }]);
  });

  it.each([
    [`INSERT INTO ${FEED_TABLES.ticks.name} (security_id) VALUES (1)`, 'only one SELECT'],
    [`ALTER TABLE ${FEED_TABLES.ticks.name} DELETE WHERE 1`, 'only one SELECT'],
    [`DROP TABLE ${FEED_TABLES.ticks.name}`, 'only one SELECT'],
    ['SET readonly = 0', 'only one SELECT'],
    ['SET max_result_rows = 0; SELECT 1', 'syntax error at position'],
    ['SYSTEM FLUSH LOGS', 'only one SELECT'],
    ['TRUNCATE TABLE system.query_log', 'only one SELECT'],
    ['INSERT INTO system.settings SELECT * FROM system.settings', 'only one SELECT'],
    [`SELECT 1; DROP TABLE ${FEED_TABLES.ticks.name}`, 'syntax error at position'],
    [`SELECT * FROM ${FEED_TABLES.ticks.name} SETTINGS readonly = 0`, 'SETTINGS'],
    ['SELECT 1 FORMAT Parquet', 'FORMAT'],
    ["SELECT 1 INTO OUTFILE '/tmp/x'", 'OUTFILE'],
    ["SELECT 'unterminated", 'parse'],
    ['SELECT 1 /* open', 'parse'],
    ['', 'sql'],
  ])('refuses %j with 400', async (text, words) => {
    const r = await sql({ sql: text });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.message).toContain(words);
    expect(r.json().error.field).toBe('sql');
  });

  it('is not fooled by keywords inside strings, comments or quoted names', async () => {
    const r = await sql({
      sql: "SELECT 'a; DROP TABLE x SETTINGS y' AS `settings;`, 2 AS b -- ; SETTINGS\n;",
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toEqual([{ 'settings;': 'a; DROP TABLE x SETTINGS y', b: 2 }]);
  });

  it('refuses oversized results, also through UNION ALL, and the next query is unaffected', async () => {
    // The fixture has 1,200 ticks, 600 per instrument; the limit here is 1,000 rows.
    const big = await sql({ sql: `SELECT ltt FROM ${FEED_TABLES.ticks.name}` });
    expect(big.statusCode).toBe(400);
    expect(big.json().error.message).toMatch(/result is larger than its limit/);
    const union = await sql({
      sql: `SELECT ltt FROM ${FEED_TABLES.ticks.name} WHERE security_id = ${LIVE_A} UNION ALL SELECT ltt FROM ${FEED_TABLES.ticks.name} WHERE security_id = ${LIVE_A}`,
    });
    expect(union.statusCode).toBe(400);
    const next = await sql({ sql: 'SELECT 42 AS answer' });
    expect(next.json().data).toEqual([{ answer: 42 }]);
  });

  it('ClickHouse itself refuses writes and file reads past the gate (readonly = 1 and the engine sandbox)', async () => {
    // Past the API's gate: the settings alone must stop a write and a file-reading table function.
    for (const query of [
      `INSERT INTO ${SERVICE_TABLES.apiKeys.name} (key_id) SELECT 1`,
      "SELECT * FROM file('/etc/hostname', 'LineAsString')",
      'CREATE TABLE default.nope (a UInt8) ENGINE = Memory',
    ]) {
      await expect(
        h.store.internal.command(`${query} SETTINGS readonly = 1, max_execution_time = 5`),
        query,
      ).rejects.toThrow(/readonly|privileges/i);
    }
    const keys = await h.store.internal.rows(
      `SELECT count() AS n FROM ${SERVICE_TABLES.apiKeys.name} WHERE key_id = '1'`,
    );
    expect(keys).toEqual([{ n: 0 }]);
  });

  it('SHOW TABLES, DESCRIBE and EXPLAIN of an allowed SELECT are answered, EXPLAIN of a refused one is not; GET /v1/sql takes the query in the URL', async () => {
    expect((await sql({ sql: 'SHOW TABLES FROM market' })).statusCode).toBe(200);
    expect((await sql({ sql: `DESCRIBE TABLE ${FEED_TABLES.ticks.name}` })).statusCode).toBe(200);
    expect((await sql({ sql: 'EXPLAIN SELECT 1' })).statusCode).toBe(200);
    const explain = await sql({ sql: 'EXPLAIN SELECT * FROM market.api_keys' });
    expect(explain.statusCode).toBe(400);
    expect(explain.json().error.code).toBe('SQL_REFUSED');
    const get = await h.api.app.inject({
      method: 'GET',
      url: '/v1/sql?q=SELECT%207%20AS%20x&format=csv',
      headers: h.read,
    });
    expect(get.body).toBe('"x"\n7\n');
  });

  it('400 naming the field for a bad body', async () => {
    const r = await sql({ sql: 'SELECT 1', format: 'xml' });
    expect(r.json().error.field).toBe('format');
    const p = await sql({ sql: 'SELECT 1', params: { 'bad name': 1 } });
    expect(p.json().error.field).toBe('params.bad name');
    const unknown = await sql({ sql: 'SELECT {x:UInt8}' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toMatch(
      /placeholder has no value in params \(UNKNOWN_QUERY_PARAMETER, code 456\)/,
    );
    const column = await sql({ sql: `SELECT no_such_column FROM ${FEED_TABLES.ticks.name}` });
    expect(column.statusCode).toBe(400);
    expect(column.json().error.code).toBe('QUERY_FAILED');
  });
});

describe('output formats parse with real readers', () => {
  const bars = `/v1/instruments/${LIVE_A}/bars?from=${DAY}&to=2024-03-05&interval=1m`;

  it('Arrow file and stream read with apache-arrow', async () => {
    for (const format of ['arrow', 'arrowstream']) {
      const r = await h.api.app.inject({ method: 'GET', url: `${bars}&format=${format}`, headers: h.read });
      expect(r.headers['content-type']).toContain('vnd.apache.arrow');
      const table = tableFromIPC(r.rawPayload);
      expect(table.numRows).toBe(10);
      expect(table.schema.fields.map((f) => f.name)).toEqual([
        'time',
        'open',
        'high',
        'low',
        'close',
        'volume',
        'vwap',
        'trades',
      ]);
      expect(String(table.schema.fields[0]?.type)).toMatch(/Timestamp/);
      const first = table.get(0)?.toJSON() as Record<string, unknown>;
      expect(first.open).toBe(100);
      expect(Number(first.volume)).toBe(600);
      expect(Number(first.time)).toBe(Date.parse(`${DAY}T09:00:00Z`));
    }
  });

  it('Parquet reads with parquet-wasm', async () => {
    const r = await h.api.app.inject({ method: 'GET', url: `${bars}&format=parquet`, headers: h.read });
    expect(r.rawPayload.subarray(0, 4).toString()).toBe('PAR1');
    const table = tableFromIPC(readParquet(new Uint8Array(r.rawPayload)).intoIPCStream());
    expect(table.numRows).toBe(10);
    expect(table.getChild('vwap')?.get(0)).toBeCloseTo(104.5, 6);
    expect(Number(table.getChild('trades')?.get(9))).toBe(60);
  });

  it('SQL results in Parquet and CSV', async () => {
    const r = await sql({
      sql: `SELECT security_id, count() AS n FROM ${FEED_TABLES.ticks.name} GROUP BY security_id ORDER BY security_id`,
      format: 'parquet',
    });
    const table = tableFromIPC(readParquet(new Uint8Array(r.rawPayload)).intoIPCStream());
    expect(table.numRows).toBe(2);
    const csv = await sql({ sql: "SELECT 1 AS a, 'x' AS b", format: 'csv' });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toBe('"a","b"\n1,"x"\n');
  });
});

describe('times: ISO 8601 with Z in text formats, UTC timestamps in Arrow and Parquet', () => {
  // Every kind of instant a caller's SELECT can produce: DateTime('UTC') (ltt), DateTime64(6, 'UTC')
  // (received_at), a DateTime64 and a DateTime without a zone, one in IST; and a Date.
  const TIMES_SQL = `SELECT ltt, received_at, toDateTime64(ltt, 3) AS naive64, toDateTime(toUInt32(ltt)) AS naive,
      toDateTime(ltt, 'Asia/Kolkata') AS \`ist time\`, toDate(ltt) AS day, ltp
    FROM ${FEED_TABLES.ticks.name} WHERE security_id = {sid:UInt32} ORDER BY received_at LIMIT 2`;
  const first = Date.parse(`${DAY}T09:00:00Z`);

  it('Arrow file and stream: every instant column a timestamp with the UTC zone; dates stay dates', async () => {
    for (const format of ['arrow', 'arrowstream']) {
      const r = await sql({ sql: TIMES_SQL, params: { sid: LIVE_A }, format });
      expect(r.statusCode, r.body.slice(0, 300)).toBe(200);
      const table = tableFromIPC(r.rawPayload);
      const types = Object.fromEntries(
        table.schema.fields.map((f) => [
          f.name,
          f.type as { typeId: number; unit?: number; timezone?: string },
        ]),
      );
      for (const [name, unit] of [
        ['ltt', TimeUnit.SECOND],
        ['received_at', TimeUnit.MICROSECOND],
        ['naive64', TimeUnit.MILLISECOND],
        ['naive', TimeUnit.SECOND],
        ['ist time', TimeUnit.SECOND],
      ] as const) {
        expect(types[name]?.typeId, `${format} ${name}`).toBe(Type.Timestamp);
        expect(types[name]?.unit, `${format} ${name}`).toBe(unit);
        expect(types[name]?.timezone, `${format} ${name}`).toBe('UTC');
      }
      expect(types.day?.typeId).toBe(Type.Date);
      expect(types.ltp?.typeId).toBe(Type.Float);
      // Same instants as stored: apache-arrow hands timestamps over as epoch milliseconds.
      const row = table.get(0)?.toJSON() as Record<string, unknown>;
      expect(Number(row.ltt)).toBe(first);
      expect(Number(row['ist time'])).toBe(first);
      expect(Number(row.received_at)).toBe(first + 100);
      expect(row.ltp).toBe(100);
    }
  });

  it('JSON, NDJSON and CSV: ISO 8601 in UTC with Z, whatever the column zone', async () => {
    const json = await sql({ sql: TIMES_SQL, params: { sid: LIVE_A }, format: 'json' });
    expect(json.json().data[0]).toEqual({
      ltt: `${DAY}T09:00:00Z`,
      received_at: `${DAY}T09:00:00.100000Z`,
      naive64: `${DAY}T09:00:00.000Z`,
      naive: `${DAY}T09:00:00Z`,
      'ist time': `${DAY}T09:00:00Z`,
      day: DAY,
      ltp: 100,
    });
    const ndjson = await sql({ sql: TIMES_SQL, params: { sid: LIVE_A }, format: 'ndjson' });
    expect(JSON.parse(ndjson.body.split('\n')[0] ?? '')).toMatchObject({ ltt: `${DAY}T09:00:00Z` });
    const csv = await sql({ sql: TIMES_SQL, params: { sid: LIVE_A }, format: 'csv' });
    expect(csv.body.split('\n')[1]).toBe(
      `"${DAY}T09:00:00Z","${DAY}T09:00:00.100000Z","${DAY}T09:00:00.000Z","${DAY}T09:00:00Z","${DAY}T09:00:00Z","${DAY}",100`,
    );
  });

  it('Parquet: instants as UTC timestamps', async () => {
    const r = await sql({ sql: TIMES_SQL, params: { sid: LIVE_A }, format: 'parquet' });
    const table = tableFromIPC(readParquet(new Uint8Array(r.rawPayload)).intoIPCStream());
    for (const name of ['ltt', 'received_at', 'naive64', 'naive', 'ist time']) {
      const type = table.schema.fields.find((f) => f.name === name)?.type as {
        typeId: number;
        timezone?: string;
      };
      expect(type.typeId, name).toBe(Type.Timestamp);
      expect(type.timezone, name).toBe('UTC');
    }
    expect(Number(table.get(0)?.toJSON().ltt)).toBe(first);
  });

  it('the routes follow it too: bars and ticks in Arrow, daily candles in CSV', async () => {
    const ticks = await h.api.app.inject({
      method: 'GET',
      url: `/v1/instruments/${LIVE_A}/ticks?from=${DAY}&to=2024-03-05&limit=3&format=arrow`,
      headers: h.read,
    });
    const fields = tableFromIPC(ticks.rawPayload).schema.fields;
    for (const name of ['received_at', 'ltt', 'lut']) {
      const type = fields.find((f) => f.name === name)?.type as { typeId: number; timezone?: string };
      expect(type.typeId, name).toBe(Type.Timestamp);
      expect(type.timezone, name).toBe('UTC');
    }
    const daily = await h.api.app.inject({
      method: 'GET',
      url: '/v1/instruments/2885/candles/daily?from=2024-01-01&to=2024-01-03&format=csv',
      headers: h.read,
    });
    expect(daily.body.split('\n').slice(0, 2)).toEqual([
      '"time","date","segment","open","high","low","close","volume","open_interest"',
      '"2023-12-31T18:30:00Z","2024-01-01","NSE_EQ",100,105,95,101,1000,0',
    ]);
  });
});
