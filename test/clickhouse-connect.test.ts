/**
 * ClickHouse's own Python client against the query API's ClickHouse endpoint (issue #13 item 3):
 * clickhouse-connect from PyPI (pinned in test/sdk-conformance/requirements.txt, in the project's
 * venv) connects through /clickhouse with an API key as its password, lists the tables, reads a
 * query into pandas (query_df), and the values equal those the JSON API (/v1/sql) gives; a table
 * outside the allow-list is refused with ClickHouse's ACCESS_DENIED; the catalogue as the client
 * reads it (issue #33): system.tables and system.columns restricted to the allow-list, with types
 * and comments, DESCRIBE, EXPLAIN, a file() in a catalogue query refused, and the same through the
 * root of the API's ClickHouse port (no proxy path). Python 3.10+ with venv and
 * pip is a prerequisite of `npm test`, as for the SDK conformance suite.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { FEED_TABLES } from '@feedpipe/contracts';
import { createQueryApi, MARKET_DATA_TABLES, type QueryApi } from '@feedpipe/query-api';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSdkVenv } from './sdk-conformance/venv.js';

const DRIVER = join(import.meta.dirname, 'clickhouse-connect', 'drive.py');
const DRIVER_TIMEOUT_MS = 120_000;
const SETUP_TIMEOUT_MS = 480_000;
const SQL = `SELECT security_id, ltp, volume, ltt, toUnixTimestamp(ltt) AS ltt_epoch
  FROM ${FEED_TABLES.ticks.name} ORDER BY security_id, ltt LIMIT 50`;

let store: Store;
let api: QueryApi;
let key: string;
let python: string;

beforeAll(async () => {
  python = ensureSdkVenv().python;
  store = createStore({ dataDir: tempDir('clickhouse-connect') });
  await runMigrations(store.internal);
  await store.internal.command(`INSERT INTO ${FEED_TABLES.ticks.name} (security_id, segment, ltp, volume, ltt, lut, received_at, kafka_partition, kafka_offset, kafka_cluster)
    SELECT 500 + number % 3, 1, toFloat32(200 + number / 4), toInt32(number * 7),
           toDateTime('2024-05-06 03:45:00', 'UTC') + number, toDateTime('2024-05-06 03:45:00', 'UTC') + number,
           now64(6), 0, number, 'test'
    FROM numbers(60)`);
  api = await createQueryApi({ port: 0, clickhousePort: 0, logLevel: false }, { store });
  key = (await api.keys.create('notebook', ['read'])).key;
  await api.start();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await api?.stop();
  await store?.close();
});

interface DriverReport {
  version: string;
  timezone: string;
  tables: string[];
  dtypes: Record<string, string>;
  rows: Record<string, number>[];
  refused: { type: string; code: number | null; message: string } | null;
  catalogue: {
    tables: string[];
    columns: Array<{ name: string; type: string; comment: string }>;
    described: string[];
    explained: number;
    refused: { type: string; code: number | null } | null;
    rootTables: string[];
  };
}

function drive(): Promise<DriverReport> {
  const url = new URL(api.url);
  return new Promise((resolve, reject) => {
    const child = spawn(python, [DRIVER], {
      env: {
        ...process.env,
        FEEDPIPE_CH_HOST: url.hostname,
        FEEDPIPE_CH_PORT: url.port,
        FEEDPIPE_CH_KEY: key,
        FEEDPIPE_CH_SQL: SQL,
        FEEDPIPE_CH_ROOT_PORT: new URL(api.clickhouseUrl as string).port,
      },
      timeout: DRIVER_TIMEOUT_MS,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`drive.py exited ${code}: ${err.slice(-2_000)}`));
      else resolve(JSON.parse(out) as DriverReport);
    });
  });
}

describe('clickhouse-connect through /clickhouse', () => {
  it('connects with an API key, lists the tables, reads into pandas the values /v1/sql gives', async () => {
    const report = await drive();
    expect(report.version).toMatch(/^\d+\.\d+/);
    expect(report.timezone).toMatch(/UTC/);
    expect(report.tables.map((t) => `market.${t}`)).toEqual([...MARKET_DATA_TABLES].sort());
    expect(report.dtypes).toMatchObject({ security_id: 'uint32', ltp: 'float32', volume: 'int32' });
    expect(report.dtypes.ltt).toMatch(/^datetime64/);

    const response = await fetch(`${api.url}/v1/sql`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ sql: SQL }),
    });
    expect(response.status).toBe(200);
    const json = (await response.json()) as { data: Record<string, unknown>[] };
    expect(json.data).toHaveLength(50);
    expect(report.rows).toHaveLength(50);
    report.rows.forEach((row, i) => {
      const expected = json.data[i] as Record<string, unknown>;
      expect(row.security_id).toBe(expected.security_id);
      expect(row.ltp).toBeCloseTo(Number(expected.ltp), 5);
      expect(row.volume).toBe(expected.volume);
      // pandas' datetime for ltt is the instant the JSON API gives as epoch seconds.
      expect(row.ltt).toBe(Number(expected.ltt_epoch));
      expect(row.ltt_epoch).toBe(Number(expected.ltt_epoch));
    });

    expect(report.refused).toMatchObject({ type: 'DatabaseError', code: 497 });
    expect(report.refused?.message).toMatch(/market\.api_keys is not readable/);
    expect(report.refused?.message).not.toContain(key.slice(21));

    const allowed = [...MARKET_DATA_TABLES].sort().map((t) => t.slice('market.'.length));
    expect(report.catalogue.tables).toEqual(allowed);
    expect(report.catalogue.rootTables).toEqual(allowed);
    expect(report.catalogue.columns.map((c) => c.name)).toEqual([...FEED_TABLES.ticks.columns]);
    expect(report.catalogue.columns.find((c) => c.name === 'ltp')).toMatchObject({ type: 'Float32' });
    expect(report.catalogue.columns.every((c) => c.comment !== '')).toBe(true);
    expect(report.catalogue.described).toEqual([...FEED_TABLES.ticks.columns]);
    expect(report.catalogue.explained).toBeGreaterThan(0);
    expect(report.catalogue.refused).toMatchObject({ type: 'DatabaseError', code: 497 });
  });
});
