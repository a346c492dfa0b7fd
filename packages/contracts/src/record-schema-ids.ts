/**
 * The schema every Kafka record names in its `fp-schema` header, so a consumer in any language can
 * pick the JSON Schema (packages/contracts/schemas) that describes the record's value without
 * knowing the topic's configured name. The value is `<schema name>@<version>`; the version grows
 * only on an incompatible change of the record layout.
 */
import type { TopicKind } from './topics.js';

export const SCHEMA_HEADER = 'fp-schema';

/** Schema id (header value) of each feed topic kind's records. */
export const FEED_SCHEMA_IDS: Readonly<Record<TopicKind, string>> = Object.freeze({
  trades: 'feed.trades@1',
  ohlc: 'feed.ohlc@1',
  reference: 'feed.reference@1',
  status: 'feed.status@1',
});

/** Schema id (header value) of the order-updates topic's records. */
export const ORDER_UPDATE_SCHEMA_ID = 'orders.updates@1';

/** Schema id (header value) of the quotes topic's records. */
export const QUOTE_SCHEMA_ID = 'feed.quotes@1';
