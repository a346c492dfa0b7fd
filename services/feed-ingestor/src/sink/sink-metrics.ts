import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface SinkMetrics {
  consumed: Counter<'topic'>;
  rowsInserted: Counter<'table'>;
  replayedSkipped: Counter<'table'>;
  invalid: Counter<'topic'>;
  insertFailures: Counter<'table'>;
  insertSeconds: Histogram<'table'>;
  bufferedRows: Gauge;
  lag: Gauge<'topic'>;
}

export function createSinkMetrics(registry: Registry): SinkMetrics {
  const registers = [registry];
  return {
    consumed: new Counter({
      name: 'sink_messages_consumed_total',
      help: 'Kafka messages read by the sink',
      labelNames: ['topic'],
      registers,
    }),
    rowsInserted: new Counter({
      name: 'sink_rows_inserted_total',
      help: 'Rows inserted into ClickHouse',
      labelNames: ['table'],
      registers,
    }),
    replayedSkipped: new Counter({
      name: 'sink_replayed_skipped_total',
      help: 'Messages skipped because their offset was already stored (replay after a crash or rebalance)',
      labelNames: ['table'],
      registers,
    }),
    invalid: new Counter({
      name: 'sink_invalid_messages_total',
      help: 'Messages whose value was not a valid feed record (skipped)',
      labelNames: ['topic'],
      registers,
    }),
    insertFailures: new Counter({
      name: 'sink_insert_failures_total',
      help: 'Failed insert attempts (retried with backoff; rows stay buffered)',
      labelNames: ['table'],
      registers,
    }),
    insertSeconds: new Histogram({
      name: 'sink_insert_seconds',
      help: 'Duration of one batched insert',
      labelNames: ['table'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    bufferedRows: new Gauge({
      name: 'sink_buffered_rows',
      help: 'Rows waiting for the next insert',
      registers,
    }),
    lag: new Gauge({
      name: 'sink_consumer_lag',
      help: 'Messages in Kafka not yet committed by the sink, per topic',
      labelNames: ['topic'],
      registers,
    }),
  };
}
