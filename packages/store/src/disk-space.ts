/**
 * Free space where the store keeps its data, for the disk guard of the processes that write
 * (service-kit's DiskGuard): embedded chDB asks the file system of its data directory (statfs);
 * a server is asked through `system.disks`, since its disks are not ours to stat.
 */
import { statfs } from 'node:fs/promises';
import { StoreError } from './errors.js';
import type { StoreLane } from './port.js';
import type { Store } from './store.js';

export interface DiskSpace {
  /** Bytes a write may still use (for statfs: blocks available to an unprivileged user). */
  freeBytes: number;
  totalBytes: number;
  /** What was measured: the directory, or the server disk's name. */
  where: string;
}

/** Bytes free and in total of the file system that holds `dir`. */
export async function directorySpace(dir: string): Promise<DiskSpace> {
  try {
    const s = await statfs(dir);
    return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize, where: dir };
  } catch (error) {
    throw new StoreError('STORE_DISK_UNKNOWN', `free space of ${dir}: ${(error as Error).message}`, {
      cause: error,
      retryable: true,
    });
  }
}

interface DiskRow {
  name: string;
  free: number | string;
  total: number | string;
}

/**
 * The server disk with the least free space: a server may have several (a policy with a hot and a
 * cold volume) and the first to fill stops the inserts that land on it. Disks of total 0 (remote
 * object storage reports no size) are left out.
 */
export async function engineDiskSpace(lane: StoreLane): Promise<DiskSpace> {
  let rows: DiskRow[];
  try {
    rows = await lane.rows<DiskRow>(
      'SELECT name, free_space AS free, total_space AS total FROM system.disks WHERE total_space > 0',
    );
  } catch (error) {
    throw new StoreError('STORE_DISK_UNKNOWN', `system.disks: ${(error as Error).message}`, {
      cause: error,
      retryable: true,
    });
  }
  let least: DiskSpace | undefined;
  for (const row of rows) {
    const space = { freeBytes: Number(row.free), totalBytes: Number(row.total), where: `disk ${row.name}` };
    if (least === undefined || space.freeBytes < least.freeBytes) least = space;
  }
  if (least === undefined) throw new StoreError('STORE_DISK_UNKNOWN', 'system.disks lists no sized disk');
  return least;
}

/** A probe of the store's free space: statfs of the chDB directory, or the server's system.disks. */
export function storeDiskSpace(store: Store): () => Promise<DiskSpace> {
  return store.mode === 'embedded'
    ? () => directorySpace(store.location)
    : () => engineDiskSpace(store.internal);
}
