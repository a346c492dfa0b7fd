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
  storeFreeBytes: Gauge;
  storeFreeRatio: Gauge;
  writesPaused: Gauge;
  nextRun: Gauge;
  scheduledRuns: Counter<'state'>;
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
    storeFreeBytes: new Gauge({
      name: 'history_loader_store_free_bytes',
      help: "Free bytes of the store's disk, as the loader's disk guard reads it",
      registers,
    }),
    storeFreeRatio: new Gauge({
      name: 'history_loader_store_free_ratio',
      help: "Free fraction (0-1) of the store's disk, as the loader's disk guard reads it",
      registers,
    }),
    writesPaused: new Gauge({
      name: 'history_loader_store_writes_paused',
      help: "1 while the disk guard holds the loader's writes (free space below STORE_MIN_FREE_*): requests wait, nothing is lost",
      registers,
    }),
    nextRun: new Gauge({
      name: 'history_loader_next_run_timestamp_seconds',
      help: "Scheduled mode: unix time of the next run (after the next trading day's close of the universe's segments); 0 while a run is under way",
      registers,
    }),
    scheduledRuns: new Counter({
      name: 'history_loader_scheduled_runs_total',
      help: 'Scheduled mode: runs finished, by their final state (done, bounded, budget_exhausted, stopped, failed)',
      labelNames: ['state'],
      registers,
    }),
  };
}
