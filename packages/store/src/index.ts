export type { ClickHouseClient } from '@clickhouse/client';
export {
  createStore,
  DEFAULT_INTERNAL_LANE,
  DEFAULT_USER_LANE,
  type LaneLoad,
  type Store,
  type StoreConfig,
  type StoreLoad,
  type StoreMode,
  type UserAccount,
} from './client-factory.js';
export type { LaneLimits } from './embedded/exclusive-lane.js';
export { EMBEDDED_ENGINE_ALLOCATOR_ENV } from './engine-allocator.js';
export { StoreError, type StoreErrorCode } from './errors.js';
export { insertRows } from './insert.js';
export {
  DEFAULT_MIGRATIONS_DIR,
  loadMigrations,
  type Migration,
  type MigrationResult,
  runMigrations,
  splitStatements,
} from './migrations.js';
