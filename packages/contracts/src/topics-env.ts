/**
 * The feed topics' variables, defined once for every part that writes or reads them (the ingestor,
 * its replay, the sink, the query API's live stream), so a renamed topic is renamed for all of
 * them. A plain object of the env-schema shape (packages/config), spread into each service's
 * schema: this package stays a leaf.
 */
import { DEFAULT_FEED_TOPICS, type FeedTopics, TOPIC_KINDS } from './topics.js';

export const FEED_TOPICS_ENV = {
  TOPIC_TRADES: {
    type: 'string',
    default: DEFAULT_FEED_TOPICS.trades,
    description: 'topic of trade records',
  },
  TOPIC_OHLC: { type: 'string', default: DEFAULT_FEED_TOPICS.ohlc, description: 'topic of OHLC records' },
  TOPIC_REFERENCE: {
    type: 'string',
    default: DEFAULT_FEED_TOPICS.reference,
    description: 'topic of prev_close, circuit_limit, week52',
  },
  TOPIC_STATUS: {
    type: 'string',
    default: DEFAULT_FEED_TOPICS.status,
    description: 'topic of market status and feed errors',
  },
} as const;

/** The checked values of FEED_TOPICS_ENV, as a service's env reader gives them. */
export type FeedTopicsEnvValues = Readonly<Record<keyof typeof FEED_TOPICS_ENV, string>>;

/** The feed's topics from the checked variables. */
export function feedTopicsOf(values: FeedTopicsEnvValues): FeedTopics {
  return {
    trades: values.TOPIC_TRADES,
    ohlc: values.TOPIC_OHLC,
    reference: values.TOPIC_REFERENCE,
    status: values.TOPIC_STATUS,
  };
}

/** What is wrong with the four names together, if anything: one topic must not carry two kinds. */
export function feedTopicsProblem(topics: Readonly<FeedTopics>): string | undefined {
  return new Set(TOPIC_KINDS.map((kind) => topics[kind])).size === TOPIC_KINDS.length
    ? undefined
    : 'the four TOPIC_* names must differ';
}
