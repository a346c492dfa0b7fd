// Shared with the trading gateway (packages/service-http); re-exported so callers keep their imports.
export {
  API_KEY_HEADER,
  type ApiKeyInfo,
  ApiKeyStore,
  type LogSink,
  redactLogText,
} from '@feedpipe/service-http';
export type { InstrumentMatch, StaticInstrument } from './analytics/instrument-catalog.js';
export { createQueryApi, type QueryApi, type QueryApiDeps } from './app.js';
export { API_KEYS_TABLE, SCOPES, type Scope } from './auth/scopes.js';
export { jdbcUrlOf } from './clickhouse-http/jdbc-url.js';
export { type LogLevel, type QueryApiConfig, type ResolvedConfig, resolveConfig } from './config/config.js';
export { QUERY_API_ENV, type QueryApiEnv, queryApiEnv } from './config/env.js';
export { readInstrumentList } from './config/instrument-list.js';
export { isQueryApiError, QueryApiError, type QueryApiErrorCode } from './errors.js';
export { OUTPUT_FORMAT_NAMES, OUTPUT_FORMATS, type OutputFormat } from './query/formats.js';
export { MARKET_DATA_TABLES } from './sql/allowed-tables.js';
export { type GuardedSql, guardUserSql, SqlGuard, type SqlGuardLimits } from './sql/sql-guard.js';
export type { PipelineStatus, PipelineStatusSource } from './status-page/index.js';
