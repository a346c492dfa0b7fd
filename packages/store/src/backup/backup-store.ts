/**
 * A backup of the whole `market` database (every table, the sink's data with the Kafka offsets
 * each row carries, `schema_migrations`) into a new folder of one backup directory, incremental
 * on the newest backup there: ClickHouse's `base_backup` stores only the files that differ from
 * the base, and a MergeTree part is immutable, so a month whose parts did not change since the
 * base costs nothing; what is copied is the parts written or merged since (by partition, by part).
 *
 * Consistency. The sink resumes from the offsets stored in the rows themselves (feed-sink,
 * stored-offsets.ts: the highest offset per table and partition), not from Kafka's commits alone,
 * so a restored store resumes exactly where its own rows end and Kafka gives back the rest. Each
 * table's copy is a prefix of what the sink inserted into it. On embedded chDB the backup runs
 * while no other process has the data directory open (chDB locks it): nothing writes during it.
 * On a server the engine copies table after table while the sink may insert: every table is still
 * a prefix of its partitions, and the sink takes the lowest mark of a topic's tables; only the
 * 1-minute bars (filled by a view from the ticks) can then differ from the ticks by the minutes
 * inserted during the backup. Stop the sink for a server backup that must be exact to the bar.
 */
import type { Store } from '../store.js';
import { checkedName, newestBackup, nextBackupName } from './backup-chain.js';
import { type BackupJob, fileTarget, runBackupJob } from './backup-job.js';

export const BACKUP_DATABASE = 'market';

export interface BackupOptions {
  /** The backup directory as the engine sees it (absolute). */
  dir: string;
  /**
   * The base: a backup name in `dir`, `none` for a full backup, or unset for the newest complete
   * backup found in `dir` (read locally; a server's directory must be mounted here to be found).
   */
  base?: string | undefined;
  /** Longest wait for the engine to finish (ms). Default 6 hours. */
  timeoutMs?: number | undefined;
  /** The clock that names the backup. */
  now?: () => Date;
}

export interface BackupResult extends BackupJob {
  /** The new backup's folder name in `dir`. */
  name: string;
  /** Its base, or null for a full backup. */
  base: string | null;
}

export async function backupStore(store: Store, options: BackupOptions): Promise<BackupResult> {
  const base = options.base === 'none' ? undefined : (options.base ?? newestBackup(options.dir));
  const name = nextBackupName(options.dir, (options.now ?? (() => new Date()))());
  const target = fileTarget(`${options.dir}/${name}`);
  const settings =
    base === undefined ? '' : ` SETTINGS base_backup = ${fileTarget(`${options.dir}/${checkedName(base)}`)}`;
  const job = await runBackupJob(
    store.internal,
    `BACKUP DATABASE ${BACKUP_DATABASE} TO ${target}${settings} ASYNC`,
    'BACKUP_CREATED',
    'BACKUP_FAILED',
    options.timeoutMs ?? 6 * 3_600_000,
  );
  return { ...job, name, base: base ?? null };
}
