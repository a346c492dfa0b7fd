export {
  DEFAULT_INTERNAL_LANE,
  DEFAULT_USER_LANE,
  type StoreConfig,
  type UserAccount,
} from './config.js';
export { createStore } from './create-store.js';
export { type DiskSpace, directorySpace, engineDiskSpace, storeDiskSpace } from './disk-space.js';
export { ExclusiveLane, type LaneLimits, type LaneStats } from './embedded/exclusive-lane.js';
export { EMBEDDED_ENGINE_ALLOCATOR_ENV } from './engine-allocator.js';
export { StoreError, type StoreErrorCode } from './errors.js';
export {
  DEFAULT_MIGRATIONS_DIR,
  loadMigrations,
  type Migration,
  type MigrationResult,
  runMigrations,
  splitStatements,
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
export { settingsClause } from './settings.js';
export type { LaneLoad, Store, StoreLoad, StoreMode } from './store.js';
