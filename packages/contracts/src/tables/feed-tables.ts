/**
 * The live-feed tables (packages/store/migrations/002_feed_tables.sql), written by
 * services/feed-sink and read by the query API. Every row keeps the Kafka partition, offset and
 * cluster it came from (the sink's exactly-once bookkeeping); test/tables.test.ts holds these
 * columns equal to the migration's.
 */
import type { TopicKind } from '../topics.js';
import { type TableContract, table } from './table.js';

/** The columns every feed table ends with, in this order: where the row came from in Kafka. */
export const KAFKA_SOURCE_COLUMNS = ['kafka_partition', 'kafka_offset', 'kafka_cluster'] as const;

export const FEED_TABLES = Object.freeze({
  ticks: table('market.ticks', [
    'security_id',
    'segment',
    'ltp',
    'volume',
    'quantity',
    'ltt',
    'lut',
    'received_at',
    ...KAFKA_SOURCE_COLUMNS,
  ]),
  ohlcUpdates: table('market.ohlc_updates', [
    'security_id',
    'segment',
    'open',
    'close',
    'high',
    'low',
    'received_at',
    ...KAFKA_SOURCE_COLUMNS,
  ]),
  /** prev_close: value1 = previous close; circuit_limit: upper, lower; week52: high, low. */
  referenceUpdates: table('market.reference_updates', [
    'security_id',
    'segment',
    'kind',
    'value1',
    'value2',
    'received_at',
    ...KAFKA_SOURCE_COLUMNS,
  ]),
  feedStatus: table('market.feed_status', [
    'type',
    'security_id',
    'segment',
    'market_type',
    'status',
    'error_code',
    'received_at',
    ...KAFKA_SOURCE_COLUMNS,
  ]),
  /** The ledger of gaps: `gap` records of the status topic (GAP_LAYOUT), migration 008. */
  feedGaps: table('market.feed_gaps', [
    'security_id',
    'segment',
    'subscription',
    'cause',
    'started_at',
    'ended_at',
    'connection',
    ...KAFKA_SOURCE_COLUMNS,
  ]),
  /** 1-minute bars of the ticks, kept by a materialized view (not written by a service). */
  bars1m: table('market.bars_1m', [
    'security_id',
    'minute',
    'open',
    'high',
    'low',
    'close',
    'vol_min',
    'vol_max',
    'trades',
    'quantity',
    'turnover',
    'open_exact',
    'close_exact',
  ]),
});

/** The table each feed topic is stored in. */
export const FEED_TABLE_OF_TOPIC: Readonly<Record<TopicKind, TableContract>> = Object.freeze({
  trades: FEED_TABLES.ticks,
  ohlc: FEED_TABLES.ohlcUpdates,
  reference: FEED_TABLES.referenceUpdates,
  status: FEED_TABLES.feedStatus,
});
