/**
 * The schema every Kafka record names in its `fp-schema` header, so a consumer in any language can
 * pick the JSON Schema (packages/contracts/schemas) that describes the record's value without
 * knowing the topic's configured name. The value is `<schema name>@<version>`; the version grows
 * with every change of a record's fields (the schemas allow no field they do not name). A field is
 * only ever added, optional in the version that adds it, and every earlier version stays published
 * (record-schemas/catalog.ts): the topics hold records written under it until retention, and a
 * consumer built against it reads in a newer record every field it knows, unchanged.
 */
import type { TopicKind } from './topics.js';

export const SCHEMA_HEADER = 'fp-schema';

/**
 * Schema id (header value) of each feed topic kind's records as written now. feed.trades@2 added
 * the trade's traded quantity (record-layout.ts, QUANTITY_FIELD).
 */
export const FEED_SCHEMA_IDS: Readonly<Record<TopicKind, string>> = Object.freeze({
  trades: 'feed.trades@2',
  ohlc: 'feed.ohlc@1',
  reference: 'feed.reference@1',
  status: 'feed.status@1',
});

/** Schema id (header value) of the order-updates topic's records. */
export const ORDER_UPDATE_SCHEMA_ID = 'orders.updates@1';

/** Schema id (header value) of the quotes topic's records. */
export const QUOTE_SCHEMA_ID = 'feed.quotes@1';
