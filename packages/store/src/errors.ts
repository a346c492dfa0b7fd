import { CodedError } from '@feedpipe/errors';
export type StoreErrorCode =
  | 'STORE_CONFIG_INVALID'
  | 'CHDB_PATH_CONFLICT'
  | 'MIGRATION_FAILED'
  /** A migration file or folder that is not what the runner and the DDL generator read. */
  | 'MIGRATION_FILE_INVALID'
  /** A migration statement the cluster DDL generator has no rule for. */
  | 'DDL_UNSUPPORTED'
  /** A table of the migrations without a sharding key for the cluster. */
  | 'DDL_NO_SHARDING_KEY'
  /** A sharding key that would break a table's guarantees (see ddl/sharding-keys.ts). */
  | 'DDL_SHARDING_KEY_INVALID'
  | 'INSERT_FAILED'
  /** A statement the store refuses to send: a bad setting name or value, an unknown format. */
  | 'STORE_QUERY_INVALID'
  /** An embedded lane's queue is full, or a task waited longer than the lane allows (retryable). */
  | 'STORE_BUSY'
  /** The store was closed; nothing more runs on it. */
  | 'STORE_CLOSED'
  /** The embedded engine's process ended under a request (retryable: it is started again). */
  | 'STORE_ENGINE_LOST'
  /** The free space of the store's disk could not be read (retryable: the next check may). */
  | 'STORE_DISK_UNKNOWN'
  /** A BACKUP the engine refused or failed (backup/). */
  | 'BACKUP_FAILED'
  /** No complete backup where one was asked for (an empty directory, a wrong name). */
  | 'BACKUP_NOT_FOUND'
  /** A RESTORE the engine refused or failed. */
  | 'RESTORE_FAILED'
  /** The store to restore into already holds the market database (restore with `replace`). */
  | 'RESTORE_TARGET_NOT_EMPTY'
  /** A data rewrite of a migration (fill/: the ticks' quantities, the exact bars) met a partition it cannot name. */
  | 'FILL_FAILED';

/** The one error type of this package; `retryable` says whether trying again can help. */
export class StoreError extends CodedError<StoreErrorCode> {
  override readonly name = 'StoreError';
}

/** A failed insert: retryable, since the server or the data directory may come back. */
export function insertFailed(table: string, error: unknown): StoreError {
  return new StoreError('INSERT_FAILED', `insert into ${table} failed: ${(error as Error).message}`, {
    cause: error,
    retryable: true,
  });
}
