/**
 * Restores the `market` database from a backup of backup-store.ts (its chain of bases is followed
 * by the engine) into a store that does not hold it yet: a new data directory, a fresh server, or,
 * with `replace`, one whose `market` database is dropped first. Data comes back as parts attached
 * to their tables: views do not fire, so the 1-minute bars are restored as they were, not rebuilt
 * twice from the restored ticks. Run the migrations afterwards (a backup of an older schema is
 * brought forward like any store), then start the sink: it resumes from the offsets in the
 * restored rows and reads the rest again from Kafka.
 */
import { StoreError } from '../errors.js';
import type { Store } from '../store.js';
import { checkedName, newestBackup } from './backup-chain.js';
import { type BackupJob, fileTarget, runBackupJob } from './backup-job.js';
import { BACKUP_DATABASE } from './backup-store.js';

export interface RestoreOptions {
  /** The backup directory as the engine sees it (absolute). */
  dir: string;
  /** The backup to restore; unset: the newest complete one in `dir` (read locally). */
  name?: string | undefined;
  /** Drop an existing `market` database first. Default false: refuse with RESTORE_TARGET_NOT_EMPTY. */
  replace?: boolean | undefined;
  /** Longest wait for the engine to finish (ms). Default 6 hours. */
  timeoutMs?: number | undefined;
}

export interface RestoreResult extends BackupJob {
  name: string;
}

export async function restoreStore(store: Store, options: RestoreOptions): Promise<RestoreResult> {
  const name = options.name ?? newestBackup(options.dir);
  if (name === undefined) {
    throw new StoreError('BACKUP_NOT_FOUND', `no complete backup in ${options.dir}`);
  }
  const source = fileTarget(`${options.dir}/${checkedName(name)}`);
  const lane = store.internal;
  const [existing] = await lane.rows<{ n: number | string }>(
    'SELECT count() AS n FROM system.databases WHERE name = {db:String}',
    { db: BACKUP_DATABASE },
  );
  if (Number(existing?.n) > 0) {
    if (!options.replace) {
      throw new StoreError(
        'RESTORE_TARGET_NOT_EMPTY',
        `the store already has a ${BACKUP_DATABASE} database; restore into an empty store, or replace it (drops it first)`,
      );
    }
    await lane.command(`DROP DATABASE ${BACKUP_DATABASE} SYNC`);
  }
  const job = await runBackupJob(
    lane,
    `RESTORE DATABASE ${BACKUP_DATABASE} FROM ${source} ASYNC`,
    'RESTORED',
    'RESTORE_FAILED',
    options.timeoutMs ?? 6 * 3_600_000,
  );
  return { ...job, name };
}
