/**
 * DBeaver's way in (issue #33 item 1): the official ClickHouse JDBC driver from Maven Central,
 * pointed at the query API's ClickHouse-protocol port (its root: the driver reads a URL path as
 * the database), lists the market schema, its tables and the columns of market.ticks through
 * DatabaseMetaData, with the types and comments the API itself reports, and runs a query. Only the
 * allow-listed tables appear. The driver runs in a Java program of its own (test/jdbc-metadata).
 */
import { createQueryApi, jdbcUrlOf, MARKET_DATA_TABLES, type QueryApi } from '@feedpipe/query-api';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFixture } from '../services/query-api/test/helpers.js';
import { browseWithJdbc, jdbcClassPath } from './jdbc-metadata/driver.js';

let store: Store;
let api: QueryApi;
let key: string;
let classPath: string;

beforeAll(async () => {
  classPath = jdbcClassPath();
  store = createStore({ dataDir: tempDir('jdbc-metadata') });
  await runMigrations(store.internal);
  await seedFixture(store);
  api = await createQueryApi({ port: 0, clickhousePort: 0, logLevel: false }, { store });
  key = (await api.keys.create('dbeaver', ['read'])).key;
  await api.start();
}, 600_000);

afterAll(async () => {
  await api?.stop();
  await store?.close();
});

async function apiRows<T>(sql: string): Promise<T[]> {
  const response = await fetch(`${api.url}/v1/sql`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ sql, format: 'json' }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: T[] }).data;
}

describe('the ClickHouse JDBC driver browses the catalogue', () => {
  it('lists the schema, the allowed tables and the columns of market.ticks with types and comments', async () => {
    const browse = await browseWithJdbc(classPath, jdbcUrlOf(api.clickhouseUrl as string), key);
    expect(browse.product).toBe('ClickHouse');
    expect(browse.schemas).toEqual(['market']);
    expect(browse.tables.map((t) => `${t.schema}.${t.name}`).sort()).toEqual([...MARKET_DATA_TABLES].sort());
    const described = await apiRows<{ name: string; type: string; comment: string }>(
      'DESCRIBE TABLE market.ticks',
    );
    expect(browse.columns).toEqual(
      described.map((c) => ({ name: c.name, type: c.type, remarks: c.comment })),
    );
    expect(browse.columns.every((c) => c.remarks !== null && c.remarks !== '')).toBe(true);
    const [count] = await apiRows<{ n: number }>('SELECT count() AS n FROM market.ticks');
    expect(browse.ticks).toBe(count?.n);
    expect(browse.ticks).toBeGreaterThan(0);
  });
});
