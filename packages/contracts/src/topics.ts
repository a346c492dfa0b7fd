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

/** Default topic of snapshot quotes with depth (the quote poller), keyed by security id. */
export const DEFAULT_QUOTES_TOPIC = 'feed.quotes';

/**
 * Partitions each feed topic is created with: records are keyed by instrument, so partitions bound
 * how many sink consumers share a topic (12 leaves room for a few per core on a small cluster).
 */
export const FEED_TOPIC_PARTITIONS = 12;

/** Partitions of the order-updates topic: keyed by order id, a trickle next to the feed. */
export const ORDER_UPDATES_PARTITIONS = 3;

/** Partitions of the quotes topic: at most 1,000 quotes a second, one poller writes them. */
export const QUOTES_PARTITIONS = 3;

/** A topic of the contract and the partitions it is created with. */
export interface ContractTopic {
  name: string;
  partitions: number;
}

/**
 * Every topic of the contract (the feed's four, order updates and quotes), by the names in use, with the
 * partitions each is created with. What a deployment creates before any producer writes, so that
 * a consumer started first finds every topic (none appears only with its first record).
 */
export function contractTopics(
  feed: Readonly<FeedTopics> = DEFAULT_FEED_TOPICS,
  orderUpdates: string = DEFAULT_ORDER_UPDATES_TOPIC,
  quotes: string = DEFAULT_QUOTES_TOPIC,
): ContractTopic[] {
  return [
    ...TOPIC_KINDS.map((kind) => ({ name: feed[kind], partitions: FEED_TOPIC_PARTITIONS })),
    { name: orderUpdates, partitions: ORDER_UPDATES_PARTITIONS },
    { name: quotes, partitions: QUOTES_PARTITIONS },
  ];
}

export type TopicKind = keyof FeedTopics;

/** Topics named `<prefix>.<kind>` (`<prefix>.trades`, ...): separate topic sets for tests and benchmarks. */
export function prefixedTopics(prefix: string): FeedTopics {
  return Object.fromEntries(TOPIC_KINDS.map((kind) => [kind, `${prefix}.${kind}`])) as Record<
    TopicKind,
    string
  >;
}

/** The topic kinds; index order is used on the wire between threads. */
export const TOPIC_KINDS = ['trades', 'ohlc', 'reference', 'status'] as const satisfies readonly TopicKind[];

// Every kind of FeedTopics is in TOPIC_KINDS: a fifth topic added to one and not the other fails here.
const EVERY_KIND_LISTED: Exclude<TopicKind, (typeof TOPIC_KINDS)[number]> extends never ? true : never = true;
void EVERY_KIND_LISTED;

/**
 * One value per topic kind, in TOPIC_KINDS order: counts per kind passed between threads as a
 * tuple, derived from the list so its length cannot fall out of step with it.
 */
export type PerTopicKind<T> = Each<typeof TOPIC_KINDS, T>;
// Mapped over a type parameter, so TypeScript keeps the tuple (over a concrete tuple it would not).
type Each<Tuple extends readonly unknown[], T> = { -readonly [I in keyof Tuple]: T };

/** A PerTopicKind with `value` for every kind. */
export function perTopicKind<T>(value: T): PerTopicKind<T> {
  return TOPIC_KINDS.map(() => value) as PerTopicKind<T>;
}

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
