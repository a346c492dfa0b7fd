import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** What an operator asks first: request rate and outcomes, rows, queue depth, budget. */
export interface LoaderMetrics {
  requests: Counter<'endpoint' | 'outcome'>;
  rows: Counter<'table'>;
  units: Counter<'kind' | 'status'>;
  queueDepth: Gauge;
  inFlight: Gauge;
  budgetLeft: Gauge;
  unitSeconds: Histogram<'kind'>;
  flushSeconds: Histogram;
}

export function createLoaderMetrics(registry: Registry): LoaderMetrics {
  const registers = [registry];
  return {
    requests: new Counter({
      name: 'history_loader_requests_total',
      help: 'HTTP requests answered by the service (retries included), by endpoint and outcome (ok, throttled = 429, client_error, server_error, network)',
      labelNames: ['endpoint', 'outcome'],
      registers,
    }),
    rows: new Counter({
      name: 'history_loader_rows_written_total',
      help: 'Rows inserted into ClickHouse, by table',
      labelNames: ['table'],
      registers,
    }),
    units: new Counter({
      name: 'history_loader_units_total',
      help: 'Units of work finished, by kind and status (done, partial, failed, retry)',
      labelNames: ['kind', 'status'],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'history_loader_queue_depth',
      help: 'Units planned and not yet started',
      registers,
    }),
    inFlight: new Gauge({
      name: 'history_loader_in_flight',
      help: 'Units whose request is waiting or running',
      registers,
    }),
    budgetLeft: new Gauge({
      name: 'history_loader_budget_left',
      help: 'Data API requests left in the rolling day (100,000 per day less what this account spent)',
      registers,
    }),
    unitSeconds: new Histogram({
      name: 'history_loader_unit_seconds',
      help: 'Time per unit from start to rows in hand, pacing included',
      labelNames: ['kind'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    flushSeconds: new Histogram({
      name: 'history_loader_flush_seconds',
      help: 'Time per writer flush (all tables and checkpoints)',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
  };
}
