/** What every route module gets: configuration, the query runner, caches, metrics, keys. */

import type { ApiKeyStore } from '@feedpipe/service-http';
import type { BarsFolder } from './analytics/bars-folding.js';
import type { InstrumentCatalog } from './analytics/instrument-catalog.js';
import type { Scope } from './auth/scopes.js';
import type { ResolvedConfig } from './config/config.js';
import type { HotTier } from './hot-tier/hot-tier.js';
import type { HotTierMetrics } from './hot-tier/hot-tier-metrics.js';
import type { ApiMetrics } from './http/metrics.js';
import type { QueryRunner } from './query/query-runner.js';
import type { ResultCache } from './query/result-cache.js';

export interface ApiContext {
  readonly config: ResolvedConfig;
  readonly runner: QueryRunner;
  /** Bars requests folded into shared statements (text formats). */
  readonly bars: BarsFolder;
  readonly cache: ResultCache;
  readonly metrics: ApiMetrics;
  readonly keys: ApiKeyStore<Scope>;
  readonly instruments: InstrumentCatalog;
  readonly now: () => number;
  /** Recent bars in memory, when configured (hot-tier/); bars routes ask it first. */
  readonly hot: { readonly tier: HotTier | undefined; readonly metrics: HotTierMetrics };
}
