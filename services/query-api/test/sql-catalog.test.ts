/**
 * What SQL tools browse through /clickhouse (issue #33 item 1): system.databases, system.tables and
 * system.columns answered by the API's views restricted to the market-data allow-list (with types
 * and comments), SHOW / DESCRIBE / EXISTS, EXPLAIN of a guarded SELECT, the JDBC driver's connect
 * probes, and the refusals that stay: other system tables, other databases' rows, hostile
 * expressions inside a catalogue query, EXPLAIN of what the guard refuses. No Kafka needed.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET_DATA_TABLES } from '../src/index.js';
import { type Harness, startHarness } from './helpers.js';

let h: Harness;
let basic: string;

beforeAll(async () => {
  h = await startHarness({ rateLimit: { perSecond: 10_000, burst: 10_000 } });
  await h.api.start();
  basic = `Basic ${Buffer.from(`tool:${h.read['x-api-key']}`).toString('base64')}`;
});

afterAll(async () => {
  await h?.close();
});

async function ch(sql: string): Promise<{ status: number; text: string; code: string | null }> {
  const response = await fetch(`${h.api.url}/clickhouse/`, {
    method: 'POST',
    headers: { authorization: basic },
    body: sql,
  });
  return {
    status: response.status,
    text: await response.text(),
    code: response.headers.get('x-clickhouse-exception-code'),
  };
}

async function rows(sql: string): Promise<Array<Record<string, unknown>>> {
  const answer = await ch(`${sql} FORMAT JSONEachRow`);
  expect(answer.status, answer.text).toBe(200);
  return answer.text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const ALLOWED_NAMES = MARKET_DATA_TABLES.map((t) => t.slice('market.'.length)).sort();

describe('system catalogue tables, restricted to the allow-list', () => {
  it('lists the market database only, and the allowed tables only', async () => {
    expect(await rows('SELECT name FROM system.databases ORDER BY name')).toEqual([{ name: 'market' }]);
    const tables = await rows('SELECT database, name FROM system.tables ORDER BY name');
    expect(tables.map((t) => t.name)).toEqual(ALLOWED_NAMES);
    expect(new Set(tables.map((t) => t.database))).toEqual(new Set(['market']));
    // Asking for a table outside the list finds nothing (api_keys exists, and is not shown).
    expect(await rows("SELECT name FROM system.tables WHERE name = 'api_keys'")).toEqual([]);
    expect(await rows("SELECT name FROM system.tables WHERE database = 'system'")).toEqual([]);
  });

  it('gives the columns of market.ticks with their types and comments', async () => {
    const columns = await rows(
      "SELECT name, type, comment FROM system.columns WHERE database = 'market' AND table = 'ticks' ORDER BY position",
    );
    expect(columns.map((c) => c.name)).toEqual(FEED_TABLES.ticks.columns.map((c) => c));
    expect(columns.find((c) => c.name === 'ltp')?.type).toBe('Float32');
    expect(columns.every((c) => typeof c.comment === 'string' && c.comment !== '')).toBe(true);
    expect(await rows("SELECT DISTINCT table FROM system.columns WHERE table = 'api_keys'")).toEqual([]);
  });

  it("answers the JDBC driver's getTables and getColumns shapes (joins, qualified columns)", async () => {
    const tables = await rows(
      "SELECT 'local' AS TABLE_CAT, t.database AS TABLE_SCHEM, t.name AS TABLE_NAME, t.engine AS TABLE_TYPE, t.comment AS REMARKS, d.engine AS TYPE_SCHEM FROM system.tables t JOIN system.databases d ON system.tables.database = system.databases.name WHERE t.database LIKE 'market' AND t.name LIKE '%' ORDER BY TABLE_NAME",
    );
    expect(tables.map((t) => t.TABLE_NAME)).toEqual(ALLOWED_NAMES);
    const columns = await rows(
      "SELECT system.columns.name AS COLUMN_NAME, system.columns.type AS TYPE_NAME, position(upper(type), 'NULLABLE') >= 1 ? 'YES' : 'NO' AS IS_NULLABLE FROM system.columns WHERE database LIKE 'market' AND table LIKE 'ticks' AND name LIKE '%' ORDER BY system.columns.position",
    );
    expect(columns.length).toBe(FEED_TABLES.ticks.columns.length);
  });

  it('keeps a literal that spells a system table as it was', async () => {
    expect(await rows("SELECT 'system.tables' AS s, name FROM system.tables WHERE name = 'ticks'")).toEqual([
      { s: 'system.tables', name: 'ticks' },
    ]);
  });

  it('shows no path and no other column of the engine', async () => {
    for (const column of ['data_paths', 'metadata_path']) {
      const refused = await ch(`SELECT ${column} FROM system.tables`);
      expect(refused.status, column).not.toBe(200);
    }
  });
});

describe('hostile statements over the catalogue stay refused', () => {
  const refusedStatements = [
    "SELECT name FROM system.tables WHERE name = file('/etc/passwd')",
    "SELECT file('/etc/passwd') FROM system.columns",
    "SELECT arrayMap(x -> file(x), ['/etc/passwd']) FROM system.tables",
    "SELECT name FROM system.tables WHERE name IN (SELECT name FROM url('http://127.0.0.1:1/', 'CSV', 'name String'))",
    'SELECT name FROM system.tables SETTINGS readonly = 0',
    'SELECT * FROM system.settings',
    'SELECT * FROM system.users',
    'SELECT * FROM system.tables AS t JOIN market.api_keys AS k ON 1 = 1',
    "SELECT name FROM system.tables INTO OUTFILE '/tmp/x'",
    'EXPLAIN PLAN SELECT * FROM market.api_keys',
    "EXPLAIN QUERY TREE SELECT file('/etc/passwd')",
    "EXPLAIN SELECT arrayMap(x -> file(x), ['/etc/passwd'])",
    'EXPLAIN header = 1 SELECT 1',
    'EXPLAIN EXPLAIN SELECT 1',
    "EXPLAIN SELECT getSetting('readonly')",
    'SHOW COLUMNS FROM market.api_keys',
  ];
  for (const sql of refusedStatements) {
    it(`refuses ${sql}`, async () => {
      const answer = await ch(sql);
      expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
      expect(answer.text).not.toContain('root:');
    });
  }
});

describe('SHOW, DESCRIBE, EXISTS, EXPLAIN and connect probes', () => {
  it('answers SHOW COLUMNS, DESCRIBE and EXISTS from the allow-list', async () => {
    const show = await rows('SHOW COLUMNS FROM market.ticks');
    expect(show.map((c) => c.field)).toEqual(FEED_TABLES.ticks.columns.map((c) => c));
    const describeRows = await rows('DESCRIBE TABLE market.ticks');
    expect(describeRows.every((c) => typeof c.comment === 'string' && c.comment !== '')).toBe(true);
    expect(await rows('EXISTS TABLE market.ticks')).toEqual([{ result: 1 }]);
  });

  it('answers SHOW CREATE TABLE of an allowed table, and refuses it for any other', async () => {
    const [create] = await rows('SHOW CREATE TABLE market.ticks');
    expect(String(create?.statement)).toMatch(/^CREATE TABLE market\.ticks/);
    expect(String(create?.statement)).toContain("COMMENT 'last traded price'");
    expect((await ch('SHOW CREATE TABLE market.api_keys')).status).toBe(403);
    expect((await ch('SHOW CREATE TABLE system.users')).status).toBe(403);
  });

  it('takes a table without its database as the market one, as tools with a default database send it', async () => {
    expect((await rows('DESCRIBE TABLE "ticks"')).map((c) => c.name)).toEqual([...FEED_TABLES.ticks.columns]);
    expect((await rows('SHOW COLUMNS FROM ticks')).map((c) => c.field)).toEqual([
      ...FEED_TABLES.ticks.columns,
    ]);
    expect(await rows('EXISTS ticks')).toEqual([{ result: 1 }]);
    expect(await rows('EXISTS api_keys')).toEqual([{ result: 0 }]);
    expect((await ch('DESCRIBE TABLE api_keys')).status).toBe(403);
  });

  it("answers SHOW TABLES LIKE with the caller's pattern as a value, within the allow-list", async () => {
    expect(await rows("SHOW TABLES FROM market LIKE 'candles%'")).toEqual([
      { name: 'candles_daily' },
      { name: 'candles_intraday' },
    ]);
    expect(await rows("SHOW TABLES ILIKE '%API%'")).toEqual([]);
    expect(await rows("SHOW TABLES LIKE '%\\'; DROP TABLE x; --'")).toEqual([]);
    expect((await rows("SHOW TABLES NOT LIKE '%'")).length).toBe(0);
  });

  it('explains an allowed SELECT, in each kind', async () => {
    for (const kind of ['', 'AST ', 'SYNTAX ', 'PLAN ', 'PIPELINE ', 'ESTIMATE ', 'QUERY TREE ']) {
      const answer = await ch(`EXPLAIN ${kind}SELECT count() FROM market.ticks WHERE security_id = 1`);
      expect(answer.status, `${kind}: ${answer.text}`).toBe(200);
    }
  });

  it("answers the JDBC driver's connect probes", async () => {
    const [probe] = await rows(
      'SELECT currentUser() AS user, timezone() AS timezone, version() AS version LIMIT 1',
    );
    expect(Object.keys(probe ?? {})).toEqual(['user', 'timezone', 'version']);
    const [version] = await rows('SELECT version() as server_version');
    expect(typeof version?.server_version).toBe('string');
  });
});
