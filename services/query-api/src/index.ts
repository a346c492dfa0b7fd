export { createQueryApi, type QueryApi, type QueryApiDeps } from './app.js';
export { jdbcUrlOf } from './clickhouse-http/jdbc-url.js';
export { type LogLevel, type QueryApiConfig, type ResolvedConfig, resolveConfig } from './config/config.js';
export { QUERY_API_ENV, type QueryApiEnv, queryApiEnv } from './config/env.js';
export { readInstrumentList } from './config/instrument-list.js';
export { isQueryApiError, QueryApiError, type QueryApiErrorCode } from './errors.js';
export { MARKET_DATA_TABLES } from './sql/allowed-tables.js';
export type { PipelineStatus, PipelineStatusSource } from './status-page/index.js';
