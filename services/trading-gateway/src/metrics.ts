/**
 * Prometheus metrics of the trading gateway: the shared HTTP metrics under `trading_gateway_` (with
 * the process metrics when asked) and the order requests by action and outcome. The order counter
 * and the postback receiver's metrics (postbacks/receiver-metrics.ts) keep the names they had when
 * they lived in the query API (`query_api_order_requests_total`, `query_api_postback_*`), so
 * existing dashboards, alerts and recording rules keep working across the split.
 */
import { createHttpMetrics, type HttpMetrics } from '@feedpipe/service-http';
import { Counter } from 'prom-client';
import { createFillMetrics, type FillMetrics } from './fills/fill-metrics.js';

export const GATEWAY_METRIC_PREFIX = 'trading_gateway_';

export interface GatewayMetrics extends HttpMetrics {
  readonly orders: Counter<'action' | 'outcome'>;
  /** The fill recorder's and the end-of-day snapshots' (`trading_gateway_fill*`, `_account_snapshots_total`). */
  readonly fills: FillMetrics;
}

export function createGatewayMetrics(processMetrics: boolean): GatewayMetrics {
  const http = createHttpMetrics({ prefix: GATEWAY_METRIC_PREFIX, processMetrics });
  return {
    ...http,
    orders: new Counter({
      name: 'query_api_order_requests_total',
      help: 'Order requests by action and outcome',
      labelNames: ['action', 'outcome'],
      registers: [http.registry],
    }),
    fills: createFillMetrics(http.registry, GATEWAY_METRIC_PREFIX),
  };
}
