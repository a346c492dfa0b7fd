export { BACKUP_NAME, listBackups, newestBackup } from './backup/backup-chain.js';
export type { BackupJob } from './backup/backup-job.js';
export { type BackupOptions, type BackupResult, backupStore } from './backup/backup-store.js';
export { type RestoreOptions, type RestoreResult, restoreStore } from './backup/restore-store.js';
export {
  DEFAULT_INTERNAL_LANE,
  DEFAULT_USER_LANE,
  type StoreConfig,
  TTL_DELETES_ENV,
  type TtlDeletes,
  type UserAccount,
} from './config.js';
export { createStore } from './create-store.js';
export {
  type ClusterDdlFile,
  type ClusterDdlOptions,
  fileNameOf,
  generateClusterDdl,
  type MigrationSource,
  ON_CLUSTER,
  SCHEMA_MIGRATIONS_DDL,
} from './ddl/cluster-ddl.js';
export { CLUSTER_SHARDING_KEYS, shardingKeyColumns } from './ddl/sharding-keys.js';
export {
  type CreateTable,
  orderByColumns,
  parseCreateTable,
  splitStatements,
  squash,
} from './ddl/sql-statements.js';
export { type DiskSpace, directorySpace, engineDiskSpace, storeDiskSpace } from './disk-space.js';
export { ExclusiveLane, type LaneLimits, type LaneStats } from './embedded/exclusive-lane.js';
export { EMBEDDED_ENGINE_ALLOCATOR_ENV } from './engine-allocator.js';
export {
  chdbDirOf,
  STORE_CALLER_LOGIN_ENV,
  STORE_ENV,
  type StoreEnv,
  type StoreEnvValues,
  storeConfigFromEnv,
  storeConfigOf,
  storeUrlSecrets,
} from './env/store-env.js';
export { StoreError, type StoreErrorCode } from './errors.js';
export { fillTradeQuantities } from './fill/fill-trade-quantities.js';
export {
  DEFAULT_MIGRATIONS_DIR,
  loadMigrations,
  type Migration,
  type MigrationResult,
  readMigrationSources,
  runMigrations,
} from './migrations.js';
export {
  type QueryParam,
  type QueryParams,
  type QuerySettings,
  type SettingValue,
  STREAM_FORMATS,
  type StoreLane,
  type StreamFormat,
} from './port.js';
export {
  applyRetention,
  type RetentionChange,
  retentionStatement,
  ttlDaysOf,
} from './retention/apply-retention.js';
export { RETENTION_ENV, type RetentionEnv, retentionFromEnv } from './retention/retention-env.js';
export {
  defaultRetention,
  MAX_RETENTION_DAYS,
  RAW_FEED_DAYS,
  RETENTION_RULES,
  type RetentionPolicy,
  type RetentionRule,
} from './retention/retention-rules.js';
export { settingsClause } from './settings.js';
export type { LaneLoad, Store, StoreLoad, StoreMode } from './store.js';
