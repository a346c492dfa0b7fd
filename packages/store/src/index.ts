export type { ClickHouseClient } from '@clickhouse/client';
export { createStore, type Store, type StoreConfig, type StoreMode } from './client-factory.js';
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
