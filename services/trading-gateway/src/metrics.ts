/**
 * Prometheus metrics of the trading gateway, all under `trading_gateway_`: the shared HTTP metrics
 * (with the process metrics when asked), the order requests by action and outcome, the fills and
 * snapshots (fills/fill-metrics.ts), and the postback receiver's (postbacks/receiver-metrics.ts,
 * `trading_gateway_postback_*`). The order counter and the postback metrics were named
 * `query_api_*` while they lived in the query API; the dashboard and alerts use the new names.
 */
import { createHttpMetrics, type HttpMetrics } from '@feedpipe/service-http';
import { Counter, Histogram } from 'prom-client';
import { createFillMetrics, type FillMetrics } from './fills/fill-metrics.js';

export const GATEWAY_METRIC_PREFIX = 'trading_gateway_';

export interface GatewayMetrics extends HttpMetrics {
  readonly orders: Counter<'action' | 'outcome'>;
  /** Each store statement of the order path, by what it is for (orders/timed-store.ts). */
  readonly orderStore: Histogram<'statement'>;
  /** Where an order request's time goes inside the desk, by phase (orders/order-desk.ts). */
  readonly orderPhases: Histogram<'phase'>;
  /** The fill recorder's and the end-of-day snapshots' (`trading_gateway_fill*`, `_account_snapshots_total`). */
  readonly fills: FillMetrics;
}

export function createGatewayMetrics(processMetrics: boolean): GatewayMetrics {
  const http = createHttpMetrics({ prefix: GATEWAY_METRIC_PREFIX, processMetrics });
  return {
    ...http,
    orders: new Counter({
      name: `${GATEWAY_METRIC_PREFIX}order_requests_total`,
      help: 'Order requests by action and outcome',
      labelNames: ['action', 'outcome'],
      registers: [http.registry],
    }),
    orderStore: new Histogram({
      name: `${GATEWAY_METRIC_PREFIX}order_store_seconds`,
      help: 'Store statements of the order path (audit, instruments, owners) by statement, in seconds',
      labelNames: ['statement'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [http.registry],
    }),
    orderPhases: new Histogram({
      name: `${GATEWAY_METRIC_PREFIX}order_phase_seconds`,
      help: 'Time of an order request in the desk by phase: history (idempotency), checks (ownership, kill switch, pre-trade), audit (its rows made durable), upstream (the call to the service)',
      labelNames: ['phase'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [http.registry],
    }),
    fills: createFillMetrics(http.registry, GATEWAY_METRIC_PREFIX),
  };
}
