/** What every route module gets: configuration, the query runner, caches, metrics, optional deps. */
import type { BrokerClient } from '@feedpipe/broker-api';
import type { InstrumentCatalog } from './analytics/instrument-catalog.js';
import type { ApiKeyStore } from './auth/api-keys.js';
import type { ResolvedConfig } from './config/config.js';
import type { ApiMetrics } from './http/metrics.js';
import type { QueryRunner } from './query/query-runner.js';
import type { ResultCache } from './query/result-cache.js';

export interface ApiContext {
  readonly config: ResolvedConfig;
  readonly runner: QueryRunner;
  readonly cache: ResultCache;
  readonly metrics: ApiMetrics;
  readonly keys: ApiKeyStore;
  readonly instruments: InstrumentCatalog;
  readonly broker: BrokerClient | undefined;
  readonly now: () => number;
}
