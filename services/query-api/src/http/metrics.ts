/**
 * Prometheus metrics of the query API: the shared HTTP metrics under `query_api_` (with the process
 * metrics when asked), and what only this service counts (response cache, queries sent to the store, live stream).
 */
import { createHttpMetrics, type HttpMetrics } from '@feedpipe/service-http';
import { Counter, Gauge, Histogram } from 'prom-client';

export interface ApiMetrics extends HttpMetrics {
  readonly cacheHits: Counter<'result'>;
  readonly storeQueries: Counter<'lane'>;
  readonly barsBatch: Histogram;
  readonly streamClients: Gauge;
  readonly streamDropped: Counter;
}

export const METRIC_PREFIX = 'query_api_';

export function createMetrics(withDefaults: boolean): ApiMetrics {
  const http = createHttpMetrics({ prefix: METRIC_PREFIX, processMetrics: withDefaults });
  const registers = [http.registry];
  return {
    ...http,
    cacheHits: new Counter({
      name: `${METRIC_PREFIX}cache_lookups_total`,
      help: 'Response cache lookups: hit, miss, shared (joined an identical in-flight query)',
      labelNames: ['result'],
      registers,
    }),
    storeQueries: new Counter({
      name: `${METRIC_PREFIX}store_queries_total`,
      help: "Queries sent to ClickHouse, by store lane: user (for callers) or internal (the API's own lookups)",
      labelNames: ['lane'],
      registers,
    }),
    barsBatch: new Histogram({
      name: `${METRIC_PREFIX}bars_batch_requests`,
      help: 'Bars requests answered by one statement (folded while the engine was busy)',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers,
    }),
    streamClients: new Gauge({
      name: `${METRIC_PREFIX}stream_clients`,
      help: 'Connected live-stream clients',
      registers,
    }),
    streamDropped: new Counter({
      name: `${METRIC_PREFIX}stream_dropped_events_total`,
      help: 'Live events dropped because a client read too slowly',
      registers,
    }),
  };
}
