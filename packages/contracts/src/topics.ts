/**
 * Kafka topics of the pipeline (docs/architecture.md, stable). The feed's four: trades, OHLC,
 * reference data (prev_close, circuit_limit, week52) and status (market_status and feed errors),
 * written by services/feed-ingestor and read by services/feed-sink; and the order-updates topic
 * written by the postback receiver. Names are configurable; these are the defaults.
 */
import type { FeedRecordType } from './records.js';

export interface FeedTopics {
  trades: string;
  ohlc: string;
  reference: string;
  status: string;
}

export const DEFAULT_FEED_TOPICS: Readonly<FeedTopics> = Object.freeze({
  trades: 'feed.trades',
  ohlc: 'feed.ohlc',
  reference: 'feed.reference',
  status: 'feed.status',
});

/** Default topic of order updates (postbacks and reconciled transitions), keyed by order id. */
export const DEFAULT_ORDER_UPDATES_TOPIC = 'orders.updates';

export type TopicKind = keyof FeedTopics;

/** Topics named `<prefix>.<kind>` (`<prefix>.trades`, ...): separate topic sets for tests and benchmarks. */
export function prefixedTopics(prefix: string): FeedTopics {
  return {
    trades: `${prefix}.trades`,
    ohlc: `${prefix}.ohlc`,
    reference: `${prefix}.reference`,
    status: `${prefix}.status`,
  };
}

/** The topic kinds; index order is used on the wire between threads. */
export const TOPIC_KINDS: readonly TopicKind[] = ['trades', 'ohlc', 'reference', 'status'];

/** Which topic each record type is produced to. */
export const TOPIC_KIND_OF_RECORD: Readonly<Record<FeedRecordType, TopicKind>> = Object.freeze({
  trade: 'trades',
  ohlc: 'ohlc',
  prev_close: 'reference',
  circuit_limit: 'reference',
  week52: 'reference',
  market_status: 'status',
  error: 'status',
});

/** Topic kind of a record type; a type this contract does not name goes to the status topic. */
export function topicKindOf(recordType: string): TopicKind {
  return Object.hasOwn(TOPIC_KIND_OF_RECORD, recordType)
    ? TOPIC_KIND_OF_RECORD[recordType as FeedRecordType]
    : 'status';
}
