/**
 * The store's free space as the disk guards read it: statfs of the embedded data directory, and the
 * server's query (system.disks) run on the embedded engine, which has the same table: both see the
 * file system the directory is on.
 */
import { tempDir } from '@feedpipe/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore, directorySpace, engineDiskSpace, storeDiskSpace } from '../src/index.js';

const store = createStore({ dataDir: tempDir('disk-space') });

afterAll(async () => {
  await store.close();
});

describe('store disk space', () => {
  it('statfs of the chDB directory and system.disks agree on the file system', async () => {
    const viaStatfs = await storeDiskSpace(store)();
    expect(viaStatfs.where).toBe(store.location);
    expect(viaStatfs.totalBytes).toBeGreaterThan(0);
    expect(viaStatfs.freeBytes).toBeGreaterThan(0);
    expect(viaStatfs.freeBytes).toBeLessThanOrEqual(viaStatfs.totalBytes);
    const viaEngine = await engineDiskSpace(store.internal);
    expect(viaEngine.where).toMatch(/^disk /);
    expect(viaEngine.totalBytes).toBe(viaStatfs.totalBytes);
    // Other processes write meanwhile: the two readings agree within 1% of the disk.
    expect(Math.abs(viaEngine.freeBytes - viaStatfs.freeBytes)).toBeLessThan(viaStatfs.totalBytes / 100);
  });

  it('a directory that does not exist is a coded, retryable error', async () => {
    await expect(directorySpace('/nonexistent/feedpipe-disk-space')).rejects.toMatchObject({
      code: 'STORE_DISK_UNKNOWN',
      retryable: true,
    });
  });
});
