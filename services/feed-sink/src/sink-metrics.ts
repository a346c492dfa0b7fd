import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface SinkMetrics {
  consumed: Counter<'topic'>;
  rowsInserted: Counter<'table'>;
  replayedSkipped: Counter<'table'>;
  copiesDropped: Counter<'table'>;
  invalid: Counter<'topic'>;
  quantityDisagreements: Counter;
  insertFailures: Counter<'table'>;
  insertSeconds: Histogram<'table'>;
  bufferedRows: Gauge;
  lag: Gauge<'topic'>;
  consumerUp: Gauge;
  consumerCrashes: Counter<'error'>;
  consumerRejoins: Counter;
  consumerOutageSeconds: Histogram;
  storeFreeBytes: Gauge;
  storeFreeRatio: Gauge;
  writesPaused: Gauge;
  retentionHeadroomSeconds: Gauge<'topic'>;
  oldestUnconsumedAgeSeconds: Gauge<'topic'>;
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
    copiesDropped: new Counter({
      name: 'sink_source_copies_dropped_total',
      help: 'Records dropped because a record of the same source identity (fp-src header) was already read: a copy re-produced after a producer reset',
      labelNames: ['table'],
      registers,
    }),
    invalid: new Counter({
      name: 'sink_invalid_messages_total',
      help: 'Messages whose value was not a valid feed record (skipped)',
      labelNames: ['topic'],
      registers,
    }),
    quantityDisagreements: new Counter({
      name: 'sink_trade_quantity_disagreements_total',
      help: 'Trades whose published quantity (feed.trades@2) differs from the one the sink reckons and stores; 0 while the ingestor and the sink agree',
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
    consumerUp: new Gauge({
      name: 'sink_consumer_up',
      help: '1 while the sink consumer is in its group and fetching, 0 while it is down or rejoining (nothing is stored)',
      registers,
    }),
    consumerCrashes: new Counter({
      name: 'sink_consumer_crashes_total',
      help: 'Sink consumer outages (an error reported, retried until records flow again), by the error code that began them',
      labelNames: ['error'],
      registers,
    }),
    consumerRejoins: new Counter({
      name: 'sink_consumer_rejoins_total',
      help: 'Times the sink consumer was assigned partitions again after its first join (a rebalance or a lost session)',
      registers,
    }),
    consumerOutageSeconds: new Histogram({
      name: 'sink_consumer_outage_seconds',
      help: 'From a consumer error to its records flowing again: the time nothing was stored',
      buckets: [0.5, 1, 2, 5, 10, 20, 30, 45, 60, 120, 300],
      registers,
    }),
    ...diskAndRetentionGauges(registers),
  };
}

/** The disk guard's and the retention probe's gauges (kafka-sink.ts, retention-watch.ts). */
function diskAndRetentionGauges(
  registers: Registry[],
): Pick<
  SinkMetrics,
  | 'storeFreeBytes'
  | 'storeFreeRatio'
  | 'writesPaused'
  | 'retentionHeadroomSeconds'
  | 'oldestUnconsumedAgeSeconds'
> {
  return {
    storeFreeBytes: new Gauge({
      name: 'sink_store_free_bytes',
      help: "Free bytes of the store's disk (embedded: the chDB directory's file system; server: the system.disks disk with the least free space)",
      registers,
    }),
    storeFreeRatio: new Gauge({
      name: 'sink_store_free_ratio',
      help: "Free fraction (0-1) of the store's disk, as the disk guard reads it",
      registers,
    }),
    writesPaused: new Gauge({
      name: 'sink_store_writes_paused',
      help: '1 while the disk guard holds the sink (free space below STORE_MIN_FREE_*): nothing is fetched or inserted, Kafka keeps the feed',
      registers,
    }),
    retentionHeadroomSeconds: new Gauge({
      name: 'sink_kafka_retention_headroom_seconds',
      help: "Per topic, the least over its partitions of retention.ms less the age of the oldest record the sink has not committed: how long before Kafka's retention would delete unstored records (+Inf when nothing waits or retention is unlimited)",
      labelNames: ['topic'],
      registers,
    }),
    oldestUnconsumedAgeSeconds: new Gauge({
      name: 'sink_kafka_oldest_unconsumed_age_seconds',
      help: 'Per topic, the age of the oldest record the sink has not committed (0 when nothing waits)',
      labelNames: ['topic'],
      registers,
    }),
  };
}
