/**
 * openapi-python-client (PyPI, in the project's venv) generates a client from the query API's
 * OpenAPI document (issue #33 item 3): it types an operation by the first media type it knows
 * (0.29.1's parser/responses.py), so the tabular routes' JSON comes back as models, and binary
 * answers declared as bytes (OpenAPI 3.1 contentMediaType, format: binary, application/octet-stream)
 * as bytes that pandas reads. Before, the bars call with format=parquet raised UnicodeDecodeError.
 * getBars is declared bytes first (one operation cannot give models for json and bytes for parquet
 * in this generator): its Parquet answer goes into pandas, its JSON through json.loads. The
 * downloads (getBarsParquet, getBarsArrow through pyarrow, runSqlParquet) answer one binary format
 * each.
 * Values are compared with the API's JSON answer. Generated into .tmp/openapi-python-client; nothing
 * generated is kept.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createQueryApi, type QueryApi } from '@feedpipe/query-api';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, LIVE_A, seedFixture } from '../services/query-api/test/helpers.js';
import { ensureSdkVenv } from './sdk-conformance/venv.js';

const root = join(import.meta.dirname, '..');
const WORK = join(root, '.tmp', 'openapi-python-client');
const DRIVER = join(root, 'test', 'openapi-python-client', 'drive.py');
const SETUP_TIMEOUT_MS = 600_000;
const FROM = `${DAY}T09:00:00Z`;
const TO = `${DAY}T09:10:00Z`;

let store: Store;
let api: QueryApi;
let key: string;
let python: string;

beforeAll(async () => {
  python = ensureSdkVenv().python;
  store = createStore({ dataDir: tempDir('openapi-python-client') });
  await runMigrations(store.internal);
  await seedFixture(store);
  api = await createQueryApi({ port: 0, logLevel: false }, { store });
  key = (await api.keys.create('generated', ['read'])).key;
  await api.start();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const spec = join(WORK, 'query-api.json');
  writeFileSync(spec, await (await fetch(`${api.url}/docs/json`)).text());
  const generator = join(python, '..', 'openapi-python-client');
  const generated = spawnSync(
    generator,
    [
      'generate',
      '--path',
      spec,
      '--output-path',
      join(WORK, 'feedpipe_query_api_client'),
      '--overwrite',
      '--meta',
      'none',
    ],
    { cwd: WORK, encoding: 'utf8', timeout: 300_000 },
  );
  if (generated.status !== 0) {
    throw new Error(`openapi-python-client failed: ${generated.stderr}${generated.stdout}`);
  }
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await api?.stop();
  await store?.close();
});

interface DriverOutput {
  barsParquetClose: number[];
  barsParquetTimeDtype: string;
  jsonClose: number[];
  parquetColumns: string[];
  parquetClose: number[];
  parquetVolume: number[];
  parquetTimeDtype: string;
  arrowClose: number[];
  arrowVolume: number[];
  arrowTimeDtype: string;
  sqlParquet: Array<{ security_id: number; n: number }>;
}

function drive(): Promise<DriverOutput> {
  return new Promise((resolve, reject) => {
    // --meta none writes the package itself into the output folder: its parent goes on the path.
    const child = spawn(python, [DRIVER], {
      env: { ...process.env, PYTHONPATH: WORK },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString('utf8')).slice(-4_000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`drive.py exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as DriverOutput);
    });
    child.stdin.end(JSON.stringify({ url: api.url, key, securityId: LIVE_A, from: FROM, to: TO }));
  });
}

describe('openapi-python-client reads the bars as Parquet bytes', () => {
  it('returns bytes for getBars, getBarsParquet and getBarsArrow that pandas reads, equal to the JSON answer', async () => {
    const out = await drive();
    const response = await fetch(
      `${api.url}/v1/instruments/${LIVE_A}/bars?from=${FROM}&to=${TO}&interval=1m&format=json`,
      { headers: { 'x-api-key': key } },
    );
    const json = (await response.json()) as { data: Array<{ close: number; volume: number }> };
    expect(json.data.length).toBeGreaterThan(0);
    // getBars itself: format=parquet read into pandas, format=json through json.loads.
    expect(out.barsParquetClose).toEqual(json.data.map((r) => r.close));
    expect(out.barsParquetTimeDtype).toMatch(/^datetime64/);
    expect(out.jsonClose).toEqual(json.data.map((r) => r.close));
    expect(out.parquetColumns).toEqual(expect.arrayContaining(['time', 'close', 'volume', 'trades']));
    expect(out.parquetClose).toEqual(json.data.map((r) => r.close));
    expect(out.parquetVolume).toEqual(json.data.map((r) => r.volume));
    expect(out.parquetTimeDtype).toMatch(/^datetime64/);
    // getBarsArrow: the Arrow IPC file, declared binary the same way, read through pyarrow.
    expect(out.arrowClose).toEqual(json.data.map((r) => r.close));
    expect(out.arrowVolume).toEqual(json.data.map((r) => r.volume));
    expect(out.arrowTimeDtype).toMatch(/^datetime64/);
    // runSqlParquet: the same result as runSql's JSON.
    const sql = await fetch(`${api.url}/v1/sql`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        sql: 'SELECT security_id, count() AS n FROM market.ticks GROUP BY security_id ORDER BY security_id',
      }),
    });
    const sqlJson = (await sql.json()) as { data: Array<{ security_id: number; n: number }> };
    expect(out.sqlParquet).toEqual(sqlJson.data);
  });
});
