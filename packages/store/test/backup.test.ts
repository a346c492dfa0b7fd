/**
 * Backup and restore through the store's library API on embedded chDB (the drill with a live sink
 * is services/feed-sink/test/restore-drill.test.ts): a backup is refused outside the one directory
 * the engine was given, the chain is named and found by time, an incremental backup writes only
 * what changed, a restore refuses a store that holds the database unless asked to replace it.
 * The same statements run on a server (not tested: no server binary here).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedName, nextBackupName } from '../src/backup/backup-chain.js';
import { fileTarget } from '../src/backup/backup-job.js';
import {
  backupStore,
  createStore,
  listBackups,
  restoreStore,
  runMigrations,
  type Store,
  StoreError,
} from '../src/index.js';

const root = tempDir('backup');
const backups = join(root, 'backups');
let store: Store;

beforeAll(async () => {
  store = createStore({ dataDir: join(root, 'chdb'), backupDir: backups });
  await runMigrations(store.internal);
  await store.internal.command('CREATE TABLE market.probe (x UInt32) ENGINE = MergeTree ORDER BY x');
  await store.internal.command('INSERT INTO market.probe SELECT number FROM numbers(1000)');
});
afterAll(async () => {
  await store.close();
});

const count = async () =>
  Number((await store.internal.rows<{ n: string }>('SELECT count() AS n FROM market.probe'))[0]?.n);

describe('backup and restore', () => {
  it('backs up in full, then incrementally on the newest backup, and restores the newest', async () => {
    const clock = [new Date('2026-11-27T10:00:00Z'), new Date('2026-11-27T11:00:00Z')];
    const full = await backupStore(store, { dir: backups, now: () => clock[0] as Date });
    expect(full).toMatchObject({ name: '20261127T100000Z', base: null });
    expect(full.filesStored).toBeGreaterThan(0);
    await store.internal.command('INSERT INTO market.probe SELECT number FROM numbers(10)');
    const incremental = await backupStore(store, { dir: backups, now: () => clock[1] as Date });
    expect(incremental).toMatchObject({ name: '20261127T110000Z', base: '20261127T100000Z' });
    // The 1,000 rows' part is the base's: only the new part and the metadata are written.
    expect(incremental.filesStored).toBeLessThan(incremental.files);
    expect(listBackups(backups)).toEqual(['20261127T100000Z', '20261127T110000Z']);

    await expect(restoreStore(store, { dir: backups })).rejects.toMatchObject({
      code: 'RESTORE_TARGET_NOT_EMPTY',
    });
    await store.internal.command('INSERT INTO market.probe SELECT number FROM numbers(5)');
    expect(await count()).toBe(1015);
    const restored = await restoreStore(store, { dir: backups, replace: true });
    expect(restored.name).toBe('20261127T110000Z');
    expect(await count()).toBe(1010);
    await restoreStore(store, { dir: backups, name: '20261127T100000Z', replace: true });
    expect(await count()).toBe(1000);
  });

  it('refuses a path outside the engine’s backup directory, and names no backup it cannot find', async () => {
    const outside = join(root, 'elsewhere');
    mkdirSync(outside);
    await expect(backupStore(store, { dir: outside, base: 'none' })).rejects.toMatchObject({
      code: 'BACKUP_FAILED',
    });
    await expect(restoreStore(store, { dir: outside })).rejects.toMatchObject({ code: 'BACKUP_NOT_FOUND' });
    await expect(restoreStore(store, { dir: backups, name: '../etc' })).rejects.toMatchObject({
      code: 'BACKUP_NOT_FOUND',
    });
    expect(() => fileTarget("/tmp/it's")).toThrow(StoreError);
    expect(() => checkedName('latest')).toThrow(StoreError);
  });

  it('names backups by time, after any folder already there', () => {
    const at = new Date('2026-11-27T12:34:56.789Z');
    expect(nextBackupName(join(root, 'none-yet'), at)).toBe('20261127T123456Z');
    mkdirSync(join(backups, '20261127T123456Z'));
    expect(nextBackupName(backups, at)).toBe('20261127T123456Z-1');
  });
});
