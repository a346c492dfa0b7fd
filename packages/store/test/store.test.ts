import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createStore,
  loadMigrations,
  runMigrations,
  type Store,
  StoreError,
  splitStatements,
} from '../src/index.js';

describe('store on embedded chDB', () => {
  let store: Store;
  const dataDir = tempDir('store');

  beforeAll(() => {
    store = createStore({ dataDir });
  });
  afterAll(async () => {
    await store.close();
  });

  it('runs the migrations once and skips them the second time', async () => {
    const first = await runMigrations(store.internal);
    expect(first.applied).toContain(1);
    const second = await runMigrations(store.internal);
    expect(second.applied).toEqual([]);
    expect(second.skipped).toEqual(first.applied);
    expect(await store.internal.rows("SELECT name FROM system.databases WHERE name = 'market'")).toEqual([
      { name: 'market' },
    ]);
  });

  it('applies a new migration directory in version order and records it', async () => {
    const dir = join(dataDir, 'extra-migrations');
    mkdirSync(dir);
    writeFileSync(
      join(dir, '900_probe_a.sql'),
      'CREATE TABLE IF NOT EXISTS market.probe (x UInt8) ENGINE = MergeTree ORDER BY x;\n',
    );
    writeFileSync(
      join(dir, '901_probe_b.sql'),
      'ALTER TABLE market.probe ADD COLUMN IF NOT EXISTS y UInt8;\n',
    );
    const result = await runMigrations(store.internal, dir);
    expect(result.applied).toEqual([900, 901]);
    const cols = await store.internal.rows(
      "SELECT name FROM system.columns WHERE database='market' AND table='probe' ORDER BY position",
    );
    expect(cols).toEqual([{ name: 'x' }, { name: 'y' }]);
  });

  it('inserts 1,000,000 rows and reads an aggregate back', async () => {
    await store.internal.command(
      `CREATE TABLE IF NOT EXISTS market.bulk (id UInt32, ts DateTime64(6), price Float64)
              ENGINE = MergeTree ORDER BY (id, ts)`,
    );
    const total = 1_000_000;
    const block = 100_000;
    let expectedSum = 0;
    for (let start = 0; start < total; start += block) {
      const rows: unknown[][] = [];
      for (let i = start; i < start + block; i++) {
        const price = (i % 1000) / 4;
        expectedSum += price;
        rows.push([i % 500, String(1_700_000_000_000_000 + i), price]);
      }
      await store.internal.insertRows('market.bulk', ['id', 'ts', 'price'], rows);
    }
    const [row] = await store.internal.rows<{ n: number | string; s: number; ids: number | string }>(
      'SELECT count() AS n, sum(price) AS s, uniqExact(id) AS ids FROM market.bulk WHERE ts >= {from:DateTime64(6)}',
      { from: '2023-11-14 22:13:20.000000' },
    );
    expect(Number(row?.n)).toBe(total);
    expect(Number(row?.ids)).toBe(500);
    expect(row?.s).toBeCloseTo(expectedSum, 3);
  });

  it('refuses a second data directory in the same process', () => {
    expect(() => createStore({ dataDir: tempDir('other') })).toThrowError(StoreError);
    try {
      createStore({ dataDir: tempDir('other2') });
    } catch (error) {
      expect((error as StoreError).code).toBe('CHDB_PATH_CONFLICT');
    }
  });
});

describe('store configuration', () => {
  it('rejects unknown keys with the allowed list, and bad URLs, with a message naming them', () => {
    expect(() => createStore({ urll: 'x' } as never)).toThrowError(
      expect.objectContaining({
        code: 'STORE_CONFIG_INVALID',
        message: expect.stringContaining(
          'unknown option "urll" (allowed: url, dataDir, requestTimeoutMs, internalLane, userLane, userAccount, ttlDeletes, backupDir, engineIsolation)',
        ),
      }) as unknown as StoreError,
    );
    expect(() => createStore({ internalLane: { sesions: 2 } } as never)).toThrowError(
      /unknown option "internalLane.sesions" \(allowed: maxQueued, maxWaitMs, sessions\)/,
    );
    expect(() => createStore({ url: 'not a url' })).toThrowError(
      /"url" must be a http:\/\/ or https:\/\/ URL/,
    );
    expect(() => createStore({ url: 'ftp://host' })).toThrowError(
      /"url" must be a http:\/\/ or https:\/\/ URL/,
    );
    expect(() => createStore({ url: 'http://a b:1' })).toThrowError(/"url" is not a valid URL/);
    expect(() => createStore({ ttlDeletes: 'off' } as never)).toThrowError(
      /"ttlDeletes" must be one of run, paused/,
    );
  });

  it('keeps credentials out of the location it reports', async () => {
    const store = createStore({ url: 'http://alice:s3cret@127.0.0.1:1' });
    expect(store.mode).toBe('server');
    expect(store.location).not.toContain('s3cret');
    await store.close();
  });

  it('never loads the chDB engine into the process that opens an embedded store', () => {
    // A child process: this one has chDB loaded by other tests. It reports whether the engine's
    // library is mapped after opening a server store, then after an embedded one answered a query
    // (the engine runs in a process of its own: embedded/engine-process/).
    const script = `
      import { readFileSync } from 'node:fs';
      import { createStore } from ${JSON.stringify(new URL('../src/index.ts', import.meta.url).href)};
      const mapped = () => readFileSync('/proc/self/maps', 'utf8').includes('libchdb');
      const server = createStore({ url: 'http://127.0.0.1:1' });
      const before = mapped();
      const embedded = createStore({ dataDir: ${JSON.stringify(tempDir('store-lazy'))} });
      const [answer] = await embedded.internal.rows('SELECT 41 + 1 AS n');
      process.stdout.write(JSON.stringify({ before, after: mapped(), answer }));
      await server.close();
      await embedded.close();
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ before: false, after: false, answer: { n: 42 } });
  });

  it('splits statements and ignores comment lines', () => {
    expect(splitStatements('-- c\nCREATE A;\nCREATE B;\n')).toEqual(['CREATE A', 'CREATE B']);
    expect(loadMigrations().map((m) => m.version)[0]).toBe(1);
  });
});
