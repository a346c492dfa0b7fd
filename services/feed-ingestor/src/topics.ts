/**
 * Kafka topics of the feed (ARCHITECTURE.md, stable): trades, OHLC, reference data (prev_close,
 * circuit_limit, week52) and status (market_status and feed errors). Names are configurable.
 */
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

/** Topic kind of a decoded record type; index order is used on the wire between threads. */
export const TOPIC_KINDS: readonly TopicKind[] = ['trades', 'ohlc', 'reference', 'status'];

export function topicKindOf(recordType: string): TopicKind {
  switch (recordType) {
    case 'trade':
      return 'trades';
    case 'ohlc':
      return 'ohlc';
    case 'prev_close':
    case 'circuit_limit':
    case 'week52':
      return 'reference';
    default:
      return 'status';
  }
}
